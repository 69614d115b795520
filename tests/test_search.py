"""The prebuilt search index: it loads in lunr.js and ranks exactly as a lunr.js-built index."""

from __future__ import annotations

import collections
import dataclasses
import itertools
import json
import random
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from confsite.diagnostics import Diagnostics
from confsite.model.site import build_site
from confsite.render import search_index
from confsite.render.search_index import (
    FIELDS,
    compact_index,
    field_terms,
    index_text,
    js_order,
    search_document,
)
from confsite.render.terms import fold, term, tokens

QUERIES = [
    "diffusion", "graph neural networks", "reinforcement learning", "transformer attention",
    "bengio", "title:diffusion", "authors:wang", "abstract:kernel",
    "+graph -neural", "optim*", "attension~1", "contrastive learning representations",
    "outstanding", "poster session", "ICLR 2023", "learning to reject", "language models",
    "quaternion", "zero-shot", "a the of", "-graph", "graph -graph",
]
GENERATED = 300


def generated_queries(documents: list[dict], count: int, seed: int = 16) -> list:
    """Queries as people type them, drawn from the documents: a title's words, an author's
    name, words of an abstract, mixed; as word lists (the page's way) and as lunr syntax
    (prefixes, fuzzy words, fields, required and excluded words)."""
    chance = random.Random(seed)
    queries: list = []
    while len(queries) < count:
        document = chance.choice(documents)
        title = document["title"].split() or ["graph"]
        abstract = document["abstract"].split() or title
        author = document["authors"].split("\n")[0] or "Wang"
        kind = len(queries) % 8
        if kind == 0:
            queries.append(chance.sample(title, min(len(title), chance.randint(1, 3))))
        elif kind == 1:
            queries.append([author])
        elif kind == 2:
            queries.append([chance.choice(abstract), chance.choice(abstract)])
        elif kind == 3:
            queries.append([author.split()[-1], chance.choice(title)])
        elif kind == 4:
            queries.append(f"{plain_word(chance.choice(title))[:4]}*")
        elif kind == 5:
            queries.append(f"{plain_word(chance.choice(abstract))}~1")
        elif kind == 6:
            queries.append(f"title:{plain_word(chance.choice(title))}")
        else:
            required, excluded = chance.choice(title), chance.choice(abstract)
            queries.append(f"+{plain_word(required)} -{plain_word(excluded)}")
    return queries


def plain_word(word: str) -> str:
    """A word without lunr's query syntax in it, folded as the index is."""
    return re.sub(r"[^\w]", "", fold(word)) or "graph"


def run_parity(documents: list[dict], queries: list, tmp_path: Path,
               frequencies: bool = False) -> dict:
    compact = compact_index(documents)
    payload = tmp_path / "parity.json"
    payload.write_text(json.dumps({
        "fields": FIELDS, "documents": documents, "queries": queries,
        "compact": {"entry": compact.entry, "shards": compact.shards,
                    "vocabulary": compact.vocabulary},
        "frequencies": frequencies,
    }), encoding="utf-8")
    result = subprocess.run(["node", str(REPO / "tests" / "search_parity.js"), str(payload)],
                            capture_output=True, text=True, timeout=300, check=True)
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def seed_documents(seeds_build) -> list[dict]:
    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    return [search_document(n, paper, site) for n, paper in enumerate(site.papers)]


def test_the_build_indexes_the_texts_search_documents_hold(seeds_build) -> None:
    """The build counts the listing fields' terms its own way (`site_terms`, each shared text
    once) and the titles' and abstracts' with related papers: its index is the one made from
    `search_document`s, which the lunr.js parity tests check."""
    from confsite.cache.terms import TermCache

    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    documents = [search_document(n, paper, site) for n, paper in enumerate(site.papers)]
    terms = TermCache(None, b"").paper_terms(site.papers)
    built = search_index.encode_index(*search_index.site_terms(site, terms))
    assert built == compact_index(documents) and len(built.shards) > 4


@pytest.mark.parametrize(
    "name", ["Jos\\'{e} Garc\\'{\\i}a", "$\\alpha$ Team", "[Ada](https://example.org) Lovelace"]
)
def test_an_author_name_with_tex_or_markup_is_indexed_as_its_document_has_it(
    seeds_build, name: str
) -> None:
    """`site_terms` counts a list holding a name that is not plain whole (TeX may read
    across its lines), and the other lists name by name: the index is still the one made
    from `search_document`s."""
    from confsite.cache.terms import TermCache

    papers = list(seeds_build.papers)
    papers[3] = dataclasses.replace(papers[3], authors=(*papers[3].authors, name))
    site = build_site(seeds_build.config, papers, (), None, Diagnostics())
    documents = [search_document(n, paper, site) for n, paper in enumerate(site.papers)]
    terms = TermCache(None, b"").paper_terms(site.papers)
    assert search_index.encode_index(*search_index.site_terms(site, terms)) == compact_index(
        documents
    )


def test_the_built_site_has_every_search_file_whoever_made_it(seeds_build) -> None:
    """The corpus worker makes the files that need the terms, a page worker those that need
    the site alone (`listing_files`): the site has both sets, whole and disjoint, each file
    with the bytes they make, and the entry names card files for every paper."""
    from confsite.cache.terms import TermCache

    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    terms = TermCache(None, b"").paper_terms(site.papers)
    listing = search_index.listing_files(site)
    indexed = {file.path: file.make() for file in search_index.search_files(site, terms, b"")}
    assert not listing.keys() & indexed.keys()
    cards = [path for path in listing if path.startswith("search/cards/")]
    assert len(cards) == -(-len(site.papers) // search_index.CARD_CHUNK) and cards
    assert "search/filters.js" in listing and "search/index.js" in indexed
    out = seeds_build.out_dir
    for path, data in listing.items():
        assert (out / path).read_bytes() == data, path
    on_disk = {p.relative_to(out).as_posix() for p in (out / "search").rglob("*.js")}
    assert on_disk == listing.keys() | indexed.keys()


def assert_same_rankings(rankings: list[dict]) -> None:
    """Same papers, same scores, in the same order but among equal scores: a wildcard's
    expansions come in the order of each index's own trie, and lunr keeps ties in the order
    it met them."""
    for result in rankings:
        built, loaded = dict(result["built"]), dict(result["loaded"])
        assert loaded.keys() == built.keys(), result["query"]
        for ref, score in built.items():
            assert loaded[ref] == pytest.approx(score, rel=1e-9), (result["query"], ref)
        scores = [score for _, score in result["loaded"]]
        assert scores == sorted(scores, reverse=True), result["query"]
        if "page" in result:  # the page's own ranking
            page = result["page"]
            assert page["loaded"] == page["proxied"], result["query"]
            assert page["top"] == page["loaded"][:8], result["query"]
            assert [(r, terms) for r, _, terms in page["loaded"]] == [
                (r, terms) for r, _, terms in page["built"]], result["query"]
            for (_, loaded, _), (_, built, _) in zip(page["loaded"], page["built"], strict=True):
                assert loaded == pytest.approx(built, rel=1e-9), result["query"]
        if "*" not in json.dumps(result["query"]):
            assert [r for r, _ in result["loaded"]] == [r for r, _ in result["built"]], (
                result["query"])


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
def test_prebuilt_index_counts_and_ranks_like_lunr_js(
    seed_documents: list[dict], tmp_path: Path
) -> None:
    """lunr.js's own builder, given confsite's pipeline, counts the same terms per field and
    document as field_terms, and its index ranks hand-written and generated queries exactly
    as the compact index loaded by the page's code."""
    # A pasted sentence: more words than the page's ranking has bits for in its masks.
    pasted = next(d["abstract"].split()[:80] for d in seed_documents
                  if len(d["abstract"].split()) > 100)
    assert len({term(t) for w in pasted for t in tokens(w)} - {None}) > 30
    queries = [*QUERIES, *generated_queries(seed_documents, GENERATED), pasted]
    result = run_parity(seed_documents, queries, tmp_path, frequencies=True)
    frequencies = result["frequencies"]
    for number, document in enumerate(seed_documents):
        for name, _ in FIELDS:
            assert dict(field_terms(document[name])) == frequencies[f"{name}/{number}"], (
                number, name)
    hits = {json.dumps(r["query"]): len(r["built"]) for r in result["rankings"]}
    assert hits['"diffusion"'] > 20 and hits['"bengio"'] > 5
    # Generated queries come from the documents: nearly all find something.
    assert sum(1 for n in list(hits.values())[len(QUERIES):] if n) > 0.9 * GENERATED
    assert result["rankings"][-1]["page"]["loaded"]  # the pasted sentence finds its paper
    assert_same_rankings(result["rankings"])


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
def test_a_search_loads_only_the_shards_of_its_terms(
    seed_documents: list[dict], tmp_path: Path
) -> None:
    shards = len(compact_index(seed_documents).shards)
    assert shards > 20
    result = run_parity(seed_documents, [["diffusion", "models"]], tmp_path)
    assert result["rankings"][0]["built"]
    assert_same_rankings(result["rankings"])
    assert result["shardsLoaded"] <= 2


@pytest.mark.slow  # whole seeds builds or checks: out of the fast loop
@pytest.mark.parametrize("words", [
    ["Sergey", "Levine"], ["experience", "replay"], ["shapley", "values"], ["random", "delays"],
    ["survey"], ["Scholkopf"], ["Geoffrey", "Hinton"], ["poincare"],
])
def test_what_people_typed_finds_papers(
    seed_documents: list[dict], tmp_path: Path, words: list[str]
) -> None:
    """The queries of issue 16 that found nothing, through lunr.js's own builder."""
    result = run_parity(seed_documents, [words], tmp_path)["rankings"][0]
    assert result["built"], words
    assert_same_rankings([result])


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
    terms = compact.vocabulary["terms"].split(" ")
    assert terms == sorted(terms, key=js_order) and ";" not in terms
    assert any(ord(ch) > 0xFFFF for term in terms for ch in term)  # emoji survive
    results = run_parity(documents, [["γ"], ["ℒ"], ["图神经网络"], ["🚀"], ["café"],
                                     ["cafe\u0301"], ["zoë"], ["finite"], ["naïve"], ["zoe"],
                                     ["capek"]], tmp_path)["rankings"]
    by_query = {r["query"][0]: r for r in results}
    assert [ref for ref, _ in by_query["γ"]["loaded"]] == ["0"]  # 𝜸 was NFKC-normalized to γ
    assert [ref for ref, _ in by_query["🚀"]["loaded"]] == ["2"]
    assert [ref for ref, _ in by_query["café"]["loaded"]] == ["3"]
    assert [ref for ref, _ in by_query["finite"]["loaded"]] == ["0"]  # the ﬁ ligature
    assert [ref for ref, _ in by_query["zoe"]["loaded"]] == ["0"]  # accents folded
    assert [ref for ref, _ in by_query["capek"]["loaded"]] == ["0"]
    for result in results:
        assert result["loaded"] == result["built"], result["query"]


def test_python_sort_order_would_break_lunr_js() -> None:
    """Why js_order exists: Python orders U+FF5E after U+1D6FE, JavaScript before."""
    terms = ["\uff5e", "\U0001d6fe"]
    assert sorted(terms) != sorted(terms, key=js_order)


def test_the_entry_says_how_many_postings_each_shard_holds() -> None:
    """The page completes a prefix only while its shards hold few enough postings: each
    shard's count, in hundreds rounded up, is its terms' (field, paper) pairs, counted here
    from the documents themselves."""
    chance = random.Random(7)
    words = [f"{a}{b}" for a in ("graph", "kernel", "spectral", "bandit") for b in "abcdefghij"]
    documents = [
        {"ref": str(n), "title": index_text(" ".join(chance.sample(words, 6))),
         "authors": index_text(f"Author {n % 50}"),
         "abstract": index_text(" ".join(chance.sample(words, 25))),
         "session": "", "collection": "", "awards": ""}
        for n in range(600)
    ]
    compact = compact_index(documents)
    entry = compact.entry
    held = collections.Counter()
    for document in documents:
        for name, _ in FIELDS:
            held.update(dict(field_terms(document[name])).keys())
    terms = compact.vocabulary["terms"].split(" ")
    ends = [*entry["shardStarts"][1:], len(terms)]
    counted = [sum(held[t] for t in terms[start:end])
               for start, end in zip(entry["shardStarts"], ends, strict=True)]
    assert len(counted) > 4 and max(counted) > 1000  # several shards, some of many hundreds
    assert entry["shardPostings"] == [-(-postings // 100) for postings in counted]
    assert entry["prefixPostings"] == 400


def test_an_index_made_in_runs_is_the_index_made_at_once(monkeypatch) -> None:
    """Postings are weighed and written a run at a time to bound memory: runs of 7 (so that
    runs end inside documents and terms) give the same index as one run."""
    chance = random.Random(11)
    words = [f"{a}{b}" for a in ("graph", "kernel", "spectral") for b in "abcdefg"]
    documents = [
        {"ref": str(n), "title": index_text(" ".join(chance.sample(words, 4))),
         "authors": index_text(f"Author {n % 9}"),
         "abstract": index_text(" ".join(chance.choices(words, k=30))),
         "session": "", "collection": "", "awards": ""}
        for n in range(120)
    ]
    at_once = compact_index(documents)
    monkeypatch.setattr(search_index, "RUN", 7)
    in_runs = compact_index(documents)
    assert in_runs.shards == at_once.shards and in_runs.entry == at_once.entry
    assert len(at_once.shards[0]["postings"][2]) > 7 * 3  # the abstracts' postings span runs


def decoded_postings(text: str) -> list[list[tuple[int, int]]]:
    """Each term's (document, weight) pairs, read back as the page reads them: 5 bits a
    character, a character of DIGITS' second half followed by more of the same number."""
    terms = []
    for part in text.split("."):
        numbers, value = [], 0
        for char in part:
            digit = search_index.DIGITS.index(char)
            value = value * 32 + digit % 32
            if digit < 32:
                numbers.append(value)
                value = 0
        documents = itertools.accumulate(numbers[0::2])
        terms.append(list(zip(documents, numbers[1::2], strict=True)))
    return terms


@pytest.mark.parametrize("largest", [1, 31, 32, 1024, 10**6, 2**40])
def test_postings_read_back_as_written(largest: int, monkeypatch) -> None:
    """Numbers of every width, terms with no posting in the field among them (first, last,
    and between), in runs of 3 so that runs end inside terms."""
    from scipy.sparse import csc_matrix

    chance = random.Random(largest)
    columns = [
        sorted(chance.sample(range(50), chance.choice([0, 0, 1, 5, 30]))) for _ in range(40)
    ]
    columns[0] = columns[-1] = []
    expected = [[(doc, chance.randint(0, largest)) for doc in docs] for docs in columns]
    indptr = list(itertools.accumulate((len(c) for c in columns), initial=0))
    data = [weight for term in expected for _, weight in term]
    indices = [doc for term in expected for doc, _ in term]
    matrix = csc_matrix((data, indices, indptr), shape=(50, len(columns)), dtype="int64")
    assert decoded_postings(search_index.encode_postings(matrix)) == expected
    monkeypatch.setattr(search_index, "RUN", 3)
    assert decoded_postings(search_index.encode_postings(matrix)) == expected


def test_a_file_of_abstracts_is_keyed_by_its_papers_texts_and_the_build() -> None:
    abstracts = [f"Abstract {n}." for n in range(40)]
    texts = [bytes([n]) * 16 for n in range(40)]
    keys = [file.key for file in search_index.abstract_files(abstracts, texts, b"build")]
    texts[20] = b"changed".ljust(16)  # a paper of the second file
    edited = [file.key for file in search_index.abstract_files(abstracts, texts, b"build")]
    other_build = [file.key for file in search_index.abstract_files(abstracts, texts, b"other")]
    assert len(keys) == 3 and len(set(keys)) == 3
    assert [a == b for a, b in zip(keys, edited, strict=True)] == [True, False, True]
    assert not set(other_build) & set(edited)
