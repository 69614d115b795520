"""Ground truth for aistats2018-accepted-table-html (AISTATS website repo, accepted.html
at the commit holding the 2018 table).

One HTML ``<table>``: header row (Paper ID | Paper Title | Author Names), then one
``<tr>`` per paper. The author cell is ``Name, Affiliation; Name*, Affiliation``:
authors split on ``;``, the name is the text before the first comma (affiliations
may hold more commas, or be empty: ``Name, ;``), ``*`` marks the contact author.
Below the table the file keeps an older list inside HTML comments; it is not part
of the page and not in the truth.
"""

import pathlib
import re

from bs4 import BeautifulSoup


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parse(path: pathlib.Path) -> list[dict]:
    soup = BeautifulSoup(pathlib.Path(path).read_text(encoding="utf-8"), "html.parser")
    papers = []
    for row in soup.find("table").find_all("tr"):
        cells = row.find_all("td")
        if len(cells) != 3:
            continue  # header row uses <th>
        title = _clean(cells[1].get_text())
        authors = []
        for chunk in cells[2].get_text().split(";"):
            name = _clean(chunk.split(",")[0]).rstrip("*").strip()
            if name:
                authors.append(name)
        papers.append({"title": title, "authors": authors, "abstract": None})
    return papers
