"""The one way confsite digests what its caches are keyed by: SHA-256, cut to 16 bytes, over one
serialization (SHA-256 rather than BLAKE2b, as processors' SHA instructions make it the quicker
of the two for a site's files: docs/performance.md).

Data is serialized with pickle without its memo (`canonical_bytes`), so equal data gives equal
bytes however it was made; files' bytes and code are digested as they are.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import pickle
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

Made = TypeVar("Made")

DIGEST_SIZE = 16


def canonical_bytes(data: Any, pickler: type[pickle.Pickler] = pickle.Pickler) -> bytes:
    """`data` pickled without the memo: pickle writes a part that is one shared object once
    and refers back to it, so equal data read in different ways (a source parsed afresh, or
    loaded from a cache) could give different bytes. `data` must hold no cycle. A `pickler` subclass
    may stand objects in for others (see `cache/page_keys.py`)."""
    buffer = io.BytesIO()
    writer = pickler(buffer, protocol=5)
    writer.fast = True  # no memo
    writer.dump(data)
    return buffer.getvalue()


def digest(data: Any, salt: bytes = b"", pickler: type[pickle.Pickler] = pickle.Pickler) -> bytes:
    """The digest of `data`'s canonical bytes; `salt` (up to 64 bytes) keys it."""
    hasher = hashlib.sha256(salt[:64])
    hasher.update(canonical_bytes(data, pickler))
    return hasher.digest()[:DIGEST_SIZE]


def hex_digest(*parts: Any) -> str:
    return digest(parts).hex()


def bytes_digest(data: bytes) -> str:
    """The digest of bytes as they are: a file's content."""
    return hashlib.sha256(data).digest()[:DIGEST_SIZE].hex()


class FileDigest:
    """`bytes_digest` of a file's bytes given in parts, as they are written."""

    def __init__(self) -> None:
        self._hasher = hashlib.sha256()

    def update(self, data: bytes | memoryview) -> None:
        self._hasher.update(data)

    def hex(self) -> str:
        return self._hasher.digest()[:DIGEST_SIZE].hex()


def text_digest(text: str) -> bytes:
    """The digest of text as it is (its UTF-8 bytes): for texts digested by the hundred
    thousand, where a serialization would double the cost."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:DIGEST_SIZE]


def files_digest(files: Iterable[tuple[str, Path]]) -> bytes:
    """The digest of named files' bytes: code, templates and assets, each under a name that
    does not depend on where they lie."""
    hasher = hashlib.sha256()
    for name, path in files:
        hasher.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hasher.digest()


def folder_files(folder: Path, pattern: str = "*", prefix: str = "") -> list[tuple[str, Path]]:
    """A folder's files matching `pattern`, sorted, named by `prefix` and their relative path
    (compiled bytecode left out)."""
    return [
        (prefix + path.relative_to(folder).as_posix(), path)
        for path in sorted(folder.rglob(pattern))
        if path.is_file() and "__pycache__" not in path.parts
    ]


# A paper's card as digested: its authors' slugs (the one input a card takes from outside its
# paper), the brief card's digest and the full card's (see render/views.py · `CardMaking`).
CardDigests = tuple[tuple[str, ...], bytes, bytes]


@dataclass(frozen=True)
class PaperDigests:
    """What a build digested of each paper: its record (see render/views.py ·
    `Views.paper_digest`), its card, its related papers (as they are) and its record with
    its citation (`Views.record_digest`), with the site's structure
    (render/unchanged.py), kept for the next build (cache/inputs.py · `known_digests`), which
    takes those of unchanged papers instead of making them again, and their pages' keys
    while the structure is the same. `inputs_key` is the input cache's of the build that
    made them, `build` that build's, of its output folder (see pipeline.py ·
    `digests_of_this_site`)."""

    digests: dict[str, bytes] = field(default_factory=dict)
    cards: dict[str, CardDigests] = field(default_factory=dict)
    inputs_key: str = ""
    structure: bytes = b""
    # Each paper's related papers, by id: compared as they are, as digesting them took a
    # second of every rebuild at 100,000 papers (in the main process and the page workers).
    related: dict[str, tuple[str, ...]] = field(default_factory=dict)
    build: str = ""
    records: dict[str, bytes] = field(default_factory=dict)  # see `Views.record_digest`
    # The card digests of the papers an override changed, which are never known unchanged:
    # kept apart, only to compare brief cards with (render/unchanged.py · `Unchanged`).
    overridden_cards: dict[str, CardDigests] = field(default_factory=dict)
    token: str = ""  # names these as saved whole, which `DigestChanges` are taken against

    def only(self, paper_ids: set[str]) -> PaperDigests:
        return PaperDigests(
            _only(self.digests, paper_ids),
            _only(self.cards, paper_ids),
            self.inputs_key,
            self.structure,
            _only(self.related, paper_ids),
            self.build,
            _only(self.records, paper_ids),
        )


# The fields of `PaperDigests` that hold something per paper.
PER_PAPER = ("digests", "cards", "related", "records", "overridden_cards")


@dataclass(frozen=True)
class DigestChanges:
    """Paper digests as what differs from those last saved whole (their `base_token`): per
    field of PER_PAPER, the papers' entries that are new or other, and the ids it no longer
    has; the rest as they are (`now`, whose per-paper fields hold only those entries). A
    rebuild after an edit saves these: the whole digests of 100,000 papers took a forked
    child 1.5 s at the end of every build, while the build waited."""

    base_token: str
    now: PaperDigests
    dropped: dict[str, tuple[str, ...]]

    @classmethod
    def between(cls, made: PaperDigests, base: PaperDigests) -> DigestChanges:
        changed, dropped = {}, {}
        for name in PER_PAPER:
            now, was = getattr(made, name), getattr(base, name)
            changed[name] = {i: value for i, value in now.items() if was.get(i) != value}
            dropped[name] = tuple(sorted(was.keys() - now.keys()))
        return cls(base.token, dataclasses.replace(made, **changed), dropped)

    def few(self, papers: int, share: float) -> bool:
        """Whether at most `share` of the `papers` changed, in every field."""
        return all(
            len(getattr(self.now, name)) + len(self.dropped[name]) <= share * papers
            for name in PER_PAPER
        )

    def applied(self, base: PaperDigests) -> PaperDigests:
        whole = {}
        for name in PER_PAPER:
            entries = dict(getattr(base, name))
            for paper_id in self.dropped[name]:
                del entries[paper_id]
            entries.update(getattr(self.now, name))
            whole[name] = entries
        return dataclasses.replace(self.now, token=base.token, **whole)


def _only(made: dict[str, Made], paper_ids: set[str]) -> dict[str, Made]:
    """`made` of `paper_ids` only, in its order. A rebuild keeps all but a few: the dict is
    copied and those few dropped, instead of a test per paper in Python."""
    dropped = made.keys() - paper_ids
    if len(dropped) * 2 > len(made):
        return {i: value for i, value in made.items() if i in paper_ids}
    kept = dict(made)
    for paper_id in dropped:
        del kept[paper_id]
    return kept
