"""The `confsite` command line: argument parsing, the commands and their exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from .. import __version__
from ..diagnostics import ConfsiteError
from .check import check_site
from .deploy import DEFAULT_BRANCH, DEFAULT_REMOTE, DEPLOY_BUILD_FOLDER
from .terminal import Painter, print_error, print_failure

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_PORT = 8000
EPILOG = "exit status: 0 success, 1 build or check failure, 2 usage error"


def base_url_argument(value: str) -> str:
    from ..config import parse_base_url  # which imports the readers: not for --help

    try:
        return parse_base_url(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{err}; got {value!r}") from None


def port_argument(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535; got {value!r}")
    return port


def positive_int(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {value!r}")
    return int(value)


def add_build_arguments(
    parser: argparse.ArgumentParser,
    out_help: str = "output folder (default: 'output' in the config, _site)",
) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        default=Path("site.yaml"),
        help="site configuration file (default: site.yaml)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        default=None,
        help=out_help,
    )
    parser.add_argument(
        "--base-url",
        type=base_url_argument,
        metavar="URL",
        default=None,
        help="absolute URL the site is served from (overrides base_url)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="treat warnings (untitled papers, conflicts, ...) as errors",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        metavar="N",
        default=None,
        help="processes that read dumps and render pages (default: one per CPU core)",
    )
    parser.add_argument(
        "--no-cache",
        dest="use_cache",
        action="store_false",
        help="read and write no cache: every source read, every page rendered (the same site)",
    )
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    verbosity.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print notes (merged repeats, slug collisions)",
    )


class ReaderNames:
    """The built-in readers' names, looked up when a help text shows them: importing the
    readers is slow, and `confsite --version` and `--help` need not wait for it."""

    def __str__(self) -> str:
        from ..readers import reader_names

        return ", ".join(reader_names())


AddCommand = Callable[[str, str, str], argparse.ArgumentParser]  # name, summary, description


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="confsite",
        description="Build a conference proceedings website from raw dumps.",
        epilog="Run 'confsite COMMAND --help' for a command's options. " + EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"confsite {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, summary: str, description: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=summary, description=description, epilog=EPILOG)

    for add_command in (_add_build, _add_serve, _add_check, _add_init, _add_deploy, _add_inspect):
        add_command(add)
    return parser


def _add_build(add: AddCommand) -> None:
    build_parser = add(
        "build",
        "build the site described by site.yaml",
        "Read every source in site.yaml, merge the papers and write the site to the output "
        "folder (replaced in one step: a failed build leaves the previous site as it was).",
    )
    add_build_arguments(build_parser)


def _add_serve(add: AddCommand) -> None:
    serve_parser = add(
        "serve",
        "build, serve on 127.0.0.1 and rebuild on every change",
        "Build the site, serve it on 127.0.0.1 and watch the sources, site.yaml, "
        "overrides, content, theme and templates: every change rebuilds the site and reloads "
        "the open pages. A failed rebuild is shown in the terminal and in the page, and the "
        "last good site stays served. Ctrl-C stops.",
    )
    add_build_arguments(serve_parser)
    serve_parser.add_argument(
        "--port",
        type=port_argument,
        metavar="N",
        default=DEFAULT_PORT,
        help=f"port to listen on (default: {DEFAULT_PORT}; 0 picks a free one)",
    )


def _add_check(add: AddCommand) -> None:
    check_parser = add(
        "check",
        "verify a built site: links, assets, paper pages, search index",
        "Verify a built site before deploying it: every internal link and asset resolves "
        "(anchors included), every paper in papers.json has its page, and the search index "
        "loads in lunr.js (needs Node).",
    )
    check_parser.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path("_site"),
        metavar="DIR",
        help="the built site (default: _site)",
    )


def _add_init(add: AddCommand) -> None:
    init_parser = add(
        "init",
        "start a new site: commented site.yaml, an example dump, content/about.md",
        "Create DIR with a commented site.yaml, an example dump, overrides.yaml and "
        "content/about.md, ready for 'confsite serve' (or 'confsite build') inside it. "
        "DIR must not exist or be empty.",
    )
    init_parser.add_argument("dir", type=Path, metavar="DIR", help="the new site's folder")


def _add_deploy(add: AddCommand) -> None:
    deploy_parser = add(
        "deploy",
        "build the site and publish it on the gh-pages branch (GitHub Pages)",
        "Build the site (base URL: --base-url, else base_url in site.yaml, else the GitHub "
        "Pages address of the remote when it is a GitHub repository) and commit it, with a "
        ".nojekyll file, on top of the gh-pages branch of the site's git repository, then push "
        "that branch. Your working tree, index and current branch are not touched. Refuses "
        "uncommitted changes to tracked files in the site's folder.",
    )
    add_build_arguments(
        deploy_parser,
        out_help=f"build folder (default: {DEPLOY_BUILD_FOLDER} beside the config; one inside "
        "the repository must be ignored by git)",
    )
    deploy_parser.add_argument(
        "--remote",
        metavar="NAME",
        default=DEFAULT_REMOTE,
        help="the remote to push to, whose GitHub address gives the default base URL "
        f"(default: {DEFAULT_REMOTE})",
    )
    deploy_parser.add_argument(
        "--branch",
        metavar="NAME",
        default=DEFAULT_BRANCH,
        help=f"the branch that receives the site (default: {DEFAULT_BRANCH})",
    )
    deploy_parser.add_argument(
        "--push",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="push the branch to the remote (default: push; --no-push only commits)",
    )
    deploy_parser.add_argument(
        "--dry-run",
        action="store_true",
        help="build and show what would be published, without committing or pushing",
    )
    deploy_parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="deploy even with uncommitted changes to tracked files in the site's folder",
    )


def _add_inspect(add: AddCommand) -> None:
    inspect_parser = add(
        "inspect",
        "show which reader reads a dump file, and the records it reads",
        "Show every reader's sniff score for FILE, the reader a build would pick (a score of "
        "at least 0.5 is needed) and the raw records it reads, before any cleaning or merging.",
    )
    inspect_parser.add_argument(
        "file", type=Path, metavar="FILE", help="a dump file (text, Markdown or HTML)"
    )
    format_option = inspect_parser.add_argument(
        "--format",
        metavar="NAME",
        default=None,
        help="read with this reader instead of the detected one: "
        "%(reader_names)s, or a reader in ./readers/",
    )
    format_option.reader_names = ReaderNames()  # argparse fills %(...)s from the option's fields
    inspect_parser.add_argument(
        "--json", action="store_true", help="print scores and full records as JSON"
    )


# A list in a process that `run` ends with `os._exit`: a build's result is kept in it, as
# freeing its objects one by one after the summary is printed took most of a second at
# 100,000 papers. None in a process that goes on (tests, a caller of `main`), which frees it.
_kept_until_exit: list[object] | None = None


def run_build(args: argparse.Namespace) -> int:
    from ..pipeline import BuildOptions
    from .summary import build_and_report

    options = BuildOptions(
        args.config, args.out, args.base_url, args.strict, args.jobs, args.use_cache
    )
    result = build_and_report(options, args)
    if _kept_until_exit is not None:
        _kept_until_exit.append(result)
    return EXIT_OK if result is not None else EXIT_FAILED


def run_check(args: argparse.Namespace) -> int:
    report = check_site(args.dir)
    paint = Painter.for_stream(sys.stderr)
    for problem in report.problems:
        print(f"{args.dir}/{problem}", file=sys.stderr)
    for note in report.notes:
        print(f"{paint('note', 'cyan')}: {note}", file=sys.stderr)
    sys.stderr.flush()
    paint = Painter.for_stream(sys.stdout)
    count = len(report.problems)
    plural = "s" if count > 1 else ""
    verdict = paint(f"{count} problem{plural}", "red") if count else paint("ok", "green")
    print(
        f"checked {report.pages} pages and {report.links:,} internal links in {args.dir}: {verdict}"
    )
    return EXIT_FAILED if report.problems else EXIT_OK


def run_init(args: argparse.Namespace) -> int:
    from .init import init_site

    try:
        written = init_site(args.dir)
    except ConfsiteError as err:
        print_error(str(err), sys.stderr)
        return EXIT_FAILED
    for relative in written:
        print(f"  {args.dir / relative}")
    paint = Painter.for_stream(sys.stdout)
    print(f"created {args.dir}. Next: {paint(f'cd {args.dir} && confsite serve', 'bold')}")
    return EXIT_OK


def run_inspect(args: argparse.Namespace) -> int:
    from ..readers.plugins import site_registry
    from .inspect import inspect_file, inspection_json, print_records, print_scores

    try:
        readers = site_registry(Path.cwd())  # a site's own readers, as its build has them
        if args.format is not None and args.format not in readers.names():
            print("usage: confsite inspect FILE [--format NAME] [--json]", file=sys.stderr)
            print(
                f"confsite inspect: error: --format: no reader {args.format!r} "
                f"(known: {', '.join(readers.names())})",
                file=sys.stderr,
            )
            return EXIT_USAGE
        inspection = inspect_file(args.file, readers, args.format)
    except ConfsiteError as err:  # several, when the site's readers are broken
        print_failure(err, sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(inspection_json(inspection))
    else:
        print_scores(inspection, sys.stdout)
        if inspection.reader is not None:
            print_records(inspection, sys.stdout)
    if inspection.reader is None:
        print_error(
            f"{inspection.path}: not a recognised dump format (no reader scores 0.5); "
            "--format NAME reads it with a given reader",
            sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


def run_deploy(args: argparse.Namespace) -> int:
    from .deploy import run_deploy as deploy

    return deploy(args)


def run_serve(args: argparse.Namespace) -> int:
    from .serve import run_serve as serve

    return serve(args)


COMMANDS = {
    "build": run_build,
    "serve": run_serve,
    "check": run_check,
    "init": run_init,
    "deploy": run_deploy,
    "inspect": run_inspect,
}


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    return COMMANDS[args.command](args)


def run(argv: list[str] | None = None) -> NoReturn:
    """The command line's entry point: `main`, then an exit that skips tearing the interpreter
    down. Freeing a large build's millions of objects one by one is slow and comes after the
    site is already written; the system frees the process's memory at once."""
    global _kept_until_exit
    _kept_until_exit = []
    status = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
