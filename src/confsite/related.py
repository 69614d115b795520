"""Related papers from text similarity: TF-IDF vectors of title and abstract, cosine nearest.

Titles count twice; English stop words are dropped; term frequencies are sublinear. For each
paper the most similar others above a floor are kept. Ties break by id, so output is stable.
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from .records import Paper

RELATED_COUNT = 5
MIN_SIMILARITY = 0.08
BLOCK_ROWS = 2000  # rows of the similarity matrix held in memory at once


def related_papers(papers: tuple[Paper, ...]) -> dict[str, tuple[str, ...]]:
    if len(papers) < 2:
        return {paper.id: () for paper in papers}
    texts = [f"{p.title or ''} {p.title or ''} {p.abstract or ''}" for p in papers]
    vectorizer = TfidfVectorizer(
        stop_words="english", sublinear_tf=True, min_df=1, dtype=np.float64
    )
    try:
        matrix = vectorizer.fit_transform(texts)
    except ValueError:  # every text empty or stop words only
        return {paper.id: () for paper in papers}
    ids = [paper.id for paper in papers]
    rank_of = np.argsort(np.array(ids, dtype=object))  # id order, for tie-breaking
    id_rank = np.empty(len(ids), dtype=np.int64)
    id_rank[rank_of] = np.arange(len(ids))
    result: dict[str, tuple[str, ...]] = {}
    for start in range(0, len(papers), BLOCK_ROWS):
        block = (matrix[start : start + BLOCK_ROWS] @ matrix.T).toarray()
        for offset, row in enumerate(block):
            index = start + offset
            row[index] = 0.0
            scores = np.round(row, 9)
            candidates = np.nonzero(scores >= MIN_SIMILARITY)[0]
            order = sorted(candidates, key=lambda j: (-scores[j], id_rank[j]))
            result[ids[index]] = tuple(ids[j] for j in order[:RELATED_COUNT])
    return result
