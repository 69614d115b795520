"""Ground truth for l4dc2026-pmlr-bib (PMLR volume 331, L4DC 2026, l4dc26.bib).

A PMLR volume BibTeX file: one ``@Proceedings{L4DC-2026, ...}`` header (not a paper)
then 106 ``@InProceedings{key, title, section, author, pages, openreview, abstract}``.
Values are brace-delimited (nested braces possible), one field per tab-indented line.
Authors are ``Last, First and Last, First`` (``III, William R. Johnson`` -- a suffix
placed as surname; ``Sa, Massimiliano de``), re-ordered here to ``First Last``.
LaTeX accent macros (``\\"o``, ``\\'a``, ``\\`o``, ``\\H{o}``) are decoded to Unicode
in titles, names and abstracts; grouping braces are removed from titles and names.
Math (``$\\sqrt{T}$``, ``$^2$``) and other commands in titles/abstracts
(``\\textit{...}``, ``\\underline{\\textbf{Ver}}``) are kept as written.
"""

import pathlib
import re

_ACCENTS = {
    ('"', "o"): "ö",
    ('"', "a"): "ä",
    ('"', "u"): "ü",
    ('"', "O"): "Ö",
    ('"', "A"): "Ä",
    ('"', "U"): "Ü",
    ("'", "a"): "á",
    ("'", "e"): "é",
    ("'", "u"): "ú",
    ("'", "i"): "í",
    ("'", "o"): "ó",
    ("`", "o"): "ò",
    ("`", "e"): "è",
    ("H", "o"): "ő",
}


def _accents(text):
    def repl(m):
        key = (m.group(1), m.group(2) or m.group(3))
        return _ACCENTS.get(key, m.group(0))

    return re.sub(r"\\([\"'`H])(?:\{([A-Za-z])\}|([A-Za-z]))", repl, text)


def _clean(text):
    return re.sub(r"\s+", " ", text).strip()


def _fields(body):
    """name = {value} pairs of one entry body (brace matching for nested braces)."""
    out, i = {}, 0
    for m in re.finditer(r"(?m)^\s*([A-Za-z_]+)\s*=\s*\{", body):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while depth:
            if body[j] == "{" and body[j - 1] != "\\":
                depth += 1
            elif body[j] == "}" and body[j - 1] != "\\":
                depth -= 1
            j += 1
        out[m.group(1).lower()] = body[m.end() : j - 1]
        i = j
    return out


def _name(raw):
    raw = _clean(_accents(raw).replace("{", "").replace("}", ""))
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
        # keep braces that belong to math: only strip grouping braces outside $...$
        parts = re.split(r"(\$[^$]*\$)", _accents(f["title"]))
        title = _clean(
            "".join(p if p.startswith("$") else p.replace("{", "").replace("}", "") for p in parts)
        )
        authors = [_name(a) for a in re.split(r"\s+and\s+", _clean(f["author"])) if a.strip()]
        abstract = _clean(_accents(f.get("abstract", ""))) or None
        papers.append({"title": title, "authors": authors, "abstract": abstract})
    return papers
