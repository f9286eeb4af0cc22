"""Medians, the ratios with their goals, the printed table and bench/results.json."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from bench.measure import Sample

RESULTS = Path(__file__).with_name("results.json")


@dataclass(frozen=True)
class Ratio:
    name: str
    numerator: str  # a variant
    denominator: str  # a variant, measured in the same rounds, right before or after it
    measure: str  # "seconds" or "peak_mib"
    goal: float  # the ratio must be at most this

    def per_round(self, samples: dict[str, list[Sample]]) -> list[float]:
        """A round slowed down by other work on the machine slows both of its variants."""
        return [round(getattr(top, self.measure) / getattr(bottom, self.measure), 3)
                for top, bottom in zip(samples[self.numerator], samples[self.denominator])]


def medians(samples: dict[str, list[Sample]]) -> dict[str, dict[str, float]]:
    return {variant: {"seconds": round(statistics.median(s.seconds for s in runs), 3),
                      "cpu_seconds": round(statistics.median(s.cpu_seconds for s in runs), 3),
                      "peak_mib": round(statistics.median(s.peak_mib for s in runs), 1), "runs": len(runs)}
            for variant, runs in samples.items()}


def evaluate(ratios: list[Ratio], samples: dict[str, list[Sample]]) -> list[dict[str, object]]:
    """Each ratio's median over the rounds, the verdict, and the rounds' own ratios to show the noise."""
    results: list[dict[str, object]] = []
    for ratio in ratios:
        rounds = ratio.per_round(samples)
        value = round(statistics.median(rounds), 3)
        results.append({"name": ratio.name, "value": value, "goal": ratio.goal, "met": value <= ratio.goal,
                        "rounds": rounds})
    return results


def render(table: dict[str, dict[str, float]], results: list[dict[str, object]]) -> str:
    width = max(map(len, [*table, *(str(r["name"]) for r in results)]))
    lines = [f"{'variant':<{width}}  {'median s':>9}  {'CPU s':>9}  {'peak MiB':>9}  runs"]
    lines += [f"{name:<{width}}  {row['seconds']:>9.2f}  {row['cpu_seconds']:>9.2f}  {row['peak_mib']:>9.0f}  "
              f"{row['runs']:>4}" for name, row in table.items()]
    lines += ["", f"{'ratio: median of the rounds':<{width}}  {'value':>9}  {'goal':>9}  {'result':<11}  rounds"]
    lines += [f"{r['name']:<{width}}  {r['value']:>9.3f}  {'<= ' + str(r['goal']):>9}  "
              f"{'met' if r['met'] else 'GOAL MISSED':<11}  {min(r['rounds']):.2f} to {max(r['rounds']):.2f}"
              for r in results]
    return "\n".join(lines)


def write(table: dict[str, dict[str, float]], results: list[dict[str, object]]) -> Path:
    RESULTS.write_text(json.dumps({"ratios": results, "medians": table}, indent=2) + "\n", encoding="utf-8")
    return RESULTS
