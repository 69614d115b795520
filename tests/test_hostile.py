"""Hostile input: scraped strings with scripts, event handlers, dangerous links, path traversal,
odd line ends and invisible characters give clean escaped pages; undecodable input gives one
located error and writes nothing.

The corpus is tests/fixtures/hostile/ (a dump in every reader format, an HTML page, site.yaml,
overrides.yaml and content pages, all attacking); the large inputs are generated per test.
The same build is loaded in Chromium by tests/test_hostile_browser.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import lxml.html
import pytest
from conftest import HOSTILE, html_problems, wait_for_spare
from jinja2 import DictLoader, Environment
from markupsafe import Markup, escape

from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, BuildResult, build
from confsite.render.jinja import make_environment

PAYLOAD = "window.__pwned=1;document.title='PWNED';alert(1)"
SCRIPT = f"<script>{PAYLOAD}</script>"
URL_ATTRIBUTES = (
    "href",
    "src",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "xlink:href",
    "srcset",
    "cite",
    "srcdoc",
)
SAFE_SCHEMES = ("http", "https", "mailto")
# Elements that run or embed something; none may come out of any input.
ACTIVE_ELEMENTS = (
    "iframe",
    "frame",
    "object",
    "embed",
    "applet",
    "style",
    "base",
    "svg",
    "template",
    "portal",
    "noscript",
)
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
INVISIBLE = ("\u200b", "\u202e", "\u202c", "\u2066", "\u2069", "\ufeff", "\u00ad")


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "confsite", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def site_pages(site: Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(site.rglob("*.html"))
    }


def scheme(url: str) -> str | None:
    """The scheme a browser would see: it drops ASCII whitespace and control characters."""
    cleaned = re.sub(r"[\x00-\x20]", "", url).lower()
    match = re.match(r"^([a-z][a-z0-9+.-]*):", cleaned)
    return match.group(1) if match else None


def files_under(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() or p.is_symlink()
    }


# --- the corpus itself ---------------------------------------------------------------------


class _Hypertext:
    def __html__(self) -> str:
        return "<em>kept</em>"


def test_page_templates_escape_every_value_but_markup() -> None:
    """The templates' own escaping (render/jinja.py · `escaped`): text, numbers and other
    objects are escaped as markupsafe escapes them; markup is written as it is."""
    template = make_environment(None).from_string("{{ a }}|{{ b }}|{{ c }}|{{ d }}|{{ e }}")
    html = template.render(
        a="<script>'&\"</script>", b=Markup("<b>x</b>"), c=3, d=_Hypertext(), e=["<i>"]
    )
    expected = "&lt;script&gt;&#39;&amp;&#34;&lt;/script&gt;|<b>x</b>|3|<em>kept</em>|"
    assert html == expected + "[&#39;&lt;i&gt;&#39;]"


class _HypertextText(str):
    def __html__(self) -> str:
        return "<em>its own</em>"


@pytest.mark.parametrize(
    "value",
    ["&", "<", ">", "'", '"', "plain text", "", "a & b", "Ünïcödé 深度", -12, 0, True, 2.5, None],
)
def test_escaping_gives_markupsafe_s_characters(value: object) -> None:
    """Text without a character to escape, and numbers, skip markupsafe (`escaped`): the page
    must hold exactly what markupsafe's escaping gives, for each of the five characters alone
    too."""
    template = make_environment(None).from_string("{{ value }}")
    assert template.render(value=value) == str(escape(value))


def test_escaping_honours_a_text_subclass_s_own_markup() -> None:
    """Only `str` itself takes the quick path: a subclass may say how it is written."""
    template = make_environment(None).from_string("{{ value }}")
    assert template.render(value=_HypertextText("plain")) == "<em>its own</em>"


LAYOUT = {
    "base.html": (
        "<title>{{ title }}</title>\n{% block content %}{% endblock %}\n<p>{{ 3 }} & {{ '<' }}</p>"
    ),
    "page.html": (
        '{% extends "base.html" %}{% block content %}<h1>{{ title }} · {{ n }}</h1>\n'
        "{% for x in items %}<li>{{ x }}{% if x == '<b>' %} ({{ loop.index }}){% endif %}</li>"
        "{% endfor %}{% autoescape false %}{{ raw }} {{ n }}{% endautoescape %}"
        "{{ kept }}|{{ '%s %d' }}{% autoescape flag %}{{ '<q>' }}|<{{ '<q>' }}>{% endautoescape %}"
        "{% filter upper %}a{{ title }}{% endfilter %}{% set s %}<{{ n }}>{% endset %}{{ s }}"
        "{% endblock %}"
    ),
}


def test_page_blocks_write_what_jinja_writes_with_one_yield_per_run() -> None:
    """The page code generator yields a run of text and values as one string (render/jinja.py
    · `PageCodeGenerator.visit_Output`): the page is the one Jinja's own code writes, and a
    block's run between tags is one yield, not one per piece."""
    ours = make_environment(None)
    ours.loader = DictLoader(LAYOUT)
    stock = Environment(
        loader=DictLoader(LAYOUT), autoescape=True, trim_blocks=True, lstrip_blocks=True
    )
    values = {"title": "A <i>&</i> 'B'", "n": 7, "items": ["<b>", "c", 2], "raw": "<u>"}
    values["kept"] = Markup("<s>")
    for flag in (True, False):  # an autoescape set at run time: constants folded as Jinja does
        html = ours.get_template("page.html").render(values, flag=flag)
        assert html == stock.get_template("page.html").render(values, flag=flag)
    assert "<h1>A &lt;i&gt;&amp;&lt;/i&gt; &#39;B&#39; · 7</h1>" in html
    template = ours.get_template("page.html")
    pieces = list(template.blocks["content"](template.new_context({**values, "flag": True})))
    assert pieces[0] == "<h1>A &lt;i&gt;&amp;&lt;/i&gt; &#39;B&#39; · 7</h1>\n"
    assert pieces[1:4] == ["<li>&lt;b&gt;", " (1)", "</li>"]  # the if's run is its own


def test_the_corpus_keeps_its_awkward_bytes() -> None:
    """Git or an editor could quietly normalize the fixture; then its tests would prove less."""
    crlf = (HOSTILE / "session-2023.txt").read_bytes()
    assert crlf.count(b"\r\n") > 10 and crlf.count(b"\n") == crlf.count(b"\r\n")
    lone_cr = (HOSTILE / "session-2024.txt").read_bytes()
    assert (
        lone_cr.startswith(b"\xef\xbb\xbf") and b"\n" not in lone_cr and lone_cr.count(b"\r") > 10
    )
    page = (HOSTILE / "content" / "crlf-page.md").read_bytes()
    assert page.startswith(b"\xef\xbb\xbf") and b"\r\n" in page
    for text in ("\u200b", "\u202e", "\u2066", "\u05d3"):
        assert text in lone_cr.decode("utf-8-sig")


def test_every_reader_format_is_attacked(hostile_build: BuildResult) -> None:
    readers = {read.config.path: read.reader.name for read in hostile_build.sources}
    assert readers == {
        "session-2023.txt": "session-2023",
        "session-2024.txt": "session-2024",
        "markdown-list.txt": "markdown-list",
        "awards.txt": "awards",
        "paper-listing.txt": "paper-listing",
        "saved-page.html": "session-2024",
    }
    assert all(
        read.record_count == 2 or read.config.path == "session-2023.txt"
        for read in hostile_build.sources
    )
    assert len(hostile_build.papers) == 13


# --- the built pages ---------------------------------------------------------------------------


def csp_of(tree: lxml.html.HtmlElement) -> str:
    policy = tree.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")
    return policy[0] if policy else ""


def test_no_page_carries_active_content(hostile_build: BuildResult) -> None:
    """Parsed, every page holds only the site's own scripts, no event handler or inline style,
    no embedding element and no link with a scheme other than http(s) or mailto."""
    site = hostile_build.out_dir
    pages = site_pages(site)
    # 68 pages, plus a page per letter of the author index after A's (B, E, O, S and #)
    assert len(pages) == 73
    found: list[str] = []
    for name, text in pages.items():
        tree = lxml.html.document_fromstring(text)
        for element in tree.iter():
            if not isinstance(element.tag, str):
                continue  # comments and processing instructions
            tag = element.tag.lower()
            where = f"{name}: <{tag}>"
            if tag in ACTIVE_ELEMENTS:
                found.append(f"{where} element")
            if tag == "script":
                if element.get("type") == "application/ld+json":
                    json.loads(element.text)
                elif element.text and name == "404.html":
                    # the one inline script: it finds the site root, allowed by its hash alone
                    digest = hashlib.sha256(element.text.encode()).digest()
                    allowed = f"'sha256-{base64.b64encode(digest).decode()}'"
                    if allowed not in csp_of(tree):
                        found.append(f"{where} inline script not allowed by its hash")
                elif element.text or not re.fullmatch(
                    r"(\.\./)*assets/[a-z-]+\.js", element.get("src", "")
                ):
                    found.append(f"{where} {element.get('src')!r} {element.text!r}")
            if tag == "meta" and element.get("http-equiv") not in (None, "Content-Security-Policy"):
                found.append(f"{where} http-equiv={element.get('http-equiv')!r}")
            if tag == "form" and (element.get("role") != "search" or scheme(element.get("action"))):
                found.append(f"{where} action={element.get('action')!r}")
            for attribute, value in element.attrib.items():
                lowered = attribute.lower()
                if lowered.startswith("on") or lowered == "style":
                    found.append(f"{where} {attribute}={value!r}")
                if (
                    lowered in URL_ATTRIBUTES
                    and scheme(value) not in (None, *SAFE_SCHEMES)
                    and not is_ris_download(element, value)
                ):
                    found.append(f"{where} {attribute}={value!r}")
    assert found == []


def is_ris_download(element, href: str) -> bool:  # noqa: ANN001
    """A paper's RIS record: a `data:` link of RIS text in base64, that the
    browser saves (`download`) and never opens."""
    prefix = "data:application/x-research-info-systems;charset=utf-8;base64,"
    return (
        element.tag == "a"
        and element.get("download", "").endswith(".ris")
        and href.startswith(prefix)
        and re.fullmatch(r"[A-Za-z0-9+/]*=*", href[len(prefix) :]) is not None
    )


def test_every_page_is_well_formed(hostile_build: BuildResult) -> None:
    problems = {
        name: html_problems(text) for name, text in site_pages(hostile_build.out_dir).items()
    }
    assert {name: found for name, found in problems.items() if found} == {}


def test_payloads_show_as_the_text_they_are(hostile_build: BuildResult) -> None:
    """Escaped, not deleted: a reader sees exactly what the dump said."""
    site = hostile_build.out_dir
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    checked = 0
    for paper in papers:
        tree = lxml.html.document_fromstring(
            (site / paper["url"] / "index.html").read_text(encoding="utf-8")
        )
        heading = tree.get_element_by_id("main").find(".//h1").text_content()
        if paper["title"] and "$" not in paper["title"]:
            assert heading == paper["title"]
            checked += 1
        names = [a.text_content() for a in tree.find_class("authors")[0].iter("a")]
        assert names == paper["authors"]
    assert checked == 12
    home = lxml.html.document_fromstring((site / "index.html").read_text(encoding="utf-8"))
    title = home.find(".//title").text_content()
    assert title == (
        "<script>window.__pwned=1;document.title='PWNED';alert(1)</script> "
        "Hostile \"Proceedings' </title><img src=x onerror=alert(1)>"
    )
    assert "{{ 7*7 }} CONF 2024" in home.text_content()  # no template evaluation


def test_html_inside_tex_stays_text(hostile_build: BuildResult) -> None:
    page = hostile_build.out_dir / "papers" / "html-inside-tex-formulas" / "index.html"
    tree = lxml.html.document_fromstring(page.read_text(encoding="utf-8"))
    abstract = tree.find_class("abstract-full")[0]
    assert len(abstract.findall(".//math")) >= 3  # the formulas did convert
    strong = abstract.find(".//strong")  # \textbf{<img onerror=...>}
    assert strong.text_content().startswith("<img src=x onerror=") and len(strong) == 0
    assert "$\\href{javascript:" in abstract.text_content()  # refused: shown as its source
    assert not [
        e
        for e in abstract.iter()
        if isinstance(e.tag, str)
        and e.tag not in ("section", "h2", "p", "math", "strong", "em", "span")
        and not e.tag.startswith("m")
    ]


def test_json_ld_cannot_close_its_script(hostile_build: BuildResult) -> None:
    for path in (hostile_build.out_dir / "papers").glob("*/index.html"):
        text = path.read_text(encoding="utf-8")
        block = text.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0]
        data = json.loads(block)
        assert "<" not in block and data["@type"] == "ScholarlyArticle"


def test_content_pages_lose_dangerous_markup_and_keep_safe_links(
    hostile_build: BuildResult,
) -> None:
    text = (hostile_build.out_dir / "about" / "index.html").read_text(encoding="utf-8")
    body = lxml.html.document_fromstring(text).get_element_by_id("main")
    links = [a.get("href") for a in body.iter("a")]
    assert links == [None] * 5 + ["https://example.org/", None]  # the last: raw <a href=js>
    assert [img.get("src") for img in body.iter("img")] == [None, None, "../assets/favicon.svg"]
    assert "About <script>" in body.find(".//h1").text_content()
    assert "<script>window.__pwned=1;alert(1)</script> in a code block" in body.text_content()
    crlf = (hostile_build.out_dir / "crlf-page" / "index.html").read_text(encoding="utf-8")
    assert "<h1>Line endings</h1>" in crlf and "\r" not in crlf and "\ufeff" not in crlf


def test_invisible_and_right_to_left_characters(hostile_build: BuildResult) -> None:
    """Zero-width and direction-override characters are dropped (they can disguise text);
    right-to-left scripts themselves are kept."""
    site = hostile_build.out_dir
    for name, text in site_pages(site).items():
        assert not [ch for ch in INVISIBLE if ch in text], name
    assert "\r" not in (site / "papers.json").read_text(encoding="utf-8")
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    rtl = next(p for p in papers if p["id"].startswith("zerowidth-"))
    assert rtl["title"].startswith("ZeroWidth RTL Override Isolate Title <img")
    assert rtl["authors"] == [
        "Dana Author",
        "\u05d3\u05e0\u05d4 \u05db\u05d4\u05df",
        "\u0645\u0631\u064a\u0645 \u0639\u0644\u064a",
    ]
    assert "\u05e9\u05dc\u05d5\u05dd" in rtl["abstract"] and "softhyphen" in rtl["abstract"]


# --- paths ---------------------------------------------------------------------------------


def test_traversal_and_reserved_names_become_safe_slugs(hostile_build: BuildResult) -> None:
    site = hostile_build.out_dir
    top = sorted(p.name for p in site.iterdir())
    assert top == [
        "404.html",
        "about",
        "assets",
        "authors",
        "collections",
        "crlf-page",
        "index.html",
        "papers",
        "papers.bib",
        "papers.csv",
        "papers.json",
        "papers.ris",
        "search",
        "sessions",
    ]
    for path in site.rglob("*"):
        assert not path.is_symlink()
        parts = path.relative_to(site).parts
        assert all(SLUG.match(part) for part in parts[:-1] if part != "assets"), parts
    conf = "img-src-x-onerror-window-pwned-1-alert-1-conf-2023"
    sessions = {p.name for p in (site / "sessions").iterdir()}
    # ../../x, /etc/passwd and reserved names, each inside sessions/ under its collection
    for name in (
        "x",
        "etc-passwd",
        "con-adfdeb",
        "con-c86063",
        "nul",
        "index-html",
        "assets",
        "search",
        "404",
        "papers",
        "authors",
    ):
        assert f"{conf}-{name}" in sessions
    assert {
        "hostile-2021-etc-passwd",
        "hostile-2022-assets",
        "hostile-2025-index-html",
        "other-papers-search",
    } <= sessions
    # "." and ".." slug to nothing and share the collection's slug: each gets a hash suffix
    assert len([s for s in sessions if re.fullmatch(f"{conf}-[0-9a-f]{{6}}", s)]) == 2
    assert "etc-passwd" in {p.name for p in (site / "authors").iterdir()}
    labels = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    tex = next(p for p in labels if p["id"] == "html-inside-tex-formulas")
    assert tex["sessions"][:4] == ["../../x", "/etc/passwd", "..", "."]


def test_a_cli_build_writes_nothing_outside_its_output_and_passes_check(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(HOSTILE, project)
    before = files_under(tmp_path)
    result = run_cli("build", "--config", "site.yaml", "--out", "../out/site", cwd=project)
    assert result.returncode == 0, result.stderr
    wait_for_spare(project)  # linked up in the background: not to be listed half made
    after = files_under(tmp_path)
    written = ("out/site/", "project/.confsite-cache/")  # the site, and the build's own cache
    assert {k: v for k, v in after.items() if not k.startswith(written)} == before
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["site"]
    check = run_cli("check", str(tmp_path / "out" / "site"), cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert check.stdout.strip().endswith(": ok")


# --- large input ---------------------------------------------------------------------------


def test_a_megabyte_abstract_and_five_thousand_authors(tmp_path: Path) -> None:
    """Generated here rather than committed: one paper with a 1 MB abstract full of payloads,
    one with 5,000 authors (some hostile), in a 2023-style session dump."""
    project = tmp_path / "project"
    shutil.copytree(HOSTILE, project)
    sentence = f"Long abstract words {SCRIPT} and $x^2$ and [x](javascript:alert(1)) go on. "
    abstract = (sentence * (1_048_576 // len(sentence) + 1))[:1_048_576]
    authors = [f"Author{n:04d} Surname" for n in range(4990)]
    authors += [f"Evil{n} <img src=x onerror=alert({n})>" for n in range(10)]
    dump = "\n".join(
        [
            "Poster Session 9",
            "",
            "In-Person Poster presentation / poster accept",
            "A Paper With A Huge Abstract",
            "",
            "Solo Author · Second Author",
            "",
            abstract,
            "",
            "In-Person Poster presentation / poster accept",
            "A Paper With Five Thousand Authors",
            "",
            " · ".join(authors),
            "",
            "We list very many authors on this paper so that the author line is long and the "
            "index of authors must hold all of them, which is a fine test of both.",
            "",
        ]
    )
    (project / "big.txt").write_text(dump, encoding="utf-8")
    config = (project / "site.yaml").read_text(encoding="utf-8")
    (project / "site.yaml").write_text(
        config + "  - path: big.txt\n    conference: BIG\n    year: 2020\n", encoding="utf-8"
    )
    out = tmp_path / "site"
    result = build(BuildOptions(project / "site.yaml", out), Diagnostics())
    papers = {p.title: p for p in result.papers}
    huge = papers["A Paper With A Huge Abstract"]
    many = papers["A Paper With Five Thousand Authors"]
    assert len(huge.abstract) == len(abstract.strip())
    assert len(many.authors) == 5000
    page = (out / "papers" / "a-paper-with-a-huge-abstract" / "index.html").read_text("utf-8")
    assert page.count("&lt;script&gt;window.__pwned") >= 10_000 and SCRIPT not in page
    assert html_problems(page) == []
    authors_page = out / "papers" / "a-paper-with-five-thousand-authors" / "index.html"
    text = authors_page.read_text(encoding="utf-8")
    assert html_problems(text) == []
    tree = lxml.html.document_fromstring(text)
    assert len(list(tree.find_class("authors")[0].iter("li"))) == 5000
    assert not tree.xpath("//img[@onerror]")
    assert len(list((out / "authors").iterdir())) > 5000
    # Each author's page lists the paper with 50 names and a link for the rest, rather than
    # all 5,000 (which made the build quadratic: 2 GB of author pages).
    author_page = (out / "authors" / "author4321-surname" / "index.html").read_text("utf-8")
    card = lxml.html.document_fromstring(author_page).find_class("authors")[0]
    assert [a.text_content() for a in card.iter("a")][-2:] == ["Author0049 Surname", "4,950 more"]
    assert sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) < 200_000_000
    description = tree.xpath("//meta[@name='description']/@content")[0]
    assert len(description) <= 301


# --- input that must be refused ------------------------------------------------------------

CORRUPTIONS = {
    "nul": (b"\x00", "NUL byte"),
    "invalid-utf8": (b"\xff", "not valid UTF-8 (byte 0xff at offset"),
}
# Every file the build reads; each is broken at its third line.
READ_FILES = [
    "session-2023.txt",
    "session-2024.txt",
    "markdown-list.txt",
    "awards.txt",
    "paper-listing.txt",
    "saved-page.html",
    "site.yaml",
    "overrides.yaml",
    "content/about.md",
]


def break_third_line(data: bytes, insert: bytes) -> bytes:
    starts = [m.end() for m in re.finditer(rb"\r\n|\r|\n", data)]
    at = starts[1]  # the start of line 3
    return data[:at] + insert + data[at:]


def assert_refused(result: subprocess.CompletedProcess[str], where: str, words: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith(f"error: {where}"), result.stderr
    assert words in errors[0]


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
@pytest.mark.parametrize("name", READ_FILES)
def test_undecodable_input_is_refused_with_its_line(
    tmp_path: Path, name: str, corruption: str
) -> None:
    project = tmp_path / "project"
    shutil.copytree(HOSTILE, project)
    insert, words = CORRUPTIONS[corruption]
    (project / name).write_bytes(break_third_line((project / name).read_bytes(), insert))
    result = run_cli("build", "--config", "site.yaml", "--out", "site", "-q", cwd=project)
    words = "binary file (NUL byte)" if corruption == "nul" and "yaml" not in name else words
    assert_refused(result, f"{name}:3:", words)
    assert not (project / "site").exists()


BAD_ENCODINGS = [
    pytest.param("Title\n\u00e9t\u00e9\n".encode("latin-1"), 2, id="latin-1"),
    pytest.param("T\n".encode("utf-16"), 1, id="utf-16"),
    pytest.param(b"Title\nover\xc0\xaflong\n", 2, id="overlong"),
    pytest.param(b"Title\nsurrogate \xed\xa0\x80 half\n", 2, id="surrogate"),
    pytest.param(b"Title\nline\ncut \xe2\x82", 3, id="truncated-at-end"),
]


@pytest.mark.parametrize(("data", "line"), BAD_ENCODINGS)
def test_other_broken_encodings_are_refused(tmp_path: Path, data: bytes, line: int) -> None:
    project = tmp_path / "project"
    shutil.copytree(HOSTILE, project)
    (project / "awards.txt").write_bytes(data)
    result = run_cli("build", "--config", "site.yaml", "--out", "site", cwd=project)
    words = "binary file" if b"\x00" in data else "not valid UTF-8"
    assert_refused(result, f"awards.txt:{line}:", words)
    assert not (project / "site").exists()


def test_a_control_character_in_yaml_is_refused_with_its_line(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(HOSTILE, project)
    config = (project / "site.yaml").read_text(encoding="utf-8").split("\n")
    config[3] = config[3].replace("session-2023.txt", "session\x07-2023.txt")
    (project / "site.yaml").write_text("\n".join(config), encoding="utf-8")
    result = run_cli("build", "--config", "site.yaml", "--out", "site", cwd=project)
    assert_refused(result, "site.yaml:4:", "control character U+0007")
    assert not (project / "site").exists()
