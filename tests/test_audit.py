"""`make audit` is Lighthouse CI (`lhci autorun`) as lighthouserc.json configures it: it audits every page of the
built site (`make audit` itself runs Lighthouse and holds each page to its goals)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support import ROOT


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return json.loads((ROOT / "lighthouserc.json").read_text(encoding="utf-8"))["ci"]


def autodiscovered(site: Path, depth: int) -> set[str]:
    """The pages `lhci collect` finds in `site`: HTML files at most `depth` folders down, in folders whose
    names hold no dot (Lighthouse CI's rule, in its FallbackServer.readHtmlFilesInDirectory)."""
    pages = set()
    for page in site.rglob("*.htm*"):
        folders = page.relative_to(site).parts[:-1]
        if page.suffix in (".html", ".htm") and len(folders) <= depth and not any("." in f for f in folders):
            pages.add(page.relative_to(site).as_posix())
    return pages


@pytest.mark.slow
def test_every_page_of_the_built_site_is_audited(config: dict[str, Any], built_site: Path) -> None:
    collect = config["collect"]
    assert collect["staticDistDir"] == "site"  # served compressed by Lighthouse CI's own server, as Pages does
    assert collect["maxAutodiscoverUrls"] == 0, "0 lifts Lighthouse CI's limit of 5 pages"
    assert "url" not in collect and "autodiscoverUrlBlocklist" not in collect
    pages = {page.relative_to(built_site).as_posix() for page in built_site.rglob("*.html")}
    assert {"index.html", "404.html", "tokenization/index.html", "notebooks/tokenization/index.html"} <= pages
    missed = pages - autodiscovered(built_site, collect["staticDirFileDiscoveryDepth"])
    assert not missed, f"lhci would not audit {sorted(missed)}: raise staticDirFileDiscoveryDepth in lighthouserc.json"
