"""Ground truth for aistats2020-accepted-li-html (AISTATS website repo, accepted.html
at the commit holding the 2020 list).

Jekyll page (front matter, then HTML): one ``<li>`` per paper,
``<li><b>Title</b><br />Name (Affiliation)*; Name (Affiliation)</li>``. Authors are
separated by ``;``; each ends with a parenthesised affiliation, which may itself
contain parentheses (``German Aerospace Center (DLR)``) or be empty (``()``), and
``*`` marks the corresponding author. Names keep their spelling and case.
"""

import html
import pathlib
import re

LINE = re.compile(r"<li><b>(.+?)</b><br />(.+?)</li>")


def _name(chunk: str) -> str:
    s = chunk.strip().rstrip("*").strip()
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    s = s[:i]
                    break
    return re.sub(r"\s+", " ", s.rstrip("*")).strip()


def parse(path: pathlib.Path) -> list[dict]:
    papers = []
    for m in LINE.finditer(pathlib.Path(path).read_text(encoding="utf-8")):
        title = re.sub(r"\s+", " ", html.unescape(m.group(1))).strip()
        authors = [_name(html.unescape(c)) for c in m.group(2).split(";") if c.strip()]
        papers.append({"title": title, "authors": authors, "abstract": None})
    return papers
