"""Markup rendered before the page workers fork, for them to read: kept in one buffer, not as
an object each. A forked worker shares its parent's memory until it writes to it, and reading
an object writes its reference count, so every object a worker read would be copied into it;
the buffer is only read (of the rest, a number per key)."""

from __future__ import annotations

from array import array


class MarkupAhead:
    """Rendered texts by key (a paper's id): text n lies in [ends[n], ends[n + 1])."""

    def __init__(self) -> None:
        self._number: dict[str, int] = {}
        self._buffer = bytearray()
        self._ends = array("q", [0])

    def add(self, key: str, text: str) -> None:
        self._number[key] = len(self._ends) - 1
        self._buffer += text.encode()
        self._ends.append(len(self._buffer))

    def get(self, key: str) -> str | None:
        """The text added under `key`, or None."""
        number = self._number.get(key)
        if number is None:
            return None
        ends = self._ends
        return self._buffer[ends[number] : ends[number + 1]].decode()
