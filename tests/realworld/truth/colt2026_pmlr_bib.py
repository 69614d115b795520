"""Ground truth for colt2026-pmlr-bib (PMLR v336, COLT 2026, colt2026.bib).

Hand-assembled BibTeX: an @Proceedings header, then @InProceedings entries with
brace-delimited values and inconsistent indentation (none, 2, 4 spaces; some
fields aligned with runs of spaces). The first @InProceedings (section Preface,
"Conference on Learning Theory 2026: Preface", no abstract) is front matter,
not a paper. Authors are "Last, First and Last, First"; names carry LaTeX
accents in several spellings (B{\\l}asiok, Bajovi\\'{c}, Mo{\\"i}se, Mo\\"ise,
{\\"O}zda{\\u{g}}lar) and protected multi-word surnames ({Di Gregorio},
{van der Poel}). Accents are decoded; other LaTeX (math in titles and
abstracts) is kept as written, with grouping braces outside $...$ dropped.
"""

import pathlib
import re
import unicodedata

_ACCENT = {"'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303",
           "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
           "c": "\u0327", "k": "\u0328"}
_LETTER = {"l": "ł", "L": "Ł", "o": "ø", "O": "Ø", "ss": "ß", "aa": "å", "AA": "Å",
           "ae": "æ", "AE": "Æ", "oe": "œ", "i": "ı"}


def _entries(text):
    """Yield (type, body) for each @type{...} entry, matching braces."""
    for m in re.finditer(r"@(\w+)\s*\{", text):
        depth, i = 1, m.end()
        while depth:
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            i += 1
        yield m.group(1), text[m.end():i - 1]


def _fields(body):
    fields = {}
    for m in re.finditer(r"(\w+)\s*=\s*\{", body):
        depth, i = 1, m.end()
        while depth:
            ch = body[i]
            if ch == "\\":
                i += 2
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            i += 1
        fields.setdefault(m.group(1).lower(), body[m.end():i - 1])
    return fields


def _accents(s):
    def acc(m):
        mark, base = m.group(1), m.group(2) or m.group(3)
        if base.startswith("\\"):  # \"{\i} -> dotless i
            base = _LETTER.get(base[1:], base[1:])
        return unicodedata.normalize("NFC", base + _ACCENT[mark])
    # \'{c}  \'c  {\'c}  \u{g}
    s = re.sub(r"\\([\'`\"^~=.])\s*(?:\{(\\?\w)\}|(\\?\w))", acc, s)
    s = re.sub(r"\\([uvHck])\s*(?:\{(\\?\w)\}|\s(\w))", acc, s)
    s = re.sub(r"\\(ss|aa|AA|ae|AE|oe|l|L|o|O|i)(?![A-Za-z])\s?", lambda m: _LETTER[m.group(1)], s)
    return s


def _debrace(s):
    """Drop grouping braces outside $...$ math."""
    out, math = [], False
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            out.append(s[i:i + 2])
            i += 2
            continue
        if ch == "$":
            math = not math
        if ch in "{}" and not math:
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _clean(s):
    return re.sub(r"\s+", " ", _debrace(_accents(s))).strip()


def _name(raw):
    raw = re.sub(r"\s+", " ", raw).strip()
    # split at the top-level comma (not inside braces)
    depth, cut = 0, -1
    for i, ch in enumerate(raw):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            cut = i
            break
    if cut >= 0:
        raw = raw[cut + 1:].strip() + " " + raw[:cut].strip()
    return _clean(raw)


def parse(path: pathlib.Path) -> list[dict]:
    text = pathlib.Path(path).read_text(encoding="utf-8")
    papers = []
    for kind, body in _entries(text):
        if kind.lower() != "inproceedings":
            continue
        f = _fields(body)
        if f.get("section", "").strip() == "Preface":
            continue
        names = re.split(r"\s+and\s+", f.get("author", "").strip())
        authors = [_name(a) for a in names if a.strip()]
        abstract = f.get("abstract")
        papers.append({
            "title": _clean(f["title"]),
            "authors": authors,
            "abstract": re.sub(r"\s+", " ", abstract).strip() if abstract else None,
        })
    return papers
