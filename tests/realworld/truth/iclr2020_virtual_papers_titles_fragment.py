"""Ground truth for iclr2020-virtual-papers-titles-fragment.

An HTML fragment (no <html>/<body>, one '<li><a href="/virtual/2020/poster/N">Title</a></li>'
per line, raw '&' not escaped) copied from iclr.cc/virtual/2020/papers.html?filter=titles.
Titles only: authors [] and abstract None for every paper.
"""

import pathlib
import re

from bs4 import BeautifulSoup


def parse(path: pathlib.Path) -> list[dict]:
    soup = BeautifulSoup(pathlib.Path(path).read_text(encoding="utf-8"), "html.parser")
    papers = []
    for link in soup.select("li > a"):
        if "/virtual/2020/poster/" not in link.get("href", ""):
            continue
        title = re.sub(r"\s+", " ", link.get_text()).strip()
        papers.append({"title": title, "authors": [], "abstract": None})
    return papers
