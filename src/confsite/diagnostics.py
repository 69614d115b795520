"""Source locations, confsite's own error type, and the collector of build warnings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LINE_BREAK = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True, order=True)
class SourceLoc:
    """A place in an input file: a path (as given in the config) and a 1-based line range."""

    path: str
    line: int | None = None
    end_line: int | None = None

    def __str__(self) -> str:
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}"


def line_at(data: bytes, offset: int) -> int:
    """The 1-based line of a byte offset, counting CRLF, lone CR and LF line ends alike."""
    return len(LINE_BREAK.findall(data, 0, offset)) + 1


class ConfsiteError(Exception):
    """An input problem the user must fix; always carries the file (and line, when known)."""

    def __init__(self, loc: SourceLoc | str, message: str) -> None:
        self.loc = loc if isinstance(loc, SourceLoc) else SourceLoc(loc)
        self.message = message
        super().__init__(f"{self.loc}: {message}")

    def __reduce__(self):  # so an error raised in a worker process arrives whole, as its kind
        return (type(self), (self.loc, self.message))


class ConfsiteErrors(ConfsiteError):
    """Several input problems found in one pass (every source read, every reader loaded), to be
    reported together; located at the first."""

    def __init__(self, errors: list[ConfsiteError]) -> None:
        self.errors = [single for error in errors for single in getattr(error, "errors", [error])]
        first = self.errors[0]
        super().__init__(first.loc, first.message)
        self.args = ("\n".join(str(error) for error in self.errors),)

    def __reduce__(self):
        return (ConfsiteErrors, (self.errors,))


def raise_all(errors: list[ConfsiteError]) -> None:
    """Nothing when `errors` is empty; the error itself when there is one; else all of them."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfsiteErrors(errors)


@dataclass(frozen=True)
class Problem:
    severity: str  # "warning" or "error"
    kind: str  # short machine name used for grouping, e.g. "untitled", "conflict"
    loc: SourceLoc
    message: str

    def __str__(self) -> str:
        return f"{self.loc}: {self.severity}: {self.message}"


@dataclass
class Diagnostics:
    """Collects warnings during a build; `strict` makes any warning fail the build at the end."""

    strict: bool = False
    problems: list[Problem] = field(default_factory=list)

    def warn(self, kind: str, loc: SourceLoc, message: str) -> None:
        self.problems.append(Problem("warning", kind, loc, message))

    def info(self, kind: str, loc: SourceLoc, message: str) -> None:
        self.problems.append(Problem("info", kind, loc, message))

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    def raise_if_strict(self) -> None:
        if self.strict and self.warnings:
            first = self.warnings[0]
            raise ConfsiteError(
                first.loc,
                f"{first.message} (and {len(self.warnings) - 1} more warnings; "
                "--strict makes warnings fatal)",
            )
