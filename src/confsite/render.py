"""Render the site model to output files: Jinja pages, static assets, downloads, sitemap."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    pass_context,
    select_autoescape,
)
from jinja2.runtime import Context

from .citation import bibtex_entry
from .diagnostics import ConfsiteError
from .export import papers_json
from .output import OutputTree
from .progress import SILENT, Progress
from .search import search_files
from .site import Site, paper_url
from .views import Views

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
BUILTIN_TEMPLATES = PROJECT_ROOT / "templates"
BUILTIN_STATIC = PROJECT_ROOT / "static"
LUNR_JS = PROJECT_ROOT / "node_modules" / "lunr" / "lunr.js"


def lunr_js() -> bytes:
    """lunr.js from the npm package pinned in package.json (installed by `npm ci`)."""
    try:
        return LUNR_JS.read_bytes()
    except FileNotFoundError:
        raise ConfsiteError(
            str(LUNR_JS),
            "lunr.js is missing: run `npm ci` in the confsite "
            "folder (it installs the pinned lunr package)",
        ) from None


@pass_context
def link(context: Context, url: str) -> str:
    """A relative link from the current page to a site path (`papers/x/` → `../../papers/x/
    index.html`). Directory links name index.html so the site also works opened from disk."""
    if url.endswith("/") or url == "":
        url += "index.html"
    return context["root"] + url


def make_environment(theme_dir: Path | None) -> Environment:
    loaders = [FileSystemLoader(str(theme_dir / "templates"))] if theme_dir else []
    loaders.append(FileSystemLoader(str(BUILTIN_TEMPLATES)))
    environment = Environment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.globals["link"] = link
    return environment


def static_files(theme_dir: Path | None) -> dict[str, bytes]:
    """Built-in assets, each replaced by the theme's file of the same name."""
    files: dict[str, bytes] = {}
    for folder in [BUILTIN_STATIC, *([theme_dir / "static"] if theme_dir else [])]:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    files[path.relative_to(folder).as_posix()] = path.read_bytes()
    return files


def papers_bib(site: Site) -> bytes:
    entries = (bibtex_entry(p, site.absolute(paper_url(p))) for p in site.papers)
    return "\n".join(entries).encode()


def papers_csv(site: Site) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "id",
            "title",
            "authors",
            "conference",
            "year",
            "sessions",
            "presentation",
            "decision",
            "awards",
            "attendance",
            "room",
            "url",
            "abstract",
        ]
    )
    for p in site.papers:
        writer.writerow(
            [
                p.id,
                p.title or "",
                "; ".join(p.authors),
                p.conference or "",
                p.year or "",
                "; ".join(s.name for s in p.sessions),
                p.presentation or "",
                p.decision or "",
                "; ".join(p.awards),
                p.attendance or "",
                p.room or "",
                paper_url(p),
                p.abstract or "",
            ]
        )
    return buffer.getvalue().encode()


def sitemap(site: Site, paths: list[str]) -> bytes:
    urls = []
    for path in paths:
        if path == "404.html":
            continue
        page_url = path[: -len("index.html")] if path.endswith("index.html") else path
        urls.append(f"  <url><loc>{xml_escape(site.base_url + page_url)}</loc></url>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "\n".join(urls)
        + "\n</urlset>\n"
    ).encode()


def render_site(site: Site, progress: Progress = SILENT) -> OutputTree:
    theme_dir = site.config.resolve(site.config.theme_dir) if site.config.theme_dir else None
    if theme_dir is not None and not theme_dir.is_dir():
        raise ConfsiteError(
            site.config.config_path, f"theme_dir {site.config.theme_dir!r} is not a folder"
        )
    environment = make_environment(theme_dir)
    tree = OutputTree()
    pages = Views(site).pages()
    progress.start("render", len(pages))
    for page in pages:
        html = environment.get_template(page.template).render(page.context)
        tree.add(page.path, html.encode())
        progress.advance()
    progress.finish()
    for name, data in static_files(theme_dir).items():
        tree.add(f"assets/{name}", data)
    tree.add("assets/lunr.js", lunr_js())
    for path, data in search_files(site).items():
        tree.add(path, data)
    tree.add("papers.json", papers_json(site))
    tree.add("papers.bib", papers_bib(site))
    tree.add("papers.csv", papers_csv(site))
    if site.base_url:
        tree.add("sitemap.xml", sitemap(site, sorted(p.path for p in pages)))
        tree.add(
            "robots.txt", f"User-agent: *\nAllow: /\nSitemap: {site.base_url}sitemap.xml\n".encode()
        )
    return tree
