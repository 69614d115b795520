"""Progress of the long build phases, reported to whoever listens (the CLI's progress bars).

The pipeline only calls these three methods; the base class ignores them, so library use and
non-terminal runs stay silent.
"""

from __future__ import annotations


class Progress:
    def start(self, phase: str, total: int) -> None:
        """A phase of `total` steps begins."""

    def advance(self, steps: int = 1) -> None:
        """`steps` more of the current phase are done."""

    def finish(self) -> None:
        """The current phase is over."""


SILENT = Progress()
