"""`confsite check`: a good site passes; each kind of breakage is found and named."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO

from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, BuildResult, build


def run_check(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "confsite", "check", str(site)],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def unicode_build(module_folder: Callable[[str], Path]) -> Path:
    project = module_folder("unicode") / "project"
    shutil.copytree(REPO / "tests" / "fixtures" / "unicode", project)
    return build(BuildOptions(project / "site.yaml", project / "_site"), Diagnostics()).out_dir


@pytest.fixture
def site_copy(unicode_build: Path, tmp_path: Path) -> Path:
    """A small real site (the Unicode fixture) to break in one way per test."""
    copy = tmp_path / "site"
    shutil.copytree(unicode_build, copy)
    return copy


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
def test_the_seeds_site_passes(seeds_build: BuildResult) -> None:
    """The whole-site link check: every internal href/src (and #fragment) on every page."""
    result = run_check(seeds_build.out_dir)
    assert result.returncode == 0, result.stderr
    html_files = sum(1 for _ in seeds_build.out_dir.rglob("*.html"))
    assert html_files > 6000  # every session, paper and author page, and the paged listings
    assert f"checked {html_files} pages" in result.stdout
    assert result.stdout.strip().endswith(": ok")


def test_the_small_site_passes(unicode_build: Path) -> None:
    assert run_check(unicode_build).returncode == 0


def test_a_missing_page_and_a_broken_link_are_named(site_copy: Path) -> None:
    paper = "rocket-launch-models-with-agents"
    shutil.rmtree(site_copy / "papers" / paper)
    result = run_check(site_copy)
    assert result.returncode == 1
    assert f"paper {paper!r} has no page" in result.stderr
    assert f"index.html: link '../../papers/{paper}/index.html' points to a missing file" in (
        result.stderr)


def test_a_missing_fragment_is_named(site_copy: Path) -> None:
    page = site_copy / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "</main>", '<a href="papers/index.html#nowhere">x</a></main>'), encoding="utf-8")
    result = run_check(site_copy)
    assert result.returncode == 1
    assert "index.html: link to #nowhere in papers/index.html, which has no such id" in (
        result.stderr)


def test_a_search_index_that_does_not_load_is_found(site_copy: Path) -> None:
    index = site_copy / "search" / "index.js"
    text = index.read_text(encoding="utf-8")
    index.write_text(text[: len(text) // 2], encoding="utf-8")
    result = run_check(site_copy)
    assert result.returncode == 1
    assert "search/index.js: does not load in lunr.js" in result.stderr


def test_an_index_of_other_papers_is_found(site_copy: Path) -> None:
    papers = json.loads((site_copy / "papers.json").read_text(encoding="utf-8"))
    (site_copy / "papers.json").write_text(json.dumps(papers[:-1]), encoding="utf-8")
    result = run_check(site_copy)
    assert result.returncode == 1
    assert f"indexes {len(papers)} papers, papers.json has {len(papers) - 1}" in result.stderr


def test_a_folder_that_is_not_a_site(tmp_path: Path) -> None:
    result = run_check(tmp_path)
    assert result.returncode == 1 and "not a built site" in result.stderr
