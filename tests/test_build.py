"""End-to-end: build the real seeds through the command line and check papers.json."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, copy_seeds_project

PAPER_KEYS = {
    "id", "title", "authors", "affiliations", "abstract", "links", "keywords", "sessions",
    "presentation", "decision", "awards", "attendance", "room", "conference", "year", "url",
    "sources",
}


def copy_project(target: Path) -> Path:
    copy_seeds_project(target)
    shutil.copy(REPO / "build.py", target / "build.py")
    return target


def build_py(project: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "build.py", *args], cwd=project, capture_output=True, text=True,
        timeout=300, env={**os.environ, **(env or {})},
    )


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file of a built site and a hash of its bytes."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*")) if path.is_file()
    }


def test_papers_json_has_every_key_and_one_entry_per_paper(papers_json: list[dict]) -> None:
    assert all(set(paper) == PAPER_KEYS for paper in papers_json)
    ids = [paper["id"] for paper in papers_json]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(paper["url"] == f"papers/{paper['id']}/" for paper in papers_json)
    assert all(paper["id"].isascii() and len(paper["id"]) <= 100 for paper in papers_json)


def test_every_field_a_dump_states_is_kept(papers_json: list[dict]) -> None:
    by_title = {paper["title"]: paper for paper in papers_json if paper["title"]}
    paper = by_title["Rethinking the Expressive Power of GNNs via Graph Biconnectivity"]
    assert paper["awards"] == ["Outstanding Paper"]
    assert paper["decision"] == "Top 5% paper"
    assert paper["attendance"] == "in person"
    assert paper["presentation"] == "Poster"
    assert paper["authors"] == ["Bohang Zhang", "Shengjie Luo", "Liwei Wang", "Di He"]
    assert (paper["conference"], paper["year"], paper["sessions"]) == (
        "ICLR", 2023, ["Poster Session 3"])
    assert paper["sources"] == [{"path": "seeds/iclr2023-poster-session-3.txt",
                                 "first_line": 108, "last_line": 114}]


def test_untitled_papers_stay_untitled(papers_json: list[dict]) -> None:
    untitled = [paper for paper in papers_json if paper["title"] is None]
    assert len(untitled) == 11  # ten on the awards page, one in the 2024 session
    assert all(paper["id"].startswith("untitled-") for paper in untitled)
    assert all(paper["authors"] and paper["abstract"] for paper in untitled)


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
def test_build_py_is_deterministic_and_reports_untitled(tmp_path: Path) -> None:
    """Two builds, different hash seeds and time zones: every file byte-identical."""
    project = copy_project(tmp_path)
    first = build_py(project, "--out", "one", env={"PYTHONHASHSEED": "1"})
    second = build_py(project, "--out", "two", env={"PYTHONHASHSEED": "2", "TZ": "Asia/Tokyo"})
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert tree_digest(project / "one") == tree_digest(project / "two")
    assert "untitled (11):" in first.stderr
    assert "iclr2022-outstanding-papers.txt:4: warning: paper by Fan Bao has no title" in (
        first.stderr)
    awards_row = next(line for line in first.stdout.splitlines() if "outstanding" in line)
    assert awards_row.split()[1:4] == ["awards", "20", "10"]


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
def test_overrides_set_fields_and_silence_the_untitled_warning(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    assert build_py(project).returncode == 0
    papers = json.loads((project / "_site" / "papers.json").read_text(encoding="utf-8"))
    bao = next(p for p in papers if p["id"].startswith("untitled-fan-bao-"))
    (project / "overrides.yaml").write_text(
        f"{bao['id']}:\n  title: Analytic-DPM\n  attendance: virtual\n", encoding="utf-8"
    )
    result = build_py(project)
    assert result.returncode == 0, result.stderr
    papers = json.loads((project / "_site" / "papers.json").read_text(encoding="utf-8"))
    updated = next(p for p in papers if p["id"] == bao["id"])
    assert updated["title"] == "Analytic-DPM" and updated["attendance"] == "virtual"
    assert updated["sources"][-1]["path"] == "overrides.yaml"
    assert "paper by Fan Bao has no title" not in result.stderr
    assert "untitled (10):" in result.stderr


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
@pytest.mark.parametrize("flag", ["--strict"])
def test_strict_build_of_the_seeds_fails_on_untitled_papers(tmp_path: Path, flag: str) -> None:
    project = copy_project(tmp_path)
    result = build_py(project, flag)
    assert result.returncode == 1
    assert not (project / "_site").exists()
    assert "--strict makes warnings fatal" in result.stderr
