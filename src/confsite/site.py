"""The site model: which pages exist and where each paper lives, derived from the merged papers."""

from __future__ import annotations

from dataclasses import dataclass

from .config import SiteConfig
from .records import Paper


def paper_url(paper: Paper) -> str:
    """Path of a paper's page relative to the site root; the id is stable, so is the URL."""
    return f"papers/{paper.id}/"


@dataclass(frozen=True)
class Site:
    config: SiteConfig
    papers: tuple[Paper, ...]
    base_url: str | None

    def url_of(self, paper: Paper) -> str:
        return paper_url(paper)
