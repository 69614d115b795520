"""The term cache counts only texts it has not seen, keeps exactly the current texts, and
throws itself away when it is unreadable or from other code."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix

import confsite.cache.terms
import confsite.render.terms
import confsite.text.plain
from confsite.cache.inputs import KeptPapers
from confsite.cache.terms import CACHE_FILE, TermCache, texts_digest
from confsite.diagnostics import SourceLoc
from confsite.model.records import Paper
from confsite.render.corpus import plain_abstracts
from confsite.render.terms import CorpusTerms, paper_terms, plain_abstract, rows_in_order
from confsite.text.plain import plain_text, take_plain_texts


def paper(paper_id: str, title: str, abstract: str) -> Paper:
    return Paper(
        id=paper_id, title=title, authors=(), affiliations=(), abstract=abstract, links=(),
        keywords=(), presentation=None,
        decision=None, attendance=None, awards=(), sessions=(), session_order=(),
        session_rooms=(), room=None,
        conference=None, year=None, sources=(SourceLoc("dump.txt", 1),),
    )


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The titles whose terms were counted, in order."""
    titles: list[str] = []

    def counting(record: Paper) -> str:
        titles.append(record.title or "")
        return plain_abstract(record)

    # Made once for each text the cache counts (its plain abstract is kept with its terms).
    monkeypatch.setattr(confsite.cache.terms, "plain_abstract", counting)
    return titles


def counts(terms: CorpusTerms) -> list[tuple[Counter[str], Counter[str]]]:
    """Each row of the matrices as the Counters `paper_terms` gives."""

    def row(matrix: csr_matrix, number: int) -> Counter[str]:
        start, end = matrix.indptr[number], matrix.indptr[number + 1]
        columns, values = matrix.indices[start:end], matrix.data[start:end]
        return Counter({terms.vocabulary[c]: int(v) for c, v in zip(columns, values, strict=True)})

    return [(row(terms.title, n), row(terms.abstract, n)) for n in range(len(terms))]


def build_terms(
    folder: Path, papers: list[Paper], fingerprint: bytes = b"code", kept: KeptPapers | None = None
) -> list:
    cache = TermCache(folder, fingerprint, kept or KeptPapers())
    terms = cache.paper_terms(papers)
    cache.save()
    assert list(terms.vocabulary) == sorted(set(terms.vocabulary)), "not canonical"
    assert list(terms.abstracts) == [plain_abstract(p) for p in papers]
    return counts(terms)


def test_only_new_texts_are_counted_and_results_equal_counting(
    tmp_path: Path, counted: list[str]
) -> None:
    first = [paper("a", "Graph networks", "We study graphs."), paper("b", "Diffusion", "Noise.")]
    assert build_terms(tmp_path, first) == [paper_terms(p) for p in first]
    assert counted == ["Graph networks", "Diffusion"]

    edited = [first[0], paper("b", "Diffusion", "Noise, revised."), paper("c", "New", "Text.")]
    counted.clear()
    assert build_terms(tmp_path, edited) == [paper_terms(p) for p in edited]
    assert counted == ["Diffusion", "New"]  # the unchanged paper came from the cache

    counted.clear()
    build_terms(tmp_path, edited)
    assert counted == []


def test_cache_keeps_only_the_current_texts(tmp_path: Path, counted: list[str]) -> None:
    build_terms(tmp_path, [paper("a", "One", "x"), paper("b", "Two", "y")])
    build_terms(tmp_path, [paper("b", "Two", "y")])
    counted.clear()
    build_terms(tmp_path, [paper("a", "One", "x")])
    assert counted == ["One"], "a text no longer in the site was not forgotten"


@pytest.mark.parametrize("damage", ["other code", "truncated", "not a cache"])
def test_unusable_cache_is_ignored(tmp_path: Path, counted: list[str], damage: str) -> None:
    papers = [paper("a", "One", "x")]
    build_terms(tmp_path, papers)
    path = tmp_path / CACHE_FILE
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:20])
    elif damage == "not a cache":
        path.write_bytes(b"\x80\x05K\x01.")  # a pickled 1
    counted.clear()
    fingerprint = b"new code" if damage == "other code" else b"code"
    assert build_terms(tmp_path, papers, fingerprint) == [paper_terms(papers[0])]
    assert counted == ["One"]


def test_cached_and_counted_terms_give_identical_arrays(tmp_path: Path) -> None:
    """Related papers sum floats along rows: a row must be the same arrays whether its text
    came from the cache or was counted in this build, or rebuilds would differ in the last bit."""
    first = [paper("a", "Zebra graphs", "Alpha beta."), paper("b", "Apple", "Graphs of zebra.")]
    edited = [first[0], paper("b", "Apple", "Graphs of zebra, aardvark.")]
    cache = TermCache(tmp_path, b"code")
    cache.paper_terms(first)
    cache.save()
    incremental = TermCache(tmp_path, b"code").paper_terms(edited)
    fresh = TermCache(tmp_path / "empty", b"code").paper_terms(edited)
    assert incremental.vocabulary == fresh.vocabulary
    assert incremental.abstracts == fresh.abstracts == ("Alpha beta.", "Graphs of zebra, aardvark.")
    for matrix in ("title", "abstract"):
        a, b = getattr(incremental, matrix), getattr(fresh, matrix)
        for part in ("data", "indices", "indptr"):
            assert getattr(a, part).tolist() == getattr(b, part).tolist(), (matrix, part)


def test_counting_in_chunks_gives_the_same_terms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counts become arrays a chunk of texts at a time; chunk edges must not show, nor a
    term first met in a later chunk, nor a text with no term."""
    papers = [paper(str(n), f"Graph {n} networks", f"Text number {n} of graphs.") for n in range(7)]
    papers[3] = paper("3", "The", "")  # a stop word alone, and no abstract
    whole = build_terms(tmp_path / "whole", papers)
    monkeypatch.setattr(confsite.render.terms, "TEXT_CHUNK", 2)
    assert build_terms(tmp_path / "chunked", papers) == whole == [paper_terms(p) for p in papers]


def test_the_corpus_worker_hands_on_the_plain_abstracts_that_hold_tex(tmp_path: Path) -> None:
    """On a full build the corpus worker sends the page workers the plain abstracts it made
    for the terms (render/corpus.py · `plain_abstracts`): those that may hold TeX, each paired
    with its own paper, also when the cache holds the texts in another order."""
    tex = paper("tex", "With math", r"We bound $\alpha^2$ by \emph{one} -- twice.")
    papers = [paper("plain", "Plain", "Plain words only."), tex, paper("none", "Empty", "")]
    cache = TermCache(tmp_path, b"code")
    cache.paper_terms(papers)
    cache.save()
    reordered = [papers[2], papers[0], tex]
    terms = TermCache(tmp_path, b"code").paper_terms(reordered)
    assert plain_abstracts(reordered, terms) == {"tex": "We bound α^2 by one – twice."}


def test_plain_text_takes_what_another_process_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page worker given the corpus worker's plain abstracts does not make them again."""
    monkeypatch.setattr(confsite.text.plain, "_made_elsewhere", {})
    text = r"An abstract no test has made plain, with $\beta$ in it."
    take_plain_texts({text: "as the corpus worker made it"})
    assert plain_text(text) == "as the corpus worker made it"
    assert plain_text(text.replace("no test", "nothing")) != "as the corpus worker made it"


@pytest.mark.parametrize(
    "rows",
    [
        [[(0, 1), (5, 2)], [(3, 1)]],  # columns 1, 2 and 4 unused
        [[], []],  # no entry at all
        [[(2, 0)], [(0, 1)]],  # an explicit zero still holds its column, as np.unique says
    ],
)
def test_columns_held_are_the_sorted_distinct_columns_of_every_entry(rows: list) -> None:
    import numpy as np

    from confsite.render.terms import columns_held

    def matrix(pairs: list[tuple[int, int]]) -> csr_matrix:
        columns = [column for column, _ in pairs]
        counts = [count for _, count in pairs]
        return csr_matrix((counts, columns, [0, len(pairs)]), shape=(1, 6))

    matrices = [matrix(pairs) for pairs in rows]
    expected = np.unique(np.concatenate([m.indices for m in matrices]))
    held = columns_held(matrices, 6)
    assert held.tolist() == expected.tolist()
    assert held.tolist() == sorted({column for pairs in rows for column, _ in pairs})


@pytest.fixture
def digested(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the papers whose texts were digested to find their rows, in order."""
    ids: list[str] = []

    def digesting(record: Paper) -> bytes:
        ids.append(record.id)
        return texts_digest(record)

    monkeypatch.setattr(confsite.cache.terms, "texts_digest", digesting)
    return ids


def test_papers_the_input_cache_kept_take_their_rows_by_id_unread(
    tmp_path: Path, digested: list[str]
) -> None:
    """A paper merged from the very entries the last build merged it from has that build's
    text: its row is found by id, with no digest of its text, but only in terms marked with
    the inputs the last build read (cache/inputs.py · `KeptPapers`)."""
    first = [paper("a", "Graph networks", "We study graphs."), paper("b", "Diffusion", "Noise.")]
    build_terms(tmp_path, first, kept=KeptPapers("inputs-1"))
    edited = [paper("c", "New", "Text."), first[0], paper("b", "Diffusion", "Noise, revised.")]
    digested.clear()
    kept = KeptPapers("inputs-2", "inputs-1", frozenset({"a"}))
    assert build_terms(tmp_path, edited, kept=kept) == [paper_terms(p) for p in edited]
    assert digested == ["c", "b"]

    digested.clear()  # terms marked with other inputs than the last build read: all digested
    other = KeptPapers("inputs-3", "inputs-1", frozenset({"a", "b", "c"}))
    assert build_terms(tmp_path, edited, kept=other) == [paper_terms(p) for p in edited]
    assert digested == ["c", "a", "b"]


def test_terms_are_marked_again_when_only_the_inputs_changed(
    tmp_path: Path, digested: list[str]
) -> None:
    """An edit that leaves every title and abstract as it was (an author's name) changes the
    inputs: the terms are saved again with the new inputs' key, or the next build would
    digest every text again."""
    papers = [paper("a", "One", "x"), paper("b", "Two", "y")]
    every = frozenset({"a", "b"})
    build_terms(tmp_path, papers, kept=KeptPapers("inputs-1"))
    build_terms(tmp_path, papers, kept=KeptPapers("inputs-2", "inputs-1", every))
    digested.clear()
    assert build_terms(tmp_path, papers, kept=KeptPapers("inputs-3", "inputs-2", every)) == [
        paper_terms(p) for p in papers
    ]
    assert digested == []


@pytest.mark.parametrize("max_runs", [1_000, 0])
def test_rows_in_order_are_the_rows_fancy_indexing_takes(
    monkeypatch: pytest.MonkeyPatch, max_runs: int
) -> None:
    """Copied a run of rows at a time (or, past MAX_ROW_RUNS runs, one by one): the same
    arrays as `matrix[order]`, for orders with runs at both ends, repeats, reversals and
    none at all."""
    monkeypatch.setattr(confsite.render.terms, "MAX_ROW_RUNS", max_runs)
    rng = np.random.default_rng(7)
    dense = rng.integers(0, 3, size=(40, 12)) * (rng.random((40, 12)) < 0.3)
    dense[5] = 0  # an empty row
    matrix = csr_matrix(dense.astype(np.int32))
    orders = [
        list(range(40)),
        [*range(10), 39, *range(11, 40)],  # one row replaced by the last
        [39, *range(1, 39), 0],
        list(rng.permutation(40)),
        [5, 5, 6],
        list(range(39, -1, -1)),
        [],
    ]
    for order in orders:
        taken, expected = rows_in_order(matrix, order), matrix[order]
        assert taken.shape == expected.shape, order
        for part in ("data", "indices", "indptr"):
            assert getattr(taken, part).tolist() == getattr(expected, part).tolist(), (order, part)
