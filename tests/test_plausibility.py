"""Plausibility checks: no warning on the seeds read by their own readers; each sign fires when
a wrong format is forced onto a file; the warnings come back when a source comes from the cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, SEEDS

from confsite.cache.inputs import CachedReading
from confsite.cache.manifest import CACHE_FOLDER
from confsite.config import load_config
from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, build
from confsite.readers.base import RawRecord
from confsite.readers.plausibility import KIND, implausible_reading
from confsite.readers.registry import Registry
from confsite.readers.sources import SourceText, read_source

SESSION_2023 = (SEEDS / "iclr2023-poster-session-3.txt").read_text(encoding="utf-8")
TRENDING = (SEEDS / "trending-papers.txt").read_text(encoding="utf-8")
PROSE = (
    "We study a question that matters to many people working in the field, and we answer it "
    "with a method that is simple, fast and accurate on every benchmark we tried so far. "
)


def warnings_of(tmp_path: Path, text: str, format_name: str) -> list[str]:
    """The implausibility warnings of `text` read as `format_name`, as `file:line: message`."""
    (tmp_path / "dump.txt").write_text(text, encoding="utf-8")
    config = f"title: T\nsources:\n  - path: dump.txt\n    format: {format_name}\n"
    (tmp_path / "site.yaml").write_text(config, encoding="utf-8")
    site = load_config(tmp_path / "site.yaml", Diagnostics())
    read = read_source(site, site.sources[0], Registry())
    assert all(problem.kind == KIND and problem.severity == "warning" for problem in read.problems)
    return [f"{problem.loc}: {problem.message}" for problem in read.problems]


def test_the_seeds_read_by_their_own_readers_give_no_warning() -> None:
    config = load_config(REPO / "site.yaml", Diagnostics())
    registry = Registry()
    for source in config.sources:
        read = read_source(config, source, registry)
        assert read.problems == (), source.path


def test_a_header_row_as_title(tmp_path: Path) -> None:
    rows = [f"Paper {n}\tAnn Lee; Bo Chen\t{PROSE}" for n in range(3)]
    found = warnings_of(tmp_path, "title\tauthors\tabstract\n" + "\n".join(rows), "paper-listing")
    assert any("dump.txt:1: title 'title\\tauthors\\tabstract' is a header row" in w for w in found)


@pytest.mark.parametrize("chrome", ["Login", "Home", "Schedule", "Menu", "Search", "Sponsors"])
def test_a_menu_word_as_title(tmp_path: Path, chrome: str) -> None:
    text = f"{chrome}\n{PROSE}\nA real title\n{PROSE}\n"
    (found,) = warnings_of(tmp_path, text, "paper-listing")
    assert found.startswith(f"dump.txt:1: title {chrome!r} is a menu or page-chrome item")


@pytest.mark.parametrize("day", ["- 2006", "June 5, 2023", "2023-06-05", "Tue, Jun 6"])
def test_a_date_as_title(tmp_path: Path, day: str) -> None:
    found = warnings_of(tmp_path, f"A real title\n{PROSE}\n{day}\n{PROSE}\n", "paper-listing")
    assert any(f"dump.txt:3: title {day!r} is a date" in w for w in found), found


@pytest.mark.parametrize("count", ["12 authors", "37 upvotes", "Page 2 of 9", "1,024 citations"])
def test_a_count_as_title(tmp_path: Path, count: str) -> None:
    found = warnings_of(tmp_path, f"A real title\n{PROSE}\n{count}\n{PROSE}\n", "paper-listing")
    assert any(f"dump.txt:3: title {count!r} is a count" in w for w in found), found


def test_author_lines_as_titles_a_session_page_read_as_a_listing(tmp_path: Path) -> None:
    found = warnings_of(tmp_path, SESSION_2023, "paper-listing")
    first = "dump.txt:6: title 'Jonathan Hayase · Sewoong Oh' is an author list"
    assert any(w.startswith(first) for w in found), found
    assert any("and 1" in w and "more like it" in w for w in found)  # capped, not 135 lines
    assert len(found) <= 8


def test_an_author_list_repeated_as_a_title() -> None:
    source = SourceText("dump.txt", "\n".join(["x"] * 10))
    records = (
        RawRecord(source.loc(1, 5), "A title", ("Ann Lee", "Bo Chen"), (), ("a",)),
        RawRecord(source.loc(6, 10), "Bo Chen, Ann Lee", (), (), ("b",)),
    )
    reader = _Reader(("title", "abstract"))
    found = [str(problem) for problem in implausible_reading(source, records, reader)]
    assert any(
        "dump.txt:6: warning: title 'Bo Chen, Ann Lee' repeats the author list of the record at "
        "dump.txt:1" in w
        for w in found
    ), found


def test_a_giant_abstract_and_far_fewer_records_than_rows(tmp_path: Path) -> None:
    """A 3,000-line TSV read as a paper listing: every row is prose, so one untitled record."""
    rows = [f"Paper {n}\tAnn Lee; Bo Chen\t{PROSE}" for n in range(3000)]
    found = warnings_of(tmp_path, "\n".join(rows), "paper-listing")
    assert any(w.startswith("dump.txt:1: abstract of ") and "over 20,000" in w for w in found)
    assert any(
        "1 records read from a file with 3000 rows of 3 tab-separated fields" in w for w in found
    ), found


def test_far_fewer_records_than_markdown_headings(tmp_path: Path) -> None:
    papers = "\n".join(f"### Paper {n}\n\nAnn Lee, Bo Chen\n\n{PROSE}\n" for n in range(40))
    found = warnings_of(tmp_path, f"## Accepted papers\n\n{papers}", "markdown-list")
    assert any("1 records read from a file with 41 Markdown headings" in w for w in found), found


def test_most_of_the_file_outside_every_record(tmp_path: Path) -> None:
    """A session page forced through the Markdown reader: only a trailing heading is read."""
    found = warnings_of(tmp_path, SESSION_2023 + "\n## Sponsors\n- Acme Corp\n", "markdown-list")
    assert any("of the file's text is inside the 1 records read" in w for w in found), found
    assert any("title 'Sponsors' is a menu or page-chrome item" in w for w in found), found


def test_a_carried_field_missing_from_every_record(tmp_path: Path) -> None:
    found = warnings_of(tmp_path, TRENDING, "session-2023")
    assert any(
        w.startswith("dump.txt:1: none of the 269 records has authors, which every session-2023")
        for w in found
    ), found


def test_each_warning_says_how_the_file_was_read_and_what_to_do(tmp_path: Path) -> None:
    (found,) = warnings_of(tmp_path, f"Login\n{PROSE}\nA real title\n{PROSE}\n", "paper-listing")
    assert "read as paper-listing" in found and "set 'format'" in found


def test_strict_fails_on_an_implausible_reading(tmp_path: Path) -> None:
    warnings_of(tmp_path, f"Login\n{PROSE}\nA real title\n{PROSE}\n", "paper-listing")
    diagnostics = Diagnostics(strict=True)
    with pytest.raises(Exception, match="is a menu or page-chrome item"):
        build(BuildOptions(config_path=tmp_path / "site.yaml", jobs=1), diagnostics)
    assert not (tmp_path / "_site").exists()


def test_the_warnings_come_back_when_the_source_comes_from_the_cache(tmp_path: Path) -> None:
    warnings_of(tmp_path, f"Login\n{PROSE}\nA real title\n{PROSE}\n", "paper-listing")
    options = BuildOptions(config_path=tmp_path / "site.yaml", jobs=1)
    first, second = Diagnostics(), Diagnostics()
    build(options, first)
    (tmp_path / "site.yaml").write_text(
        (tmp_path / "site.yaml").read_text() + "    session: Changed\n", encoding="utf-8"
    )
    build(options, second)  # the source's settings changed: merged anew, read from the cache
    implausible = [[str(p) for p in d.problems if p.kind == KIND] for d in (first, second)]
    assert implausible[0] and implausible[0] == implausible[1]
    third = Diagnostics()
    build(options, third)  # nothing changed: the whole reading and merging from the cache
    assert [str(p) for p in third.problems if p.kind == KIND] == implausible[0]


def test_a_cached_source_is_not_read_again_yet_keeps_its_warnings(tmp_path: Path) -> None:
    warnings_of(tmp_path, f"Login\n{PROSE}\nA real title\n{PROSE}\n", "paper-listing")
    build(BuildOptions(config_path=tmp_path / "site.yaml", jobs=1), Diagnostics())
    config = load_config(tmp_path / "site.yaml", Diagnostics())
    reading = CachedReading(config, _fingerprint(), tmp_path / CACHE_FOLDER, Registry())
    (read,) = reading.read()
    assert reading.fresh == set()
    assert [problem.kind for problem in read.problems] == [KIND]


def _fingerprint() -> bytes:
    from confsite.render.assets import build_fingerprint

    return build_fingerprint(None)


class _Reader:
    name = "test"

    def __init__(self, carries: tuple[str, ...]) -> None:
        self.carries = carries


# A build forks only where no other thread runs (see output/processes.py · fork_is_safe), which
# a test process that served pages or drove a browser cannot promise: the check apart is
# tried in a fresh interpreter, each case printing one JSON line.
CHECKED_APART = r"""
import gc, json, os, sys, weakref
from pathlib import Path
from confsite.cache import inputs
from confsite.cache.inputs import CachedReading
from confsite.config import load_config
from confsite.diagnostics import ConfsiteError, Diagnostics
from confsite.readers.registry import Registry
from confsite.readers.sources import RecordsRead, read_source

project = Path(sys.argv[1])
config = load_config(project / "site.yaml", Diagnostics())
check, parent = RecordsRead.plausibility, os.getpid()
shown = lambda read: [f"{p.loc}: {p.message}" for p in read.problems]
expected = shown(read_source(config, config.sources[0], Registry()))
inputs.RECORDS_CHECKED_APART = 2

def read(apart=2):
    inputs.RECORDS_CHECKED_APART = apart
    return CachedReading(config, b"code", None, Registry()).read(jobs=2)

def by_whom(read):
    (project / "checked-by").write_text(str(os.getpid()))
    return check(read)
RecordsRead.plausibility = by_whom
(made,) = read()
checker = int((project / "checked-by").read_text())
print(json.dumps(["apart", shown(made) == expected, checker != parent, len(expected)]))

def dying(read):
    if os.getpid() != parent:
        os._exit(1)
    return check(read)
RecordsRead.plausibility = dying
(made,) = read()
print(json.dumps(["dying", shown(made) == expected]))

class Tree:
    def __init__(self):
        self.itself = self
trees, read_records = [], inputs.read_records
def reading(*args):
    trees.append(weakref.ref(Tree()))
    return read_records(*args)
inputs.read_records, RecordsRead.plausibility = reading, check
gc.disable()  # as in a build's main process
read()
gc.collect(0)  # merging's young-generation pass
gc.enable()
inputs.read_records = read_records
print(json.dumps(["garbage", bool(trees) and trees[0]() is None]))

def failing(read):
    raise ConfsiteError(read.text.loc(1), "the check failed")
RecordsRead.plausibility = failing
(project / "empty.txt").write_text("", encoding="utf-8")
with (project / "site.yaml").open("a", encoding="utf-8") as config_file:
    config_file.write("  - path: empty.txt\n")
config = load_config(project / "site.yaml", Diagnostics())
messages = []
for apart in (2, 10**9):
    try:
        read(apart)
    except ConfsiteError as err:
        messages.append(str(err))
print(json.dumps(["error", messages]))
"""


@pytest.fixture(scope="module")
def checked_apart(module_folder: Callable[[str], Path]) -> dict[str, list]:
    """A listing whose reading gives a warning per junk title, read by a build that checks it
    apart (however few its records), in a fresh interpreter: what each case printed."""
    import json
    import subprocess
    import sys

    project = module_folder("apart")
    junk = ["Login", "June 5, 2023", "12 authors", "Home", "Search", "Menu", "2023-06-05"]
    paper = "{}\n" + PROSE + "\nA real title {}\n" + PROSE + "\n"
    text = "".join(paper.format(word, n) for n, word in enumerate(junk))
    warnings_of(project, text, "paper-listing")
    ran = subprocess.run(
        [sys.executable, "-c", CHECKED_APART, str(project)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return {case: rest for case, *rest in map(json.loads, ran.stdout.splitlines())}


def test_a_large_source_read_alone_is_checked_apart_with_the_same_warnings(
    checked_apart: dict[str, list],
) -> None:
    """A build reading one large source alone checks its plausibility in a forked child while
    it normalizes the records: the same warnings, in the same order, as the check in-process
    (`read_source`); and the check is the child's."""
    same, by_child, warnings = checked_apart["apart"]
    assert same and by_child and warnings >= 7


def test_a_check_apart_whose_child_dies_is_made_here(checked_apart: dict[str, list]) -> None:
    assert checked_apart["dying"] == [True]


def test_an_error_of_a_check_apart_is_the_sources_as_in_process(
    checked_apart: dict[str, list],
) -> None:
    """A check that raises (a site's own reader may) fails that source, named, in the child
    as here, and every other bad source is still reported with it."""
    ((apart, here),) = checked_apart["error"]
    assert apart == here
    assert "dump.txt:1: the check failed" in apart and "empty.txt:1" in apart


def test_reading_garbage_is_freed_though_a_child_checks_apart(
    checked_apart: dict[str, list],
) -> None:
    """The fork freezes what exists: reading's cyclic garbage is collected before it, not kept
    through the build by a main process whose collector is off (merging makes one young pass)."""
    assert checked_apart["garbage"] == [True]
