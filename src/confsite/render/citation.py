"""Citations of papers: BibTeX entries that compile (paper pages, papers.bib) and RIS records
(papers.ris, each paper page) for Zotero, EndNote and Mendeley."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..model.cite_keys import NAMES_CACHED
from ..model.records import Paper
from ..model.site import Site
from ..model.urls import paper_url
from ..text.plain import math_spans, plain_text, single_spaced

# LaTeX's special characters in prose; an already escaped one stays as it is. The lookbehind
# follows the character, so the engine skips from one such character to the next.
SPECIAL = re.compile(r"([&%#_$])(?<!\\[&%#_$])")
TILDE_CARET = re.compile(r"([~^])(?<!\\[~^])")
# A word part BibTeX styles would lower-case wrongly: a capital after its first letter (GNNs,
# ResNet, BERT) or a lone capital ("Model A"). Hyphens and slashes split parts.
PROTECTED = re.compile(r"(?<![\w{\\])([A-Za-z0-9]*[A-Z][A-Za-z0-9]*)(?![\w}])")


@dataclass(frozen=True)
class Citation:
    """What a paper's citation takes from the site beyond the paper: its key, its URL and the
    full name of its proceedings."""

    key: str
    url: str | None
    proceedings: str | None


def citation_of(site: Site, paper: Paper) -> Citation:
    return Citation(
        site.cite_keys[paper.id],
        site.absolute(paper_url(paper.id)),
        site.proceedings(paper.conference),
    )


def _balanced(text: str) -> str:
    """Braces neutralised when unbalanced: BibTeX would read past the field's end."""
    if "{" not in text and "}" not in text:  # most text: spared the scan
        return text
    if _depth_never_negative_ends_at_zero(text):
        return text
    return text.replace("{", "(").replace("}", ")")


def _depth_never_negative_ends_at_zero(text: str) -> bool:
    """The braces' running depth, brace by brace, each found by `str.find` from the last:
    a pattern finding them scanned the whole text character by character (an abstract's
    formulas hold a few dozen braces in a few thousand characters)."""
    depth, opening, closing = 0, text.find("{"), text.find("}")
    while closing >= 0:
        if 0 <= opening < closing:
            depth += 1
            opening = text.find("{", opening + 1)
            continue
        depth -= 1
        if depth < 0:
            return False
        closing = text.find("}", closing + 1)
    return depth == 0 and opening < 0


def _tilde_or_caret(match: re.Match[str]) -> str:
    return "\\textasciitilde{}" if match.group() == "~" else "\\^{}"


def _prose(text: str, protect: bool) -> str:
    # Tests for the characters first: the patterns' lookbehinds make a scan that finds
    # nothing cost many times more (most abstracts hold none of them).
    if any(character in text for character in "&%#_$"):
        text = SPECIAL.sub(r"\\\1", text)
    if "~" in text or "^" in text:
        text = TILDE_CARET.sub(_tilde_or_caret, text)
    if protect:
        text = PROTECTED.sub(lambda m: _protect(m.group()), text)
    return text


def _protect(word: str) -> str:
    rest = word[1:]  # ASCII letters and digits: a capital changes in lower case
    needs = rest != rest.lower() or (len(word) == 1 and word.isupper())
    return "{" + word + "}" if needs else word


def latex_value(text: str, protect: bool = False) -> str:
    """Scraped text as a BibTeX field's LaTeX: math kept, special characters escaped outside
    it; `protect`: acronyms and inner capitals braced (titles)."""
    text = single_spaced(text)
    pieces, position = [], 0
    for span in math_spans(text):
        pieces.append(_prose(text[position : span.start], protect))
        pieces.append(f"${span.tex}$")
        position = span.end
    pieces.append(_prose(text[position:], protect))
    return _balanced("".join(pieces)).replace("@", "{@}")


def _unique(names: tuple[str, ...]) -> list[str]:
    seen: set[str] = set()
    unique = []
    for name in names:
        if name.casefold() not in seen:
            seen.add(name.casefold())
            unique.append(name)
    return unique


@functools.lru_cache(maxsize=NAMES_CACHED)  # most authors have several papers
def _bibtex_name(name: str) -> str:
    name = latex_value(name)
    # " and " or a comma inside a name would split it or reorder it: one braced name instead.
    return "{" + name + "}" if re.search(r"\sand\s|,", name) else name


def booktitle(paper: Paper, proceedings: str | None) -> str | None:
    """The full proceedings name with the short one ("... Representations (ICLR 2024)"), or
    the short one alone when the config gives no full name."""
    if not paper.conference:
        return None
    short = f"{paper.conference} {paper.year}" if paper.year else paper.conference
    return f"{proceedings} ({short})" if proceedings else short


@functools.lru_cache(maxsize=256)  # a program has a few venues, each of many papers
def _venue_value(venue: str) -> str:
    return latex_value(venue, protect=True)


def bibtex_entry(paper: Paper, citation: Citation, with_abstract: bool = True) -> str:
    fields: list[tuple[str, str]] = []
    if paper.title:
        fields.append(("title", latex_value(paper.title, protect=True)))
    if paper.authors:
        fields.append(("author", " and ".join(_bibtex_name(n) for n in _unique(paper.authors))))
    venue = booktitle(paper, citation.proceedings)
    if venue:
        fields.append(("booktitle", _venue_value(venue)))
    if paper.year:
        fields.append(("year", str(paper.year)))
    if citation.url:
        fields.append(("url", citation.url))
    if paper.abstract and with_abstract:
        fields.append(("abstract", latex_value(paper.abstract)))
    kind = "inproceedings" if paper.conference else "misc"
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{citation.key},\n{body}\n}}\n"


@functools.lru_cache(maxsize=NAMES_CACHED)
def _ris_name(name: str) -> str:
    """ "Family, Given": the family name is the last word, with the particles before it."""
    words = plain_text(name).split()
    if len(words) < 2:
        return " ".join(words)
    family = [words.pop()]
    while len(words) > 1 and words[-1].islower():  # "van", "de", "von der"
        family.insert(0, words.pop())
    return f"{' '.join(family)}, {' '.join(words)}"


def ris_record(paper: Paper, citation: Citation) -> str:
    """One RIS record: tagged lines, plain text, ended by `ER  -`."""
    lines = [("TY", "CONF" if paper.conference else "GEN"), ("ID", citation.key)]
    if paper.title:
        lines.append(("TI", plain_text(paper.title)))
    lines += [("AU", _ris_name(name)) for name in _unique(paper.authors)]
    if paper.year:
        lines += [("PY", str(paper.year)), ("DA", f"{paper.year}///")]
    venue = booktitle(paper, citation.proceedings)
    if venue:
        venue = single_spaced(venue)
        lines += [("T2", venue), ("C3", venue)]  # conference name; proceedings title
    if citation.url:
        lines.append(("UR", single_spaced(citation.url)))
    if paper.abstract:
        lines.append(("AB", plain_text(paper.abstract)))
    lines += [("KW", single_spaced(keyword)) for keyword in paper.keywords]
    lines += [("L2", single_spaced(link.url)) for link in paper.links]
    # Each value is on one line: plain text is single-spaced already, the rest made so above.
    return "".join(f"{tag}  - {value}\n" for tag, value in lines if value) + "ER  - \n"
