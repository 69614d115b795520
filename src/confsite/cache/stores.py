"""Caches kept between builds as one pickle each, tagged with the code's fingerprint.

They are best effort: a cache that is absent, truncated, of another type or made by other
code reads as None, and one that cannot be written is simply not kept.
"""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path
from typing import Any, TypeVar

Cached = TypeVar("Cached")


def load_pickle(path: Path, fingerprint: bytes, kind: type[Cached]) -> Cached | None:
    try:
        with open(path, "rb") as stream:
            stored_fingerprint, value = pickle.load(stream)
    except Exception:  # absent, truncated or not ours: start afresh
        return None
    return value if stored_fingerprint == fingerprint and isinstance(value, kind) else None


def save_pickle(path: Path, fingerprint: bytes, value: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as stream:
            pickle.dump((fingerprint, value), stream, protocol=5)
        os.replace(temporary, path)
    except OSError:
        pass


def canonical_bytes(data: Any, pickler: type[pickle.Pickler] = pickle.Pickler) -> bytes:
    """`data` pickled without the memo, for digests: pickle writes a part that is one shared
    object once and refers back to it, so equal data read in different ways (a source parsed
    afresh, or loaded from a cache) gave different bytes. `data` must hold no cycle."""
    buffer = io.BytesIO()
    writer = pickler(buffer, protocol=5)
    writer.fast = True  # no memo
    writer.dump(data)
    return buffer.getvalue()
