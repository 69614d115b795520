"""Bad input: a clear located one-line error, exit status 1, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SEEDS, Ran, run_cli

GOOD_TEXT = (SEEDS / "iclr2023-poster-session-3.txt").read_text(encoding="utf-8")


def write_project(tmp_path: Path, dump: bytes, extra_yaml: str = "") -> Path:
    (tmp_path / "dump.txt").write_bytes(dump)
    (tmp_path / "site.yaml").write_text(
        f"title: Test\nsources:\n  - path: dump.txt\n{extra_yaml}", encoding="utf-8"
    )
    return tmp_path


def run_build(project: Path, *args: str) -> Ran:
    return run_cli("build", "--config", "site.yaml", *args, cwd=project)


def assert_clean_failure(result: Ran, where: str, words: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(error_lines) == 1, result.stderr
    assert error_lines[0].startswith(f"error: {where}"), error_lines[0]
    assert words in error_lines[0], error_lines[0]


BAD_DUMPS = [
    pytest.param(b"", "dump.txt:1:", "empty file", id="empty"),
    pytest.param(b"  \n\n\t\n", "dump.txt:1:", "empty file", id="blank"),
    pytest.param(b"title\nmore\x00\x01\x02binary", "dump.txt:2:", "binary", id="binary"),
    pytest.param(
        b"Poster Session 3\n\nIn-Person Poster presentation / poster accept\nCaf\xe9 title\n",
        "dump.txt:4:", "UTF-8", id="latin1"
    ),
    pytest.param(
        b"just some words\nnothing like a dump\n", "dump.txt:1:", "not a recognised", id="unknown"
    ),
    pytest.param(
        b"## [A title](#)\n\n- Ann Author, Bo Author\n- abstract@[open-review\\(Post",
        "dump.txt:4:", "truncated", id="truncated-markdown",
    ),
    pytest.param(
        GOOD_TEXT.encode()[:2600].rsplit(b"\n", 1)[0]
        + b"\n\nIn-Person Poster presentation / poster accept\n",
        "dump.txt:", "truncated record", id="truncated-session",
    ),
]


@pytest.mark.parametrize(("dump", "where", "words"), BAD_DUMPS)
def test_bad_dump_fails_cleanly_and_writes_nothing(
    tmp_path: Path, dump: bytes, where: str, words: str
) -> None:
    project = write_project(tmp_path, dump)
    result = run_build(project)
    assert_clean_failure(result, where, words)
    assert not (project / "_site").exists()


def test_unknown_format_lists_every_reader_and_score(tmp_path: Path) -> None:
    result = run_build(write_project(tmp_path, b"hello\nworld\n"))
    for name in ("session-2023", "session-2024", "markdown-list", "awards", "paper-listing"):
        assert name in result.stderr


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_failed_build_leaves_previous_site_untouched(tmp_path: Path) -> None:
    project = write_project(tmp_path, GOOD_TEXT.encode())
    assert run_build(project).returncode == 0
    before = (project / "_site" / "papers.json").read_bytes()
    (project / "dump.txt").write_bytes(b"\xff\xfe broken")
    assert_clean_failure(run_build(project), "dump.txt:1:", "UTF-8")
    assert (project / "_site" / "papers.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("._site")) == []


BAD_CONFIGS = [
    pytest.param("title: [unclosed\nsources: []\n", "site.yaml:2:", "invalid YAML", id="yaml"),
    pytest.param("sources:\n  - path: dump.txt\n", "site.yaml:1:", "'title'", id="no-title"),
    pytest.param(
        "title: T\nsources:\n  - path: dump.txt\n    format: md\n",
        "site.yaml:4:", "sources[0].format: expected one of session-2023", id="format",
    ),
    pytest.param(
        "title: T\nsources:\n  - path: dump.txt\n    year: twenty\n",
        "site.yaml:4:", "sources[0].year: expected a year", id="year",
    ),
    pytest.param(
        "title: T\nsources:\n  - path: dump.txt\n    defaults:\n      attendance: maybe\n",
        "site.yaml:5:", "sources[0].defaults.attendance: expected one of in person, virtual",
        id="attendance",
    ),
    pytest.param(
        "title: T\nbase_url: example.org\nsources:\n  - path: dump.txt\n",
        "site.yaml:2:", "base_url: expected an absolute http(s) URL", id="base-url",
    ),
    pytest.param(
        "title: T\nsources:\n  - path: missing.txt\n", "missing.txt", "file not found",
        id="missing-source",
    ),
]


@pytest.mark.parametrize(("config", "where", "words"), BAD_CONFIGS)
def test_bad_config_fails_with_key_path(
    tmp_path: Path, config: str, where: str, words: str
) -> None:
    project = write_project(tmp_path, GOOD_TEXT.encode())
    (project / "site.yaml").write_text(config, encoding="utf-8")
    assert_clean_failure(run_build(project), where, words)
    assert not (project / "_site").exists()


def test_unknown_config_key_warns_but_builds(tmp_path: Path) -> None:
    project = write_project(tmp_path, GOOD_TEXT.encode(), extra_yaml="    colour: blue\n")
    result = run_build(project)
    assert result.returncode == 0, result.stderr
    assert "site.yaml:4: warning: sources[0].colour: unknown key" in result.stderr


def test_strict_turns_warnings_into_errors(tmp_path: Path) -> None:
    awards = (SEEDS / "iclr2022-outstanding-papers.txt").read_bytes()
    project = write_project(tmp_path, awards)
    assert run_build(project).returncode == 0
    result = run_build(project, "--strict", "--out", str(project / "strict-site"))
    assert_clean_failure(result, "dump.txt:", "has no title")
    assert not (project / "strict-site").exists()


BAD_OVERRIDES = [
    pytest.param("no-such-paper:\n  title: X\n", "overrides.yaml:1:", "no paper has this id",
                 id="unknown-id"),
    pytest.param("{id}:\n  colour: red\n", "overrides.yaml:2:", "unknown field", id="field"),
    pytest.param("{id}:\n  authors: Ann\n", "overrides.yaml:2:", "expected a list", id="type"),
]


@pytest.mark.parametrize(("overrides", "where", "words"), BAD_OVERRIDES)
def test_bad_overrides_fail_with_location(
    tmp_path: Path, overrides: str, where: str, words: str
) -> None:
    project = write_project(tmp_path, GOOD_TEXT.encode())
    paper_id = "few-shot-backdoor-attacks-via-neural-tangent-kernels"
    (project / "overrides.yaml").write_text(overrides.format(id=paper_id), encoding="utf-8")
    assert_clean_failure(run_build(project), where, words)


def test_bad_base_url_option_is_a_usage_error(tmp_path: Path) -> None:
    result = run_build(write_project(tmp_path, GOOD_TEXT.encode()), "--base-url", "example.org")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--base-url: expected an absolute http(s) URL" in result.stderr
    assert not (tmp_path / "_site").exists()


def test_output_folder_that_is_not_a_site_is_refused(tmp_path: Path) -> None:
    project = write_project(tmp_path, GOOD_TEXT.encode())
    precious = project / "docs"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me", encoding="utf-8")
    assert_clean_failure(run_build(project, "--out", str(precious)), str(precious), "refusing")
    assert (precious / "notes.txt").read_text(encoding="utf-8") == "keep me"
