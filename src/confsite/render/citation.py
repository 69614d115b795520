"""BibTeX entries for papers, as shown on paper pages and collected in papers.bib."""

from __future__ import annotations

import re

from ..model.records import Paper

BRACE = re.compile(r"[{}]")


def _braced(text: str) -> str:
    """A field value BibTeX reads back unchanged: TeX kept, unbalanced braces neutralised."""
    depth = 0
    for brace in BRACE.finditer(text):
        depth += 1 if brace.group() == "{" else -1
        if depth < 0:
            break
    if depth != 0:
        text = text.replace("{", "(").replace("}", ")")
    return "{" + text.replace("\n\n", " ").replace("@", "\\@") + "}"


def cite_key(paper: Paper) -> str:
    """The paper id: unique in the site, ASCII, stable across rebuilds."""
    return paper.id


def bibtex_entry(paper: Paper, url: str | None, with_abstract: bool = True) -> str:
    fields: list[tuple[str, str]] = []
    if paper.title:
        fields.append(("title", paper.title))
    if paper.authors:
        fields.append(("author", " and ".join(paper.authors)))
    if paper.conference:
        venue = f"{paper.conference} {paper.year}" if paper.year else paper.conference
        fields.append(("booktitle", venue))
    if paper.year:
        fields.append(("year", str(paper.year)))
    if url:
        fields.append(("url", url))
    if paper.abstract and with_abstract:
        fields.append(("abstract", paper.abstract))
    kind = "inproceedings" if paper.conference else "misc"
    body = ",\n".join(f"  {name} = {_braced(value)}" for name, value in fields)
    return f"@{kind}{{{cite_key(paper)},\n{body}\n}}\n"
