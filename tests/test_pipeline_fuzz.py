"""Property tests through the whole pipeline: generated dumps in every format, built to a site.

Each example is a small project: one to three dumps (2023 and 2024 session pages, the Markdown
list, an awards page, a paper listing, a saved HTML page), each holding papers with Unicode
titles, authors and abstracts, with gaps (no authors, no abstract), exact repeats, page chrome
and junk paragraphs where the formats allow them. The build must succeed, every generated paper
must be in papers.json exactly once with its title, authors and abstract, have a page whose
<h1> and <title> show its title, and every page must be well-formed HTML.

CONFSITE_FUZZ_EXAMPLES=2000 pytest tests/test_pipeline_fuzz.py runs a longer search locally.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import lxml.html
from conftest import html_problems
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, build

EXAMPLES = int(os.environ.get("CONFSITE_FUZZ_EXAMPLES", "100"))
fuzz = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SITE_TITLE = "Fuzz <Proceedings> & Co"

# Letters of any script (no digits: a title's only digits are its number, which keeps every
# title distinct once case, accents and punctuation are set aside).
LETTERS = st.characters(categories=["Lu", "Ll", "Lo"], exclude_characters="ºª")
WORD = st.text(LETTERS, min_size=1, max_size=9)
PLAIN_WORDS = st.sampled_from(
    "learning graph neural robust sparse attention kernel Bayesian über naïve café résumé "
    '深度 学习 données réseau Ωmega λ-calculus co-training &amp; <b> A&B "quoted" '
    "it's <script>alert(1)</script> a<b per%cent ok? yes! colon: semi; plus+ eq=".split()
)
NAME = st.builds(
    lambda first, last: unicodedata.normalize("NFC", f"{first.capitalize()} {last.capitalize()}"),
    st.one_of(WORD, st.sampled_from(["Ann", "Émile", "Łukasz", "王", "Ōta", "José"])),
    st.one_of(WORD, st.sampled_from(["Smith", "Zola", "Müller", "小明", "O'Neil", "Nguyễn"])),
)
AUTHORS = st.one_of(st.just(()), st.lists(NAME, min_size=2, max_size=6).map(tuple))
ABSTRACT_WORDS = st.lists(st.one_of(WORD, PLAIN_WORDS), min_size=32, max_size=60)
# Lines a scraped page carries that are no paper's field: chrome, and junk prose that can only
# lengthen the abstract it follows (long, no author separator, no list or heading marker).
JUNK_PROSE = st.builds(
    lambda words, mess: "Junk " + " ".join(words) + mess + " " + "padding words " * 15,
    st.lists(st.one_of(WORD, PLAIN_WORDS), min_size=5, max_size=20),
    st.sampled_from(["", "\u200b\u200b", " \u202eRTL\u202c ", " $x$ ", " $ unbalanced", "\t"]),
)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@dataclass(frozen=True)
class PaperSpec:
    number: int
    title_words: tuple[str, ...]
    authors: tuple[str, ...]
    abstract_words: tuple[str, ...] | None

    @property
    def title(self) -> str:
        # A letter starts the title so no reader takes it for a list item or a marker line.
        return nfc(" ".join(("Paper", *self.title_words, f"N{self.number}")))

    @property
    def abstract(self) -> str | None:
        if self.abstract_words is None:
            return None
        # The number comes first: papers are told apart by the start of their abstracts.
        text = " ".join(("We", f"N{self.number}", *self.abstract_words, "ends here."))
        return nfc(text)


@st.composite
def paper_specs(draw: st.DrawFn, first_number: int, count: int) -> list[PaperSpec]:
    specs = []
    for number in range(first_number, first_number + count):
        specs.append(
            PaperSpec(
                number,
                tuple(draw(st.lists(st.one_of(WORD, PLAIN_WORDS), max_size=4))),
                draw(AUTHORS),
                tuple(draw(ABSTRACT_WORDS)) if draw(st.booleans()) else None,
            )
        )
    return specs


# --- one writer per format: the dump text for a list of papers ---------------------------------


def program_fields(spec: PaperSpec, extra: str) -> list[str]:
    """A session page's author line and abstract (then any junk), each followed by a blank."""
    lines = [" · ".join(spec.authors), ""] if spec.authors else []
    if spec.abstract:
        lines += [spec.abstract, ""] + ([extra, ""] if extra else [])
    return lines


def session_2023(specs: list[PaperSpec], junk: list[str]) -> str:
    lines = ["Poster Session 3", ""]
    for spec, extra in zip(specs, junk, strict=True):
        lines += ["In-Person Poster presentation / poster accept", spec.title, ""]
        lines += program_fields(spec, extra)
    return "\n".join(lines)


def session_2024(specs: list[PaperSpec], junk: list[str]) -> str:
    lines = ["Skip to yearly menu bar Skip to main content", "", "Poster Session 3", "Halle B"]
    lines += ["Chat is not available.", ""]
    previous_has_fields = True
    for index, (spec, extra) in enumerate(zip(specs, junk, strict=True)):
        # The badge is optional, but after a title-only paper the next title could read as its
        # author: a real page has the badge there, so the generator does too.
        if not previous_has_fields or index % 2:
            lines.append("Spotlight Poster")
        lines += [spec.title, ""]
        lines += program_fields(spec, extra)
        previous_has_fields = bool(spec.authors or spec.abstract)
    return "\n".join(lines)


def markdown_list(specs: list[PaperSpec], junk: list[str]) -> str:
    lines = ["Accepted papers of a conference, as a Markdown list.", ""]
    for index, (spec, extra) in enumerate(zip(specs, junk, strict=True)):
        lines += [f"## [{spec.title}](#)" if index % 2 else f"## {spec.title}", ""]
        if spec.authors:
            lines.append("- " + ", ".join(spec.authors))
        if spec.abstract:
            lines.append(f"- abstract@[open-review\\(Poster\\)](#): {spec.abstract}")
            if extra:
                lines += ["", extra]
        lines.append("")
    return "\n".join(lines)


def awards(specs: list[PaperSpec], junk: list[str]) -> str:
    """Awards pages state no titles: each paper is known by its authors and abstract."""
    lines = ["Skip to yearly menu bar Skip to main content", "", ""]
    for spec, extra in zip(specs, junk, strict=True):
        lines += ["Outstanding Paper", " · ".join(spec.authors)]
        if spec.abstract:
            lines.append(spec.abstract)
            if extra:
                lines.append(extra)
        lines.append("")
    return "\n".join(lines)


def paper_listing(specs: list[PaperSpec], junk: list[str]) -> str:
    lines = ["Get trending papers in your email inbox!", "Subscribe"]
    for spec, extra in zip(specs, junk, strict=True):
        lines.append(spec.title)
        if spec.abstract:
            lines.append(spec.abstract)
            if extra:
                lines.append(extra)
    return "\n".join(lines)


def saved_page(specs: list[PaperSpec], junk: list[str]) -> str:
    """A 2024 session page as a browser saves it, with markup the flattener must ignore."""
    blocks = session_2024(specs, junk).split("\n\n")
    body = []
    for block in blocks:
        for line in block.split("\n"):
            if line:
                body.append(
                    f'<div class="x" data-a="{html.escape(line[:5])}">'
                    f"<span>{html.escape(line)}</span></div>"
                )
        body.append("<p></p><!-- a comment --><script>var x = '<div>no</div>';</script>")
    return (
        "<!DOCTYPE html>\n<html><head><title>Saved</title><style>p{}</style></head>\n"
        "<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


WRITERS = {
    "session-2023": ("txt", "session-2023", session_2023),
    "session-2024": ("txt", "session-2024", session_2024),
    "markdown-list": ("md", "markdown-list", markdown_list),
    "awards": ("txt", "awards", awards),
    "paper-listing": ("txt", "paper-listing", paper_listing),
    "html": ("html", "session-2024", saved_page),
}


@dataclass(frozen=True)
class Dump:
    kind: str
    specs: tuple[PaperSpec, ...]  # each paper once
    order: tuple[int, ...]  # indexes into specs: the dump's papers, repeats included
    junk: tuple[str, ...]  # per paper: a junk paragraph after its abstract, or ""
    line_end: str

    def text(self) -> str:
        written = [self.specs[i] for i in self.order]
        text = WRITERS[self.kind][2](written, [self.junk[i] for i in self.order])
        return text.replace("\n", self.line_end)


@st.composite
def dumps(draw: st.DrawFn, first_number: int) -> Dump:
    kind = draw(st.sampled_from(sorted(WRITERS)))
    specs = draw(paper_specs(first_number, draw(st.integers(1, 4))))
    if kind == "awards":  # untitled: only its authors and abstract tell a paper apart
        specs = [
            PaperSpec(
                s.number,
                s.title_words,
                s.authors or ("Ann Smith", "Bo Li"),
                s.abstract_words or ("awarded",) * 30,
            )
            for s in specs
        ]
    if kind == "paper-listing":  # a listing has no authors
        specs = [PaperSpec(s.number, s.title_words, (), s.abstract_words) for s in specs]
    order = list(range(len(specs)))
    repeats = draw(st.lists(st.sampled_from(order), max_size=2))
    for index in repeats:  # an exact repeat right after the paper, as scrapes duplicate
        order.insert(order.index(index) + 1, index)
    # Junk belongs to a paper, so an exact repeat repeats it too.
    junk = draw(
        st.lists(st.one_of(st.just(""), JUNK_PROSE), min_size=len(specs), max_size=len(specs))
    )
    line_end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return Dump(kind, tuple(specs), tuple(order), tuple(junk), line_end)


@st.composite
def projects(draw: st.DrawFn) -> list[Dump]:
    result = []
    for index in range(draw(st.integers(1, 3))):
        result.append(draw(dumps(first_number=index * 10)))
    return result


def write_project(folder: Path, project: list[Dump]) -> None:
    sources = []
    for index, dump in enumerate(project):
        extension, reader, _ = WRITERS[dump.kind]
        name = f"dump{index}.{extension}"
        data = dump.text().encode("utf-8")
        if index == 0:
            data = b"\xef\xbb\xbf" + data  # a byte-order mark, as some editors save
        (folder / name).write_bytes(data)
        sources.append(
            f"  - path: {name}\n    format: {reader}\n    conference: FUZZ\n"
            f"    year: {2020 + index}\n"
        )
    config = f"title: {json.dumps(SITE_TITLE)}\nsources:\n" + "".join(sources)
    (folder / "site.yaml").write_text(config, encoding="utf-8")


@fuzz
@given(projects())
def test_generated_dumps_build_to_a_complete_well_formed_site(project: list[Dump]) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        write_project(folder, project)
        build(BuildOptions(folder / "site.yaml", folder / "site"), Diagnostics())
        site = folder / "site"
        papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
        expected = [spec for dump in project for spec in dump.specs]
        assert len(papers) == len(expected)
        for dump in project:
            for spec in dump.specs:
                check_paper(site, papers, spec, titled=dump.kind != "awards")
        for page in sorted(site.rglob("*.html")):
            text = page.read_text(encoding="utf-8")
            assert html_problems(text) == [], page.relative_to(site)
            lxml.html.document_fromstring(text)


def check_paper(site: Path, papers: list[dict], spec: PaperSpec, titled: bool) -> None:
    if titled:
        matches = [paper for paper in papers if paper["title"] == spec.title]
    else:
        matches = [
            paper
            for paper in papers
            if paper["title"] is None
            and paper["authors"] == list(spec.authors)
            and (paper["abstract"] or "").startswith(spec.abstract or "")
        ]
    assert len(matches) == 1, (spec.title, [p["title"] for p in papers])
    paper = matches[0]
    assert paper["authors"] == list(spec.authors)
    if spec.abstract is None:
        assert paper["abstract"] is None
    else:
        assert paper["abstract"].startswith(spec.abstract)
    tree = lxml.html.document_fromstring(
        (site / paper["url"] / "index.html").read_text(encoding="utf-8")
    )
    heading = tree.find(".//main//h1").text_content()
    page_title = tree.find(".//title").text_content()
    if titled:
        assert heading == spec.title and page_title == f"{spec.title} · {SITE_TITLE}"
    else:
        # A marked stand-in, never a title: the abstract's opening words (or the plain
        # wording without an abstract), the note, and the first author.
        first_author = f" · {spec.authors[0]}" if spec.authors else ""
        assert heading.endswith(f"(title not in the program{first_author})")
        opening = f"We N{spec.number} " if spec.abstract else "Untitled paper ("
        assert heading.startswith(opening)
        assert page_title.startswith("Untitled paper") and page_title.endswith(SITE_TITLE)
