"""The files beside the pages: static assets (the theme's first), lunr.js, the sitemap, and the
fingerprint of everything pages are rendered with."""

from __future__ import annotations

import html
import os
import sys
from pathlib import Path

from ..bundled import BUNDLED, PACKAGE_ROOT
from ..cache.digests import digest, files_digest, folder_files
from ..config import SiteConfig
from ..diagnostics import ConfsiteError
from ..model.site import Site
from ..model.urls import ASSETS, INDEX, NOT_FOUND


def lunr_js() -> bytes:
    """lunr.js from the npm package pinned in package.json: the copy the wheel carries, or
    for an editable install the one `npm ci` put in the checkout's node_modules."""
    try:
        return BUNDLED.lunr_js.read_bytes()
    except FileNotFoundError:
        what_to_do = (
            "reinstall confsite (its wheel carries lunr.js)"
            if BUNDLED.installed
            else "run `npm ci` in the confsite folder (it installs the pinned lunr package)"
        )
        raise ConfsiteError(str(BUNDLED.lunr_js), f"lunr.js is missing: {what_to_do}") from None


def static_files(theme_dir: Path | None) -> dict[str, bytes]:
    """Built-in assets, each replaced by the theme's file of the same name."""
    files: dict[str, bytes] = {}
    for folder in [BUNDLED.static, *([theme_dir / "static"] if theme_dir else [])]:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    files[path.relative_to(folder).as_posix()] = path.read_bytes()
    return files


def sitemap(site: Site, paths: list[str]) -> bytes:
    """Every page but the 404 page; downloads and assets are not pages."""
    urls = []
    for path in paths:
        if path == NOT_FOUND or not path.endswith(".html"):
            continue
        page_url = path.removesuffix(INDEX) if path.endswith(INDEX) else path
        urls.append(f"  <url><loc>{html.escape(site.base_url + page_url, quote=False)}</loc></url>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "\n".join(urls)
        + "\n</urlset>\n"
    ).encode()


def other_files(
    site: Site, theme_dir: Path | None, page_paths: list[str]
) -> list[tuple[str, bytes]]:
    files = [(f"{ASSETS}{name}", data) for name, data in static_files(theme_dir).items()]
    files.append((f"{ASSETS}lunr.js", lunr_js()))
    if site.base_url:
        files.append(("sitemap.xml", sitemap(site, page_paths)))
        robots = f"User-agent: *\nAllow: /\nSitemap: {site.base_url}sitemap.xml\n"
        files.append(("robots.txt", robots.encode()))
    return files


def theme_folder(config: SiteConfig) -> Path | None:
    if not config.theme_dir:
        return None
    theme_dir = config.resolve(config.theme_dir)
    if not theme_dir.is_dir():
        raise ConfsiteError(config.config_path, f"theme_dir {config.theme_dir!r} is not a folder")
    return theme_dir


def installed_distributions() -> list[str]:
    """Every distribution installed where Python imports from, with its version (its
    metadata folder's name): a dependency's new version can change what pages show (a
    formula's MathML, a slug), so it must invalidate cached pages as a code change does.
    Listing the folders takes about a millisecond; asking importlib.metadata took 20."""
    found = set()  # a folder on the path twice (build.py adds src/) lists its names once
    for folder in sys.path:
        if not folder or not os.path.isabs(folder):  # the working folder: not the install
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found.update(name for name in names if name.endswith((".dist-info", ".egg-info")))
    return sorted(found)


def build_fingerprint(theme_dir: Path | None) -> bytes:
    """A digest of confsite's code, templates and assets, the theme's, and the installed
    distributions: any change to them invalidates every cached page."""
    # An installed package holds the templates and assets too: hashing them twice costs little.
    folders = [PACKAGE_ROOT, BUNDLED.templates, BUNDLED.static]
    if theme_dir is not None:
        folders.append(theme_dir)
    files = [item for n, path in enumerate(folders) for item in folder_files(path, "*", f"{n}/")]
    if not BUNDLED.lunr_js.is_file():
        lunr_js()  # says plainly what is missing and what to do
    files.append(("lunr.js", BUNDLED.lunr_js))
    return digest((files_digest(files), installed_distributions()))
