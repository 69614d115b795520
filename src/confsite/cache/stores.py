"""Caches kept between builds as one pickle each, tagged with the code's fingerprint.

They are best effort: a cache that is absent, truncated, of another type or made by other
code reads as None, and one that cannot be written is simply not kept. A path of None stands
for no cache (a build with `--no-cache`): nothing is read or written.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any, TypeVar

Cached = TypeVar("Cached")


def load_pickle(path: Path | None, fingerprint: bytes, kind: type[Cached]) -> Cached | None:
    """The value stored at `path` for this `fingerprint`; None when there is none (or `path`
    is None: a build without caches)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as stream:
            stored_fingerprint, value = pickle.load(stream)
    except Exception:  # absent, truncated or not ours: start afresh
        return None
    return value if stored_fingerprint == fingerprint and isinstance(value, kind) else None


def save_pickle(path: Path | None, fingerprint: bytes, value: Any) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as stream:
            pickle.dump((fingerprint, value), stream, protocol=5)
        os.replace(temporary, path)
    except OSError:
        pass


def with_changes(whole: Any, changes: Any) -> Any:
    """A cache saved `whole` (with a `token`) and the `changes` saved since (with the
    `base_token` they were taken against, and `applied`): the changes applied when they are
    this whole's; else the whole as it is (None stays None). Changes naming what the whole
    lacks are not its own either."""
    if whole is None or not whole.token or changes is None or changes.base_token != whole.token:
        return whole
    try:
        return changes.applied(whole)
    except KeyError:
        return whole
