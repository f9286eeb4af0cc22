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
    denominator: str  # a variant
    measure: str  # "seconds" or "peak_mib"
    goal: float  # the ratio must be at most this

    def value(self, medians: dict[str, dict[str, float]]) -> float:
        return medians[self.numerator][self.measure] / medians[self.denominator][self.measure]


def medians(samples: dict[str, list[Sample]]) -> dict[str, dict[str, float]]:
    return {
        variant: {
            "seconds": round(statistics.median(s.seconds for s in runs), 3),
            "peak_mib": round(statistics.median(s.peak_mib for s in runs), 1),
            "runs": len(runs),
        }
        for variant, runs in samples.items()
    }


def evaluate(ratios: list[Ratio], table: dict[str, dict[str, float]]) -> list[dict[str, object]]:
    results: list[dict[str, object]] = []
    for ratio in ratios:
        value = round(ratio.value(table), 3)
        results.append({"name": ratio.name, "value": value, "goal": ratio.goal, "met": value <= ratio.goal})
    return results


def render(table: dict[str, dict[str, float]], results: list[dict[str, object]]) -> str:
    width = max(map(len, [*table, *(str(r["name"]) for r in results)]))
    lines = [f"{'variant':<{width}}  {'median s':>9}  {'peak MiB':>9}  runs"]
    lines += [f"{name:<{width}}  {row['seconds']:>9.2f}  {row['peak_mib']:>9.0f}  {row['runs']:>4}"
              for name, row in table.items()]
    lines += ["", f"{'ratio':<{width}}  {'value':>9}  {'goal':>9}  result"]
    lines += [f"{r['name']:<{width}}  {r['value']:>9.3f}  {'<= ' + str(r['goal']):>9}  "
              f"{'met' if r['met'] else 'GOAL MISSED'}" for r in results]
    return "\n".join(lines)


def write(table: dict[str, dict[str, float]], results: list[dict[str, object]]) -> Path:
    RESULTS.write_text(json.dumps({"ratios": results, "medians": table}, indent=2) + "\n", encoding="utf-8")
    return RESULTS
