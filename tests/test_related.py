"""Related papers after an edit: redoing only the papers it changes gives exactly what
computing every paper afresh gives."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from scipy.sparse import csr_matrix

import confsite.render.related
from confsite.cache.terms import texts_digest
from confsite.model.records import Paper
from confsite.model.site import site_order
from confsite.render.related import (
    MIN_SIMILARITY,
    RELATED_COUNT,
    Nearest,
    ranked_rows,
    related_papers,
)
from confsite.render.terms import (
    CorpusTerms,
    Vocabulary,
    canonical_terms,
    count_matrix,
    paper_terms,
)


def ranked_by_id(ids: list[str], candidates, rows=None) -> dict[str, list[str]]:  # noqa: ANN001
    """The related papers of every paper (or of `rows`), by id."""
    ranked = ranked_rows(ids, candidates, rows)
    rows = np.arange(len(ids)) if rows is None else rows
    return {
        ids[row]: [ids[other] for other in kept]
        for row, kept in zip(rows.tolist(), ranked, strict=True)
    }


def corpus_terms(papers: list[Paper]) -> CorpusTerms:
    vocabulary = Vocabulary()
    counted = [paper_terms(paper) for paper in papers]
    title = count_matrix([t for t, _ in counted], vocabulary)
    abstract = count_matrix([a for _, a in counted], vocabulary)
    keys = [texts_digest(p) for p in papers]
    return canonical_terms(vocabulary.terms, title, abstract, keys, [""] * len(papers))


@pytest.fixture
def rows_redone(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many papers each top-n product computed."""
    counts: list[int] = []
    best = confsite.render.related._best

    def counting(rows, matrix, threads):  # type: ignore[no-untyped-def]
        counts.append(rows.shape[0])
        return best(rows, matrix, threads)

    monkeypatch.setattr(confsite.render.related, "_best", counting)
    return counts


def exact_entries(matrix: csr_matrix) -> list[tuple[int, int, str]]:
    """Every stored entry as (row, column, the value's exact bits), in row and column order."""
    coo = matrix.tocoo()
    return sorted(
        (int(row), int(column), float(value).hex())
        for row, column, value in zip(coo.row, coo.col, coo.data, strict=True)
    )


def candidate_lists(nearest: Nearest) -> list[list[tuple[float, int]]]:
    """Every paper's candidates, best first: more than the related papers shown, so that
    a candidate kept by mistake below them is seen too."""
    matrix = nearest.candidates
    return [
        sorted(
            (-round(float(score), 9), int(column))
            for column, score in zip(
                matrix.indices[matrix.indptr[row] : matrix.indptr[row + 1]],
                matrix.data[matrix.indptr[row] : matrix.indptr[row + 1]],
                strict=True,
            )
        )
        for row in range(matrix.shape[0])
    ]


def scored_lists(nearest: Nearest) -> list[list[tuple[float, int]]]:
    """The candidates as ranking scores them: by the full vectors at archive scale."""
    return candidate_lists(dataclasses.replace(nearest, candidates=nearest.scores))


def edited(papers: list[Paper], number: int, **fields: str) -> list[Paper]:
    return [dataclasses.replace(p, **fields) if n == number else p for n, p in enumerate(papers)]


@pytest.mark.slow  # many related-paper computations over the seeds
@pytest.mark.parametrize("scale", ["exact", "shortlisted", "shortlisted, blocks of 3"])
def test_updating_equals_computing_afresh(
    seeds_build, rows_redone: list[int], monkeypatch: pytest.MonkeyPatch, scale: str
) -> None:
    if scale.startswith("shortlisted"):  # as at archive scale
        monkeypatch.setattr(confsite.render.related, "ARCHIVE_SCALE", 0)
    if scale.endswith("blocks of 3"):  # the changed rows' product made a few rows at a time
        monkeypatch.setattr(confsite.render.related, "CHANGED_BLOCK", 3)
    papers = list(site_order(seeds_build.papers))
    ids = [paper.id for paper in papers]
    assert len(papers) > 1000  # large enough that frequent terms are left out
    _, nearest = related_papers(ids, corpus_terms(papers))
    with_abstract = [n for n, p in enumerate(papers) if p.abstract]
    first, second, third = with_abstract[10], with_abstract[200], with_abstract[400]
    # A new word, and one more paper holding a rare one: only the few papers that hold it
    # change weight.
    version = edited(papers, first, abstract=f"{papers[first].abstract} zyxwv quaternion")
    related, nearest = related_papers(ids, corpus_terms(version), previous=nearest)
    assert rows_redone[-1] < 10, "not an update"
    assert related == related_papers(ids, corpus_terms(version))[0]
    # Larger edits, each on top of the one before, updated however many papers they change:
    # one paper takes another's title and abstract and becomes its nearest, and so on.
    monkeypatch.setattr(confsite.render.related, "MAX_SEARCHED_SHARE", 1.0)
    taken = papers[third]
    edits = [
        (second, {"title": taken.title, "abstract": taken.abstract}),
        (third, {"title": "Diffusion models for graph generation"}),
        (first, {"abstract": papers[first].abstract}),
    ]
    for number, fields in edits:
        version = edited(version, number, **fields)
        terms = corpus_terms(version)
        related, updated = related_papers(ids, terms, previous=nearest)
        assert rows_redone[-1] < len(papers), "not an update"
        afresh, computed = related_papers(ids, terms)
        assert related == afresh
        assert ranked_by_id(ids, updated.candidates) == ranked_by_id(ids, computed.candidates)
        assert candidate_lists(updated) == candidate_lists(computed)
        assert scored_lists(updated) == scored_lists(computed)
        assert updated.best == computed.best
        if number == second:
            assert related[ids[second]][0] == ids[third]
        nearest = updated


@pytest.mark.slow  # related papers of the seeds computed three times
@pytest.mark.parametrize(("word", "term"), [("graph", "graph"), ("accuracy", "accuraci")])
def test_an_edited_common_word_searches_again_only_the_signatures_it_changes(
    seeds_build, rows_redone: list[int], monkeypatch: pytest.MonkeyPatch, word: str, term: str
) -> None:
    """A word added to one abstract changes its weight in every paper that holds it, but
    the signatures (each paper's heaviest terms) of fewer: only those papers look for new
    candidates, and the result is still the one computing afresh gives. "accuracy" is held
    by more than MAX_SEARCHED_SHARE of the papers, yet searched again by fewer: an update."""
    monkeypatch.setattr(confsite.render.related, "ARCHIVE_SCALE", 0)
    papers = list(site_order(seeds_build.papers))
    ids = [paper.id for paper in papers]
    terms = corpus_terms(papers)
    _, nearest = related_papers(ids, terms)
    counts = terms.abstract + terms.title
    holders = np.bincount(counts.indices, minlength=len(terms.vocabulary))
    column = terms.vocabulary.index(term)
    assert 0.03 * len(papers) < holders[column] < 0.19 * len(papers)  # common, not left out
    number = next(n for n, p in enumerate(papers) if p.abstract and column not in counts[n].indices)
    version = edited(papers, number, abstract=f"{papers[number].abstract} {word}")
    changed_terms = corpus_terms(version)
    related, updated = related_papers(ids, changed_terms, previous=nearest)
    # Every holder's vector changed; searched again, each would be redone.
    assert 0 < rows_redone[-1] < holders[column], (rows_redone[-1], holders[column])
    afresh, computed = related_papers(ids, changed_terms)
    assert related == afresh
    assert updated.best == computed.best
    for name in ("signatures", "candidates", "scores"):  # the same bits, not only the order
        assert exact_entries(getattr(updated, name)) == exact_entries(getattr(computed, name))


def made_up_terms(documents: list[tuple[Counter[str], Counter[str]]]) -> CorpusTerms:
    """The terms of made-up papers, each its title's and its abstract's word counts."""
    vocabulary = Vocabulary()
    title = count_matrix([title for title, _ in documents], vocabulary)
    abstract = count_matrix([abstract for _, abstract in documents], vocabulary)
    keys = [repr((sorted(t.items()), sorted(a.items()))).encode() for t, a in documents]
    return canonical_terms(vocabulary.terms, title, abstract, keys, [""] * len(documents))


@pytest.mark.parametrize("archive_scale", [0, 10**9], ids=["shortlisted", "exact"])
@pytest.mark.parametrize("seed", range(6))
def test_updates_of_made_up_programs_equal_computing_afresh(
    seed: int, archive_scale: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Programs of 200 made-up papers over a Zipf vocabulary, one in ten with two twins of
    the same text (so scores tie), shortlisted with short signatures and lists or compared
    exactly, the changed rows multiplied three at a time: after each edit (a common word
    added, a new word, an abstract emptied, a text written anew, another paper's text
    copied) the update from the program before gives the bits computing afresh gives, at
    every stage."""
    for name, value in [("CHANGED_BLOCK", 3), ("MAX_SEARCHED_SHARE", 1.0)]:
        monkeypatch.setattr(confsite.render.related, name, value)
    monkeypatch.setattr(confsite.render.related, "ARCHIVE_SCALE", archive_scale)
    monkeypatch.setattr(confsite.render.related, "SIGNATURE_TERMS", 6)
    monkeypatch.setattr(confsite.render.related, "SHORTLIST", 8)
    rng = np.random.default_rng(seed)
    words = [f"w{number:03d}" for number in range(150)]
    weights = 1 / np.arange(1, len(words) + 1) ** 0.8

    def text(most: int) -> Counter[str]:
        picked = rng.choice(len(words), int(rng.integers(0, most)), p=weights / weights.sum())
        return Counter(words[n] for n in picked)

    documents = [(text(4), text(25)) for _ in range(200)]
    for number in range(0, len(documents), 10):
        documents[number + 1] = documents[number + 2] = documents[number]
    ids = [f"paper-{number:03d}" for number in range(len(documents))]
    _, nearest = related_papers(ids, made_up_terms(documents))
    for step in range(10):
        number = int(rng.integers(len(documents)))
        title, abstract = documents[number]
        edit = step % 5
        if edit == 0:
            abstract = abstract + Counter([words[int(rng.integers(0, 20))]])
        elif edit == 1:
            abstract = abstract + Counter([f"new{step}"])
        elif edit == 2:
            abstract = Counter()
        elif edit == 3:
            title, abstract = text(4), text(25)
        else:
            title, abstract = documents[int(rng.integers(len(documents)))]
        documents[number] = (title, abstract)
        terms = made_up_terms(documents)
        related, updated = related_papers(ids, terms, previous=nearest)
        afresh, computed = related_papers(ids, terms)
        assert related == afresh and updated.best == computed.best, (step, edit)
        for name in ("signatures", "candidates", "scores"):
            made, expected = getattr(updated, name), getattr(computed, name)
            if expected is None:  # compared exactly: no signatures
                assert made is None
                continue
            assert exact_entries(made) == exact_entries(expected), (step, edit, name)
        nearest = updated


def test_a_paper_tying_the_lowest_of_a_list_enters_it_only_if_it_would_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Paper 0's list is itself, paper 1 and paper 2, which ties paper 3 (the same text) and
    was kept as the earlier. Paper 2 is rewritten and paper 4 takes paper 3's text: paper 4
    now ties the list's lowest, yet afresh paper 3 comes before it."""
    monkeypatch.setattr(confsite.render.related, "CANDIDATES", 3)
    monkeypatch.setattr(confsite.render.related, "MAX_SEARCHED_SHARE", 1.0)
    twin = (Counter(), Counter({"shared": 1, "second": 2}))
    documents = [
        (Counter(), Counter({"shared": 3, "own": 1})),
        (Counter(), Counter({"shared": 3, "own": 1, "more": 1})),
        twin,
        twin,
        (Counter(), Counter({"apart": 2})),
    ]
    ids = [f"paper-{number}" for number in range(len(documents))]
    _, nearest = related_papers(ids, made_up_terms(documents))
    assert sorted(nearest.candidates[0].indices) == [0, 1, 2]
    documents[2], documents[4] = (Counter(), Counter({"elsewhere": 2})), twin
    terms = made_up_terms(documents)
    _, updated = related_papers(ids, terms, previous=nearest)
    _, computed = related_papers(ids, terms)
    assert sorted(computed.candidates[0].indices) == [0, 1, 3]
    assert exact_entries(updated.candidates) == exact_entries(computed.candidates)


@pytest.mark.parametrize(("edited", "afresh"), [(20, False), (21, True)])
def test_more_papers_to_search_again_than_the_share_are_computed_afresh(
    edited: int, afresh: bool, rows_redone: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word of its own added to each of `edited` abstracts of 200 changes those papers'
    vectors and signatures alone: up to MAX_SEARCHED_SHARE of them (20) are an update, past
    it every paper is computed afresh."""
    monkeypatch.setattr(confsite.render.related, "ARCHIVE_SCALE", 0)
    monkeypatch.setattr(confsite.render.related, "SIGNATURE_TERMS", 6)
    monkeypatch.setattr(confsite.render.related, "SHORTLIST", 8)
    words = [f"w{number:03d}" for number in range(120)]
    documents = [
        (Counter(), Counter(words[(number * 7 + step) % 120] for step in range(12)))
        for number in range(200)
    ]
    ids = [f"paper-{number:03d}" for number in range(len(documents))]
    _, nearest = related_papers(ids, made_up_terms(documents))
    for number in range(edited):
        title, abstract = documents[number * 9]
        documents[number * 9] = (title, abstract + Counter({f"own{number}": 1}))
    terms = made_up_terms(documents)
    related, _ = related_papers(ids, terms, previous=nearest)
    assert (rows_redone[-1] == len(documents)) == afresh, rows_redone
    assert related == related_papers(ids, terms)[0]


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_a_change_in_paper_count_computes_afresh(seeds_build, rows_redone: list[int]) -> None:
    papers = list(site_order(seeds_build.papers))
    ids = [paper.id for paper in papers]
    _, nearest = related_papers(ids, corpus_terms(papers))
    rows_redone.clear()
    fewer = papers[:-1]
    related, _ = related_papers(ids[:-1], corpus_terms(fewer), previous=nearest)
    assert rows_redone == [len(fewer)]
    assert related == related_papers(ids[:-1], corpus_terms(fewer))[0]


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_unchanged_texts_reuse_every_candidate(seeds_build, rows_redone: list[int]) -> None:
    papers = list(site_order(seeds_build.papers))
    ids = [paper.id for paper in papers]
    first, nearest = related_papers(ids, corpus_terms(papers))
    rows_redone.clear()
    again, kept = related_papers(ids, corpus_terms(papers), previous=nearest)
    assert rows_redone == [] and again == first and kept is nearest
    assert isinstance(nearest, Nearest)


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_new_ids_rank_again_without_a_product(seeds_build, rows_redone: list[int]) -> None:
    """Ties break by id, so ids given in the opposite order rank papers again (from the
    candidates kept: the texts did not change). Two papers with the same text tie for the
    papers like them."""
    papers = list(site_order(seeds_build.papers))
    ids = [paper.id for paper in papers]
    with_abstract = [n for n, p in enumerate(papers) if p.abstract]
    taken = papers[with_abstract[400]]
    papers = edited(papers, with_abstract[200], title=taken.title, abstract=taken.abstract)
    _, nearest = related_papers(ids, corpus_terms(papers))
    rows_redone.clear()
    reversed_ids = [f"{len(ids) - number:05d}" for number in range(len(ids))]
    related, _ = related_papers(reversed_ids, corpus_terms(papers), previous=nearest)
    assert rows_redone == []
    assert related == related_papers(reversed_ids, corpus_terms(papers))[0]


def test_a_paper_leaving_a_full_list_lets_the_next_one_in() -> None:
    """Paper 0's list holds CANDIDATES papers; one of them changes and no longer resembles
    it, so the best paper that did not fit before must take its place."""
    import numpy as np
    from scipy.sparse import csr_matrix

    from confsite.render.related import CANDIDATES, _best, _updated

    papers = CANDIDATES + 1  # paper 0 and one similar paper more than its list holds
    dense = np.zeros((papers, papers + 1))
    dense[:, 0] = 1.0
    for number in range(1, papers):  # less and less like paper 0 (all above the floor)
        dense[number, number] = 0.1 * number
    before = csr_matrix(dense / np.linalg.norm(dense, axis=1)[:, None])
    dense[1] = 0
    dense[1, papers] = 1.0  # paper 1, the most like paper 0, changes entirely
    after = csr_matrix(dense / np.linalg.norm(dense, axis=1)[:, None])
    old = _best(before, before.T.tocsr(), 1)
    assert papers - 1 not in old[0].indices  # the least similar did not fit
    updated, _ = _updated(old, after, np.array([1]), 1)
    afresh = _best(after, after.T.tocsr(), 1)
    assert sorted(updated[0].indices) == sorted(afresh[0].indices)
    assert papers - 1 in updated[0].indices and 1 not in updated[0].indices


def every_pair_similarity(terms: CorpusTerms):  # noqa: ANN201
    """The cosine of every pair of papers, as a dense array (no top-n product, no
    shortlist), rounded as `ranked_rows` rounds, with no paper similar to itself."""
    import numpy as np

    from confsite.render.related import tfidf_matrix

    matrix, _ = tfidf_matrix(terms)
    similarity = (matrix @ matrix.T).toarray().round(9)
    np.fill_diagonal(similarity, 0)
    return similarity


def best_of(similarity, ids: list[str]) -> dict[str, list[str]]:  # noqa: ANN001
    from confsite.render.related import MIN_SIMILARITY, RELATED_COUNT

    return {
        paper_id: [
            ids[other]
            for other in sorted(
                (int(o) for o in (similarity[row] >= MIN_SIMILARITY).nonzero()[0]),
                key=lambda o, row=row: (-similarity[row, o], ids[o]),
            )[:RELATED_COUNT]
        ]
        for row, paper_id in enumerate(ids)
    }


@pytest.mark.slow  # a brute-force similarity of every pair of the seeds
def test_shortlisting_by_signature_finds_what_every_pair_finds(
    seeds_build, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At archive scale candidates come from each paper's signature terms alone; on the
    seeds the results must stay close to those of comparing every pair."""
    from confsite.render.related import MIN_SIMILARITY

    papers = list(site_order(seeds_build.papers))
    ids = [paper.id for paper in papers]
    place = {paper_id: row for row, paper_id in enumerate(ids)}
    terms = corpus_terms(papers)
    similarity = every_pair_similarity(terms)
    truth = best_of(similarity, ids)
    exact, _ = related_papers(ids, terms)
    assert all(list(exact[i]) == truth[i] for i in ids)  # below archive scale: exact
    monkeypatch.setattr(confsite.render.related, "ARCHIVE_SCALE", 0)
    shortlisted, _ = related_papers(ids, terms)
    with_related = [i for i in ids if truth[i]]
    same_first = sum(shortlisted[i][:1] == tuple(truth[i][:1]) for i in with_related)
    found = sum(len(set(shortlisted[i]) & set(truth[i])) for i in with_related)
    assert same_first >= 0.98 * len(with_related), (same_first, len(with_related))
    assert found >= 0.95 * sum(len(truth[i]) for i in with_related), found
    for paper_id, others in shortlisted.items():  # ranked by the full vectors, above the floor
        scores = [similarity[place[paper_id], place[other]] for other in others]
        assert scores == sorted(scores, reverse=True) and min(scores, default=1) >= MIN_SIMILARITY


def _ranked_by_definition(ids: list[str], candidates) -> dict[str, list[str]]:
    """Every candidate rounded and sorted: what `ranked_rows` must give, however it skips
    work."""
    result = {}
    for row, paper_id in enumerate(ids):
        start, end = candidates.indptr[row], candidates.indptr[row + 1]
        scored = sorted(
            (-round(float(score), 9), ids[column])
            for column, score in zip(
                candidates.indices[start:end], candidates.data[start:end], strict=True
            )
            if column != row and round(float(score), 9) >= MIN_SIMILARITY
        )
        result[paper_id] = [other for _, other in scored[:RELATED_COUNT]]
    return result


@pytest.mark.parametrize("seed", range(5))
def test_ranking_skips_only_candidates_that_cannot_rank(seed: int) -> None:
    """Scores a rounding error apart, scores at the floor, rows with few candidates and the
    paper itself among its candidates: the kept lists equal the definition's."""
    rng = np.random.default_rng(seed)
    papers, per_row = 300, 40
    rows = np.repeat(np.arange(papers), per_row)
    columns = rng.integers(0, papers, len(rows))
    base = rng.choice([MIN_SIMILARITY, 0.1, 0.2, 0.3, 0.5], len(rows))
    scores = base + rng.choice([0.0, 1e-12, -1e-12, 4e-10, -4e-10, 6e-10, 3e-9, -3e-9], len(rows))
    keep = rng.random(len(rows)) < np.repeat(rng.random(papers), per_row)  # sparse rows too
    candidates = csr_matrix((scores[keep], (rows[keep], columns[keep])), shape=(papers, papers))
    candidates.sum_duplicates()
    ids = [f"paper-{n:03d}" for n in rng.permutation(papers)]
    expected = _ranked_by_definition(ids, candidates)
    assert ranked_by_id(ids, candidates) == expected
    some = np.sort(rng.choice(papers, papers // 3, replace=False))  # as a rebuild ranks
    assert ranked_by_id(ids, candidates, some) == {ids[row]: expected[ids[row]] for row in some}


def test_row_wise_steps_taken_in_blocks_give_the_same_bits(
    seeds_build, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TF-IDF rows, the signatures and the ranking work a block of rows at a time at
    scale (their temporaries over every paper's entries were the corpus worker's peak): in
    blocks of 7 rows, the seeds' related papers, shortlist and scores are those made whole."""
    papers = list(site_order(seeds_build.papers))
    ids = [paper.id for paper in papers]
    terms = corpus_terms(papers)
    monkeypatch.setattr(confsite.render.related, "ARCHIVE_SCALE", 0)  # signatures and rescoring
    made = {}
    for block in (len(papers) + 1, 7):
        monkeypatch.setattr(confsite.render.related, "ROW_BLOCK", block)
        made[block] = related_papers(ids, terms)
    whole, blocked = made[len(papers) + 1], made[7]
    assert blocked[0] == whole[0]
    for name in ("signatures", "candidates", "scores"):
        one, other = getattr(whole[1], name), getattr(blocked[1], name)
        assert (one.indptr == other.indptr).all() and (one.indices == other.indices).all()
        assert one.data.tobytes() == other.data.tobytes()
    assert sum(len(best) for best in blocked[1].best) > len(papers)  # not vacuous


def test_a_signature_keeps_a_rows_heaviest_terms_the_earlier_of_equal_ones() -> None:
    """Each row cut to its SIGNATURE_TERMS heaviest terms, ties going to the earlier term
    (whatever order the row's entries were stored in), then L2-normalized; checked
    against a sort by definition."""
    from confsite.render.related import SIGNATURE_TERMS, signatures

    rng = np.random.default_rng(5)
    width, rows = 80, []
    for length in (SIGNATURE_TERMS + 12, SIGNATURE_TERMS, 3, 0, SIGNATURE_TERMS + 1):
        columns = rng.permutation(width)[:length]  # stored out of term order
        weights = rng.choice([0.5, 1.0, 2.0], size=length)  # many ties across the cut
        rows.append((columns, weights))
    indptr = np.cumsum([0] + [len(columns) for columns, _ in rows])
    matrix = csr_matrix(
        (np.concatenate([w for _, w in rows]), np.concatenate([c for c, _ in rows]), indptr),
        shape=(len(rows), width),
    )
    cut = signatures(matrix)
    for number, (columns, weights) in enumerate(rows):
        pairs = zip(columns.tolist(), weights.tolist(), strict=True)
        ranked = sorted(pairs, key=lambda pair: (-pair[1], pair[0]))
        kept = sorted(ranked[:SIGNATURE_TERMS])
        length = sum(w * w for _, w in kept) ** 0.5 or 1.0
        row = cut[number]
        assert row.indices.tolist() == [c for c, _ in kept]
        assert row.data == pytest.approx([w / length for _, w in kept])
    assert cut.nnz == 2 * SIGNATURE_TERMS + 3 + 0 + SIGNATURE_TERMS  # rows were cut


def test_rows_replaced_keep_every_other_row_and_each_rows_stored_order() -> None:
    """`with_rows` against rows copied one by one: replaced rows (first, last, an empty one
    made full and a full one made empty) hold the replacements' entries in their stored order
    (not sorted), every other row its own."""
    from confsite.render.related import with_rows

    rng = np.random.default_rng(11)

    def random_rows(count: int) -> list[list[tuple[int, float]]]:
        return [
            [(int(c), float(rng.random())) for c in rng.permutation(30)[: rng.integers(0, 6)]]
            for _ in range(count)
        ]

    def matrix_of(rows: list[list[tuple[int, float]]]) -> csr_matrix:
        indptr = np.cumsum([0] + [len(row) for row in rows])
        columns = [c for row in rows for c, _ in row]
        values = [v for row in rows for _, v in row]
        return csr_matrix((values, columns, indptr), shape=(len(rows), 30))

    old = random_rows(9)
    old[4], old[6] = [], [(3, 0.5), (1, 0.25)]
    replaced = np.array([0, 4, 6, 8])
    new = random_rows(len(replaced))
    new[1], new[2] = [(29, 1.0), (0, 2.0)], []
    made = with_rows(matrix_of(old), replaced, matrix_of(new))
    expected = list(old)
    for row, entries in zip(replaced.tolist(), new, strict=True):
        expected[row] = entries
    for row, entries in enumerate(expected):
        start, end = made.indptr[row], made.indptr[row + 1]
        columns, values = made.indices[start:end].tolist(), made.data[start:end].tolist()
        assert list(zip(columns, values, strict=True)) == entries
    assert made.shape == (9, 30)
