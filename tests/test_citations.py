"""Citations that compile (issue 18): BibTeX read back by a real BibTeX parser (bibtexparser 2)
and decoded by a LaTeX parser (pylatexenc) give back every field; RIS records are well formed.
Expected values come from papers.json and from hand-written cases, not from the citation code."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import bibtexparser
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pylatexenc.latex2text import LatexNodes2Text

from confsite.diagnostics import SourceLoc
from confsite.model.cite_keys import cite_keys
from confsite.model.records import Link, Paper
from confsite.pipeline import BuildResult
from confsite.render.citation import Citation, bibtex_entry, latex_value, ris_record

ICLR = "International Conference on Learning Representations"
KEY = re.compile(r"^[a-z]+(?:\d{4})?[a-z0-9]+$")
DECODE = LatexNodes2Text(math_mode="verbatim")


def paper(**fields) -> Paper:
    base = Paper(
        id="x", title="A title", authors=("Zheng Ding",), affiliations=(), abstract=None,
        links=(), keywords=(), presentation=None, decision=None, attendance=None, awards=(),
        sessions=(), session_order=(), session_rooms=(), room=None, conference="ICLR",
        year=2024,
        sources=(SourceLoc("seeds/x.txt", 1),),
    )
    return replace(base, **fields)


@pytest.fixture(scope="module")
def site(seeds_build: BuildResult) -> Path:
    return seeds_build.out_dir


@pytest.fixture(scope="module")
def library(site: Path) -> bibtexparser.Library:
    return bibtexparser.parse_string((site / "papers.bib").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def papers(site: Path) -> list[dict]:
    return json.loads((site / "papers.json").read_text(encoding="utf-8"))


def split_authors(value: str) -> list[str]:
    """BibTeX's rule: " and " at brace depth 0 separates names."""
    names, depth, start = [], 0, 0
    for index, char in enumerate(value):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and value.startswith(" and ", index):
            names.append(value[start:index])
            start = index + 5
    return [*names, value[start:]]


def unique(names: list[str]) -> list[str]:
    seen: set[str] = set()
    return [n for n in names if not (n.casefold() in seen or seen.add(n.casefold()))]


def test_the_seeds_bibtex_parses_whole_with_unique_short_keys(library, papers) -> None:
    assert not library.failed_blocks
    keys = [entry.key for entry in library.entries]
    assert len(keys) == len(papers) == len(set(keys))
    assert all(KEY.match(key) and len(key) <= 40 for key in keys), keys
    by_title = {e["title"]: e.key for e in library.entries if "title" in e.fields_dict}
    assert by_title["Patched Denoising Diffusion Models For High-Resolution Image Synthesis"] == (
        "ding2024patched"
    )


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_every_field_of_the_seeds_bibtex_round_trips(library, papers) -> None:
    by_id = {p["id"]: p for p in papers}
    # the entries are in papers.json's order
    for entry, record in zip(library.entries, papers, strict=True):
        fields = entry.fields_dict
        assert record["id"] == by_id[record["id"]]["id"]
        title = record["title"] or ""
        if title and not re.search(r"[$\\{}~^]", title):  # titles with no TeX: exactly back
            expected = " ".join(title.split()).replace("---", "\u2014").replace("--", "\u2013")
            assert DECODE.latex_to_text(fields["title"].value) == expected  # TeX's ligatures
        authors = split_authors(fields["author"].value) if "author" in fields else []
        assert len(authors) == len(unique(record["authors"]))
        for written, name in zip(authors, unique(record["authors"]), strict=True):
            if not re.search(r"[\\{}$]", name):
                assert DECODE.latex_to_text(written).strip("{}") == " ".join(name.split())
        if record["year"]:
            assert fields["year"].value == str(record["year"])
        if record["conference"] == "ICLR":
            venue = DECODE.latex_to_text(fields["booktitle"].value)
            assert venue == f"{ICLR} (ICLR {record['year']})"
        for field in entry.fields:
            value = field.value
            assert value.count("{") == value.count("}"), (entry.key, field.key)
            prose = re.sub(r"(?<!\\)\$[^$]*(?<!\\)\$", "", value)  # math may hold & and _
            if field.key != "url":
                assert not re.search(r"(?<!\\)[&%#]", prose), (entry.key, field.key, value)


@pytest.mark.parametrize(
    ("text", "latex"),
    [
        ("Anchor & Transform", "Anchor \\& Transform"),
        ("#InsTag: Tagging", "\\#{InsTag}: Tagging"),
        ("50% of the time", "50\\% of the time"),
        ("a_b and $x_i$ costs $5", "a\\_b and $x_i$ costs \\$5"),
        ("Already \\& escaped", "Already \\& escaped"),
        ("Scaling GNNs with ResNet and BERT", "Scaling {GNNs} with {ResNet} and {BERT}"),
        ("Patch-DM: High-Resolution", "Patch-{DM}: High-Resolution"),
        ("Model A beats 3D", "Model {A} beats {3D}"),
        ("unbalanced { brace", "unbalanced ( brace"),
        ("closed } before { opened", "closed ) before ( opened"),  # as many, in the wrong order
        ("{nested {braces}} kept", "{nested {braces}} kept"),
        ("{a}} {b", "(a)) (b"),
        ("a ~ b ^ c", "a \\textasciitilde{} b \\^{} c"),
    ],
)
def test_latex_escaping_and_protection(text: str, latex: str) -> None:
    assert latex_value(text, protect=True) == latex


def test_deeply_nested_braces_are_judged_whole() -> None:
    nested = "{" * 20_000 + "x" + "}" * 20_000
    assert latex_value(nested) == nested
    assert latex_value(nested + "}") == "(" * 20_000 + "x" + ")" * 20_001
    assert latex_value("}" + nested + "{") == ")" + "(" * 20_000 + "x" + ")" * 20_000 + "("


def test_an_author_listed_twice_is_cited_once() -> None:
    entry = bibtex_entry(
        paper(authors=("Zheng Ding", "Mengqi Zhang", "Zheng Ding")), Citation("k", None, ICLR)
    )
    assert "author = {Zheng Ding and Mengqi Zhang}," in entry
    assert f"booktitle = {{{ICLR} ({{ICLR}} 2024)}}," in entry


def test_cite_keys_are_short_unique_and_take_more_words_when_they_collide() -> None:
    papers = [
        paper(id="a", title="Patched Denoising Diffusion Models"),
        paper(id="b", title="On the Patched Attention", authors=("Yi Ding",)),
        paper(id="c", title="Patched Attention", authors=("Bo Ding",)),
        paper(id="d", title="Patched Attention", authors=("Bo Ding",)),
        paper(id="e", title=None, authors=(), year=None),
        paper(id="f", title="4-bit Shampoo", authors=("Sike Wang",)),
    ]
    assert cite_keys(papers) == {
        "a": "ding2024patcheddenoising",
        "b": "ding2024patchedattention",
        "c": "ding2024patchedattentionb",
        "d": "ding2024patchedattentionc",
        "e": "anonuntitled",
        "f": "wang20244bit",
    }


def test_ris_record() -> None:
    record = ris_record(
        paper(
            title="Patched $\\times$ Models",
            authors=("Zheng Ding", "Hado van Hasselt", "Zheng Ding"),
            abstract="First line.\n\nSecond & last.",
        ),
        Citation("ding2024patched", "https://e.org/papers/x/", ICLR),
    )
    assert record == (
        "TY  - CONF\n"
        "ID  - ding2024patched\n"
        "TI  - Patched × Models\n"
        "AU  - Ding, Zheng\n"
        "AU  - van Hasselt, Hado\n"
        "PY  - 2024\n"
        "DA  - 2024///\n"
        f"T2  - {ICLR} (ICLR 2024)\n"
        f"C3  - {ICLR} (ICLR 2024)\n"
        "UR  - https://e.org/papers/x/\n"
        "AB  - First line. Second & last.\n"
        "ER  - \n"
    )


def test_the_seeds_ris_has_a_record_per_paper(site: Path, papers) -> None:
    text = (site / "papers.ris").read_text(encoding="utf-8")
    records = [r for r in text.split("ER  - \n") if r.strip()]
    assert len(records) == len(papers)
    for record in records:
        lines = record.strip("\n").split("\n")
        assert lines[0] in ("TY  - CONF", "TY  - GEN")
        assert all(re.match(r"^[A-Z][A-Z0-9]  - \S", line) for line in lines), lines


# Text with what a value must not carry onto a RIS line: line breaks, runs of spaces, TeX.
RIS_TEXT = st.text(alphabet=st.sampled_from("ab \n\r\t\u00a0\u2028$\\{}^_-~`'%[]()é"), max_size=30)


@settings(max_examples=300, deadline=None)
@given(
    RIS_TEXT,
    RIS_TEXT,
    st.lists(RIS_TEXT, max_size=2),
    st.lists(RIS_TEXT, max_size=2),
    st.lists(RIS_TEXT, max_size=2),
)
def test_every_ris_value_stays_on_its_line(title, abstract, authors, keywords, links) -> None:
    record = ris_record(
        paper(
            title=title,
            abstract=abstract,
            authors=tuple(authors),
            keywords=tuple(keywords),
            links=tuple(Link("Paper page", f"https://e.org/{url}") for url in links),
        ),
        Citation("k2024x", " https://e.org/papers/x/ ", " Proc.\n of  X "),
    )
    lines = record.split("\n")
    assert lines[-2:] == ["ER  - ", ""]
    for line in lines[:-2]:
        tag, value = line[:6], line[6:]
        assert re.fullmatch(r"[A-Z][A-Z0-9]  - ", tag), line
        assert value and value == " ".join(value.split()), line
    # Every keyword and link with any text keeps its line.
    tags = [line[:2] for line in lines[:-2]]
    assert tags.count("KW") == sum(1 for keyword in keywords if keyword.split())
    assert tags.count("L2") == len(links)
