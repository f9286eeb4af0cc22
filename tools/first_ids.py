"""How long Part 1's "Try it" box takes from the reader's first keystroke to its first ids, in Chromium.

`python -m tools.first_ids` (after `make site`) serves the built site as `make audit` does, opens the page with
the box in a new context each round (an empty cache, as on a first visit), scrolls to the box, then times from the
keystroke that moves into its text, and starts fetching vocab.json and merges.txt, to the ids it shows. It prints
the median and the slowest of the rounds on loopback, with the processor slowed down four times as Lighthouse's
mobile runs slow it, and over a throttled network. A measurement to read, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, sync_playwright

from tools.chromium import NoChromium, chromium
from tools.local_site import served

ROOT = Path(__file__).resolve().parents[1]
# Moves into the box's text, types one character, and resolves with the milliseconds until the ids show.
FIRST_IDS = """() => new Promise(resolve => {
  const text = document.querySelector(".try-tokenizer__box textarea");
  const ids = document.querySelector(".try-tokenizer__ids").parentElement;
  const start = performance.now();
  new MutationObserver((_, observer) => {
    if (!ids.hidden) {
      observer.disconnect();
      resolve(performance.now() - start);
    }
  }).observe(ids, {attributes: true});
  text.focus();
  text.value += "x";
  text.dispatchEvent(new Event("input", {bubbles: true}));
})"""
# (what it is, the processor's slow-down, the network's conditions for the DevTools protocol or None)
CONDITIONS: list[tuple[str, int, dict[str, Any] | None]] = [
    ("loopback", 1, None),
    ("loopback, processor 4x slower", 4, None),
    (
        "10 Mbit/s down, 40 ms round trips",
        1,
        {"offline": False, "latency": 40, "downloadThroughput": 1.25e6, "uploadThroughput": 0.6e6},
    ),
]


def first_ids(browser: Browser, url: str, slowdown: int, network: dict[str, Any] | None) -> float:
    with browser.new_context() as context:
        page = context.new_page()
        devtools = context.new_cdp_session(page)
        devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})
        if network:
            devtools.send("Network.emulateNetworkConditions", network)
        page.goto(url, wait_until="networkidle")
        page.locator(".try-tokenizer").evaluate("place => place.previousElementSibling.scrollIntoView()")
        page.locator(".try-tokenizer__box").wait_for()
        devtools.send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
        return page.evaluate(FIRST_IDS)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.first_ids", description=__doc__)
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default: site/)")
    parser.add_argument("--page", default="tokenization/", help="the page with the box (default: tokenization/)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per condition (default: 5)")
    arguments = parser.parse_args(argv)
    try:
        executable = chromium()
    except NoChromium as error:
        parser.exit(1, f"{error}\n")
    with (
        served(arguments.site) as base,
        sync_playwright() as playwright,
        playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"]) as browser,
    ):
        url = base + arguments.page
        first_ids(browser, url, 1, None)  # the server compresses each file once, as a static host has it ready
        for label, slowdown, network in CONDITIONS:
            times = [first_ids(browser, url, slowdown, network) for _ in range(arguments.rounds)]
            print(f"{label}: median {statistics.median(times):.0f} ms, slowest {max(times):.0f} ms")


if __name__ == "__main__":
    main()
