"""Reading and merging, remembered between builds.

A source whose bytes and settings are unchanged is not read or normalized again (the warnings
its reading gave are kept with it and given again); when no input changed at all, the merged
papers and the warnings merging gave are reused whole. Keys include a digest of confsite's code
(and of the readers from outside it), so a new version starts afresh. Like the manifest, this
is only a cache: anything unreadable is ignored and rebuilt. Without a cache folder (a build
with `--no-cache`) every source is read and merged, and nothing is kept. A build that changed
few papers saves only what changed since the cache was last saved whole (`CacheChanges`).
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..config import SiteConfig
from ..diagnostics import ConfsiteError, Diagnostics, Problem
from ..model.merge import GroupKey, MergedGroups, group_key
from ..model.papers import merge_sources, normalize_source, overrides_path
from ..model.records import Entry, Paper
from ..output.processes import (
    ChildStopped,
    ForkedResults,
    ForkedWork,
    collecting,
    forked,
    forks,
    young_garbage_collected,
)
from ..readers.registry import Registry
from ..readers.sources import RecordsRead, SourceReading, read_every_source, read_records
from .digests import DigestChanges, PaperDigests, hex_digest
from .stores import load_pickle, save_pickle, with_changes

CACHE_FILE = "inputs.pickle"
# What changed since the cache was last saved whole (see `CacheChanges`).
CHANGES_FILE = "inputs-changes.pickle"
# Past this share of the papers (or of the entries) changed since the cache was saved whole,
# the next save is whole again: the changes would weigh as much to load and save.
MAX_CHANGED_SHARE = 0.1
PAPER_DIGESTS_FILE = "paper-digests.pickle"
DIGEST_CHANGES_FILE = "paper-digests-changes.pickle"  # see `DigestChanges`
# New sources' bytes from which a forked child reads a share: below, forking and sending the
# records back cost about what the child saves.
MIN_BYTES_TO_SHARE = 1_000_000
# Records of one source whose plausibility a forked child checks while this process
# normalizes them, when it reads alone: the overlap saves up to the shorter of the two (about
# 25 µs a record each for a Markdown list), the fork and the page faults it brings to both
# processes cost 0.05-0.1 s. A 3,758-record JSON Lines export read 0.03 s slower apart.
RECORDS_CHECKED_APART = 5_000


@dataclass(frozen=True)
class CachedSource:
    """One source as read and normalized: the reader that read it and what came out. Not
    its raw records: once normalized, the build needs only their count and the fields they
    state (a third of the cache's bytes at 100,000 papers, loaded on every rebuild and sent
    back by the child that reads a share)."""

    reader: str
    detected: bool
    record_count: int
    stated: frozenset[str]  # see `SourceReading.stated`
    entries: tuple[Entry, ...]
    # What merging groups the entries by: kept, as a rebuild's merging would make them again
    # for every unchanged source (0.5 s at 100,000 papers, most of it TeX in titles).
    group_keys: tuple[GroupKey, ...]
    problems: tuple[Problem, ...] = ()  # the warnings reading gave (see readers/plausibility.py)

    @classmethod
    def of(cls, read: SourceReading, entries: tuple[Entry, ...]) -> CachedSource:
        group_keys = tuple(map(group_key, entries))
        return cls(
            read.reader.name,
            read.detected,
            read.record_count,
            read.stated,
            entries,
            group_keys,
            read.problems,
        )


@dataclass(frozen=True)
class KeptPapers:
    """Papers this build knows to be as the last build made them, without reading them (see
    `CachedReading.kept_papers`): `ids`, when the last build read the inputs `last_inputs_key`;
    this build reads `inputs_key`. A cache the last build kept per paper, marked with its
    inputs key, holds what they need under their ids."""

    inputs_key: str = ""
    last_inputs_key: str = ""
    ids: frozenset[str] = frozenset()

    def last_build_kept(self, inputs_key: str) -> frozenset[str]:
        """The kept papers, when a cache was made by the build that read `inputs_key`;
        else none."""
        return self.ids if inputs_key and inputs_key == self.last_inputs_key else frozenset()


NOTHING_KEPT = KeptPapers()  # a first build's, or one without caches


@dataclass
class InputCache:
    sources: dict[str, CachedSource] = field(default_factory=dict)
    inputs_key: str = ""  # digest of every input of the last build
    papers: list[Paper] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # what merging reported
    groups: MergedGroups = field(default_factory=dict)  # how each paper was merged
    token: str = ""  # names the cache as saved whole, which `CacheChanges` are taken against


@dataclass(frozen=True)
class CacheChanges:
    """An input cache as what differs from the one last saved whole (its `base_token`): the
    sources and merged groups that are not the very objects it holds, and every source's key,
    group's id and paper in order. A rebuild after an edit saves these, a few sources' worth,
    where pickling the whole cache took 1.5 s of CPU at 100,000 papers."""

    base_token: str
    inputs_key: str
    source_keys: tuple[str, ...]
    sources: dict[str, CachedSource]
    paper_ids: tuple[str, ...]
    groups: MergedGroups
    papers: tuple[str | Paper, ...]  # a paper its group made, by id; one an override made
    problems: tuple[Problem, ...]

    @classmethod
    def between(cls, cache: InputCache, base: InputCache) -> CacheChanges:
        sources = {key: s for key, s in cache.sources.items() if base.sources.get(key) is not s}
        groups = {i: made for i, made in cache.groups.items() if base.groups.get(i) is not made}
        papers = tuple(
            paper.id if (made := cache.groups.get(paper.id)) and made[1] is paper else paper
            for paper in cache.papers
        )
        return cls(
            base.token,
            cache.inputs_key,
            tuple(cache.sources),
            sources,
            tuple(cache.groups),
            groups,
            papers,
            tuple(cache.problems),
        )

    def few(self, cache: InputCache) -> bool:
        """Whether these changes are a small part of `cache`, as saving them pays."""
        entries = sum(len(source.entries) for source in cache.sources.values())
        changed = sum(len(source.entries) for source in self.sources.values())
        return (
            len(self.groups) <= MAX_CHANGED_SHARE * len(cache.groups)
            and changed <= MAX_CHANGED_SHARE * entries
        )

    def applied(self, base: InputCache) -> InputCache:
        """The cache these changes describe, made of `base`'s objects but for the changed:
        the entries of an unchanged source are the very objects its groups hold, as merging
        needs to know them unchanged (model/merge.py · `merge_groups`). A changed group that
        also holds an unchanged source's entry holds a copy of it here, so merging makes it
        again in each build until the cache is saved whole: slower, the same papers."""
        sources = {key: self.sources.get(key) or base.sources[key] for key in self.source_keys}
        groups = {i: self.groups.get(i) or base.groups[i] for i in self.paper_ids}
        papers = [groups[p][1] if isinstance(p, str) else p for p in self.papers]
        problems = list(self.problems)
        return InputCache(sources, self.inputs_key, papers, problems, groups, base.token)


def file_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:  # reported with its location by the reader or the overrides loader
        return None


class CachedReading:
    """Reading and merging with the input cache: unchanged sources are not read again, and
    unchanged inputs are not merged again (the warnings reading and merging gave are kept with
    them and replayed). The code of the readers from outside the package counts in every key."""

    def __init__(
        self, config: SiteConfig, fingerprint: bytes, folder: Path | None, readers: Registry
    ) -> None:
        self.config, self.readers = config, readers
        fingerprint += readers.code_digest.encode()
        self.path, self.fingerprint = folder / CACHE_FILE if folder else None, fingerprint
        self.keys: list[str] = []
        self._sizes: list[int] = []  # each source's bytes, which `_child_share` weighs
        for index, source in enumerate(config.sources):
            data = file_bytes(config.resolve(source.path))
            self.keys.append(hex_digest(fingerprint, index, source, data))
            self._sizes.append(len(data) if data is not None else 0)
        overrides = overrides_path(config)
        located = dataclasses.replace(config, config_path="", root=Path())
        overrides_bytes = file_bytes(overrides[0]) if overrides else None
        self.inputs_key = hex_digest(fingerprint, located, self.keys, overrides_bytes)
        self.fresh: set[int] = set()  # sources read anew, not taken from the cache
        self._made: dict[int, CachedSource | ConfsiteError] = {}  # those sources, read
        self._saving = self._saving_digests = ForkedWork(None)
        # After merging: the ids of papers merged from the very entries the last build
        # merged them from, and of papers no override changed (see `known_digests`).
        self._kept: set[str] = set()
        self._own: set[str] = set()
        self._was_own: set[str] = set()  # the same of the last build's papers
        self._last_inputs_key = ""
        self._base = InputCache()  # the cache as last saved whole, until this build saves
        self._digests_base: PaperDigests | None = None  # the paper digests as saved whole

    @functools.cached_property
    def cache(self) -> InputCache:
        """The last build's reading and merging, loaded when first needed: a build with
        nothing to do never needs it. The cache last saved whole, with what changed since
        when that was saved against it."""
        self._base = load_pickle(self.path, self.fingerprint, InputCache) or InputCache()
        changes = load_pickle(self._changes_path, self.fingerprint, CacheChanges)
        return with_changes(self._base, changes)

    @property
    def _changes_path(self) -> Path | None:
        return self.path.with_name(CHANGES_FILE) if self.path else None

    def read(self, jobs: int = 1) -> list[SourceReading]:
        """Every source, from the cache or read anew (and normalized: see `_read_fresh`), with
        a forked child reading a share of the new ones when there are `jobs` cores and enough
        to read; ConfsiteError names every bad one."""
        self.fresh = {i for i, key in enumerate(self.keys) if key not in self.cache.sources}
        theirs = self._child_share(sorted(self.fresh)) if forks(jobs) else []
        child = ForkedResults(lambda: [self._read_fresh(theirs)]) if theirs else None
        # Reading alone, this process checks a large source's records apart (see `_read_one`).
        alone = forks(jobs) and not theirs
        self._made = self._read_fresh(sorted(self.fresh.difference(theirs)), alone)
        if child is not None:
            self._made.update(self._child_reading(child, theirs))
        return read_every_source(range(len(self.keys)), self.read_one)

    def _child_reading(
        self, child: ForkedResults, indices: list[int]
    ) -> dict[int, CachedSource | ConfsiteError]:
        """What the child reading `indices` made, once this process has read the rest; made
        here if the child failed in any way, so that any error is met as it would be."""
        try:
            made = child.next()
        except ChildStopped:
            made = self._read_fresh(indices)
        finally:
            child.close()
        return made

    def read_one(self, index: int) -> SourceReading:
        source = self.config.sources[index]
        made = self._made.get(index)
        if isinstance(made, ConfsiteError):
            raise made
        hit = made or self.cache.sources[self.keys[index]]
        reader = self.readers.by_name(hit.reader)
        return SourceReading(
            source, reader, hit.detected, (), hit.record_count, hit.problems, hit.stated
        )

    def _read_fresh(
        self, indices: list[int], check_apart: bool = False
    ) -> dict[int, CachedSource | ConfsiteError]:
        """The sources at `indices` read and normalized, each as the cache keeps it (its
        reader by name, which a forked child can send: a site's own reader may not pickle),
        or the error reading it gave. `check_apart`: a core is free for a large source's
        plausibility check (see `_read_one`)."""
        made: dict[int, CachedSource | ConfsiteError] = {}
        # Parsers' trees are cyclic garbage once a source is read. Entered even with nothing
        # to read: its end is where merging's young-generation pass starts from.
        with collecting():
            for index in indices:
                try:
                    made[index] = self._read_one(index, check_apart)
                except ConfsiteError as err:
                    made[index] = err
        return made

    def _read_one(self, index: int, check_apart: bool) -> CachedSource:
        """One source read, checked and normalized. A single large source (an accepted-papers
        list) is read by this process alone, and its plausibility check took as long as
        normalizing its records: with `check_apart`, a forked child checks it meanwhile."""
        read = read_records(self.config, self.config.sources[index], self.readers)
        if not check_apart or read.reading.record_count < RECORDS_CHECKED_APART:
            signs = read.plausibility()
            return CachedSource.of(read.checked(signs), normalize_source(read.reading, index))
        # Reading's cyclic garbage collected first: the fork freezes what exists, which would
        # keep it (a page's parsed tree, say) through the rest of the build.
        gc.collect()
        checking = ForkedResults(functools.partial(_plausibility, read))
        try:
            entries = normalize_source(read.reading, index)
            signs = _signs(read, checking)
        finally:
            checking.close()
        return CachedSource.of(read.checked(signs), entries)

    def _child_share(self, fresh: list[int]) -> list[int]:
        """The new sources a child reads: none when there is too little to read for a
        process to pay; else about half the bytes, largest first, each to whichever side has
        fewer. The parent unpickles what the child sends (a third of the time the child took
        to make it), so its waiting is shortest when both read the same."""
        sizes = self._sizes
        if len(fresh) < 2 or sum(sizes[i] for i in fresh) < MIN_BYTES_TO_SHARE:
            return []
        theirs, their_bytes, my_bytes = [], 0, 0
        for index in sorted(fresh, key=lambda i: (-sizes[i], i)):
            if their_bytes <= my_bytes:
                theirs.append(index)
                their_bytes += sizes[index]
            else:
                my_bytes += sizes[index]
        return sorted(theirs)

    def merge(self, reads: list[SourceReading], diagnostics: Diagnostics) -> list[Paper]:
        cache, self.cache = self.cache, InputCache()  # the old cache is not needed after this
        base, self._base = self._base, InputCache()  # nor the one it was made of
        self._last_inputs_key = cache.inputs_key
        if cache.inputs_key == self.inputs_key:
            diagnostics.problems.extend(cache.problems)
            self._note_kept(cache.papers, cache.groups, cache)
            return cache.papers
        # Every source as read anew or kept: read_one succeeded for each, so none is an error.
        sources: dict[str, CachedSource] = {
            key: self._made.get(index) or cache.sources[key] for index, key in enumerate(self.keys)
        }
        self._made = {}  # merging is the last to need them; the reading lives to the build's end
        entries = [source.entries for source in sources.values()]
        group_keys = [source.group_keys for source in sources.values()]
        already = len(diagnostics.problems)
        papers, groups = merge_sources(
            self.config, reads, entries, diagnostics, cache.groups, group_keys
        )
        problems = diagnostics.problems[already:]
        self._note_kept(papers, groups, cache)
        young_garbage_collected()  # before forking, which moves what is young to the oldest
        # Saved by a forked child (pickling takes seconds at archive scale, while the other
        # core waits), now, not after the site: the records the cache holds need not be kept
        # through the rest of the build.
        cache = InputCache(sources, self.inputs_key, papers, problems, groups)
        if self.path is not None:
            self._save(cache, base)
        return papers

    def _save(self, cache: InputCache, base: InputCache) -> None:
        """Saves what changed since the cache was saved whole (`base`), when that is little;
        else the cache whole, by a forked child, under a new token (which leaves any changes
        saved against the last one unread)."""
        if base.token:
            changes = CacheChanges.between(cache, base)
            if changes.few(cache):
                save_pickle(self._changes_path, self.fingerprint, changes)
                return
        cache.token = secrets.token_hex(8)
        self._saving = forked(save_pickle, self.path, self.fingerprint, cache)

    def _note_kept(self, papers: list[Paper], groups: MergedGroups, last: InputCache) -> None:
        """Which papers are what the last build made of the same entries (merging is a
        function of them: see model/merge.py · `merge_groups`), which no override changes now,
        and which none changed in the last build."""
        self._kept = {i for i, made in groups.items() if last.groups.get(i) is made}
        self._own = _own_ids(papers, groups)
        # The same groups are the same papers: the last build's own are this one's.
        self._was_own = self._own if last.groups is groups else _own_ids(last.papers, last.groups)

    @functools.cached_property
    def last_digests(self) -> PaperDigests:
        """What the last build digested of its papers (those no override changed), when it
        made the input cache merging compared with; else nothing. Those saved whole, with
        what changed since when that was saved against them."""
        if self.path is None:
            return PaperDigests()
        self._digests_base, stored = saved_paper_digests(self.path.parent, self.fingerprint)
        if stored is None or stored.inputs_key != self._last_inputs_key:
            return PaperDigests()
        return stored

    def known_digests(self) -> PaperDigests:
        """What the last build digested of the papers that are as it made them (see
        `kept_papers`)."""
        return self.last_digests.only(self._kept & self._own)

    def kept_papers(self) -> KeptPapers:
        """The papers that are as the last build made them: merged from the same entries,
        and changed by no override now or then (which only its own papers were: an
        override's result is a new paper each build). What the last build kept of a paper it
        overrode is of the overridden paper, even once the override is gone."""
        ids = frozenset(self._kept & self._own & self._was_own)
        return KeptPapers(self.inputs_key, self._last_inputs_key, ids)

    def save_digests(self, made: PaperDigests, build: str) -> None:
        """Keep this build's paper digests for the next one (see `known_digests`), marked
        with `build`: what changed since they were saved whole, when few did (`DigestChanges`);
        else whole, by a forked child (0.7 s at 100,000 papers), while this process swaps the
        site in and saves the manifest. Whichever of the two is saved first, the build marks
        keep a next build from taking digests of another site."""
        if self.path is None:  # a build without caches: nothing is kept
            return
        base, own = self._digests_base, None
        if base is not None and base.token:
            own = self._own_digests(made, build)
            changes = DigestChanges.between(own, base)
            if changes.few(len(own.digests), MAX_CHANGED_SHARE):
                save_pickle(self.path.with_name(DIGEST_CHANGES_FILE), self.fingerprint, changes)
                return
        path = self.path.with_name(PAPER_DIGESTS_FILE)
        self._saving_digests = forked(self._save_digests, path, made, build, own)

    def _own_digests(self, made: PaperDigests, build: str) -> PaperDigests:
        # The few papers an override changed, found by a set difference in C: sorted, as a
        # Python test per paper would cost 100,000 of them at the end of every build.
        overridden = {i: made.cards[i] for i in sorted(made.cards.keys() - self._own)}
        return dataclasses.replace(
            made.only(self._own),
            inputs_key=self.inputs_key,
            build=build,
            overridden_cards=overridden,
        )

    def _save_digests(
        self, path: Path, made: PaperDigests, build: str, own: PaperDigests | None
    ) -> None:
        """The digests whole; `own`, this build's own, when this process made them already."""
        if own is None:
            own = self._own_digests(made, build)
        save_pickle(path, self.fingerprint, dataclasses.replace(own, token=secrets.token_hex(8)))

    def saved(self) -> None:
        """Waits until the cache `merge` made and the paper digests are saved."""
        self._saving.wait()
        self._saving_digests.wait()


def _own_ids(papers: list[Paper], groups: MergedGroups) -> set[str]:
    """The papers that are what their groups merged: no override changed them."""
    return {paper.id for paper in papers if (made := groups.get(paper.id)) and made[1] is paper}


def saved_paper_digests(
    folder: Path, fingerprint: bytes
) -> tuple[PaperDigests | None, PaperDigests | None]:
    """The paper digests in the cache `folder`: as last saved whole, and with the changes
    saved since applied (see `DigestChanges`)."""
    base = load_pickle(folder / PAPER_DIGESTS_FILE, fingerprint, PaperDigests)
    changes = load_pickle(folder / DIGEST_CHANGES_FILE, fingerprint, DigestChanges)
    return base, with_changes(base, changes)


def _plausibility(read: RecordsRead) -> Iterator[tuple[Problem, ...]]:
    yield read.plausibility()


def _signs(read: RecordsRead, checking: ForkedResults) -> tuple[Problem, ...]:
    """The warnings the child checking `read` sent, or made here if it failed in any way (an
    error it raised is raised here)."""
    try:
        return checking.next()
    except ChildStopped:
        return read.plausibility()
