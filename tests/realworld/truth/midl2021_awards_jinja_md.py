"""Ground truth for midl2021-awards-jinja-md (MIDL 2021 website, pages/awards.md).

Markdown page of a Jinja-templated site: award headings, each paper written as a
macro call {{ paper('Title', 'A, B, C', openreview=..., pdf=..., id=..., paper=...,
proceedings=..., video=..., abstract="...") }} between '[% .papers %]' / '[% / %]'
markers. The two bullet lists under 'Reviewers Awards' are people, not papers;
the youtube() call is not a paper. Title/authors/abstract are Jinja (Python-like)
string literals, single- or double-quoted: they are decoded once, so the file's
"network\\\\'s" becomes "network\\'s". One title has a trailing space (stripped).
"""

import ast
import pathlib
import re

_STR = r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_CALL = re.compile(r"\{\{\s*paper\(\s*" + _STR + r"\s*,\s*" + _STR + r"(.*?)\)\s*\}\}", re.S)
_ABS = re.compile(r"abstract\s*=\s*" + _STR, re.S)


def _lit(s: str) -> str:
    return re.sub(r"\s+", " ", ast.literal_eval(s)).strip()


def parse(path: pathlib.Path) -> list[dict]:
    text = pathlib.Path(path).read_text(encoding="utf-8")
    papers = []
    for m in _CALL.finditer(text):
        a = _ABS.search(m.group(3))
        abstract = _lit(a.group(1)) if a else ""
        papers.append({
            "title": _lit(m.group(1)),
            "authors": [n.strip() for n in _lit(m.group(2)).split(",") if n.strip()],
            "abstract": abstract or None,
        })
    return papers
