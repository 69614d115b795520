"""Every bad source reported in one run: each with its file:line, how it was read and what to do;
exit status 1 and nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SEEDS, copy_seeds_project

from confsite.diagnostics import ConfsiteError, ConfsiteErrors, Diagnostics
from confsite.pipeline import BuildOptions, build

GOOD = (SEEDS / "iclr2022-outstanding-papers.txt").read_bytes()
UNKNOWN = b"hello\nworld\n"
TRUNCATED = b"## [A title](#)\n\n- Ann Author, Bo Author\n- abstract@[open-review\\(Post"
BINARY = b"title\nmore\x00\x01binary"
READERS = ("session-2023", "session-2024", "markdown-list", "awards", "paper-listing")


def write_project(
    tmp_path: Path, dumps: dict[str, bytes], formats: dict[str, str] | None = None
) -> Path:
    formats = formats or {}
    lines = ["title: Test", "sources:"]
    for name, data in dumps.items():
        (tmp_path / name).write_bytes(data)
        lines.append(f"  - path: {name}")
        if name in formats:
            lines.append(f"    format: {formats[name]}")
    (tmp_path / "site.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def run_cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "confsite", *args],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


def test_three_bad_files_are_reported_together_and_nothing_is_written(tmp_path: Path) -> None:
    dumps = {"good.txt": GOOD, "unknown.txt": UNKNOWN, "cut.txt": TRUNCATED, "bin.txt": BINARY}
    project = write_project(tmp_path, dumps)
    result = run_cli(project, "build")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    errors = error_lines(result.stderr)
    assert [line.split(": ", 2)[1] for line in errors] == [
        "unknown.txt:1",
        "cut.txt:4",
        "bin.txt:2",
    ]
    assert not (project / "_site").exists()


def test_each_error_names_the_readers_tried_and_what_to_do(tmp_path: Path) -> None:
    project = write_project(tmp_path, {"unknown.txt": UNKNOWN, "cut.txt": TRUNCATED})
    unknown, cut = error_lines(run_cli(project, "build").stderr)
    for line in (unknown, cut):
        assert all(f"{name} 0." in line or f"{name} 1." in line for name in READERS), line
        assert "set 'format'" in line and "'fields'" in line and "write a reader" in line
    assert "not a recognised dump format" in unknown
    assert "truncated abstract line" in cut and "read as markdown-list, detected" in cut


def test_a_forced_format_that_fails_says_it_was_forced(tmp_path: Path) -> None:
    project = write_project(
        tmp_path, {"a.txt": UNKNOWN, "b.txt": GOOD}, {"a.txt": "markdown-list", "b.txt": "nonesuch"}
    )
    # an unknown format is a config error, found before any source is read
    (error,) = error_lines(run_cli(project, "build").stderr)
    assert "sources[1].format: expected one of session-2023" in error
    write_project(tmp_path, {"a.txt": UNKNOWN, "c.txt": UNKNOWN}, {"a.txt": "markdown-list"})
    forced, detected = error_lines(run_cli(project, "build").stderr)
    assert forced.startswith("error: a.txt:1: no records found by the markdown-list reader")
    assert "set by 'format' in site.yaml" in forced
    assert detected.startswith("error: c.txt:1: not a recognised dump format")


def test_the_build_raises_one_error_holding_each_source_error(tmp_path: Path) -> None:
    project = write_project(tmp_path, {"a.txt": UNKNOWN, "b.txt": b"", "c.txt": GOOD})
    with pytest.raises(ConfsiteErrors) as raised:
        build(BuildOptions(config_path=project / "site.yaml", jobs=1), Diagnostics())
    assert [str(error.loc) for error in raised.value.errors] == ["a.txt:1", "b.txt:1"]
    assert str(raised.value).count("\n") == 1  # one line per error
    assert isinstance(raised.value, ConfsiteError)  # caught wherever one error is


def test_one_bad_file_is_one_error_line_as_before(tmp_path: Path) -> None:
    project = write_project(tmp_path, {"a.txt": UNKNOWN, "b.txt": GOOD})
    assert len(error_lines(run_cli(project, "build").stderr)) == 1


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_errors_of_cached_and_fresh_sources_alike(tmp_path: Path) -> None:
    """A source read from the input cache is fine; a newly broken one is still reported with
    every other broken one."""
    project = write_project(tmp_path, {"a.txt": GOOD, "b.txt": GOOD.replace(b"Fan Bao", b"F B")})
    assert run_cli(project, "build", "-j", "1").returncode == 0
    (project / "b.txt").write_bytes(b"")
    (project / "c.txt").write_bytes(UNKNOWN)
    config = (project / "site.yaml").read_text(encoding="utf-8") + "  - path: c.txt\n"
    (project / "site.yaml").write_text(config, encoding="utf-8")
    errors = error_lines(run_cli(project, "build").stderr)
    assert [line.split(": ", 2)[1] for line in errors] == ["b.txt:1", "c.txt:1"]


SHARED_READING = """
import sys
from pathlib import Path
import confsite.cache.inputs as inputs
from confsite.config import load_config
from confsite.diagnostics import ConfsiteError, Diagnostics
from confsite.readers.plugins import site_registry
inputs.CachedReading._child_share = lambda self, fresh: fresh[::2]  # however small
config_path = Path(sys.argv[1])
readers = site_registry(config_path.parent)
config = load_config(config_path, Diagnostics(), readers)
sent = []
receive = inputs.ForkedResults.next
def next_result(self):  # the child's share is a dict by source; plausibility checks are not
    result = receive(self)
    if isinstance(result, dict):
        sent.append(result)
    return result
inputs.ForkedResults.next = next_result
outcomes = []
for jobs in (1, 2):
    reading = inputs.CachedReading(config, b"code", None, readers)
    try:
        reads = reading.read(jobs)
        diagnostics = Diagnostics()
        papers = reading.merge(reads, diagnostics)
        shown = [
            (r.reader.name, r.detected, r.record_count, sorted(r.stated), r.problems)
            for r in reads
        ]
        outcomes.append(repr((shown, papers, diagnostics.problems)))
    except ConfsiteError as err:
        outcomes.append(str(err))
print(outcomes[0] == outcomes[1], len(sent[0] or ()), outcomes[1][:60])
"""


@pytest.mark.parametrize("project_kind", ["seeds", "bad files"])
def test_a_child_reading_a_share_reads_what_one_process_reads(
    tmp_path: Path, project_kind: str
) -> None:
    """New sources are read by the build and a forked child (cache/inputs.py · `read`): the
    records, entries, warnings, papers and every bad file's error are those of one process
    reading them all."""
    if project_kind == "seeds":
        project = copy_seeds_project(tmp_path / "project")
    else:
        dumps = {"good.txt": GOOD, "unknown.txt": UNKNOWN, "cut.txt": TRUNCATED}  # cut: child's
        project = write_project(tmp_path, {**dumps, "bin.txt": BINARY})
    ran = subprocess.run(
        [sys.executable, "-c", SHARED_READING, str(project / "site.yaml")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    same, read_by_child, start = ran.stdout.split(" ", 2)
    assert same == "True"
    assert int(read_by_child) >= 2
    assert start.startswith("unknown.txt:1:" if project_kind == "bad files" else "([(")
