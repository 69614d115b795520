"""A saved HTML page of a dump gives the same records as the dump's text."""

from __future__ import annotations

import html
import re
from dataclasses import replace

import bs4
import markdown
import pytest
from conftest import SEED_FILES, SEEDS, read_seed

from confsite.config import load_config
from confsite.diagnostics import Diagnostics, SourceLoc
from confsite.model.normalize import clean_text
from confsite.readers import sniff
from confsite.readers.html_text import html_to_source_text, html_tree, looks_like_html
from confsite.readers.registry import Registry
from confsite.readers.sources import read_source


def text_to_html(text: str) -> str:
    """Render a dump the way a browser's "save page" keeps it: one element per line, headings
    and list items as such, and an empty paragraph where the page left a field empty."""
    body: list[str] = []
    for block in re.split(r"(\n{2,})", text.strip("\n")):
        if block.startswith("\n"):
            body.extend("<p></p>" for _ in range(len(block) - 2))
            continue
        for line in block.split("\n"):
            if not line.strip():
                continue
            if line.startswith("## "):
                body.append(f"<h2>{html.escape(line[3:])}</h2>")
            elif line.startswith("- "):
                body.append(f"<ul><li>{html.escape(line[2:])}</li></ul>")
            else:
                body.append(f"<div class='x'><span>{html.escape(line)}</span></div>")
    return ("<!DOCTYPE html>\n<html><head><title>Saved</title><style>p{}</style>"
            "<script>var x = '<div>not text</div>';</script></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def letters(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())


def comparable(records):
    """Records without line numbers and with whitespace runs collapsed (HTML collapses them)."""
    return [
        replace(
            r,
            loc=SourceLoc(r.loc.path),
            title=clean_text(r.title),
            authors=tuple(map(clean_text, r.authors)),
            abstract=tuple(map(clean_text, r.abstract)),
        )
        for r in records
    ]


@pytest.mark.parametrize("key", sorted(SEED_FILES))
def test_saved_html_page_reads_like_its_text(key: str) -> None:
    text = (SEEDS / SEED_FILES[key]).read_text(encoding="utf-8")
    page = text_to_html(text)
    assert looks_like_html(page)
    source = html_to_source_text(f"seeds/{SEED_FILES[key]}", page)
    from_html = list(sniff(source).reader.read(source))
    assert sniff(source).reader.name == sniff(
        html_to_source_text("x", text_to_html(text))
    ).reader.name
    assert comparable(from_html) == comparable(read_seed(key))
    page_lines = page.split("\n")
    for record in from_html:  # each record's line range covers its elements in the saved page
        elements = page_lines[record.loc.line - 1 : record.loc.end_line]
        span = letters(html.unescape("".join(elements)))
        for field in (record.title, *record.authors[:1], *record.abstract[:1]):
            if field:
                assert letters(field)[:30] in span, (record.loc, field)


def test_markdown_rendered_page_reads_like_the_markdown() -> None:
    excerpt = (
        "## [Net-DNF: Effective Deep Modeling of Tabular Data](#)\n\n"
        "- Liran Katzir, Gal Elidan, Ran El-Yaniv\n"
        "- abstract@[open-review\\(Poster\\)](#): A challenging open question in deep learning "
        "is how to handle tabular data. Unlike domains such as image and natural language.\n\n"
        "A second paragraph of the abstract.\n\n"
        "## Class Normalization for \\(Continual\\)? Generalized Zero-Shot Learning\n\n"
        "- Ivan Skorokhodov\n"
        "- abstract@[open-review\\(Oral\\)](#): Normalization techniques matter.\n"
    )
    page = "<!doctype html><html><body>" + markdown.markdown(excerpt) + "</body></html>"
    source = html_to_source_text("list.html", page)
    records = list(sniff(source).reader.read(source))
    assert [r.title for r in records] == [
        "Net-DNF: Effective Deep Modeling of Tabular Data",
        "Class Normalization for (Continual)? Generalized Zero-Shot Learning",
    ]
    assert records[0].authors == ("Liran Katzir", "Gal Elidan", "Ran El-Yaniv")
    assert records[0].abstract[1] == "A second paragraph of the abstract."
    assert records[0].presentation == "Poster" and records[1].presentation == "Oral"
    assert records[1].authors == ("Ivan Skorokhodov",)


def test_a_saved_page_is_parsed_once_and_its_tree_let_go(tmp_path, monkeypatch) -> None:
    """Flattening a page and the general reader's reading of it share one parse; the tree is
    not kept once the source is read."""
    items = "".join(
        f"<li><b>A Study of Thing Number {n} in Learning</b><br><i>Ann Lee, Bo Chen</i></li>\n"
        for n in range(6)
    )
    page = f"<!DOCTYPE html>\n<html><body><h2>Accepted</h2>\n<ul>\n{items}</ul></body></html>"
    (tmp_path / "list.html").write_text(page, encoding="utf-8")
    (tmp_path / "site.yaml").write_text("title: T\nsources:\n  - path: list.html\n")
    config = load_config(tmp_path / "site.yaml", Diagnostics())
    parses = []
    parse = bs4.BeautifulSoup.__init__

    def counted(soup, *args, **kwargs) -> None:
        parses.append(1)
        parse(soup, *args, **kwargs)

    monkeypatch.setattr(bs4.BeautifulSoup, "__init__", counted)
    read = read_source(config, config.sources[0], Registry())
    assert (read.reader.name, read.record_count) == ("general", 6)
    assert len(parses) == 1
    assert html_tree.cache_info().currsize == 0
