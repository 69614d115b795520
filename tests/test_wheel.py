"""The wheel and the sdist carry the templates, the static assets and lunr.js; a wheel installed
in a fresh venv, with the repository out of reach, starts, builds, checks and searches a site."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.slow

BUILD_INPUTS = (
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "package.json",
    "package-lock.json",
    "src",
    "templates",
    "static",
)
LUNR_JS = REPO / "node_modules" / "lunr" / "lunr.js"


def source_tree(target: Path) -> Path:
    """What the build reads from the repository, copied: a build leaves build/ and egg-info
    behind, which must not land in the checkout (nor stale files from there in the wheel)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    target.mkdir(parents=True, exist_ok=True)
    for name in BUILD_INPUTS:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
    shutil.copytree(REPO / "node_modules" / "lunr", target / "node_modules" / "lunr")
    return target


def python_build(tree: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`python -m build` offline: no isolated environment, setuptools as installed."""
    return subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), *options],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
    )


def bundled_names(folder: str) -> set[str]:
    root = REPO / folder
    return {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def dist(module_folder: Callable[[str], Path]) -> dict[str, Path]:
    """An sdist and a wheel built from it, as `python -m build` makes them."""
    tree = source_tree(module_folder("source"))
    out = module_folder("dist")
    result = python_build(tree, out)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {"wheel": next(out.glob("*.whl")), "sdist": next(out.glob("*.tar.gz"))}


def test_wheel_carries_templates_static_files_and_lunr(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        names = set(wheel.namelist())
        packed_lunr = wheel.read("confsite/vendor/lunr/lunr.js")
        for folder in ("templates", "static"):
            for name in bundled_names(folder):
                packed = wheel.read(f"confsite/{folder}/{name}")
                assert packed == (REPO / folder / name).read_bytes(), name
    assert packed_lunr == LUNR_JS.read_bytes()
    assert "confsite/vendor/lunr/LICENSE" in names
    assert "confsite/cli/starter/site.yaml" in names
    assert not [name for name in names if "node_modules" in name or "__pycache__" in name]


def test_sdist_carries_what_the_wheel_build_needs(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        names = {name.removeprefix(top + "/") for name in sdist.getnames()}
        packed_lunr = sdist.extractfile(f"{top}/node_modules/lunr/lunr.js").read()
    for folder in ("templates", "static"):
        assert {f"{folder}/{name}" for name in bundled_names(folder)} <= names
    assert {"setup.py", "MANIFEST.in", "package-lock.json", "src/confsite/bundled.py"} <= names
    assert packed_lunr == LUNR_JS.read_bytes()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("tampered", "differs from lunr 2.3.9's lunr.js as pinned in package-lock.json"),
        ("missing", "lunr.js is missing: run `npm ci`"),
    ],
    ids=["tampered", "missing"],
)
def test_a_lunr_js_that_is_not_the_pinned_one_fails_the_wheel_build(
    tmp_path: Path, damage: str, message: str
) -> None:
    tree = source_tree(tmp_path / "source")
    lunr_js = tree / "node_modules" / "lunr" / "lunr.js"
    if damage == "tampered":
        lunr_js.write_bytes(lunr_js.read_bytes().replace(b"lunr.version", b"lunr.versi0n", 1))
    else:
        lunr_js.unlink()
    result = python_build(tree, tmp_path / "dist", "--wheel")
    assert result.returncode != 0
    assert message in result.stdout + result.stderr
    assert not list((tmp_path / "dist").glob("*.whl"))


# --- The wheel installed away from the repository ---------------------------------------------


def clean_environment(venv: Path, home: Path) -> dict[str, str]:
    """The venv first on PATH (Node stays reachable for `confsite check`), a HOME of its own,
    and nothing that points Python or Node at the repository."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NODE_PATH"}
        and not key.startswith(("PYTEST_", "npm_"))
    }
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", HOME=str(home))
    return env


@pytest.fixture(scope="module")
def installed(module_folder: Callable[[str], Path], dist: dict[str, Path]) -> dict:
    """The wheel in a fresh venv outside the repository. Its dependencies come from the running
    Python's site-packages (the venv sees them; no package index needed), confsite from the
    wheel alone."""
    root = module_folder("installed")
    venv, home, work = root / "venv", root / "home", root / "work"
    home.mkdir()
    work.mkdir()
    # --without-pip: the venv uses the running Python's pip, which installs into the venv
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True,
    )
    env = clean_environment(venv, home)
    python = str(venv / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--ignore-installed",
         str(dist["wheel"])],
        check=True, cwd=work, env=env,
    )  # fmt: skip
    return {"venv": venv, "work": work, "env": env, "python": python}


def run_in(installed: dict, command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, cwd=cwd, env=installed["env"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{command}:\n{result.stdout}\n{result.stderr}"
    return result


def test_installed_wheel_imports_from_its_venv_and_finds_its_assets_there(installed: dict) -> None:
    probe = (
        "import json, confsite, confsite.bundled as b; print(json.dumps({'module': "
        "confsite.__file__, 'installed': b.BUNDLED.installed, 'paths': [str(b.BUNDLED.templates),"
        " str(b.BUNDLED.static), str(b.BUNDLED.lunr_js)]}))"
    )
    result = run_in(installed, [installed["python"], "-c", probe], installed["work"])
    found = json.loads(result.stdout)
    venv = installed["venv"].resolve()
    assert Path(found["module"]).resolve().is_relative_to(venv)
    assert found["installed"] is True
    for path in found["paths"]:
        assert Path(path).resolve().is_relative_to(venv) and Path(path).exists(), path


@pytest.fixture(scope="module")
def installed_site(installed: dict) -> Path:
    """`confsite init mysite`, then `confsite build` and `confsite check` in it, with the
    installed confsite."""
    confsite = str(installed["venv"] / "bin" / "confsite")
    run_in(installed, [confsite, "init", "mysite"], installed["work"])
    project = installed["work"] / "mysite"
    run_in(installed, [confsite, "build", "-q"], project)
    checked = run_in(installed, [confsite, "check"], project)
    assert "ok" in checked.stdout
    return project / "_site"


def test_installed_wheel_builds_and_checks_a_new_site(installed_site: Path) -> None:
    assert (installed_site / "assets" / "lunr.js").read_bytes() == LUNR_JS.read_bytes()
    assert (installed_site / "index.html").is_file()


@pytest.mark.browser
def test_installed_wheels_site_finds_a_paper_in_chromium(installed_site: Path, page: Page) -> None:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    page.goto((installed_site / "search" / "index.html").as_uri() + "?q=sheep")
    first = page.locator("#search-results .result-title").first
    expect(first).to_contain_text("Counting Sheep with Sparse Attention")
    assert errors == []
