"""What a rebuild knows is as the last build left it, so that pages made only from that are
taken without keying them: keying every paper's and author's page was most of a rebuild's
work at archive scale, however little changed.

A paper's or an author's page is keyed from the papers it shows and from what it takes from
the site beyond them (see `Views.paper_key` and `Views.author_key`). The second part is
digested whole, once a build (`structure_digest`); while it is the last build's, a page
whose papers are all unchanged (and, for a paper's page, whose related papers are the same)
has the key the last build recorded for it. A session's or collection's page is keyed by
its context, but is likewise taken as it was when none of its session's or collection's
papers changed and the structure is the last build's; a page of the all-papers listing,
when no paper's brief card changed (the listing shows brief cards, sorted by title).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..cache.digests import PaperDigests
from ..cache.page_keys import context_digest
from ..model.site import Site


def structure_digest(site: Site, site_digest: bytes, salt: bytes) -> bytes:
    """A digest of what paper, author, session and collection pages take from the site
    beyond each paper's own record: what every page shows (`site_digest`), the collections
    and their papers, every session's papers in order, the authors (names, slugs, papers)
    and the cite keys, with `salt` for the code and templates."""
    return context_digest(
        (
            site_digest,
            [
                (c.conference, c.year, c.slug, c.label, [p.id for p in c.papers])
                for c in site.collections
            ],
            [site.proceedings(c.conference) for c in site.collections],
            [(g.session, g.slug, [p.id for p in g.papers]) for g in site.sessions],
            site.authors,
            site.cite_keys,
        ),
        salt,
    )


def _brief_same(last: PaperDigests, now: PaperDigests, paper_id: str) -> bool:
    """Whether both builds digested the paper's brief card the same (a card's digests are
    its authors' slugs, its brief card's and its full card's), an overridden paper's too."""
    before = last.cards.get(paper_id) or last.overridden_cards.get(paper_id)
    after = now.cards.get(paper_id)
    return before is not None and after is not None and before[:2] == after[:2]


@dataclass(frozen=True)
class Unchanged:
    """The papers a rebuild knows are as the last build made them, and each one's related
    papers then: every paper but `changed`, when the structure is the last build's; none
    (`changed` None) on a first build, a build without the cache, or a changed structure.
    `briefs_same`: the structure and every paper's brief card are the last build's."""

    changed: frozenset[str] | None = None
    related: dict[str, tuple[str, ...]] = field(default_factory=dict)
    briefs_same: bool = False

    @classmethod
    def between(cls, last: PaperDigests, now: PaperDigests) -> Unchanged:
        """What is unchanged from the `last` build's digests to those made `now` (of every
        paper): the papers whose record and cards digest the same."""
        if not last.structure or last.structure != now.structure:
            return cls()
        changed = [
            paper_id
            for paper_id, made in now.digests.items()
            if last.digests.get(paper_id) != made
            or paper_id not in now.cards
            or last.cards.get(paper_id) != now.cards[paper_id]
        ]
        briefs_same = all(_brief_same(last, now, paper_id) for paper_id in changed)
        return cls(frozenset(changed), last.related, briefs_same)

    def none_changed(self, paper_ids: Iterable[str]) -> bool:
        return self.changed is not None and self.changed.isdisjoint(paper_ids)

    def same_related(self, paper_id: str, related: tuple[str, ...]) -> bool:
        return self.related.get(paper_id) == related
