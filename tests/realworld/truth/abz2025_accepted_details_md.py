"""Ground truth for abz2025-accepted-details-md (ABZ 2025 website, Hugo page
content/site/2025/Program.md at the commit that first listed the accepted papers).

Under ``## Accepted Papers`` / ``### Main Track`` / ``### Case Study`` each paper is a
``<details>`` block: ``<summary>Author, Author and Author. <b>Title.</b></summary>``
then ``<p ...>abstract</p>``. Summaries and abstracts are hard-wrapped (names and
titles can break across lines; abstracts keep the PDF's hyphenation such as
"trace- ability"), whitespace is collapsed. The citation-style period that ends
the author list and the one that ends the bold title are separators and are
dropped. The date table above the list is not a paper.
"""

import pathlib
import re

from bs4 import BeautifulSoup


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _authors(text: str) -> list[str]:
    text = _clean(text).rstrip(".").strip()
    head, sep, last = text.rpartition(" and ")
    names = (head.split(", ") + [last]) if sep else [text]
    return [n.strip() for n in names if n.strip()]


def parse(path: pathlib.Path) -> list[dict]:
    soup = BeautifulSoup(pathlib.Path(path).read_text(encoding="utf-8"), "html.parser")
    papers = []
    for det in soup.find_all("details"):
        summary = det.find("summary")
        bold = summary.find("b")
        title = _clean(bold.get_text())
        if title.endswith("."):
            title = title[:-1].rstrip()
        bold.extract()
        authors = _authors(summary.get_text())
        para = det.find("p")
        abstract = _clean(para.get_text()) if para else None
        papers.append({"title": title, "authors": authors, "abstract": abstract or None})
    return papers
