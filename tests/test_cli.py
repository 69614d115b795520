"""The command line: exit codes, help, the build summary, terminal-only progress and colour,
init, inspect. Most tests run its `main` in this process (see `run_cli`); those of the process
itself (`python -m confsite`, build.py, a pseudo-terminal) start one."""

from __future__ import annotations

import json
import os
import pty
import re
import selectors
import shutil
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, SEEDS, Ran, run_cli

from confsite.bundled import BUNDLED
from confsite.config import DEFAULT_FIELDS, SITE_FIELDS, SOURCE_FIELDS
from confsite.readers import reader_names

SMALL = REPO / "tests" / "fixtures" / "small"
ANSI = re.compile(r"\x1b\[")
COMMANDS = ("build", "serve", "check", "init", "deploy", "inspect")
# Worked out by reading the seed files, not by running the readers (see the README's table).
SEED_FORMATS = {
    "iclr2023-poster-session-3.txt": ("session-2023", 135),
    "iclr2024-poster-session-3.txt": ("session-2024", 291),
    "iclr2021-accepted-papers.txt": ("markdown-list", 860),
    "iclr2022-outstanding-papers.txt": ("awards", 20),
    "trending-papers.txt": ("paper-listing", 267),
}


def confsite_process(
    *args: str | Path, cwd: Path | None = None, env: dict | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run(
        [sys.executable, "-m", "confsite", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**environment, **(env or {})},
    )


def build_script(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The repository's build.py, run as a user runs it."""
    return subprocess.run(
        [sys.executable, str(REPO / "build.py"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def confsite(*args: str | Path, cwd: Path | None = None, env: dict | None = None) -> Ran:
    return run_cli(*args, cwd=cwd, env=env)


def confsite_in_pty(*args: str | Path, cwd: Path, env: dict | None = None) -> tuple[int, str]:
    """Run under a pseudo-terminal, as in an interactive shell: (exit status, all output).

    This process keeps the terminal's other end open until it has read everything: when the
    last one closes, Linux hangs the terminal up and drops what was not read yet."""
    master, terminal = pty.openpty()
    environment = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    environment.update({"TERM": "xterm-256color", "COLUMNS": "120", **(env or {})})
    process = subprocess.Popen(
        [sys.executable, "-m", "confsite", *map(str, args)],
        cwd=cwd,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=environment,
        start_new_session=True,
    )
    chunks, deadline = [], time.monotonic() + 300
    with selectors.DefaultSelector() as selector:
        selector.register(master, selectors.EVENT_READ)
        while True:
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"confsite {' '.join(map(str, args))} ran over 300 s")
            exited = process.poll() is not None
            if selector.select(timeout=0 if exited else 0.1):
                chunks.append(os.read(master, 65536))
            elif exited:  # and nothing is left to read
                break
    os.close(master)
    os.close(terminal)
    return process.returncode, b"".join(chunks).decode("utf-8", "replace")


def small_project(target: Path) -> Path:
    shutil.copytree(SMALL, target, dirs_exist_ok=True)
    return target


def summary_rows(stdout: str) -> dict[str, list[str]]:
    """The source table of a build summary: first cell → the other cells."""
    rows = {}
    for line in stdout.splitlines():
        cells = line.split()
        if cells and cells[0] in ("source", "total") or (cells and "." in cells[0]):
            rows[cells[0]] = cells[1:]
        if line.startswith("* ") or line.startswith("site:"):
            break
    return rows


# --- every command: --version, --help, usage errors ------------------------------------------


def test_version_is_the_package_version() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^version = "([^"]+)"$', pyproject, re.MULTILINE).group(1)
    result = confsite_process("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"confsite {version}"


def test_top_level_help_lists_every_command() -> None:
    result = confsite("--help")
    assert result.returncode == 0
    for command in COMMANDS:
        assert re.search(rf"^\s+{command}\s+\S", result.stdout, re.MULTILINE), command
    words = " ".join(result.stdout.split())
    assert "exit status: 0 success, 1 build or check failure, 2 usage error" in words


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("build", ["--config FILE", "--out DIR", "--base-url URL", "--strict", "--quiet"]),
        ("serve", ["--port N", "--config FILE", "--out DIR", "--base-url URL", "--strict"]),
        ("check", ["[DIR]"]),
        ("init", [" DIR\n"]),
        ("deploy", ["--base-url URL", "--remote NAME", "--branch NAME", "--no-push", "--dry-run"]),
        ("inspect", [" FILE\n", "--format NAME", "--json"]),
    ],
)
def test_each_command_has_help(command: str, options: list[str]) -> None:
    result = confsite(command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: confsite {command}")
    for option in options:
        assert option in result.stdout
    assert "exit status: 0 success, 1 build or check failure, 2 usage error" in " ".join(
        result.stdout.split()
    )


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["publish"],
        ["build", "--bogus"],
        ["build", "--base-url", "example.org"],
        ["serve", "--port", "70000"],
        ["serve", "--port", "http"],
        ["init"],
        ["inspect"],
        ["inspect", "seeds/trending-papers.txt", "--format", "no-such-format"],
        ["build", "-q", "-v"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = confsite(*args, cwd=REPO)
    assert result.returncode == 2, result.stderr
    assert "usage: confsite" in result.stderr
    assert result.stdout == ""


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_python_m_and_build_py_are_the_same_build(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    by_module = confsite_process("build", "--out", "a", cwd=project)
    by_script = build_script("--out", "b", cwd=project)
    assert by_module.returncode == by_script.returncode == 0, by_script.stderr

    def files(folder: Path) -> dict[str, bytes]:
        return {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*")
            if p.is_file()
        }

    assert files(project / "a") == files(project / "b")
    assert by_module.stderr == by_script.stderr


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_a_site_built_by_build_py_is_up_to_date_for_python_m(tmp_path: Path) -> None:
    """build.py puts src/ on the path, where an editable install already has it: the cache's
    fingerprint must not count the folder twice, or switching commands rebuilds everything."""
    project = small_project(tmp_path)
    by_script = build_script("--out", "site", cwd=project)
    assert by_script.returncode == 0, by_script.stderr
    again = confsite_process("build", "--out", "site", cwd=project)
    assert again.returncode == 0, again.stderr
    assert "is up to date" in again.stdout and "no file rewritten" in again.stdout


# --- the build summary and problems ----------------------------------------------------------


def test_summary_of_the_small_site(tmp_path: Path) -> None:
    """tests/fixtures/small: session.txt holds three papers, awards.txt one untitled award
    paper; six distinct authors (Émile Zola is spelled twice)."""
    project = small_project(tmp_path)
    result = confsite("build", cwd=project)
    assert result.returncode == 0, result.stderr
    rows = summary_rows(result.stdout)
    assert rows["source"] == ["format", "records", "papers", "warnings"]
    assert rows["session.txt"] == ["session-2024", "3", "3", "0"]
    assert rows["awards.txt"] == ["awards", "1", "1", "1"]
    assert rows["total"] == ["4", "4", "1"]
    html_pages = len(list((project / "_site").rglob("*.html")))
    all_files = [p for p in (project / "_site").rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in all_files)
    assert f"site: {html_pages} pages, 4 papers, 6 authors" in result.stdout
    assert f"wrote {len(all_files)} files, " in result.stdout
    assert f"({size:,} bytes) to _site\n" in result.stdout
    timing = re.search(r"^time: (.*); total [\d.]+ m?s$", result.stdout, re.MULTILINE)
    assert timing is not None, result.stdout
    phases = [part.split()[0] for part in timing.group(1).split(", ")]
    assert phases == ["config", "read", "normalize", "site", "render", "write"]


def test_the_command_keeps_its_build_until_it_exits(tmp_path: Path, monkeypatch) -> None:
    """`run`, which ends the process with `os._exit`, keeps what the build made rather than
    freeing it object by object before exiting; `main` alone, called by a process that goes
    on, keeps nothing."""
    from confsite.cli import commands

    project = small_project(tmp_path)
    monkeypatch.chdir(project)
    assert confsite("build", "-q", cwd=project).returncode == 0
    assert commands._kept_until_exit is None

    def exited(status: int) -> None:
        raise SystemExit(status)

    # Only the command's own exit: forked children end with os._exit too.
    monkeypatch.setattr(commands, "os", types.SimpleNamespace(_exit=exited))
    monkeypatch.setattr(commands, "_kept_until_exit", None)
    with pytest.raises(SystemExit) as ended:
        commands.run(["build", "-q", "--no-cache"])
    assert ended.value.code == 0
    [kept] = commands._kept_until_exit
    assert len(kept.papers) == 4


def test_problems_are_one_line_each_grouped_by_kind_with_file_and_line(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    (project / "site.yaml").write_text(
        (SMALL / "site.yaml").read_text() + "colour: blue\n", encoding="utf-8"
    )
    result = confsite("build", cwd=project)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines == [
        "config (1):",
        "  site.yaml:10: warning: colour: unknown key "
        "(known: title, base_url, output, overrides, content, theme_dir, proceedings, sources)",
        "untitled (1):",
        "  awards.txt:1: warning: paper by Dee Winner has no title; shown as untitled "
        "(set one in overrides.yaml under id 'untitled-dee-winner-045e0f')",
    ]
    assert summary_rows(result.stdout)["total"] == ["4", "4", "2"]


def test_a_failed_build_exits_1_with_a_located_error(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    (project / "awards.txt").write_bytes(b"")
    result = confsite("build", cwd=project)
    assert result.returncode == 1
    assert result.stderr.strip().endswith("error: awards.txt:1: empty file: no records to read")
    assert not (project / "_site").exists()


def test_strict_exits_1_and_quiet_prints_errors_only(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    quiet = confsite("build", "-q", cwd=project)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    strict = confsite("build", "--strict", "-q", cwd=project)
    assert strict.returncode == 1
    assert strict.stdout == ""
    assert strict.stderr.startswith("error: awards.txt:1: paper by Dee Winner has no title")


def test_a_broken_theme_template_is_a_located_failure(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    (project / "theme" / "templates").mkdir(parents=True)
    (project / "theme" / "templates" / "paper.html").write_text(
        '{% extends "base.html" %}\n{% block content %}\n{% if %}\n{% endblock %}\n'
    )
    (project / "site.yaml").write_text((SMALL / "site.yaml").read_text() + "theme_dir: theme\n")
    result = confsite("build", cwd=project)
    assert result.returncode == 1
    assert re.search(r"error: \S*paper\.html:3: TemplateSyntaxError: ", result.stderr)


def with_theme(project: Path, templates: dict[str, str]) -> Path:
    for name, text in templates.items():
        (project / "theme" / "templates" / name).parent.mkdir(parents=True, exist_ok=True)
        (project / "theme" / "templates" / name).write_text(text)
    (project / "site.yaml").write_text((SMALL / "site.yaml").read_text() + "theme_dir: theme\n")
    return project


def test_a_broken_partial_every_card_shows_is_a_located_failure(tmp_path: Path) -> None:
    """A full build with workers renders the cards before they fork: a card's error there is
    located as the workers' are."""
    project = with_theme(small_project(tmp_path), {"partials/badges.html": "{% if %}\n"})
    result = confsite("build", "-j", "2", cwd=project)
    assert result.returncode == 1
    assert re.search(r"error: \S*badges\.html:1: TemplateSyntaxError: ", result.stderr)


def test_a_theme_file_no_page_uses_may_be_broken(tmp_path: Path) -> None:
    """Templates are compiled before the workers fork; one that does not compile, or is no
    text, fails only a page that uses it, and no page uses these."""
    project = with_theme(small_project(tmp_path), {"unused.html": "{% if %}\n"})
    (project / "theme" / "templates" / "notes.html").write_bytes(b"\xff\xfe\x00 not UTF-8")
    result = confsite("build", "-j", "2", cwd=project)
    assert result.returncode == 0, result.stderr
    assert (project / "_site" / "index.html").exists()


def test_a_theme_calling_the_card_macro_its_own_way_builds(tmp_path: Path) -> None:
    """Cards rendered ahead are rendered as the bundled templates call the macro; a theme
    whose macro takes other options is left to render its own."""
    bundled = BUNDLED.templates
    card = (bundled / "partials" / "paper_card.html").read_text()
    card = card.replace('paper_card(paper, heading="h3", ', "paper_card(paper, ")
    card = card.replace("<{{ heading }} ", "<h3 ").replace("</{{ heading }}>", "</h3>")
    author = (bundled / "author.html").read_text().replace('heading="h3", ', "")
    session = (bundled / "session.html").read_text().replace('paper, heading="h2"', "paper")
    project = with_theme(
        small_project(tmp_path),
        {"partials/paper_card.html": card, "author.html": author, "session.html": session},
    )
    result = confsite("build", "-j", "2", cwd=project)
    assert result.returncode == 0, result.stderr
    assert (
        '<h3 class="paper-title">'
        in next((project / "_site" / "authors").glob("*/index.html")).read_text()
    )


def test_no_progress_or_colour_when_not_on_a_terminal(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    result = confsite("build", cwd=project, env={"TERM": "xterm-256color"})
    assert result.returncode == 0
    output = result.stdout + result.stderr
    assert "warning" in output and "render" in output
    assert not ANSI.search(output)
    assert "━" not in output and "\r" not in output


def test_progress_and_colour_on_a_terminal(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    status, output = confsite_in_pty("build", cwd=project)
    assert status == 0, output
    assert re.search(r"render\s+.*━", output), "no render progress bar"  # pages are written as
    # they render, so there is no separate write bar
    assert "\x1b[33mwarning\x1b[0m" in output
    assert "source" in output and "awards" in output


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_no_colour_on_a_terminal_with_NO_COLOR(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    status, output = confsite_in_pty("build", cwd=project, env={"NO_COLOR": "1"})
    assert status == 0, output
    assert "warning" in output
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m", output), "a colour escape despite NO_COLOR"


# --- check -------------------------------------------------------------------------------------


def test_check_exit_codes(tmp_path: Path) -> None:
    project = tmp_path / "site"
    assert confsite("init", project).returncode == 0
    assert confsite("build", "-q", cwd=project).returncode == 0
    good = confsite("check", cwd=project)
    assert good.returncode == 0, good.stderr
    assert good.stdout.strip().endswith(": ok")
    (project / "_site" / "authors" / "index.html").unlink()
    bad = confsite("check", project / "_site")
    assert bad.returncode == 1
    assert "authors/index.html" in bad.stderr
    assert confsite("check", tmp_path / "nothing-here").returncode == 1


# --- init --------------------------------------------------------------------------------------


def test_init_then_build_gives_a_site_that_passes_check(tmp_path: Path) -> None:
    site = tmp_path / "mysite"
    created = confsite("init", site)
    assert created.returncode == 0, created.stderr
    assert f"cd {site} && confsite serve" in created.stdout
    for name in ("site.yaml", "overrides.yaml", "content/about.md", "dumps/example-program.md"):
        assert (site / name).is_file(), name
    built = confsite("build", cwd=site)
    assert built.returncode == 0, built.stderr
    assert built.stderr == ""  # the starter site builds without a warning
    assert summary_rows(built.stdout)["dumps/example-program.md"] == [
        "markdown-list",
        "5",
        "5",
        "0",
    ]
    papers = json.loads((site / "_site" / "papers.json").read_text(encoding="utf-8"))
    assert {paper["conference"] for paper in papers} == {"EWLS"}
    assert (site / "_site" / "about" / "index.html").is_file()
    checked = confsite("check", cwd=site)
    assert checked.returncode == 0, checked.stderr + checked.stdout


def test_the_override_example_names_a_real_paper_of_the_starter_site(tmp_path: Path) -> None:
    """Uncommenting the example in overrides.yaml must work as it stands."""
    site = tmp_path / "site"
    assert confsite("init", site).returncode == 0
    overrides = site / "overrides.yaml"
    lines = overrides.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"# [a-z0-9-]+:", line))
    overrides.write_text("\n".join(line[2:] for line in lines[start:]) + "\n", encoding="utf-8")
    built = confsite("build", "--strict", cwd=site)
    assert built.returncode == 0, built.stderr
    papers = json.loads((site / "_site" / "papers.json").read_text(encoding="utf-8"))
    assert [p["awards"] for p in papers if p["awards"]] == [["Best Paper"]]


def test_init_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    result = confsite("init", tmp_path)
    assert result.returncode == 1
    assert "folder is not empty" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    assert confsite("init", tmp_path / "notes.txt").returncode == 1


def test_init_accepts_an_empty_folder(tmp_path: Path) -> None:
    assert confsite("init", tmp_path).returncode == 0
    assert (tmp_path / "site.yaml").is_file()


def test_the_starter_config_explains_every_key() -> None:
    """Every key the config schema knows is in the starter site.yaml, with a comment."""
    text = (REPO / "src" / "confsite" / "cli" / "starter" / "site.yaml").read_text()
    for key in [*SITE_FIELDS, "sources", *SOURCE_FIELDS, "defaults", *DEFAULT_FIELDS]:
        assert re.search(rf"^\s*# (?:- )?{key}\b", text, re.MULTILINE), key


def test_the_readme_documents_every_config_key() -> None:
    """A row of the README's site.yaml table per key: `key`, `sources[].key`, `defaults.key`."""
    readme = (REPO / "README.md").read_text()
    rows = {
        (prefix, key)
        for prefix, key in re.findall(r"^\| `((?:sources\[\]|defaults)\.)?(\w+)` \|", readme, re.M)
    }
    expected = {("", key) for key in [*SITE_FIELDS, "sources"]}
    expected |= {("sources[].", key) for key in [*SOURCE_FIELDS, "defaults"]}
    expected |= {("defaults.", key) for key in DEFAULT_FIELDS}
    assert expected <= rows, expected - rows


# --- inspect -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seeds_summary(module_folder: Callable[[str], Path]) -> dict[str, list[str]]:
    """The summary table of `confsite build` of the repository's seeds."""
    out = module_folder("seeds-site") / "site"
    result = confsite("build", "--out", out, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return summary_rows(result.stdout)


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
@pytest.mark.parametrize("name", sorted(SEED_FORMATS))
def test_inspect_names_the_reader_of_each_seed(
    name: str, seeds_summary: dict[str, list[str]]
) -> None:
    expected_reader, expected_records = SEED_FORMATS[name]
    result = confsite("inspect", SEEDS / name, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["reader"] == expected_reader and report["detected"]
    assert [s["reader"] for s in report["scores"]][0] == expected_reader
    assert sorted(s["reader"] for s in report["scores"]) == sorted(reader_names())
    assert len(report["records"]) == expected_records
    summary_format, summary_records = seeds_summary[f"seeds/{name}"][:2]
    assert summary_format.rstrip("*") == expected_reader
    assert int(summary_records.replace(",", "")) == len(report["records"])


def test_inspect_table_of_the_awards_seed() -> None:
    result = confsite("inspect", SEEDS / "iclr2022-outstanding-papers.txt", env={"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.match(r"\s*→ awards\s+1\.000$", lines[2])
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["line", "title"])
    rows = lines[header + 1 : header + 21]
    # The file's first award paper: "Outstanding Paper" on line 4, four authors on line 5, its
    # abstract on line 6; the dump gives no title.
    assert rows[0].split()[:4] == ["4-6", "(none)", "4", "1055"]
    assert re.search(r"\s{2}Outstanding Paper\s+untitled$", rows[0])
    assert lines[-1] == "20 records read by awards, 20 flagged (lines are the file's)"
    assert not ANSI.search(result.stdout)


def test_inspect_forces_a_reader_and_says_so() -> None:
    result = confsite("inspect", SEEDS / "trending-papers.txt", "--format", "awards", "--json")
    report = json.loads(result.stdout)
    assert report["reader"] == "awards" and not report["detected"]


def test_inspect_an_unrecognised_file_lists_the_scores_and_exits_1(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n\n- eggs\n- bread\n", encoding="utf-8")
    result = confsite("inspect", notes)
    assert result.returncode == 1
    assert all(name in result.stdout for name in reader_names())
    assert "not a recognised dump format" in result.stderr


def test_inspect_locates_a_read_error(tmp_path: Path) -> None:
    dump = tmp_path / "list.md"
    dump.write_text(
        "## A paper\n\n- Ann Author\n- abstract@[open-review\\(Poster\\)](#): Fine.\n\n"
        "## Another paper\n\n- Bo Builder\n- abstract@broken\n",
        encoding="utf-8",
    )
    result = confsite("inspect", dump)
    assert result.returncode == 1
    assert f"error: {dump}:9: truncated abstract line" in result.stderr
    missing = confsite("inspect", tmp_path / "absent.txt")
    assert missing.returncode == 1
    assert "absent.txt: file not found" in missing.stderr
