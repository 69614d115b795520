"""The Porter stemmer exactly as lunr.js 2.3.9 runs it, so index terms meet the page's query terms.

lunr.py's stemmer follows the reference algorithm, which differs from lunr.js's on words such
as "sergey" and "replay" (lunr.py gives "sergei", "replai"; lunr.js keeps them), so a query
typed in the page never met the indexed term. This follows lunr.js's rules, regexes and quirks
(a leading "y" counts as a consonant, step 1c needs a consonant before the final "y"), and
works on UTF-16 code units as JavaScript strings do. tests/test_search_terms.py compares it with
lunr.js word for word.
"""

from __future__ import annotations

import re
from functools import cache

STEP2 = {
    "ational": "ate",
    "tional": "tion",
    "enci": "ence",
    "anci": "ance",
    "izer": "ize",
    "bli": "ble",
    "alli": "al",
    "entli": "ent",
    "eli": "e",
    "ousli": "ous",
    "ization": "ize",
    "ation": "ate",
    "ator": "ate",
    "alism": "al",
    "iveness": "ive",
    "fulness": "ful",
    "ousness": "ous",
    "aliti": "al",
    "iviti": "ive",
    "biliti": "ble",
    "logi": "log",
}
STEP3 = {
    "icate": "ic",
    "ative": "",
    "alize": "al",
    "iciti": "ic",
    "ical": "ic",
    "ful": "",
    "ness": "",
}

_C = "[^aeiou][^aeiouy]*"  # a consonant sequence
_V = "[aeiouy][aeiou]*"  # a vowel sequence
# \Z, not $: Python's $ also matches before a final newline, JavaScript's does not.
MGR0 = re.compile(f"^({_C})?{_V}{_C}")  # measure > 0
MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?\\Z")  # measure = 1
MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")  # measure > 1
VOWEL_IN_STEM = re.compile(f"^({_C})?[aeiouy]")
STEP1A = re.compile(r"^(.+?)(ss|i)es\Z")
STEP1A_2 = re.compile(r"^(.+?)([^s])s\Z")
STEP1B = re.compile(r"^(.+?)eed\Z")
STEP1B_2 = re.compile(r"^(.+?)(ed|ing)\Z")
ENDS_AT_BL_IZ = re.compile(r"(at|bl|iz)\Z")
DOUBLE_END = re.compile(r"([^aeiouylsz])\1\Z")
CVC = re.compile(f"^{_C}[aeiouy][^aeiouwxy]\\Z")
STEP1C = re.compile(r"^(.+?[^aeiou])y\Z")
STEP2_RE = re.compile(f"^(.+?)({'|'.join(STEP2)})\\Z")
STEP3_RE = re.compile(f"^(.+?)({'|'.join(STEP3)})\\Z")
STEP4 = re.compile(
    r"^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)\Z",
)
STEP4_2 = re.compile(r"^(.+?)(s|t)(ion)\Z")
STEP5 = re.compile(r"^(.+?)e\Z")


def _code_units(word: str) -> str:
    """The word as JavaScript sees it: one character per UTF-16 code unit."""
    data = word.encode("utf-16-le")
    return "".join(chr(data[i] | data[i + 1] << 8) for i in range(0, len(data), 2))


def _from_code_units(units: str) -> str:
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


@cache  # a corpus has far fewer distinct words than words
def stem(word: str) -> str:
    """lunr.stemmer's result for one (lower-case, trimmed) token."""
    if word.isascii() or max(word) <= "\uffff":
        return _stem_units(word)
    return _from_code_units(_stem_units(_code_units(word)))


def _stem_units(w: str) -> str:
    if len(w) < 3:
        return w
    first_is_y = w[0] == "y"
    if first_is_y:  # a capital Y is a consonant to every rule below
        w = "Y" + w[1:]

    if (m := STEP1A.match(w)) or (m := STEP1A_2.match(w)):
        w = m.group(1) + m.group(2)

    if m := STEP1B.match(w):
        if MGR0.search(m.group(1)):
            w = w[:-1]
    elif m := STEP1B_2.match(w):
        base = m.group(1)
        if VOWEL_IN_STEM.search(base):
            w = base
            if ENDS_AT_BL_IZ.search(w):
                w += "e"
            elif DOUBLE_END.search(w):
                w = w[:-1]
            elif CVC.search(w):
                w += "e"

    if m := STEP1C.match(w):
        w = m.group(1) + "i"

    if (m := STEP2_RE.match(w)) and MGR0.search(m.group(1)):
        w = m.group(1) + STEP2[m.group(2)]

    if (m := STEP3_RE.match(w)) and MGR0.search(m.group(1)):
        w = m.group(1) + STEP3[m.group(2)]

    if m := STEP4.match(w):
        if MGR1.search(m.group(1)):
            w = m.group(1)
    elif m := STEP4_2.match(w):
        base = m.group(1) + m.group(2)
        if MGR1.search(base):
            w = base

    if m := STEP5.match(w):
        base = m.group(1)
        if MGR1.search(base) or (MEQ1.search(base) and not CVC.search(base)):
            w = base

    if w.endswith("ll") and MGR1.search(w):
        w = w[:-1]

    if first_is_y:
        w = "y" + w[1:]
    return w
