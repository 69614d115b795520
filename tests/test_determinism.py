"""The same inputs give the same bytes whatever the environment: two builds in subprocesses
with a different hash seed, locale and time zone produce identical trees.

The second environment is a bare cron-like one: the POSIX locale with Python's UTF-8 mode and
locale coercion turned off, so any file opened without an explicit encoding, or any sort that
follows the locale, would show.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HOSTILE, copy_seeds_project

from confsite.cache.manifest import CACHE_FOLDER

ENVIRONMENTS = {
    "utf8": {"PYTHONHASHSEED": "1", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TZ": "UTC"},
    "posix": {
        "PYTHONHASHSEED": "4242",
        "LC_ALL": "POSIX",
        "LANG": "POSIX",
        "PYTHONUTF8": "0",
        "PYTHONCOERCECLOCALE": "0",
        "TZ": "Asia/Kathmandu",  # UTC+05:45: a date computed in local time would differ
    },
}


def tree_hash(folder: Path) -> str:
    """One hash of every path and every file's bytes, in a fixed order."""
    whole = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        whole.update(path.relative_to(folder).as_posix().encode() + b"\0")
        if path.is_file():
            whole.update(hashlib.sha256(path.read_bytes()).digest())
    return whole.hexdigest()


def build_in(project: Path, out: str, env: dict[str, str], *options: str) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHON"))}
    command = ["build", "--config", "site.yaml", "--out", out, *options]
    result = subprocess.run(
        [sys.executable, "-m", "confsite", *command],
        cwd=project,
        capture_output=True,
        timeout=600,
        env={**clean, **env},
    )
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    return tree_hash(project / out)


@pytest.mark.parametrize("corpus", ["seeds", "hostile"])
def test_builds_agree_across_seed_locale_and_time_zone(tmp_path: Path, corpus: str) -> None:
    if corpus == "seeds":
        project = copy_seeds_project(tmp_path / "project")
    else:  # non-ASCII names, right-to-left text, payloads: what a locale could reorder
        project = Path(shutil.copytree(HOSTILE, tmp_path / "project"))
    hashes = {name: build_in(project, f"site-{name}", env) for name, env in ENVIRONMENTS.items()}
    assert hashes["utf8"] == hashes["posix"]
    assert len(list((project / "site-posix").rglob("*.html"))) > 60


def test_a_build_without_caches_gives_the_same_site_and_keeps_nothing(tmp_path: Path) -> None:
    """`--no-cache` is the plain path: no cache folder is read or made, and the site is the
    one a cached build makes, byte for byte (after a cached build and an edit, too)."""
    plain, cached = (copy_seeds_project(tmp_path / name) for name in ("plain", "cached"))
    env = ENVIRONMENTS["utf8"]
    first = build_in(plain, "_site", env, "--no-cache")
    assert not (plain / CACHE_FOLDER).exists()
    assert first == build_in(cached, "_site", env)
    assert (cached / CACHE_FOLDER).is_dir()
    for project in (plain, cached):  # a rebuild after an edit reuses what the cache has
        seed = project / "seeds" / "iclr2023-poster-session-3.txt"
        text = seed.read_text(encoding="utf-8")
        assert "In a backdoor attack" in text
        seed.write_text(text.replace("In a backdoor attack", "In a backdoor attack (edited)", 1))
    assert build_in(plain, "_site", env, "--no-cache") == build_in(cached, "_site", env)
    assert not (plain / CACHE_FOLDER).exists()
