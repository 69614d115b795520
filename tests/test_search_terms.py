"""Index terms equal lunr.js's, token by token, over the seeds, a large English word list and
a list of personal names: the Python pipeline (render/terms.py) against the page's
(static/search-terms.js, lunr.js's stop-word filter and stemmer) and lunr.js's own pipeline,
both run in Node."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SEEDS

import confsite.render.terms
from confsite.render.stemmer import stem
from confsite.render.terms import Vocabulary, field_terms, fold, term, text_counts, tokens

NODE_MODULES = REPO / "node_modules"
ENGLISH = NODE_MODULES / "an-array-of-english-words" / "index.json"
NAMES = NODE_MODULES / "@cspell" / "dict-people-names" / "dict" / "people-names.txt"


def node_terms(words: list[str], tmp_path: Path) -> dict:
    payload = tmp_path / "words.json"
    payload.write_text(json.dumps(words), encoding="utf-8")
    result = subprocess.run(["node", str(REPO / "tests" / "search_terms.js"), str(payload)],
                            capture_output=True, text=True, timeout=300, check=True)
    return json.loads(result.stdout)


def seed_words() -> list[str]:
    words: set[str] = set()
    for path in sorted(SEEDS.iterdir()):
        words.update(path.read_text(encoding="utf-8").split())
    return sorted(words)


def realworld_words() -> list[str]:
    sys.path.insert(0, str(REPO / "tests" / "realworld"))
    import score  # the real-world corpus's own locator

    corpus = score.corpus_folder()
    if corpus is None:
        return []
    words: set[str] = set()
    for path in sorted(corpus.rglob("*")):
        if path.is_file():
            words.update(path.read_bytes().decode("utf-8", "replace").split())
    return sorted(words)


def word_lists() -> dict[str, list[str]]:
    names = [line.strip() for line in NAMES.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    english = json.loads(ENGLISH.read_text(encoding="utf-8"))
    # Names as people write them and in capitals: folding must lower-case either way.
    return {
        "seeds": seed_words(),
        "real-world corpus": realworld_words(),
        "English words": english,
        "personal names": sorted({*names, *(name.upper() for name in names)}),
    }


@pytest.mark.slow  # 600,000 words through Node: about half a minute
@pytest.mark.parametrize("source", ["seeds", "real-world corpus", "English words",
                                    "personal names"])
def test_every_token_gets_lunr_js_terms(source: str, tmp_path: Path) -> None:
    words = word_lists()[source]
    if not words:
        pytest.skip(f"no {source} here")
    assert len(words) > 1000
    node = node_terms(words, tmp_path)
    python = [[term(t) for t in tokens(word)] for word in words]
    differing = [(w, p, n) for w, p, n in zip(words, python, node["page"], strict=True) if p != n]
    assert differing[:20] == [] and len(differing) == 0
    # Where lunr.js's own trimmer applies (ASCII tokens) it gives the same terms, but for
    # tokens without a letter or digit, which lunr.js makes an empty term and we drop or keep
    # whole (symbols: "<", "+").
    pure = [(t, term(t), n) for t, n in zip(node["ascii"], node["lunr"], strict=True)
            if term(t) != n]
    assert [p for p in pure if re.search(r"[A-Za-z0-9_]", p[0])] == []
    assert all(n is None for _, _, n in pure)


@pytest.mark.parametrize(("word", "expected"), [
    # lunr.js's output, by hand from lunr.stemmer in Node: lunr.py gives sergei, replai, kei.
    ("sergey", "sergey"), ("replay", "replay"), ("key", "key"), ("survey", "survey"),
    ("shapley", "shapley"), ("delays", "delay"), ("happy", "happi"), ("sky", "ski"),
    ("generalization", "gener"), ("running", "run"), ("values", "valu"), ("yelling", "yell"),
])
def test_stemmer_gives_lunr_js_stems(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Schölkopf", "scholkopf"), ("Poincaré", "poincare"), ("MÜLLER", "muller"),
    ("Søren Łukasz Straße", "soren lukasz strasse"), ("𝜸-ﬁnite", "γ-finite"),
    ("Cafe\u0301", "cafe"),
])
def test_folding_drops_case_accents_and_compatibility_forms(text: str, expected: str) -> None:
    assert fold(text) == expected


def test_words_split_and_trim_as_lunr_js_does() -> None:
    # Expected: lunr.js's tokenizer and pipeline in Node, by hand. \u3000 is a JavaScript
    # space, \x1c is not (Python's str.split() would split on it).
    counts = field_terms("Sergey Levine: (experience) replay — the 🚀 don't\u3000wide\x1cfile")
    assert counts == {"sergey": 1, "levin": 1, "experi": 1, "replay": 1, "🚀": 1, "don't": 1,
                      "wide\x1cfil": 1}


def test_texts_counted_into_arrays_equal_each_text_counted_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`text_counts` (a corpus's counts straight into arrays) against `field_terms` (one
    text's Counter, checked above against lunr.js): every line of the seeds, and texts
    with no term, symbols, accents and spaces only JavaScript splits at. Chunks of three
    texts, so that terms first met in a later chunk and empty rows cross chunk edges."""
    monkeypatch.setattr(confsite.render.terms, "TEXT_CHUNK", 3)
    texts = ["", "the of and", "— !!", "α-β α 🚀 🚀 Café cafe\u0301", "don't\u3000wide\x1cfile",
             "graph graph graphs graphing", "\ufeffbom\u00a0space"]
    for path in sorted(SEEDS.iterdir()):
        texts += path.read_text(encoding="utf-8").splitlines()
    vocabulary = Vocabulary()
    matrix = text_counts(iter(texts), vocabulary)
    assert matrix.shape == (len(texts), len(vocabulary))
    for number, text in enumerate(texts):
        row = matrix.getrow(number)
        counted = {vocabulary.terms[c]: int(n) for c, n in zip(row.indices, row.data, strict=True)}
        assert counted == dict(field_terms(text)), (number, text)
    assert len(vocabulary.terms) == len(set(vocabulary.terms))
