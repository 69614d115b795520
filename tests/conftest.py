"""Shared fixtures: the repository's seeds and one real build of them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, BuildResult, build
from confsite.readers import sniff
from confsite.readers.base import RawRecord
from confsite.sources import load_source_text

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"
SEED_FILES = {
    "2023": "iclr2023-poster-session-3.txt",
    "2024": "iclr2024-poster-session-3.txt",
    "markdown": "iclr2021-accepted-papers.txt",
    "awards": "iclr2022-outstanding-papers.txt",
    "listing": "trending-papers.txt",
}


def read_seed(key: str) -> list[RawRecord]:
    """The records of one seed dump, read by whichever reader the sniffer picks."""
    text = load_source_text(SEEDS / SEED_FILES[key], f"seeds/{SEED_FILES[key]}")
    return list(sniff(text).reader.read(text))


def raw_lines(key: str) -> list[str]:
    """The seed file's lines exactly as stored, for checking records against the raw text."""
    return (SEEDS / SEED_FILES[key]).read_text(encoding="utf-8").split("\n")


@pytest.fixture(scope="session")
def seeds_build(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """The repository's site.yaml and seeds, built once into a temporary folder."""
    project = tmp_path_factory.mktemp("project")
    for name in ("site.yaml", "overrides.yaml"):
        shutil.copy(REPO / name, project / name)
    shutil.copytree(SEEDS, project / "seeds")
    shutil.copytree(REPO / "content", project / "content")
    options = BuildOptions(config_path=project / "site.yaml", out=project / "_site")
    return build(options, Diagnostics())


@pytest.fixture(scope="session")
def papers_json(seeds_build: BuildResult) -> list[dict]:
    return json.loads((seeds_build.out_dir / "papers.json").read_text(encoding="utf-8"))
