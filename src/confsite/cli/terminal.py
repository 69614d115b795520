"""Terminal output: colour and progress bars only when a stream is a terminal, never in pipes."""

from __future__ import annotations

import os
from typing import TextIO

from ..diagnostics import ConfsiteError, ConfsiteErrors, Diagnostics, Problem
from ..progress import Progress

ANSI = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "cyan": "36",
}
SEVERITY_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}


def is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def wants_colour(stream: TextIO) -> bool:
    """A terminal that is not `dumb`, and no NO_COLOR (https://no-color.org) in the environment."""
    if os.environ.get("NO_COLOR"):
        return False
    return is_terminal(stream) and os.environ.get("TERM") != "dumb"


class Painter:
    """Wraps text in ANSI styles when `enabled`, and returns it unchanged otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: TextIO) -> Painter:
        return cls(wants_colour(stream))

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles:
            return text
        codes = ";".join(ANSI[style] for style in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


def format_problem(problem: Problem, paint: Painter) -> str:
    """`file:line: severity: message`, the location bold and the severity coloured."""
    severity = paint(problem.severity, SEVERITY_STYLE.get(problem.severity, "bold"))
    return f"{paint(str(problem.loc), 'bold')}: {severity}: {problem.message}"


def print_problems(diagnostics: Diagnostics, verbose: bool, stream: TextIO) -> None:
    """Every warning (and with `verbose` every note), one line each, grouped by kind."""
    paint = Painter.for_stream(stream)
    shown = [p for p in diagnostics.problems if verbose or p.severity != "info"]
    for kind in sorted({p.kind for p in shown}):
        group = sorted(
            (p for p in shown if p.kind == kind), key=lambda p: (p.loc.path, p.loc.line or 0)
        )
        print(f"{paint(kind, 'bold')} ({len(group)}):", file=stream)
        for problem in group:
            print(f"  {format_problem(problem, paint)}", file=stream)


def failure_text(err: BaseException) -> str:
    """What stopped a build, located: input problems carry file:line, template errors their
    template's name and line."""
    if isinstance(err, ConfsiteError):
        return str(err)
    filename, lineno = getattr(err, "filename", None), getattr(err, "lineno", None)
    where = f"{filename}:{lineno}: " if filename and lineno else ""
    return f"{where}{type(err).__name__}: {err}"


def failure_lines(err: BaseException) -> list[str]:
    """What stopped a build, one line per problem: a build that read every source reports
    every bad one."""
    if isinstance(err, ConfsiteErrors):
        return [str(error) for error in err.errors]
    return [failure_text(err)]


def print_failure(err: BaseException, stream: TextIO) -> None:
    for line in failure_lines(err):
        print_error(line, stream)


def print_error(message: str, stream: TextIO) -> None:
    paint = Painter.for_stream(stream)
    print(f"{paint('error', 'red', 'bold')}: {message}", file=stream)


class TerminalProgress(Progress):
    """rich progress bars for the pipeline's long phases; they vanish once a phase is over."""

    def __init__(self, stream: TextIO) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as Bars

        console = Console(file=stream, no_color=not wants_colour(stream))
        self._bars = Bars(
            TextColumn("{task.description:<8}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task: int | None = None

    def start(self, phase: str, total: int) -> None:
        self.finish()
        self._bars.start()
        self._task = self._bars.add_task(phase, total=total)

    def advance(self, steps: int = 1) -> None:
        if self._task is not None:
            self._bars.advance(self._task, steps)

    def finish(self) -> None:
        if self._task is not None:
            self._bars.remove_task(self._task)
            self._task = None
            self._bars.stop()


def progress_for(stream: TextIO, quiet: bool) -> Progress:
    """Bars on a terminal; the silent base class in pipes, CI logs and with --quiet."""
    if quiet or not is_terminal(stream) or os.environ.get("TERM") == "dumb":
        return Progress()
    return TerminalProgress(stream)
