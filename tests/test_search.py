"""The prebuilt search index: it loads in lunr.js and ranks exactly as a lunr.js-built index."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import REPO
from lunr.lunr import get_default_builder

from confsite.diagnostics import Diagnostics
from confsite.model.site import build_site
from confsite.render.search_index import (
    FIELDS,
    compact_index,
    field_terms,
    index_text,
    js_order,
    search_document,
)

QUERIES = [
    "diffusion", "graph neural networks", "reinforcement learning", "transformer attention",
    "bengio", "Schölkopf", "title:diffusion", "authors:wang", "abstract:kernel",
    "+graph -neural", "optim*", "attension~1", "contrastive learning representations",
    "outstanding", "poster session", "ICLR 2023", "γ", "learning to reject", "language models",
    "quaternion", "zero-shot", "a the of", "-graph", "graph -graph",
]


def run_parity(documents: list[dict], queries: list[str], tmp_path: Path) -> list[dict]:
    compact = compact_index(documents)
    payload = tmp_path / "parity.json"
    payload.write_text(json.dumps({
        "fields": FIELDS, "documents": documents, "compact": compact, "queries": queries,
    }), encoding="utf-8")
    result = subprocess.run(["node", str(REPO / "tests" / "search_parity.js"), str(payload)],
                            capture_output=True, text=True, timeout=120, check=True)
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def seed_documents(seeds_build) -> list[dict]:
    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    return [search_document(n, paper, site) for n, paper in enumerate(site.papers)]


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
def test_term_counting_matches_lunr_py_builder(seed_documents: list[dict]) -> None:
    """field_terms is a fast path; lunr.py's own builder is the reference it must equal."""
    builder = get_default_builder()
    builder.ref("ref")
    for name, boost in FIELDS:
        builder.field(name, boost=boost)
    # Characters str.split() would split on and lunr does not, beside ones both split on.
    spaced = "em\u2003space\x85next\u3000wide\x1cfile a\xa0b c-d\te\u2028line\u205fmath"
    spacing = {name: spaced for name, _ in FIELDS}
    documents = [*seed_documents, *normalized_documents(), spacing]
    for number, document in enumerate(documents):
        builder.add({**document, "ref": str(number)})
    for number, document in enumerate(documents):
        for name, _ in FIELDS:
            expected = dict(builder.field_term_frequencies[f"{name}/{number}"])
            assert dict(field_terms(document[name])) == expected, (number, name)


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
def test_prebuilt_index_ranks_like_lunr_js(seed_documents: list[dict], tmp_path: Path) -> None:
    results = run_parity(seed_documents, QUERIES, tmp_path)
    hits = {r["query"]: len(r["built"]) for r in results}
    assert hits["diffusion"] > 20 and hits["bengio"] > 5 and hits["Schölkopf"] > 0
    for result in results:
        built = [ref for ref, _ in result["built"]]
        loaded = [ref for ref, _ in result["loaded"]]
        assert loaded == built, result["query"]
        for (_, a), (_, b) in zip(result["built"], result["loaded"], strict=True):
            assert a == pytest.approx(b, rel=1e-9), result["query"]


UNICODE_DOCUMENTS = [
    {"title": "𝜸-Scaling of 𝓛-smooth Losses", "authors": "Zoë Čapek",
     "abstract": "We bound 𝜸 and 𝔼[X] for ﬁnite samples."},
    {"title": "深度学习的图神经网络", "authors": "王小明, 李华",
     "abstract": "中文摘要：图神经网络。"},
    {"title": "Emoji 🚀 Launch Models 🤖", "authors": "Ana 👩‍🔬 Lab",
     "abstract": "Rocket 🚀 science with 🤖 robots and 👍🏽 approval."},
    {"title": "Café Résumé: Combining Ac\u0301cents", "authors": "José Núñez",
     "abstract": "Decomposed e\u0301 and composed é accents, naïve coöperation."},
    {"title": "Plain Baseline", "authors": "John Smith", "abstract": "A plain ASCII abstract."},
]


def normalized_documents() -> list[dict]:
    return [
        {"ref": str(n), "title": index_text(d["title"]), "authors": index_text(d["authors"]),
         "abstract": index_text(d["abstract"]), "session": "", "collection": "", "awards": ""}
        for n, d in enumerate(UNICODE_DOCUMENTS)
    ]


def test_unicode_vocabulary_is_in_javascript_order_and_loads(tmp_path: Path) -> None:
    documents = normalized_documents()
    compact = compact_index(documents)
    terms = compact["terms"].split(" ")
    assert terms == sorted(terms, key=js_order) and ";" not in terms
    assert any(ord(ch) > 0xFFFF for term in terms for ch in term)  # emoji survive
    results = run_parity(documents, ["γ", "ℒ", "图神经网络", "🚀", "café", "cafe\u0301", "zoë",
                                     "finite", "naïve"], tmp_path)
    by_query = {r["query"]: r for r in results}
    assert [ref for ref, _ in by_query["γ"]["loaded"]] == ["0"]  # 𝜸 was NFKC-normalized to γ
    assert [ref for ref, _ in by_query["🚀"]["loaded"]] == ["2"]
    assert [ref for ref, _ in by_query["café"]["loaded"]] == ["3"]
    assert [ref for ref, _ in by_query["finite"]["loaded"]] == ["0"]  # the ﬁ ligature
    for result in results:
        assert result["loaded"] == result["built"], result["query"]


def test_python_sort_order_would_break_lunr_js() -> None:
    """Why js_order exists: Python orders U+FF5E after U+1D6FE, JavaScript before."""
    terms = ["\uff5e", "\U0001d6fe"]
    assert sorted(terms) != sorted(terms, key=js_order)
