"""Related papers from text similarity: TF-IDF vectors of title and abstract, cosine nearest.

The terms are the search index's (lunr's stop words and Porter stemmer), counted once for both.
Titles count twice; term frequencies are sublinear (1 + ln tf) and inverse document frequencies
smoothed, as scikit-learn's TfidfVectorizer makes them. Terms in more than MAX_DOCUMENT_SHARE
of the papers are left out: they say little about a paper, and the top-n product's cost grows
with the square of a term's document count (at 100,000 papers they were nearly all of it).
For each paper the most similar others above a floor are kept. Ties break by id, so output
is stable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .terms import CorpusTerms

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

RELATED_COUNT = 5
MIN_SIMILARITY = 0.08
MAX_DOCUMENT_SHARE = 0.2
MIN_PAPERS_FOR_SHARE = 200  # below this, no term is frequent enough to mean nothing
# Candidates asked of the top-n product beyond the ones kept: self, plus room for ties at the
# cut, which are then broken by id rather than by the order the product found them in.
EXTRA_CANDIDATES = 5


def tfidf_matrix(terms: CorpusTerms) -> csr_matrix:
    """One L2-normalized row per paper, one column per term."""
    # Imported here, as below: a rebuild with nothing to do never needs them.
    import numpy as np
    from scipy.sparse import csr_matrix

    counts = csr_matrix(terms.abstract + 2 * terms.title)
    counts.sort_indices()
    papers, columns = counts.shape[0], counts.indices
    document_counts = np.bincount(columns, minlength=counts.shape[1])
    idf = np.log((1 + papers) / (1 + document_counts)) + 1
    weights = (1 + np.log(counts.data.astype(np.float64))) * idf[columns]
    if papers >= MIN_PAPERS_FOR_SHARE:
        weights[document_counts[columns] > MAX_DOCUMENT_SHARE * papers] = 0
    matrix = csr_matrix((weights, columns, counts.indptr), shape=counts.shape)
    matrix.eliminate_zeros()
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1
    return csr_matrix(matrix.multiply(1 / norms[:, None]))


def related_papers(
    ids: Sequence[str], terms: CorpusTerms, threads: int = 1
) -> dict[str, tuple[str, ...]]:
    """For each paper id, the ids of the most similar other papers, most similar first."""
    from sparse_dot_topn import sp_matmul_topn

    matrix = tfidf_matrix(terms)
    if len(ids) < 2 or matrix.nnz == 0:
        return {paper_id: () for paper_id in ids}
    # Only the best few per row are ever materialised, so memory stays linear in the papers.
    nearest = sp_matmul_topn(
        matrix,
        matrix.T.tocsr(),
        top_n=RELATED_COUNT + EXTRA_CANDIDATES,
        threshold=MIN_SIMILARITY,
        n_threads=threads,
    )
    result: dict[str, tuple[str, ...]] = {}
    for row, paper_id in enumerate(ids):
        start, end = nearest.indptr[row], nearest.indptr[row + 1]
        scored = [
            (-round(float(score), 9), ids[column])
            for column, score in zip(
                nearest.indices[start:end], nearest.data[start:end], strict=True
            )
            if column != row and round(float(score), 9) >= MIN_SIMILARITY
        ]
        result[paper_id] = tuple(other for _, other in sorted(scored)[:RELATED_COUNT])
    return result
