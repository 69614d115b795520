"""What a paper is called and labelled wherever it is shown: its plain title (or, for a paper
without one, an honest stand-in made from what the dumps do say) and its badges."""

from __future__ import annotations

from typing import Any

from ..model.records import Paper
from ..text.plain import plain_text

UNTITLED = "Untitled paper"
UNTITLED_NOTE = "title not in the program"
STAND_IN_WORDS = 10  # of the abstract: enough to tell two untitled papers apart


def opening_words(paper: Paper) -> str | None:
    """The first words of the abstract, quoted as a reader sees them, or None."""
    words = plain_text(paper.abstract).split() if paper.abstract else []
    if not words:
        return None
    cut = " ".join(words[:STAND_IN_WORDS]).rstrip(",;:.")
    return cut + ("…" if len(words) > STAND_IN_WORDS else "")


def stand_in(paper: Paper) -> dict[str, Any] | None:
    """What a listing shows in place of a missing title: the abstract's first words, the
    first author, and the note that the program gives no title. None for a titled paper."""
    if paper.title:
        return None
    return {
        "words": opening_words(paper),
        "first_author": paper.authors[0] if paper.authors else None,
        "note": UNTITLED_NOTE,
    }


def title_text(paper: Paper) -> str:
    """The plain title; for an untitled paper, a plain stand-in that tells it from the others
    ("Untitled paper by A. Author: “First words…”"), never passed off as its title."""
    if paper.title:
        return plain_text(paper.title)
    words, author = opening_words(paper), paper.authors[0] if paper.authors else None
    label = f"{UNTITLED} by {author}" if author else UNTITLED
    return f"{label}: “{words}”" if words else label


def badges(paper: Paper) -> list[dict[str, str]]:
    """Presentation, decision (when it says more than the presentation), awards, attendance."""
    found = []
    if paper.presentation:
        found.append({"label": paper.presentation, "kind": "presentation"})
    if paper.decision and paper.decision != paper.presentation:
        found.append({"label": paper.decision, "kind": "decision"})
    found += [{"label": award, "kind": "award"} for award in paper.awards]
    if paper.attendance:
        found.append({"label": paper.attendance.capitalize(), "kind": "attendance"})
    return found
