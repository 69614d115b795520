"""bench/targets.py: issue 20's targets read from benchmark results written by hand."""

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
spec = importlib.util.spec_from_file_location("bench_targets", BENCH / "targets.py")
targets = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(targets)


def run(papers, shape, full, noop=0.3, one=0.6, peak=None, mkdocs=None, timed_out=False):
    found = {
        "papers": papers,
        "shape": shape,
        "full": {"wall": full, "peak_bytes": peak},
        "noop": {"wall": noop},
        "one_abstract": {"wall": one},
    }
    if mkdocs is not None:
        found["mkdocs"] = {"wall": mkdocs, "timed_out": timed_out}
    return found


RUNS = [
    run(1_000, "sessions", 1.31, mkdocs=1.55),
    run(1_000, "long-math", 1.71, mkdocs=2.38),
    run(10_000, "sessions", 7.46, mkdocs=13.4),
    run(10_000, "prolific", 2.5, mkdocs=12.5),  # made up: within both
    run(10_000, "giant-list", 2.0, mkdocs=9.0, timed_out=True),  # MkDocs stopped at 9 s
    run(100_000, "sessions", 90.2, noop=1.07, one=10.77, peak=1_843 * 2**20),
    run(16_145, "site-real", 18.2, mkdocs=40.0),  # not a target's size
]


def verdicts():
    return [(r.papers, r.shape, r.label, r.measured, r.met) for r in targets.rows(RUNS)]


def test_each_target_is_checked_against_each_run_of_its_size():
    assert verdicts() == [
        (1_000, "sessions", "full build", "1.31 s", True),
        (1_000, "long-math", "full build", "1.71 s", False),
        (10_000, "sessions", "full build", "7.46 s", False),
        (10_000, "prolific", "full build", "2.50 s", True),
        (10_000, "giant-list", "full build", "2.00 s", True),
        (10_000, "sessions", "full build against MkDocs", "0.56× MkDocs", False),
        (10_000, "prolific", "full build against MkDocs", "0.20× MkDocs", True),
        (10_000, "giant-list", "full build against MkDocs", "< 0.22× MkDocs", None),
        (100_000, "sessions", "full build", "90.20 s", False),
        (100_000, "sessions", "peak memory", "1,843 MiB", True),
        (100_000, "sessions", "one abstract changed", "10.77 s", False),
        (100_000, "sessions", "no-op rebuild", "1.07 s", True),
    ]


def test_a_peak_not_sampled_or_mkdocs_not_run_is_unknown_not_met():
    found = targets.rows([run(100_000, "sessions", 50.0), run(10_000, "sessions", 4.0)])
    unknown = [(r.label, r.measured) for r in found if r.met is None]
    assert unknown == [
        ("full build against MkDocs", "MkDocs not run"),
        ("peak memory", "not sampled"),
    ]


def test_the_table_counts_what_is_met(tmp_path, capsys):
    results = tmp_path / "run.json"
    results.write_text(json.dumps({"environment": {}, "runs": RUNS}))
    assert targets.main([str(results)]) == 0
    out = capsys.readouterr().out
    assert "| 1,000 | long-math | full build | ≤ 1.5 s | 1.71 s | **no** |" in out
    assert out.rstrip().endswith("6 of 12 met.")
