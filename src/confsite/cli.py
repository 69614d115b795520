"""The `confsite` command line: argument parsing, the build summary and exit codes."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

from . import __version__
from .check import check_site
from .config import parse_base_url
from .diagnostics import ConfsiteError, Diagnostics
from .pipeline import BuildOptions, BuildResult, build

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
NOTE_LABELS = {
    "repeat": "exact repeats merged",
    "author-merge": "author spellings merged",
    "slug": "slug collisions resolved",
}


def base_url_argument(value: str) -> str:
    try:
        return parse_base_url(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{err}; got {value!r}") from None


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        default=Path("site.yaml"),
        help="site configuration file (default: site.yaml)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder (default: 'output' in the config, _site)",
    )
    parser.add_argument(
        "--base-url",
        type=base_url_argument,
        default=None,
        help="absolute URL the site is served from (overrides base_url)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="treat warnings (untitled papers, conflicts, ...) as errors",
    )
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    verbosity.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print notes (merged repeats, slug collisions)",
    )


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="confsite", description="Build a conference proceedings website from raw dumps."
    )
    parser.add_argument("--version", action="version", version=f"confsite {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    build_parser = commands.add_parser("build", help="build the site described by site.yaml")
    add_build_arguments(build_parser)
    check_parser = commands.add_parser(
        "check", help="verify a built site: links, assets, paper pages, search index"
    )
    check_parser.add_argument(
        "dir", nargs="?", type=Path, default=Path("_site"), help="the built site (default: _site)"
    )
    return parser


def print_problems(diagnostics: Diagnostics, verbose: bool, stream: TextIO) -> None:
    shown = [p for p in diagnostics.problems if verbose or p.severity != "info"]
    for kind in sorted({p.kind for p in shown}):
        group = sorted(
            (p for p in shown if p.kind == kind), key=lambda p: (p.loc.path, p.loc.line or 0)
        )
        print(f"{kind} ({len(group)}):", file=stream)
        for problem in group:
            print(f"  {problem}", file=stream)


def print_summary(result: BuildResult, stream: TextIO) -> None:
    warnings_by_source = Counter(p.loc.path for p in result.diagnostics.warnings)
    papers_by_source = Counter(
        path for paper in result.papers for path in {loc.path for loc in paper.sources}
    )
    print(
        "source                                   format          records  papers  warnings",
        file=stream,
    )
    for read in result.sources:
        path = read.config.path
        how = read.reader.name + ("" if read.detected else "*")
        print(
            f"{path:<40} {how:<15} {len(read.records):>7} {papers_by_source[path]:>7} "
            f"{warnings_by_source[path]:>9}",
            file=stream,
        )
    total_records = sum(len(read.records) for read in result.sources)
    print(
        f"{'total':<40} {'':<15} {total_records:>7} {len(result.papers):>7} "
        f"{len(result.diagnostics.warnings):>9}",
        file=stream,
    )
    if not all(read.detected for read in result.sources):
        print("* format set in the config rather than detected", file=stream)
    notes = Counter(p.kind for p in result.diagnostics.problems if p.severity == "info")
    if notes:
        listed = ", ".join(
            f"{NOTE_LABELS.get(kind, kind)} {count}" for kind, count in sorted(notes.items())
        )
        print(f"notes: {listed} (-v lists them)", file=stream)
    phases = ", ".join(
        f"{name} {seconds * 1000:.0f} ms" for name, seconds in result.timings.items()
    )
    print(
        f"wrote {result.files_written} files, {result.bytes_written:,} bytes to "
        f"{result.out_dir} ({phases})",
        file=stream,
    )


def run_build(args: argparse.Namespace) -> int:
    diagnostics = Diagnostics(strict=args.strict)
    options = BuildOptions(args.config, args.out, args.base_url, args.strict)
    try:
        result = build(options, diagnostics)
    except ConfsiteError as err:
        if not args.quiet:
            print_problems(diagnostics, args.verbose, sys.stderr)
        print(f"error: {err}", file=sys.stderr)
        return EXIT_FAILED
    if not args.quiet:
        print_problems(diagnostics, args.verbose, sys.stderr)
        print_summary(result, sys.stdout)
    return EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    report = check_site(args.dir)
    for problem in report.problems:
        print(f"{args.dir}/{problem}", file=sys.stderr)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    verdict = "ok" if not report.problems else f"{len(report.problems)} problems"
    print(
        f"checked {report.pages} pages and {report.links:,} internal links in {args.dir}: {verdict}"
    )
    return EXIT_FAILED if report.problems else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.command == "build":
        return run_build(args)
    if args.command == "check":
        return run_check(args)
    parser.error(f"unknown command {args.command!r}")
    return EXIT_USAGE
