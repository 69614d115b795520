"""Ground truth for aistats2016-accepted-p-authors-first-html (AISTATS website repo,
accepted.html at the commit holding the 2016 list).

Authors come first: ``<p>Name, Name, Name, <b>Title </b></p>``, hard-wrapped
inside the paragraph (a name can be split across lines). One paragraph is
irregular and handled by hand: it has no ``<b>`` at all and no space after the
last comma ("Jesper Ferkinghoff-Borg,Bayesian generalised ensemble Markov chain
Monte Carlo"); its title is the text after that comma. Another wraps the ``<b>``
in a ``<span>``.
"""

import html
import pathlib
import re


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", text))).strip()


def parse(path: pathlib.Path) -> list[dict]:
    text = pathlib.Path(path).read_text(encoding="utf-8")
    papers = []
    for para in re.findall(r"<p>(.*?)</p>", text, re.S):
        if "<b>" in para:
            names_part, _, rest = para.partition("<b>")
            title = _clean(rest)
        else:  # the one paragraph without bold: "...,Ferkinghoff-Borg,Bayesian ..."
            names_part, _, rest = _clean(para).rpartition(",")
            title = rest.strip()
        names_part = re.sub(r"<[^>]+>", "", names_part)
        authors = [_clean(n) for n in names_part.split(",") if _clean(n)]
        papers.append({"title": title, "authors": authors, "abstract": None})
    return papers
