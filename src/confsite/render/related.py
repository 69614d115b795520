"""Related papers from text similarity: TF-IDF vectors of title and abstract, cosine nearest.

The terms are the search index's (lunr's stop words and Porter stemmer), counted once for both.
Titles count twice; term frequencies are sublinear (1 + ln tf) and inverse document frequencies
smoothed, as scikit-learn's TfidfVectorizer makes them. Terms in more than MAX_DOCUMENT_SHARE
of the papers are left out: they say little about a paper, and the top-n product's cost grows
with the square of a term's document count.
For each paper the most similar others above a floor are kept. Ties among a paper's
candidates break by id, so output is stable; the candidate list itself, cut before that,
keeps the earlier papers (by row) of a tie at its end.

At archive scale the exact top-n product takes minutes (every pair of papers sharing a term is
scored), so from ARCHIVE_SCALE papers each paper's candidates are shortlisted by a signature,
its SIGNATURE_TERMS highest-weighted terms (a pair is scored only when both have a term among
their signatures), and the shortlist is then ranked by the full vectors' cosine. On the seeds
this finds the same most similar paper for 99 % of papers; docs/performance.md has the numbers.

A rebuild redoes only what an edit can change. A paper's vector changes when its text does or
when one of its terms changes weight (its document count changed); every other paper keeps its
candidates, merged with its similarity to the changed ones. At archive scale a signature is cut
from the paper's own weights, so an edited word changes the signatures of the few papers that
have it among their heaviest terms, not of all that hold it: only those search again. Only the
papers whose candidates or whose candidates' vectors that alters are scored and ranked again.
Sums run over sorted terms in every path, so the result is the one a build from scratch gives.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .terms import CorpusTerms

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

RELATED_COUNT = 5
MIN_SIMILARITY = 0.08
# Rounding to 9 places moves a score by at most half of 1e-9 (plus a float's last bit): a
# score further than this below another cannot overtake it once both are rounded.
ROUNDING_SLACK = 2e-9
MAX_DOCUMENT_SHARE = 0.2
MIN_PAPERS_FOR_SHARE = 200  # below this, no term is frequent enough to mean nothing
# Candidates asked of the top-n product beyond the ones kept: self, plus room for ties at the
# cut, which are then broken by id rather than by the order the product found them in.
EXTRA_CANDIDATES = 5
CANDIDATES = RELATED_COUNT + EXTRA_CANDIDATES
# Past this share of papers searched again (those whose vector changed; at archive scale,
# those whose signature changed), computing every paper afresh is about as quick.
MAX_SEARCHED_SHARE = 0.1
# Papers from which candidates are shortlisted by signature: from about here the shortlist is
# quicker on real abstracts, and finds nearly the same lists (docs/site.md).
ARCHIVE_SCALE = 6_000
SIGNATURE_TERMS = 30
SHORTLIST = 40  # candidates per paper the signatures give, ranked by the full vectors
SHORTLIST_FLOOR = 0.0
RESCORED_PAIRS = 10_000  # pairs scored at once: bounds the memory of the row products
CHANGED_BLOCK = 200  # a rebuild's changed rows multiplied at once (see `_entering`)
# Rows a row-wise step takes at once: its temporaries over all 100,000 papers' entries were
# the corpus worker's peak.
ROW_BLOCK = 10_000


@dataclass(frozen=True)
class Nearest:
    """Every stage of the related papers, with rows in the order of `keys` (which names each
    row's text) and every term's weight: what the next build needs to redo only the rows an
    edit changes, at each stage."""

    keys: tuple[bytes, ...]
    vocabulary: tuple[str, ...]
    term_weights: np.ndarray  # per term of `vocabulary`: its idf, or 0 where left out
    signatures: csr_matrix | None  # at archive scale, what candidates are searched by
    candidates: csr_matrix  # each paper's best by the matrix searched: the shortlist at scale
    scores: csr_matrix  # the candidates scored by the full vectors (at scale, rescored)
    ids: tuple[str, ...]  # ranking breaks ties by id
    best: tuple[tuple[int, ...], ...]  # each paper's related papers, by row


def tfidf_matrix(terms: CorpusTerms) -> tuple[csr_matrix, np.ndarray]:
    """One L2-normalized row per paper, one column per term; and each term's weight (idf, or
    0 for a term left out)."""
    # Imported here, as below: a rebuild with nothing to do never needs them.
    import numpy as np

    counts = by_row_blocks(lambda block, rows: _counts(block, terms.title[rows]), terms.abstract)
    papers, columns = counts.shape[0], counts.indices
    document_counts = np.bincount(columns, minlength=counts.shape[1])
    idf = np.log((1 + papers) / (1 + document_counts)) + 1
    if papers >= MIN_PAPERS_FOR_SHARE:
        idf[document_counts > MAX_DOCUMENT_SHARE * papers] = 0
    return by_row_blocks(lambda block, _: l2_normalized(_weighted(block, idf)), counts), idf


def _counts(abstracts: csr_matrix, titles: csr_matrix) -> csr_matrix:
    """Papers' term counts, titles counting twice, each row in term order."""
    from scipy.sparse import csr_matrix

    counts = csr_matrix(abstracts + 2 * titles)
    counts.sort_indices()
    return counts


def _weighted(counts: csr_matrix, idf: np.ndarray) -> csr_matrix:
    """Counts as TF-IDF weights, not normalized; terms left out dropped."""
    import numpy as np
    from scipy.sparse import csr_matrix

    weights = (1 + np.log(counts.data.astype(np.float64))) * idf[counts.indices]
    matrix = csr_matrix((weights, counts.indices, counts.indptr), shape=counts.shape)
    matrix.eliminate_zeros()
    return matrix


def related_papers(
    ids: Sequence[str], terms: CorpusTerms, threads: int = 1, previous: Nearest | None = None
) -> tuple[dict[str, tuple[str, ...]], Nearest]:
    """For each paper id, the ids of the most similar other papers, most similar first; and
    what a later call needs to redo only what changed since (`previous`, from an earlier call;
    returned itself when nothing changed)."""
    matrix, term_weights = tfidf_matrix(terms)
    changed = None if previous is None else _changed_rows(previous, terms, term_weights)
    if previous is None or changed is None:
        update = None
    elif len(changed) == 0 and previous.ids == tuple(ids):  # nothing changed
        return _related_by_id(previous), previous
    elif len(changed) == 0:  # the same texts, new ids: ties break by id, so every paper
        update = dataclasses.replace(previous, ids=tuple(ids)), None
    else:  # None when too many papers are to be searched again
        update = _updated_nearest(previous, ids, terms, matrix, term_weights, changed, threads)
    if update is None:
        update = _afresh(ids, terms, matrix, term_weights, threads), None
    nearest, unranked = update
    del matrix  # before ranking, the corpus worker's peak at archive scale
    nearest = _ranked_where(nearest, unranked)
    return _related_by_id(nearest), nearest


def _related_by_id(nearest: Nearest) -> dict[str, tuple[str, ...]]:
    ids = nearest.ids
    return {
        paper_id: tuple(ids[other] for other in best)
        for paper_id, best in zip(ids, nearest.best, strict=True)
    }


def _ranked_where(nearest: Nearest, rows: np.ndarray | None) -> Nearest:
    """`nearest` with the papers of `rows` ranked again by its scores (None: every paper),
    the others' related papers kept."""
    ranked = ranked_rows(nearest.ids, nearest.scores, rows)
    if rows is None:
        return dataclasses.replace(nearest, best=ranked)
    best = list(nearest.best)
    for row, kept in zip(rows.tolist(), ranked, strict=True):
        best[row] = kept
    return dataclasses.replace(nearest, best=tuple(best))


def _afresh(
    ids: Sequence[str],
    terms: CorpusTerms,
    matrix: csr_matrix,
    term_weights: np.ndarray,
    threads: int,
) -> Nearest:
    """Every stage computed for every paper but the ranking: its `best` is empty until
    `_ranked_where` ranks every paper."""
    cut = signatures_of(terms, term_weights) if at_archive_scale(len(terms)) else None
    searched = matrix if cut is None else cut
    candidates = _best(searched, searched.T.tocsr(), threads)
    scores = candidates if cut is None else rescored(candidates, matrix)
    return Nearest(
        terms.keys, terms.vocabulary, term_weights, cut, candidates, scores, tuple(ids), ()
    )


def _updated_nearest(
    previous: Nearest,
    ids: Sequence[str],
    terms: CorpusTerms,
    matrix: csr_matrix,
    term_weights: np.ndarray,
    changed: np.ndarray,
    threads: int,
) -> tuple[Nearest, np.ndarray | None] | None:
    """`previous` brought up to date where the `changed` rows' vectors make a difference:
    their signatures; the candidates of the papers whose lists a changed signature enters or
    leaves; those papers' scores, and every pair's that holds a changed paper. And the
    papers to rank again (see `_ranked_where`): those, or every paper (None) if the ids
    changed, whose `best` is then empty until ranked. None when more than MAX_SEARCHED_SHARE
    of the papers are to be searched again."""
    import numpy as np

    cut, searched_changed = previous.signatures, changed
    if cut is not None:
        cut = renumbered(cut, previous.vocabulary, terms.vocabulary)
        fresh = signatures_of(terms, term_weights, changed)
        differ = _rows_differ(cut[changed], fresh)
        # A paper whose signature kept its bits is searched for as before: an edited word
        # changes the weight of thousands of papers, but the signatures of few.
        searched_changed = changed[differ]
        cut = with_rows(cut, searched_changed, fresh[differ])
    if len(searched_changed) > MAX_SEARCHED_SHARE * len(terms):
        return None
    searched = matrix if cut is None else cut
    candidates, affected = _updated(previous.candidates, searched, searched_changed, threads)
    if cut is None:
        scores = candidates
    else:
        scores = with_rows(
            previous.scores, affected, rescored(candidates[affected], matrix, affected)
        )
        scores, rescored_rows = _rescored_touching(scores, matrix, changed, affected)
        affected = np.union1d(affected, rescored_rows)
    same_ids = previous.ids == tuple(ids)
    nearest = Nearest(
        terms.keys,
        terms.vocabulary,
        term_weights,
        cut,
        candidates,
        scores,
        tuple(ids),
        previous.best if same_ids else (),
    )
    return nearest, affected if same_ids else None


def renumbered(
    matrix: csr_matrix, vocabulary: Sequence[str], new_vocabulary: Sequence[str]
) -> csr_matrix:
    """`matrix`, whose columns are the terms of `vocabulary`, over `new_vocabulary` instead.
    Both are sorted, so each row stays in column order. A term gone from the new one was held
    only by texts that changed; it is put in column 0, where such a row compares as changed
    with its new signature (see `_rows_differ`) unless that gives the very same entries."""
    import numpy as np
    from scipy.sparse import csr_matrix

    if vocabulary == new_vocabulary:
        return matrix
    place = {term: number for number, term in enumerate(new_vocabulary)}
    column = np.array([place.get(term, 0) for term in vocabulary], dtype=np.int64)
    count = matrix.indptr[-1]
    indices = column[matrix.indices[:count]]
    shape = (matrix.shape[0], len(new_vocabulary))
    return csr_matrix((matrix.data[:count], indices, matrix.indptr), shape=shape)


def with_rows(matrix: csr_matrix, rows: np.ndarray, replacements: csr_matrix) -> csr_matrix:
    """`matrix` with its `rows` (sorted, distinct) replaced by those of `replacements`, in
    order; the other rows' entries are copied as they are. Stacked and taken by row in
    scipy's C: sorting every entry to merge in a few rows took 0.1-0.5 s a call in a one-abstract
    rebuild at 100,000 papers. Both matrices as `csr_matrix` makes them: the same columns,
    no entries stored past the last row's end."""
    import numpy as np
    from scipy.sparse import vstack

    order = np.arange(matrix.shape[0])
    order[rows] = matrix.shape[0] + np.arange(len(rows))
    return vstack([matrix, replacements], format="csr")[order]


def by_row_blocks(
    step: Callable[[csr_matrix, slice], csr_matrix], matrix: csr_matrix
) -> csr_matrix:
    """`step`, which works on each row alone, over ROW_BLOCK rows at a time (with the block's
    rows as a slice), the blocks' results stacked."""
    from scipy.sparse import vstack

    blocks = [slice(start, start + ROW_BLOCK) for start in range(0, matrix.shape[0], ROW_BLOCK)]
    if len(blocks) <= 1:
        return step(matrix, slice(0, matrix.shape[0]))
    return vstack([step(matrix[block], block) for block in blocks], format="csr")


def signatures_of(
    terms: CorpusTerms, idf: np.ndarray, rows: np.ndarray | None = None
) -> csr_matrix:
    """The signatures of the papers of `rows` (None: every paper), in their order, each cut
    from the paper's own TF-IDF weights rather than its normalized vector: a paper's
    signature then keeps its bits while its own weights do, whatever the terms of other
    papers do (see `_updated_nearest`)."""
    abstracts, titles = terms.abstract, terms.title
    if rows is not None:
        abstracts, titles = abstracts[rows], titles[rows]
    return by_row_blocks(
        lambda block, where: signatures(_weighted(_counts(block, titles[where]), idf)), abstracts
    )


def signatures(matrix: csr_matrix) -> csr_matrix:
    """Each row cut to its SIGNATURE_TERMS highest weights (ties: the earlier term), then
    L2-normalized again."""
    import numpy as np
    from scipy.sparse import csr_matrix

    matrix.sort_indices()  # a row's ties then keep the earlier term first: both sorts are stable
    lengths = np.diff(matrix.indptr)
    rows = np.repeat(np.arange(matrix.shape[0]), lengths)
    # By row, then weight: lexsort's third key, the term, was a whole pass more.
    by_weight = np.argsort(-matrix.data, kind="stable")
    order = by_weight[np.argsort(rows[by_weight], kind="stable")]
    rank = np.arange(len(order)) - matrix.indptr[rows[order]]
    kept = np.sort(order[rank < SIGNATURE_TERMS])  # back in row, then term, order
    indptr = np.concatenate([[0], np.cumsum(np.minimum(lengths, SIGNATURE_TERMS))])
    cut = csr_matrix((matrix.data[kept], matrix.indices[kept], indptr), shape=matrix.shape)
    return l2_normalized(cut)


def l2_normalized(matrix: csr_matrix) -> csr_matrix:
    """Each row divided by its length (an empty row kept), on the arrays themselves: scipy's
    elementwise products made the same numbers by way of other formats and back."""
    import numpy as np
    from scipy.sparse import csr_matrix

    data, shape = matrix.data, matrix.shape
    squares = csr_matrix((data * data, matrix.indices, matrix.indptr), shape=shape)
    norms = np.sqrt(np.asarray(squares.sum(axis=1)).ravel())
    norms[norms == 0] = 1
    scale = np.repeat(1 / norms, np.diff(matrix.indptr))
    return csr_matrix((data * scale, matrix.indices, matrix.indptr), shape=shape)


def rescored(
    shortlist: csr_matrix, matrix: csr_matrix, rows: np.ndarray | None = None
) -> csr_matrix:
    """The shortlist's pairs with the cosine of their full vectors (rows of `matrix`); the
    shortlist's rows are `rows` of the matrix, or all of them in order."""
    from scipy.sparse import csr_matrix

    local, columns, _ = _entries(shortlist)
    papers = local if rows is None else rows[local]
    scores = _pair_scores(matrix, papers, columns)
    return csr_matrix((scores, (local, columns)), shape=shortlist.shape)


def _pair_scores(matrix: csr_matrix, papers: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The cosine of each pair's full vectors (rows of `matrix`), RESCORED_PAIRS at a time."""
    import numpy as np

    scores = np.empty(len(papers))
    for start in range(0, len(papers), RESCORED_PAIRS):
        part = slice(start, start + RESCORED_PAIRS)
        products = matrix[papers[part]].multiply(matrix[others[part]])
        scores[part] = np.asarray(products.sum(axis=1)).ravel()
    return scores


def _rescored_touching(
    scores: csr_matrix, matrix: csr_matrix, changed: np.ndarray, done: np.ndarray
) -> tuple[csr_matrix, np.ndarray]:
    """`scores` with every pair that holds a `changed` paper scored again by the full
    vectors, but in the rows `done` (scored whole already); and the rows of those pairs."""
    import numpy as np
    from scipy.sparse import csr_matrix

    rows, columns, values = _entries(scores)
    touched = np.zeros(scores.shape[0], dtype=bool)
    touched[changed] = True
    is_done = np.zeros(scores.shape[0], dtype=bool)
    is_done[done] = True
    stale = (touched[rows] | touched[columns]) & ~is_done[rows]
    values = values.copy()
    values[stale] = _pair_scores(matrix, rows[stale], columns[stale])
    updated = csr_matrix((values, columns, scores.indptr), shape=scores.shape)
    return updated, np.unique(rows[stale])


def _rows_differ(old: csr_matrix, new: csr_matrix) -> np.ndarray:
    """For each row, whether the two matrices' rows differ in any term or bit of a value
    (both with their rows in term order)."""
    import numpy as np

    old_lengths, new_lengths = np.diff(old.indptr), np.diff(new.indptr)
    differ = old_lengths != new_lengths
    old_rows, old_columns, old_values = _entries(old)
    new_rows, new_columns, new_values = _entries(new)
    in_old, in_new = ~differ[old_rows], ~differ[new_rows]  # rows of equal lengths align
    mismatch = (old_columns[in_old] != new_columns[in_new]) | (
        old_values[in_old] != new_values[in_new]
    )
    differ[old_rows[in_old][mismatch]] = True
    return differ


def _best(rows: csr_matrix, transposed: csr_matrix, threads: int) -> csr_matrix:
    """The best similarities above the floor of each of `rows` to every paper: CANDIDATES
    of them, or the SHORTLIST at archive scale (`transposed`: the matrix searched, transposed,
    made once by the caller). Ties at the cut keep the earlier papers, so that an update,
    which merges lists, keeps the same ones (see `_first_by_score`)."""
    from sparse_dot_topn import sp_matmul_topn

    papers = transposed.shape[1]
    length, floor = list_length(papers), candidate_floor(papers)
    # Only the best few per row are ever materialised, so memory stays linear in the papers.
    # One more than kept shows where a tie crosses the cut: the product keeps whichever tied
    # paper it met first, so such a row is made again whole.
    found = sp_matmul_topn(rows, transposed, top_n=length + 1, threshold=floor, n_threads=threads)
    best, tied = _lowest_dropped(found, length)
    if len(tied):
        best = with_rows(best, tied, _best_whole(rows[tied], transposed, length, threads))
    return best


def _lowest_dropped(found: csr_matrix, length: int) -> tuple[csr_matrix, np.ndarray]:
    """`found` (at most `length` + 1 entries a row) with the lowest entry of each row of
    more than `length` dropped; and the rows where that lowest score ties another, whose
    entries are then no list at all: the product may have left out a tying paper earlier
    than the ones it kept, so they are made again whole."""
    import numpy as np
    from scipy.sparse import csr_matrix

    rows, columns, scores = _entries(found)
    lowest = _lowest_of_full_lists(found, length + 1)  # minus infinity where not over
    at_lowest = scores == lowest[rows]
    at_lowest_count = np.bincount(rows[at_lowest], minlength=found.shape[0])
    kept = ~at_lowest
    indptr = np.concatenate([[0], np.cumsum(np.diff(found.indptr) - at_lowest_count)])
    best = csr_matrix((scores[kept], columns[kept], indptr), shape=found.shape)
    return best, np.nonzero(at_lowest_count > 1)[0]


def _best_whole(rows: csr_matrix, transposed: csr_matrix, length: int, threads: int) -> csr_matrix:
    """Each row's `length` best by the whole product, CHANGED_BLOCK rows at a time (a
    paper's product with every paper sharing a term with it), each block cut at once."""
    from scipy.sparse import vstack
    from sparse_dot_topn import sp_matmul

    def block_best(start: int) -> csr_matrix:
        whole = sp_matmul(rows[start : start + CHANGED_BLOCK], transposed, n_threads=threads)
        return _first_by_score(*_entries(whole), length, whole.shape)

    blocks = [block_best(start) for start in range(0, rows.shape[0], CHANGED_BLOCK)]
    return vstack(blocks, format="csr")


def _first_by_score(
    rows: np.ndarray, columns: np.ndarray, scores: np.ndarray, length: int, shape: tuple
) -> csr_matrix:
    """Each row's `length` best entries, by score, then column: one order, whichever order
    the entries were found in."""
    import numpy as np
    from scipy.sparse import csr_matrix

    order = np.lexsort((columns, -scores, rows))
    rows, columns, scores = rows[order], columns[order], scores[order]
    best = np.arange(len(rows)) - np.searchsorted(rows, rows) < length
    return csr_matrix((scores[best], (rows[best], columns[best])), shape=shape)


def at_archive_scale(papers: int) -> bool:
    """Whether candidates are shortlisted by signature (see the module's docstring)."""
    return papers >= ARCHIVE_SCALE


def list_length(papers: int) -> int:
    """Candidates kept per paper: the shortlist at archive scale."""
    return SHORTLIST if at_archive_scale(papers) else CANDIDATES


def candidate_floor(papers: int) -> float:
    """The similarity a candidate needs: any, for the shortlist, as a pair's signatures can
    share little of what their full vectors share."""
    return SHORTLIST_FLOOR if at_archive_scale(papers) else MIN_SIMILARITY


def _changed_rows(
    previous: Nearest, terms: CorpusTerms, term_weights: np.ndarray
) -> np.ndarray | None:
    """The papers whose vectors differ from `previous`'s: their text changed, or a term they
    hold changed weight. None when the papers themselves differ in number (every weight
    depends on it)."""
    import numpy as np

    if len(previous.keys) != len(terms):
        return None
    new_text = [n for n, (a, b) in enumerate(zip(previous.keys, terms.keys, strict=True)) if a != b]
    old_weight = dict(zip(previous.vocabulary, previous.term_weights.tolist(), strict=True))
    reweighted = np.array(
        [
            old_weight.get(term, weight) != weight
            for term, weight in zip(terms.vocabulary, term_weights.tolist(), strict=True)
        ],
        dtype=bool,
    )
    holding = [
        rows[reweighted[columns]]
        for rows, columns, _ in map(_entries, (terms.title, terms.abstract))
    ]
    return np.unique(np.concatenate([np.asarray(new_text, dtype=np.int64), *holding]))


def _entries(matrix: csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The row, column and value of each entry of `matrix`. (sparse_dot_topn gives an empty
    result one unused entry, so the arrays are cut to the stored count.)"""
    import numpy as np

    count = matrix.indptr[-1]
    rows = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))
    return rows, matrix.indices[:count], matrix.data[:count]


def _updated(
    old: csr_matrix, matrix: csr_matrix, changed: np.ndarray, threads: int
) -> tuple[csr_matrix, np.ndarray]:
    """`old` candidates brought up to date with the `changed` rows of `matrix`, and the rows
    whose candidates that can alter (the changed ones, those whose lists hold one, those
    whose list one can now enter); every other row is kept as it is.

    Another paper's candidates among the unchanged papers are still its best among them, so
    its new best are among those and the changed papers. Only where its list was full and a
    changed paper fell out of it, or only ties its lowest, could a paper ranked just below
    the list enter it; such a paper is redone whole, as are the changed ones."""
    import numpy as np

    if not len(changed):  # no signature changed: every list stands
        return old, np.zeros(0, dtype=np.int64)
    papers = old.shape[0]
    is_changed = np.zeros(papers, dtype=bool)
    is_changed[changed] = True
    transposed = matrix.T.tocsr()
    length = list_length(papers)
    lowest = _lowest_of_full_lists(old, length)
    changed_paper, other_paper, similarity = _entering(
        matrix[changed], transposed, lowest, candidate_floor(papers), threads
    )
    every_row, every_column, _ = _entries(old)
    holding = every_row[is_changed[every_column]]
    affected = np.unique(np.concatenate([changed, holding, other_paper]))
    local = np.full(papers, -1)
    local[affected] = np.arange(len(affected))
    old_rows, old_columns, old_scores = _entries(old[affected])
    kept = ~is_changed[old_columns]
    rows = np.concatenate([old_rows[kept], local[other_paper]])
    columns = np.concatenate([old_columns[kept], changed[changed_paper]])
    scores = np.concatenate([old_scores[kept], similarity])
    full = np.bincount(old_rows, minlength=len(affected)) >= length
    # An entering pair that only ties the lowest may rank below a paper cut at that score.
    surely_in = np.concatenate([np.ones(kept.sum(), dtype=bool), similarity > lowest[other_paper]])
    still_above = np.bincount(rows[surely_in], minlength=len(affected))
    redone = np.nonzero(is_changed[affected] | (full & (still_above < length)))[0]
    fresh_rows, fresh_columns, fresh_scores = _entries(
        _best(matrix[affected[redone]], transposed, threads)
    )
    merged = ~np.isin(rows, redone)
    rows = np.concatenate([rows[merged], redone[fresh_rows]])
    columns = np.concatenate([columns[merged], fresh_columns])
    scores = np.concatenate([scores[merged], fresh_scores])
    updated = _first_by_score(rows, columns, scores, length, (len(affected), papers))
    return with_rows(old, affected, updated), affected


def _entering(
    rows: csr_matrix, transposed: csr_matrix, lowest: np.ndarray, floor: float, threads: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pair of one of `rows` and a paper whose list it can enter: a similarity above the
    floor (as `_best` keeps them) and at least the `lowest` of that paper's full list, as the
    row's number, the paper and the similarity. Below that lowest a pair cannot be among the
    paper's best unless the paper is redone whole. Products of CHANGED_BLOCK rows at a time,
    each cut at once: an edited word's holders are similar to most papers at archive scale,
    and their whole product was gigabytes (10.9 GB at 100,000 papers, docs/performance.md)."""
    import numpy as np
    from sparse_dot_topn import sp_matmul

    def block_pairs(start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        block = rows[start : start + CHANGED_BLOCK]
        row, other, similarity = _entries(sp_matmul(block, transposed, n_threads=threads))
        entering = (similarity > floor) & (similarity >= lowest[other])
        return row[entering] + start, other[entering], similarity[entering]

    found = [block_pairs(start) for start in range(0, rows.shape[0], CHANGED_BLOCK)]
    row, other, similarity = (np.concatenate(parts) for parts in zip(*found, strict=True))
    return row, other, similarity


def _lowest_of_full_lists(candidates: csr_matrix, length: int) -> np.ndarray:
    """Each paper's lowest candidate score where its list holds `length`, else minus
    infinity: a list that was not full held every paper above the floor."""
    import numpy as np

    lengths = np.diff(candidates.indptr)
    lowest = np.full(candidates.shape[0], -np.inf)
    held = lengths > 0
    if held.any():
        starts = candidates.indptr[:-1][held]
        lowest[held] = np.minimum.reduceat(candidates.data[: candidates.indptr[-1]], starts)
    lowest[lengths < length] = -np.inf
    return lowest


def ranked_rows(
    ids: Sequence[str], candidates: csr_matrix, rows: np.ndarray | None = None
) -> tuple[tuple[int, ...], ...]:
    """Per paper of `rows` (None: every paper), the rows of its related papers, most
    similar first. Similarities are rounded, so that ties break by id whichever order the
    product found them in. Every paper is ranked from the candidates in place: a copy of
    them all was half the ranking's memory at archive scale."""
    import numpy as np

    picked = candidates if rows is None else candidates[rows]
    rows = np.arange(candidates.shape[0]) if rows is None else rows
    contenders = by_row_blocks(lambda block, where: _contenders(block, rows[where]), picked)
    indptr, columns, scores = contenders.indptr.tolist(), contenders.indices, contenders.data
    return tuple(
        _best_of(ids, row, columns[start:end].tolist(), scores[start:end].tolist())
        for row, start, end in zip(rows.tolist(), indptr[:-1], indptr[1:], strict=True)
    )


def _best_of(
    ids: Sequence[str], row: int, columns: list[int], scores: list[float]
) -> tuple[int, ...]:
    """The RELATED_COUNT best of one paper's contenders (`row`: the paper itself) above
    MIN_SIMILARITY, by rounded score, then id."""
    scored = []
    for column, score in zip(columns, scores, strict=True):
        rounded = round(score, 9)
        if column != row and rounded >= MIN_SIMILARITY:
            scored.append((-rounded, ids[column], column))
    return tuple(other for _, _, other in sorted(scored)[:RELATED_COUNT])


def _contenders(candidates: csr_matrix, rows: np.ndarray) -> csr_matrix:
    """The candidates that can be among a paper's RELATED_COUNT best once rounded: those
    within the rounding's reach of its RELATED_COUNT-th best score and of MIN_SIMILARITY
    (`rows`: the papers the candidates' rows are). Rounding every candidate in Python took 9 s
    at 100,000 papers (78 candidates each)."""
    import numpy as np
    from scipy.sparse import csr_matrix

    local, columns, scores = _entries(candidates)
    other = (columns != rows[local]) & (scores >= MIN_SIMILARITY - ROUNDING_SLACK)
    local, columns, scores = local[other], columns[other], scores[other]
    order = np.lexsort((-scores, local))
    sorted_rows = local[order]
    rank = np.arange(len(order)) - np.searchsorted(sorted_rows, sorted_rows)
    last_kept = np.full(candidates.shape[0], -np.inf)  # a row with fewer keeps them all
    at_count = order[rank == RELATED_COUNT - 1]
    last_kept[local[at_count]] = scores[at_count]
    kept = scores >= last_kept[local] - ROUNDING_SLACK
    return csr_matrix((scores[kept], (local[kept], columns[kept])), shape=candidates.shape)
