"""Related papers from text similarity: TF-IDF vectors of title and abstract, cosine nearest.

Titles count twice; English stop words are dropped; term frequencies are sublinear. For each
paper the most similar others above a floor are kept. Ties break by id, so output is stable.
"""

from __future__ import annotations

from .records import Paper

RELATED_COUNT = 5
MIN_SIMILARITY = 0.08
# Candidates asked of the top-n product beyond the ones kept: self, plus room for ties at the
# cut, which are then broken by id rather than by the order the product found them in.
EXTRA_CANDIDATES = 5


def related_papers(papers: tuple[Paper, ...], threads: int = 1) -> dict[str, tuple[str, ...]]:
    if len(papers) < 2:
        return {paper.id: () for paper in papers}
    # Imported here: scikit-learn takes a second to import, which a no-op rebuild never needs.
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sparse_dot_topn import sp_matmul_topn

    texts = [f"{p.title or ''} {p.title or ''} {p.abstract or ''}" for p in papers]
    vectorizer = TfidfVectorizer(
        stop_words="english", sublinear_tf=True, min_df=1, dtype=np.float64
    )
    try:
        matrix = vectorizer.fit_transform(texts).tocsr()
    except ValueError:  # every text empty or stop words only
        return {paper.id: () for paper in papers}
    # Only the best few per row are ever materialised, so memory stays linear in the papers.
    nearest = sp_matmul_topn(
        matrix,
        matrix.T.tocsr(),
        top_n=RELATED_COUNT + EXTRA_CANDIDATES,
        threshold=MIN_SIMILARITY,
        n_threads=threads,
    )
    ids = [paper.id for paper in papers]
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
