"""Verify a built site: internal links and assets resolve, every paper has its page, and the
search index loads in lunr.js (through Node, with the site's own copies of the scripts)."""

from __future__ import annotations

import json
import posixpath
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

LINK_ATTRIBUTES = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src"}

SEARCH_CHECK_JS = r"""
const path = require("path");
const site = process.argv[1];
globalThis.window = globalThis;
const lunr = require(path.join(site, "assets", "lunr.js"));
const { confsiteLoadIndex } = require(path.join(site, "assets", "search-index.js"));
require(path.join(site, "search", "index.js"));
const data = window.confsiteSearchData;
const loadData = (file, name) => { require(path.join(site, "search", file)); return window[name]; };
const loader = confsiteLoadIndex(data.index, lunr,
  (n) => loadData(`terms/${n}.js`, `confsiteShard${n}`),
  () => loadData("vocabulary.js", "confsiteVocabulary"));
(async () => {
  await loader.ensureVocabulary();
  // The first term free of lunr query syntax (a term such as "10^6" would parse as a boost).
  const first = loader.vocabulary().terms.find((term) => !/[:+\-~^*]/.test(term)) || "";
  const hits = first ? (await loader.search(first)).length : 0;
  process.stdout.write(JSON.stringify({ documents: data.index.documents, hits }));
})().catch((error) => { console.error(String(error)); process.exit(1); });
"""


@dataclass
class CheckReport:
    pages: int = 0
    links: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class _LinkCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        wanted = LINK_ATTRIBUTES.get(tag)
        if wanted and values.get(wanted) is not None:
            self.links.append(values[wanted] or "")


def _internal_target(page: str, url: str) -> tuple[str, str] | None:
    """(site path, fragment) of a link that stays inside the site; None for external ones."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith("//"):
        return None
    path = unquote(parts.path)
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
    return target, parts.fragment


def check_links(site: Path, report: CheckReport) -> None:
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    pages = sorted(name for name in files if name.endswith(".html"))
    ids: dict[str, set[str]] = {}
    fragments: list[tuple[str, str, str]] = []
    for name in pages:
        collector = _LinkCollector()
        collector.feed((site / name).read_text(encoding="utf-8", errors="replace"))
        ids[name] = collector.ids
        for url in collector.links:
            target = _internal_target(name, url)
            if target is None:
                continue
            report.links += 1
            path, fragment = target
            if path.startswith("../") or path not in files:
                report.problems.append(f"{name}: link {url!r} points to a missing file")
            elif fragment:
                fragments.append((name, path, fragment))
    report.pages = len(pages)
    report.problems += [
        f"{name}: link to #{fragment} in {path}, which has no such id"
        for name, path, fragment in fragments
        if path.endswith(".html") and fragment not in ids.get(path, set())
    ]


def check_papers(site: Path, report: CheckReport) -> list[dict]:
    try:
        papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        report.problems.append(f"papers.json: cannot be read ({err})")
        return []
    for paper in papers:
        if not (site / paper["url"] / "index.html").is_file():
            report.problems.append(
                f"papers.json: paper {paper['id']!r} has no page at {paper['url']}"
            )
    return papers


def check_search(site: Path, papers: list[dict], report: CheckReport) -> None:
    node = shutil.which("node")
    if node is None:
        report.notes.append("search index not checked: Node is not installed")
        return
    run = subprocess.run(
        [node, "-e", SEARCH_CHECK_JS, str(site.resolve())],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        report.problems.append(f"search/index.js: does not load in lunr.js ({last})")
        return
    result = json.loads(run.stdout)
    if result["documents"] != len(papers):
        report.problems.append(
            f"search/index.js: indexes {result['documents']} papers, papers.json has {len(papers)}"
        )
    elif papers and result["hits"] == 0:
        report.problems.append("search/index.js: a term of its own vocabulary finds nothing")


def check_site(site: Path) -> CheckReport:
    report = CheckReport()
    if not (site / "index.html").is_file():
        report.problems.append(f"{site}: no index.html, not a built site")
        return report
    check_links(site, report)
    papers = check_papers(site, report)
    check_search(site, papers, report)
    return report
