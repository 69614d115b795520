"""Ground truth for enlsp2022-workshop-accepted-papers-yml (NeurIPS 2022 ENLSP workshop).

A Jekyll _data/accepted_papers.yml written in JSON-like YAML flow style: one
'[{...},{...}]' list of {"id", "title", "abstract", "authors"}; one mapping has a
trailing comma before '}' (valid YAML, invalid JSON). Authors are one string
'Name (Affiliation)*; Name (Affiliation)' (* = contact author; an affiliation can
itself contain ';'). Four papers give authors as just 'Anonymous': no author is
stated, so authors is []. Double-quoted YAML escapes are decoded as YAML does
(an abstract's '\\textit{DyREx}' becomes TAB + 'extit{DyREx}'; whitespace is then
collapsed).
"""

import pathlib
import re

import yaml


def _split_top(s: str) -> list[str]:
    out, cur, depth = [], "", 0
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == ";" and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def _name(part: str) -> str:
    depth, kept = 0, ""
    for ch in part:  # drop every parenthesised group (affiliation)
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            kept += ch
    return re.sub(r"\s+", " ", kept.replace("*", "")).strip()


def parse(path: pathlib.Path) -> list[dict]:
    items = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))
    papers = []
    for it in items:
        raw = it.get("authors", "").strip()
        names = (_name(p) for p in _split_top(raw))
        authors = [] if raw == "Anonymous" else [n for n in names if n]
        papers.append({
            "title": re.sub(r"\s+", " ", it["title"]).strip(),
            "authors": authors,
            "abstract": re.sub(r"\s+", " ", it["abstract"]).strip() or None,
        })
    return papers
