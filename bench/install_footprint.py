"""What installing confsite costs: pip's time, the venv's size, the largest packages, and how long
`confsite --version` and `--help` take, cold (first run after the install) and warm.

Builds the wheel from this checkout (or takes `--wheel`), installs it with its dependencies
from the package index into a fresh venv (pip's cache off, so every dependency is downloaded),
then measures. `--python` picks the interpreter the venv is made from, to try other versions.

    python bench/install_footprint.py
    python bench/install_footprint.py --python ~/.pyenv/versions/3.13.0/bin/python3 --keep
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WARM_RUNS = 5
# The dependencies related papers need, and only they: their share of the install.
RELATED_PAPERS_STACK = ("numpy", "scipy", "sparse-dot-topn")

# Run inside the venv: each installed distribution's size on disk, from its RECORD.
DISTRIBUTION_SIZES = """
import json, importlib.metadata as m
sizes = {}
for dist in m.distributions():
    total = 0
    for file in dist.files or ():
        path = file.locate()
        if path.is_file():
            total += path.stat().st_size
    sizes[dist.metadata["Name"].lower().replace("_", "-")] = total
print(json.dumps(sizes))
"""

# Run inside the venv: what importing the related-papers stack costs, in seconds.
STACK_IMPORT = """
import json, time
started = time.perf_counter()
import numpy
numpy_done = time.perf_counter()
import scipy.sparse
scipy_done = time.perf_counter()
import sparse_dot_topn
done = time.perf_counter()
print(json.dumps({"numpy": numpy_done - started, "scipy.sparse": scipy_done - numpy_done,
                  "sparse_dot_topn": done - scipy_done}))
"""


def build_wheel(out: Path) -> Path:
    """`python -m build` (an sdist, then the wheel from it: nothing lands in the checkout but
    src/*.egg-info), without isolation so it works offline. Run from `out`: in the checkout,
    `python -m build` would run its build.py."""
    out.mkdir(parents=True)
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
        check=True,
        capture_output=True,
        cwd=out,
    )
    return next(out.glob("*.whl"))


def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def seconds(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - started


def loaded_modules(python: Path, argv: list[str], cwd: Path) -> list[str]:
    """Which of the heavy modules running confsite with `argv` imports."""
    probe = (
        "import sys; from confsite.cli.commands import run\n"
        "try:\n    run(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "heavy = ('numpy', 'scipy', 'sparse_dot_topn', 'jinja2', 'lunr', 'bs4', 'yaml',"
        " 'bibtexparser', 'pylatexenc', 'rich', 'watchfiles', 'markdown', 'nh3')\n"
        "print(' '.join(m for m in heavy if m in sys.modules), file=sys.stderr)"
    )
    result = subprocess.run(
        [str(python), "-c", probe, *argv], cwd=cwd, capture_output=True, text=True, check=True
    )
    return result.stderr.split()


def measure(wheel: Path, base_python: str, root: Path) -> dict:
    venv, work = root / "venv", root / "work"
    work.mkdir()
    subprocess.run([base_python, "-m", "venv", str(venv)], check=True)
    python, pip = venv / "bin" / "python", venv / "bin" / "pip"
    subprocess.run(
        [str(pip), "install", "--quiet", "--no-cache-dir", "--upgrade", "pip"], check=True
    )
    empty = folder_size(venv)
    started = time.perf_counter()
    subprocess.run(
        [str(pip), "install", "--quiet", "--no-cache-dir", "--disable-pip-version-check",
         str(wheel)],
        check=True,
    )  # fmt: skip
    install_seconds = time.perf_counter() - started
    confsite = str(venv / "bin" / "confsite")
    cold = seconds([confsite, "--version"], work)
    warm = statistics.median(seconds([confsite, "--version"], work) for _ in range(WARM_RUNS))
    help_warm = statistics.median(seconds([confsite, "--help"], work) for _ in range(WARM_RUNS))
    bare = statistics.median(seconds([str(python), "-c", "pass"], work) for _ in range(WARM_RUNS))
    sizes = json.loads(
        subprocess.run(
            [str(python), "-c", DISTRIBUTION_SIZES], capture_output=True, text=True, check=True
        ).stdout
    )
    stack_import = json.loads(
        subprocess.run(
            [str(python), "-c", STACK_IMPORT], capture_output=True, text=True, check=True
        ).stdout
    )
    version = subprocess.run(
        [str(python), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return {
        "python": version,
        "install_seconds": install_seconds,
        "venv_bytes": folder_size(venv),
        "installed_bytes": folder_size(venv) - empty,
        "distributions": sizes,
        "version_cold": cold,
        "version_warm": warm,
        "help_warm": help_warm,
        "python_startup": bare,
        "stack_import": stack_import,
        "version_imports": loaded_modules(python, ["--version"], work),
        "help_imports": loaded_modules(python, ["--help"], work),
    }


def megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def report(numbers: dict, top: int) -> str:
    sizes = numbers["distributions"]
    stack = sum(sizes.get(name, 0) for name in RELATED_PAPERS_STACK)
    lines = [
        f"{numbers['python']}",
        "| measure | value |",
        "|---|---|",
        f"| pip install (wheel + dependencies, no cache) | {numbers['install_seconds']:.1f} s |",
        f"| venv size (pip included) | {megabytes(numbers['venv_bytes'])} |",
        f"| added by the install | {megabytes(numbers['installed_bytes'])} |",
        f"| of which numpy + scipy + sparse-dot-topn | {megabytes(stack)} "
        f"({stack / numbers['installed_bytes']:.0%}) |",
        f"| `confsite --version`, cold (first run) | {numbers['version_cold'] * 1000:.0f} ms |",
        f"| `confsite --version`, warm (median of {WARM_RUNS}) "
        f"| {numbers['version_warm'] * 1000:.0f} ms |",
        f"| `confsite --help`, warm | {numbers['help_warm'] * 1000:.0f} ms |",
        f"| `python -c pass`, warm | {numbers['python_startup'] * 1000:.0f} ms |",
        "| importing numpy / scipy.sparse / sparse_dot_topn (warm) | "
        + " / ".join(f"{value * 1000:.0f} ms" for value in numbers["stack_import"].values())
        + " |",
        f"| imported by `--version` | {' '.join(numbers['version_imports']) or '-'} |",
        f"| imported by `--help` | {' '.join(numbers['help_imports']) or '-'} |",
        "",
        "| package | size |",
        "|---|---|",
    ]
    for name, size in sorted(sizes.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"| {name} | {megabytes(size)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, help="a built wheel (default: build one)")
    parser.add_argument("--python", default=sys.executable, help="interpreter for the venv")
    parser.add_argument("--top", type=int, default=12, help="largest packages to list")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--keep", action="store_true", help="keep the venv (its path is printed)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="confsite-footprint-"))
    try:
        wheel = args.wheel or build_wheel(root / "dist")
        numbers = measure(wheel.resolve(), args.python, root)
        print(report(numbers, args.top))
        if args.json:
            args.json.write_text(json.dumps(numbers, indent=2, sort_keys=True) + "\n")
    finally:
        if args.keep:
            print(f"kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
