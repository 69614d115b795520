"""The end-of-build summary: per source its format, records, papers and warnings; then totals
and the time each phase took."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..diagnostics import ConfsiteError, Diagnostics
from .terminal import Painter, print_error, print_failure, print_problems, progress_for

if TYPE_CHECKING:
    from ..pipeline import BuildOptions, BuildResult

NOTE_LABELS = {
    "repeat": "exact repeats merged",
    "author-merge": "author spellings merged",
    "author-variant": "author name variants merged as one person",
    "author-maybe": "author name variants left apart for want of evidence",
    "slug": "slug collisions resolved",
}


def build_and_report(options: BuildOptions, args: Any) -> BuildResult | None:
    """Build as `confsite build` does: progress and problems on standard error, the summary on
    standard output (`args.quiet`: errors only, `args.verbose`: notes too). None when the build
    failed; its error is printed."""
    # Imported here: the pipeline pulls in more, which --help need not wait for.
    from ..output.processes import ChildStopped
    from ..pipeline import build

    diagnostics = Diagnostics(strict=options.strict)
    try:
        result = build(options, diagnostics, progress_for(sys.stderr, args.quiet))
    except ConfsiteError as err:
        if not args.quiet:
            print_problems(diagnostics, args.verbose, sys.stderr)
        print_failure(err, sys.stderr)
        return None
    except ChildStopped as err:  # the site is swapped in only once every process is done
        print_error(f"{err}; the site was left as it was", sys.stderr)
        return None
    if not args.quiet:
        print_problems(diagnostics, args.verbose, sys.stderr)
        sys.stderr.flush()
        print_summary(result, sys.stdout)
    return result


def human_bytes(count: int) -> str:
    """`48.9 MB (48,861,445 bytes)`; below a kilobyte, bytes only."""
    if count < 1000:
        return f"{count} bytes"
    size, units = count / 1000, ["KB", "MB", "GB"]
    while size >= 1000 and len(units) > 1:
        size /= 1000
        units.pop(0)
    return f"{size:.1f} {units[0]} ({count:,} bytes)"


def human_seconds(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def display_path(path: Path) -> str:
    """A path relative to the working folder when inside it, as the user would type it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def source_table(result: BuildResult) -> list[list[str]]:
    """Rows of (source, format, records, papers, warnings), header first and total last."""
    warnings_by_source = Counter(p.loc.path for p in result.diagnostics.warnings)
    report = result.report
    rows = [["source", "format", "records", "papers", "warnings"]]
    for line in report.sources:
        rows.append(
            [
                line.path,
                line.reader + ("" if line.detected else "*"),
                f"{line.records:,}",
                f"{line.papers:,}",
                f"{warnings_by_source[line.path]:,}",
            ]
        )
    total_records = sum(line.records for line in report.sources)
    rows.append(
        [
            "total",
            "",
            f"{total_records:,}",
            f"{report.papers:,}",
            f"{len(result.diagnostics.warnings):,}",
        ]
    )
    return rows


def print_summary(result: BuildResult, stream: TextIO) -> None:
    paint = Painter.for_stream(stream)
    rows = source_table(result)
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for number, row in enumerate(rows):
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:], strict=True)]
        line = "  ".join(cells).rstrip()
        print(paint(line, "bold") if number in (0, len(rows) - 1) else line, file=stream)
    if not all(line.detected for line in result.report.sources):
        print("* format set in the config rather than detected", file=stream)
    notes = Counter(p.kind for p in result.diagnostics.problems if p.severity == "info")
    if notes:
        listed = ", ".join(
            f"{NOTE_LABELS.get(kind, kind)} {count}" for kind, count in sorted(notes.items())
        )
        print(f"notes: {listed} (-v lists them)", file=stream)
    print(
        f"site: {result.pages:,} pages, {result.report.papers:,} papers, "
        f"{result.report.authors:,} authors",
        file=stream,
    )
    untitled = result.report.untitled
    if untitled:
        print(
            f"untitled: {untitled:,} paper{'s' if untitled != 1 else ''} without a title in the "
            "dumps, shown with the first words of the abstract; add titles in overrides.yaml "
            "(the untitled warnings name each id)",
            file=stream,
        )
    print(output_line(result), file=stream)
    phases = ", ".join(
        f"{name} {human_seconds(seconds)}" for name, seconds in result.timings.items()
    )
    total = human_seconds(sum(result.timings.values()))
    print(f"time: {phases}; total {paint(total, 'bold')}", file=stream)


def output_line(result: BuildResult) -> str:
    size = f"{result.files_written:,} files, {human_bytes(result.bytes_written)}"
    where = display_path(result.out_dir)
    if result.up_to_date:
        return f"{where} is up to date ({size}): nothing changed, no file rewritten"
    line = f"wrote {size} to {where}"
    if result.files_changed < result.files_written:
        line += (
            f" ({result.files_changed:,} changed; {result.pages_rendered:,} of "
            f"{result.pages:,} pages rendered)"
        )
    return line


def print_rebuild_line(result: BuildResult, seconds: float, stream: TextIO) -> None:
    """One line after `serve` rebuilt the site."""
    paint = Painter.for_stream(stream)
    warnings = len(result.diagnostics.warnings)
    print(
        f"{paint('rebuilt', 'green')} in {human_seconds(seconds)}: "
        f"{result.report.papers:,} papers, {result.pages:,} pages, "
        f"{warnings:,} warning{'s' if warnings != 1 else ''}",
        file=stream,
        flush=True,
    )
