"""Ground truth for corl2020-award-nominees-md (CoRL 2020 virtual-conference site,
_pages/Award Nominees.md).

Markdown headings with Font Awesome ``<i>`` icons (``# <i class=...></i> Best
System Paper Award Nominees``), each followed by an HTML ``<ul>`` of
``<li> <a href="...">Title</a> by First Author et al.</li>``. Only the first author
is named; "et al." is not a name, so ``authors`` holds the single named author.
The last heading ("Best Paper Presentation Finalists") has no papers, only
"To be announced ...".
"""

import pathlib
import re

from bs4 import BeautifulSoup


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parse(path: pathlib.Path) -> list[dict]:
    soup = BeautifulSoup(pathlib.Path(path).read_text(encoding="utf-8"), "html.parser")
    papers = []
    for li in soup.find_all("li"):
        link = li.find("a")
        title = _clean(link.get_text())
        rest = _clean(li.get_text()[len(link.get_text()) + li.get_text().index(link.get_text()) :])
        rest = re.sub(r"^by\s+", "", rest)
        rest = re.sub(r"\s*et al\.?$", "", rest)
        papers.append({"title": title, "authors": [rest] if rest else [], "abstract": None})
    return papers
