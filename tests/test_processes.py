"""Results from a forked child (output/processes.py · ForkedResults)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from confsite.output.processes import ChildStopped, ForkedResults

LARGE = 4_000_000  # bytes: many times a pipe's buffer


def _waiting_for(path: Path, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_child_goes_on_while_its_large_result_is_not_read(tmp_path: Path) -> None:
    """The corpus worker's related papers fill the pipe while the build is busy elsewhere: the
    child must make its next result meanwhile, not wait for the parent to read."""
    went_on = tmp_path / "went-on"

    def work() -> Iterator[object]:
        yield "x" * LARGE
        went_on.touch()  # reached only once the first result no longer blocks the child
        yield "second"

    results = ForkedResults(work)
    try:
        assert _waiting_for(went_on), "the child waited for its first result to be read"
        assert results.next() == "x" * LARGE
        assert results.next() == "second"
    finally:
        results.close()


def test_results_come_in_order_and_an_early_end_is_told(tmp_path: Path) -> None:
    def work() -> Iterator[object]:
        yield from ({"n": n, "text": "y" * (n * 50_000)} for n in range(5))
        raise SystemExit(1)  # ends before a sixth result

    results = ForkedResults(work)
    try:
        assert [results.next()["n"] for _ in range(5)] == list(range(5))
        with pytest.raises(ChildStopped):
            results.next()
    finally:
        results.close()


def test_made_here_when_asked() -> None:
    made = []

    def work() -> Iterator[int]:
        for n in range(3):
            made.append(n)
            yield n

    results = ForkedResults(work, here=True)
    assert [results.next() for _ in range(3)] == [0, 1, 2]
    assert made == [0, 1, 2]  # in this process
