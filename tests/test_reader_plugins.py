"""Readers from outside the package: a site's `readers/` folder and `confsite.readers` entry
points join the build's registry; a broken one is a located error naming its file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO

from confsite.diagnostics import ConfsiteError, Diagnostics
from confsite.pipeline import BuildOptions, build
from confsite.readers.plugins import site_registry

EXAMPLE = REPO / "docs" / "examples" / "reader"
SRC = REPO / "src"

PIPES_READER = '''
"""Pipe lines: title | authors separated by ';' | abstract."""
from confsite.readers.base import RawRecord

name = "pipes"
description = "title | authors | abstract"
carries = ("title", "authors", "abstract")


def sniff(source):
    lines = [line for line in source.lines if line.strip()]
    return sum(line.count(" | ") == 2 for line in lines) / max(1, len(lines))


def read(source, options=None):
    records = []
    for number, line in enumerate(source.lines, start=1):
        if line.strip():
            title, authors, abstract = line.split(" | ")
            names = tuple(name.strip() for name in authors.split(";"))
            records.append(RawRecord(source.loc(number), TITLE(title), names, (), (abstract,)))
    return records


TITLE = str
'''
PIPES_DUMP = (
    "Sorting Socks | Ann Lee; Bo Chen | We sort socks with very little supervision.\n"
    "Tidy Tables | Cy Dee | A small language for reshaping tables.\n"
)


def run_cli(project: Path, *args: str, path: str = "") -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), path]))}
    return subprocess.run(
        [sys.executable, "-m", "confsite", *args],
        capture_output=True,
        text=True,
        cwd=project,
        env=environment,
        timeout=120,
    )


def make_site(tmp_path: Path, readers: dict[str, str], fmt: str | None = None) -> Path:
    (tmp_path / "readers").mkdir(parents=True, exist_ok=True)
    for file_name, code in readers.items():
        (tmp_path / "readers" / file_name).write_text(textwrap.dedent(code), encoding="utf-8")
    (tmp_path / "dump.txt").write_text(PIPES_DUMP, encoding="utf-8")
    format_line = f"    format: {fmt}\n" if fmt else ""
    config = f"title: T\nsources:\n  - path: dump.txt\n{format_line}"
    (tmp_path / "site.yaml").write_text(config, encoding="utf-8")
    return tmp_path


def build_site(project: Path) -> list[dict]:
    build(BuildOptions(config_path=project / "site.yaml", jobs=1), Diagnostics())
    return json.loads((project / "_site" / "papers.json").read_text(encoding="utf-8"))


def build_error(project: Path) -> str:
    with pytest.raises(ConfsiteError) as raised:
        build(BuildOptions(config_path=project / "site.yaml", jobs=1), Diagnostics())
    assert not (project / "_site").exists()
    return str(raised.value)


# --- the site's readers/ folder --------------------------------------------------------------


def test_the_documented_example_builds(tmp_path: Path) -> None:
    project = tmp_path / "reader"
    shutil.copytree(EXAMPLE, project)
    result = run_cli(project, "build", "-j", "1")
    assert result.returncode == 0, result.stderr
    assert "paper-cards" in result.stdout and "warning" not in result.stderr
    papers = json.loads((project / "_site" / "papers.json").read_text(encoding="utf-8"))
    assert [paper["title"] for paper in papers] == [
        "Learning to Sort Socks with Little Supervision",
        "On the Entropy of Desks",
        "Tidy Tables: Reshaping Data without Tears",
    ]
    assert papers[0]["authors"] == ["Ann Lee", "Bo Chen"]
    assert papers[0]["abstract"].endswith("sort a basket of 200 socks in under a minute.")


def test_a_site_reader_is_detected_and_built(tmp_path: Path) -> None:
    papers = build_site(make_site(tmp_path, {"pipes.py": PIPES_READER}))
    assert sorted(paper["title"] for paper in papers) == ["Sorting Socks", "Tidy Tables"]
    assert (tmp_path / "_site" / "papers" / "sorting-socks" / "index.html").exists()


def test_format_accepts_a_site_reader_and_lists_it_when_unknown(tmp_path: Path) -> None:
    build_site(make_site(tmp_path, {"pipes.py": PIPES_READER}, fmt="pipes"))
    shutil.rmtree(tmp_path / "_site")
    make_site(tmp_path, {}, fmt="pipe")
    error = build_error(tmp_path)
    assert "site.yaml:4: sources[0].format: expected one of session-2023" in error
    assert "bibtex, pipes, general; got 'pipe'" in error


def test_editing_a_site_reader_reads_the_sources_again(tmp_path: Path) -> None:
    project = make_site(tmp_path, {"pipes.py": PIPES_READER})
    assert build_site(project)[0]["title"] == "Sorting Socks"
    make_site(tmp_path, {"pipes.py": PIPES_READER.replace("TITLE = str", "TITLE = str.upper")})
    assert sorted(paper["title"] for paper in build_site(project)) == [
        "SORTING SOCKS",
        "TIDY TABLES",
    ]


def test_a_helper_module_is_not_a_reader_and_can_be_imported(tmp_path: Path) -> None:
    helper = "def shout(text):\n    return text.upper()\n"
    reader = PIPES_READER.replace("TITLE = str", "from ._shout import shout as TITLE")
    project = make_site(tmp_path, {"_shout.py": helper, "notes.py": "X = 1\n", "p.py": reader})
    assert site_registry(project).names()[-2:] == ("pipes", "general")
    assert sorted(paper["title"] for paper in build_site(project))[0] == "SORTING SOCKS"


# --- broken readers --------------------------------------------------------------------------

BROKEN = [
    pytest.param(
        {"bad.py": "import no_such_module_anywhere\n"},
        "readers/bad.py:1: reader module failed to import: ModuleNotFoundError",
        id="import-error",
    ),
    pytest.param(
        {"bad.py": "name = 'bad'\ndef read(:\n"},
        "readers/bad.py:2: reader module does not compile",
        id="syntax-error",
    ),
    pytest.param(
        {"bad.py": "name = 'bad'\ndef sniff(source):\n    return 0.0\n"},
        "readers/bad.py: not a usable reader: 'description' is missing",
        id="missing-attribute",
    ),
    pytest.param(
        {"bad.py": PIPES_READER.replace('"pipes"', '"awards"')},
        "readers/bad.py: reader name 'awards' is already taken by a built-in reader",
        id="name-taken",
    ),
    pytest.param(
        {
            "bad.py": PIPES_READER.replace("return sum(", "return 1 / 0 + sum("),
        },
        "dump.txt:1: the pipes reader's sniff() failed at readers/bad.py:12 with ZeroDivisionError",
        id="sniff-raises",
    ),
    pytest.param(
        {"bad.py": PIPES_READER.replace("TITLE = str", "TITLE = None")},
        "dump.txt:1: the pipes reader's read() failed at readers/bad.py:21 with TypeError",
        id="read-raises",
    ),
]


@pytest.mark.parametrize(("readers", "message"), BROKEN)
def test_a_broken_reader_is_a_located_error(tmp_path: Path, readers: dict, message: str) -> None:
    assert build_error(make_site(tmp_path, readers)).startswith(message)


def test_every_broken_reader_is_reported_at_once_without_a_traceback(tmp_path: Path) -> None:
    readers = {"a.py": "import no_such_module_anywhere\n", "b.py": "def read(:\n"}
    result = run_cli(make_site(tmp_path, readers), "build")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert [line.split(":")[1].strip() for line in errors] == ["readers/a.py", "readers/b.py"]


# --- entry points ----------------------------------------------------------------------------


def install_fake_distribution(folder: Path, group: str = "confsite.readers") -> Path:
    """A distribution as pip would leave it in site-packages: the module and a dist-info folder
    whose entry_points.txt names it, found by importlib.metadata on sys.path."""
    folder.mkdir(parents=True)
    (folder / "confsite_pipes.py").write_text(PIPES_READER, encoding="utf-8")
    info = folder / "confsite_pipes-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: confsite-pipes\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[{group}]\npipes = confsite_pipes\n")
    return folder


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_an_entry_point_reader_is_found_and_built(tmp_path: Path) -> None:
    packages = install_fake_distribution(tmp_path / "site-packages")
    project = make_site(tmp_path / "project", {}, fmt="pipes")
    result = run_cli(project, "build", "-j", "1", path=str(packages))
    assert result.returncode == 0, result.stderr
    papers = json.loads((project / "_site" / "papers.json").read_text(encoding="utf-8"))
    assert sorted(paper["title"] for paper in papers) == ["Sorting Socks", "Tidy Tables"]
    assert run_cli(project, "build", "-j", "1").returncode == 1  # not installed: unknown format


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Each test imports its own fake distribution's module, not an earlier test's."""
    monkeypatch.delitem(sys.modules, "confsite_pipes", raising=False)
    return monkeypatch


def test_an_entry_point_reader_joins_the_registry(
    tmp_path: Path, isolated: pytest.MonkeyPatch
) -> None:
    isolated.syspath_prepend(str(install_fake_distribution(tmp_path / "site-packages")))
    registry = site_registry(tmp_path)
    assert registry.names()[-2:] == ("pipes", "general")
    (plugin,) = registry.plugins
    assert plugin.file == tmp_path / "site-packages" / "confsite_pipes.py"
    assert registry.code_digest


def test_editing_an_entry_point_reader_changes_the_code_digest(
    tmp_path: Path, isolated: pytest.MonkeyPatch
) -> None:
    packages = install_fake_distribution(tmp_path / "site-packages")
    isolated.syspath_prepend(str(packages))
    before = site_registry(tmp_path).code_digest
    (packages / "confsite_pipes.py").write_text(PIPES_READER + "\n# edited\n", encoding="utf-8")
    assert site_registry(tmp_path).code_digest != before
