"""Ground truth for acml2025-pmlr-bib (PMLR volume 304, ACML 2025, proceedings.bib).

PMLR volume BibTeX in a bibtool-like layout: ``@Proceedings{ACML2025, ...}`` header
(``volume = 304`` unbraced; not a paper) then 80 ``@InProceedings`` entries with
``title =\\t {...}``, ``author``, ``pages``, ``abstract``. Values are HARD-WRAPPED
over several lines with deep indentation -- also inside author names
(``Rasool, Mohamed\\n                  Jismy Aashik``) -- so whitespace is collapsed.
Authors are ``Last, First and ...`` (re-ordered to ``First Last``; one-token names
such as ``yimingqiao`` stay as written, ``Xiaobing, pei`` becomes ``pei Xiaobing``).

Text is escaped one level too many for BibTeX: ``D\\$^3\\$epth``, ``2.9\\%``,
``\\\\textit\\{SPO-VLM\\}``, ``\\$\\\\mathcal\\{D\\_\\{i\\}\\}\\$``. That escaping is undone
once (``\\$ \\% \\_ \\{ \\} \\\\`` -> ``$ % _ { } \\``), giving ``D$^3$epth`` and
``\\textit{SPO-VLM}``; TeX is otherwise kept as written.
"""

import pathlib
import re


def _clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


def _unescape(text):
    return re.sub(r"\\([$%_{}\\&#])", r"\1", text)


def _fields(body):
    out, i = {}, 0
    for m in re.finditer(r"(?m)^\s*([A-Za-z_]+)\s*=\s*\{", body):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while depth:
            ch = body[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            j += 1
        out[m.group(1).lower()] = body[m.end() : j - 1]
        i = j
    return out


def _name(raw):
    raw = _clean(raw)
    if "," in raw:
        last, first = [p.strip() for p in raw.split(",", 1)]
        raw = f"{first} {last}"
    return _clean(raw)


def parse(path: pathlib.Path) -> list[dict]:
    text = pathlib.Path(path).read_text(encoding="utf-8")
    papers = []
    for chunk in re.split(r"(?m)^@", text)[1:]:
        if not chunk.lower().startswith("inproceedings{"):
            continue
        f = _fields(chunk)
        authors = [_name(a) for a in re.split(r"\s+and\s+", _clean(f["author"])) if a.strip()]
        papers.append(
            {
                "title": _clean(_unescape(f["title"])),
                "authors": authors,
                "abstract": _clean(_unescape(f.get("abstract", ""))) or None,
            }
        )
    return papers
