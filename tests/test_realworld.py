"""The readers on the real-world corpus: every dump read with no format forced, and the share
of papers read fully right (title, authors, abstract where the dump has one) against ground
truth made by a separate parser per dump (tests/realworld/truth/). The dumps are third-party
data kept outside the repository; without them this test is skipped, and the scoring script
says where to put them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "realworld"))

import score  # noqa: E402

CORPUS = score.corpus_folder()
pytestmark = pytest.mark.skipif(CORPUS is None, reason="no real-world corpus (see score.py)")
RIGHT_AT_LEAST = 0.98
JUNK_AT_MOST = 0.005


@pytest.fixture(scope="module")
def scores() -> list[score.Score]:
    assert CORPUS is not None
    return [score.score_dump(dump) for dump in score.dumps(CORPUS)]


def test_every_dump_is_read_without_a_format(scores: list[score.Score]) -> None:
    assert [s.name for s in scores if not s.reader] == []


def test_most_papers_are_read_fully_right(scores: list[score.Score]) -> None:
    papers = sum(s.papers for s in scores)
    assert sum(s.right for s in scores) >= RIGHT_AT_LEAST * papers, score.table(scores)


def test_little_junk(scores: list[score.Score]) -> None:
    papers = sum(s.papers for s in scores)
    assert sum(s.junk for s in scores) <= JUNK_AT_MOST * papers, score.table(scores)
