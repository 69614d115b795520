"""Build hooks: the wheel carries the templates and static assets the repository keeps at its top
level, and lunr.js from the npm package pinned in package-lock.json, so that an installed confsite
needs neither the repository nor npm. An editable install reads them from the checkout instead.

package-lock.json's `integrity` is the digest of lunr's npm tarball, not of lunr.js: the build
finds that tarball in npm's cache (`npm ci` leaves it there), checks it against the digest, and
accepts node_modules/lunr/lunr.js only if it is the tarball's lunr.js byte for byte."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.errors import FileError

ROOT = Path(__file__).resolve().parent
PACKAGE = "confsite"
ASSET_FOLDERS = ("templates", "static")  # copied to confsite/templates, confsite/static
LUNR_FOLDER = Path("vendor", "lunr")  # inside the package: lunr.js and its LICENSE
LUNR_FILES = ("lunr.js", "LICENSE")


def npm_cache() -> Path:
    # npm's own spelling, which it also sets for the scripts it runs
    return Path(os.environ.get("npm_config_cache") or Path.home() / ".npm")  # noqa: SIM112


def lunr_from_lock(root: Path) -> tuple[str, str, bytes]:
    """(version, integrity, sha512 digest) of lunr as package-lock.json pins it."""
    try:
        lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
        entry = lock["packages"]["node_modules/lunr"]
        version, integrity = entry["version"], entry["integrity"]
    except (OSError, ValueError, KeyError) as err:
        raise FileError(f"package-lock.json: no pinned lunr package ({err!r})") from None
    algorithm, _, digest = integrity.partition("-")
    if algorithm != "sha512":
        raise FileError(f"package-lock.json: lunr's integrity is not sha512: {integrity}")
    return version, integrity, base64.b64decode(digest)


def pinned_tarball(version: str, integrity: str, digest: bytes) -> bytes:
    """lunr's npm tarball from npm's content-addressed cache, checked against the lock."""
    hexdigest = digest.hex()
    path = npm_cache() / "_cacache" / "content-v2" / "sha512" / hexdigest[:2] / hexdigest[2:4]
    path = path / hexdigest[4:]
    if not path.is_file():
        raise FileError(
            f"lunr {version}'s npm package ({integrity}) is not in npm's cache ({npm_cache()}): "
            f"run `npm ci` (or `npm cache add lunr@{version}`) so the build can check lunr.js"
        )
    tarball = path.read_bytes()
    if hashlib.sha512(tarball).digest() != digest:
        raise FileError(f"{path}: npm's cache entry does not match {integrity}")
    return tarball


def verified_lunr(root: Path) -> dict[str, bytes]:
    """lunr.js and lunr's LICENSE, once node_modules/lunr/lunr.js has proved to be the pinned
    package's lunr.js."""
    version, integrity, digest = lunr_from_lock(root)
    with tarfile.open(fileobj=io.BytesIO(pinned_tarball(version, integrity, digest))) as tar:
        packed = {}
        for name in LUNR_FILES:
            member = tar.extractfile(f"package/{name}")
            if member is None:
                raise FileError(f"lunr {version}'s npm package has no {name}")
            packed[name] = member.read()
    installed = root / "node_modules" / "lunr" / "lunr.js"
    if not installed.is_file():
        raise FileError(
            f"{installed} is missing: run `npm ci` (it installs lunr {version}, "
            "pinned in package-lock.json)"
        )
    if installed.read_bytes() != packed["lunr.js"]:
        raise FileError(
            f"{installed} differs from lunr {version}'s lunr.js as pinned in package-lock.json "
            f"({integrity}): run `npm ci` to restore the pinned package"
        )
    return packed


class BuildPyWithAssets(build_py):
    """build_py that also puts the templates, the static assets and lunr.js into the package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them from the checkout
        package = Path(self.build_lib) / PACKAGE
        for folder in ASSET_FOLDERS:
            target = package / folder
            shutil.rmtree(target, ignore_errors=True)  # no file left over from an older build
            shutil.copytree(ROOT / folder, target)
        lunr = package / LUNR_FOLDER
        shutil.rmtree(lunr, ignore_errors=True)
        lunr.mkdir(parents=True)
        for name, data in verified_lunr(ROOT).items():
            (lunr / name).write_bytes(data)


class SdistWithAssets(sdist):
    """sdist that refuses to pack a lunr.js the wheel build would refuse (see MANIFEST.in)."""

    def run(self) -> None:
        verified_lunr(ROOT)
        super().run()


setup(cmdclass={"build_py": BuildPyWithAssets, "sdist": SdistWithAssets})
