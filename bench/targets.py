"""Issue 20's speed targets, checked against benchmark results (bench/run.py's JSON).

Each target is a bound on one build of one size, for every shape the results hold at that
size: the full build at 1,000 and 10,000 papers, the full build against MkDocs at 10,000,
and at 100,000 papers the full build, its peak memory, a one-abstract rebuild and a no-op.
The seeds' byte-identical site is checked by building them, not here.

    python bench/targets.py bench/results/run.json [more.json ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

GB = 10**9


@dataclass(frozen=True)
class Target:
    papers: int
    label: str
    limit: str
    # The measured value as text, and whether it is within the limit (None: unknown).
    check: Callable[[dict], tuple[str, bool | None]]


def _seconds_within(build: str, limit: float) -> Callable[[dict], tuple[str, bool | None]]:
    def check(run: dict) -> tuple[str, bool | None]:
        wall = run[build]["wall"]
        return f"{wall:.2f} s", wall <= limit

    return check


def _peak_within(limit: int) -> Callable[[dict], tuple[str, bool | None]]:
    def check(run: dict) -> tuple[str, bool | None]:
        peak = run["full"].get("peak_bytes")
        if peak is None:
            return "not sampled", None
        return f"{peak / 2**20:,.0f} MiB", peak <= limit

    return check


def _share_of_mkdocs(share: float) -> Callable[[dict], tuple[str, bool | None]]:
    def check(run: dict) -> tuple[str, bool | None]:
        mkdocs, wall = run.get("mkdocs"), run["full"]["wall"]
        if not mkdocs:
            return "MkDocs not run", None
        ratio = wall / mkdocs["wall"]
        if mkdocs["timed_out"]:  # MkDocs took longer: the ratio is at most this
            return f"< {ratio:.2f}× MkDocs", True if ratio <= share else None
        return f"{ratio:.2f}× MkDocs", ratio <= share

    return check


TARGETS = (
    Target(1_000, "full build", "≤ 1.5 s", _seconds_within("full", 1.5)),
    Target(10_000, "full build", "≤ 5 s", _seconds_within("full", 5.0)),
    Target(10_000, "full build against MkDocs", "≤ 0.2× MkDocs", _share_of_mkdocs(0.2)),
    Target(100_000, "full build", "≤ 60 s", _seconds_within("full", 60.0)),
    Target(100_000, "peak memory", "≤ 2 GB", _peak_within(2 * GB)),
    Target(100_000, "one abstract changed", "≤ 5 s", _seconds_within("one_abstract", 5.0)),
    Target(100_000, "no-op rebuild", "≤ 2 s", _seconds_within("noop", 2.0)),
)


@dataclass(frozen=True)
class Row:
    papers: int
    shape: str
    label: str
    limit: str
    measured: str
    met: bool | None


def rows(runs: Iterable[dict]) -> list[Row]:
    """Each target against each run of its size, in the targets' order; a size the runs do not
    hold gives no row."""
    runs = list(runs)
    found = []
    for target in TARGETS:
        for run in runs:
            # Older results name no shape; bench/run.py's table reads them as sessions too.
            shape = run.get("shape", "sessions")
            if run["papers"] == target.papers and not shape.startswith("site-"):
                measured, met = target.check(run)
                found.append(Row(target.papers, shape, target.label, target.limit, measured, met))
    return found


def table(found: list[Row]) -> str:
    lines = ["| papers | shape | target | limit | measured | met |", "|---|---|---|---|---|---|"]
    verdict = {True: "yes", False: "**no**", None: "unknown"}
    for row in found:
        lines.append(
            f"| {row.papers:,} | {row.shape} | {row.label} | {row.limit} | {row.measured} | "
            f"{verdict[row.met]} |"
        )
    met = sum(row.met is True for row in found)
    lines.append(f"\n{met} of {len(found)} met.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+", help="bench/run.py's JSON")
    args = parser.parse_args(argv)
    runs = [run for path in args.results for run in json.loads(path.read_text())["runs"]]
    print(table(rows(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
