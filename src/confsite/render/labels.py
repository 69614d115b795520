"""What a paper is called and labelled wherever it is shown: its plain title (or the one
wording for a paper without one) and its badges."""

from __future__ import annotations

from ..model.records import Paper
from ..text.plain import plain_text

UNTITLED = "Untitled paper"


def title_text(paper: Paper) -> str:
    return plain_text(paper.title) if paper.title else UNTITLED


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
