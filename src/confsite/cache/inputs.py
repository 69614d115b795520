"""Reading and merging, remembered between builds.

A source whose bytes and settings are unchanged is not read or normalized again (the warnings
its reading gave are kept with it and given again); when no input changed at all, the merged
papers and the warnings merging gave are reused whole. Keys include a digest of confsite's code
(and of the readers from outside it), so a new version starts afresh. Like the manifest, this
is only a cache: anything unreadable is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Problem
from ..model.records import Entry, Paper
from ..readers.base import RawRecord

CACHE_FILE = "inputs.pickle"


@dataclass(frozen=True)
class ReadSource:
    """One source as read and normalized: the reader that read it and what came out."""

    reader: str
    detected: bool
    records: tuple[RawRecord, ...]
    entries: tuple[Entry, ...]
    problems: tuple[Problem, ...] = ()  # the warnings reading gave (see readers/plausibility.py)


@dataclass
class InputCache:
    sources: dict[str, ReadSource] = field(default_factory=dict)
    inputs_key: str = ""  # digest of every input of the last build
    papers: list[Paper] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # what merging reported


def digest(*parts: object) -> str:
    return hashlib.blake2b(pickle.dumps(parts, 5), digest_size=16).hexdigest()


def load_input_cache(folder: Path) -> InputCache:
    try:
        with open(folder / CACHE_FILE, "rb") as stream:
            cache = pickle.load(stream)
    except Exception:  # a cache from another version, truncated, or absent: start afresh
        return InputCache()
    return cache if isinstance(cache, InputCache) else InputCache()


def save_input_cache(folder: Path, cache: InputCache) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / (CACHE_FILE + ".tmp")
        with open(temporary, "wb") as stream:
            pickle.dump(cache, stream, protocol=5)
        os.replace(temporary, folder / CACHE_FILE)
    except OSError:
        pass
