"""ELITE's collection step: rank the book's sentences against the target words (``methods.lexical``: the paper's
overlap, Eq. 1, or BM25, smoothed over neighbours), keep the best, widen them into chunks.

Target words are the content words of the terms (stopwords and one-letter words dropped), so a multi-word term
such as "Mr. Darcy's letter" contributes the words ``darcy`` and ``letter``.
"""

from __future__ import annotations

import numpy as np

from ...book import Book
from ..lexical import RANKINGS, smoothed, targets
from ..trace import Chunk, Hit


def collect(
    book: Book,
    terms: list[str],
    k: int,
    *,
    required: list[str] | None = None,
    exclude: set[int] | frozenset[int] = frozenset(),
    ranking: str = "overlap",
    reach: int = 0,
    decay: float = 0.5,
) -> list[Hit]:
    """Top ``k`` sentences holding words of ``terms``, by ``ranking`` (smoothed over ``reach`` neighbours).

    ``required``: terms of which each returned sentence must hold at least one word (an iteration's new terms);
    ``exclude``: sentence IDs already retrieved.
    """
    found = targets(book, terms)
    if not found or k <= 0:
        return []
    overlap = np.zeros(len(book), dtype=np.int32)
    for target in found:
        overlap[target.sentences] += 1
    raw = RANKINGS[ranking](book, found)
    rank = smoothed(raw, reach, decay)
    eligible = overlap > 0
    if required is not None:
        required_words = {w for term in required for w in book.lexicon.content_words(term)}
        mask = np.zeros(len(book), dtype=bool)
        for target in found:
            if target.word in required_words:
                mask[target.sentences] = True
        eligible &= mask
    if exclude:
        eligible[np.fromiter(exclude, dtype=np.int64)] = False
    candidates = np.flatnonzero(eligible)
    chosen = candidates[np.lexsort((candidates, -raw[candidates], -rank[candidates]))[:k]]
    matched: dict[int, list[str]] = {int(s): [] for s in chosen}
    for target in found:
        for sid in chosen[np.isin(chosen, target.sentences)]:
            matched[int(sid)].append(target.word)
    hits = []
    for n, sid in enumerate(chosen.tolist(), 1):
        s = book.sentence(sid)
        hits.append(Hit.at(s, score=int(overlap[sid]), matched=matched[sid], text=s.text, rank=n,
                           weight=round(float(rank[sid]), 4)))
    return hits


RRF_K = 60
"""Reciprocal rank fusion's constant (Cormack, Clarke & Büttcher, SIGIR 2009): a rank r counts 1 / (60 + r)."""


def reranked(chunks: list[Chunk], question: str, embed) -> list[Chunk]:
    """Passages in lexical order reordered by reciprocal rank fusion of that order and their cosine similarity to
    the question under ``embed`` (MiniLM): the embedding reranks what the words found, it retrieves nothing."""
    if len(chunks) < 2:
        return chunks
    vectors = np.asarray(embed([question, *(c.text for c in chunks)]), dtype=float)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-9)
    similarity = vectors[1:] @ vectors[0]
    by_meaning = {int(n): r for r, n in enumerate(np.argsort(-similarity, kind="stable"), 1)}
    fused = [1 / (RRF_K + n + 1) + 1 / (RRF_K + by_meaning[n]) for n in range(len(chunks))]
    return [chunks[n] for n in sorted(range(len(chunks)), key=lambda n: (-fused[n], n))]


def relevance_model(book: Book, hits: list[Hit], docs: int, count: int, known: set[str],
                    common: float = 0.02) -> list[str]:
    """Pseudo-relevance feedback: RM3's expansion words (Lavrenko & Croft, "Relevance-Based Language Models",
    SIGIR 2001; as Anserini's RM3 selects them). The first ``docs`` hits are the feedback documents, each weighted
    by its share of their ranking weights; a word's weight is the sum over them of P(w|d) = tf(w, d) / |d| times
    the document's weight; the ``count`` heaviest words are kept, leaving out ``known`` words (the query's),
    stopwords, numbers and words in more than ``common`` of the book's sentences (their relevance model weight is
    the book's background, not the passage's)."""
    top = hits[:docs]
    total = sum(max(h.weight, 0.0) for h in top) or 1.0
    limit = common * len(book)
    vocabulary, frequency = book.index.vocabulary, book.index.document_frequency
    weights: dict[str, float] = {}
    for hit in top:
        words = [w for w in book.lexicon.content_words(hit.text) if w.isalpha() and len(w) > 2]
        for word in set(words):
            wid = vocabulary.get(word)
            if word in known or wid is None or frequency[wid] > limit:
                continue
            weights[word] = weights.get(word, 0.0) + words.count(word) / len(words) * max(hit.weight, 0.0) / total
    return sorted(weights, key=lambda w: (-weights[w], w))[:count]


def widen(book: Book, hits: list[Hit], neighbor_num: int, iteration: int = 0) -> list[Chunk]:
    """Each hit plus ``neighbor_num`` sentences on each side; overlapping or touching spans merge into one chunk,
    which keeps the best score and weight of its hits."""
    spans = sorted((max(0, h.sentence_id - neighbor_num), min(len(book) - 1, h.sentence_id + neighbor_num), h)
                   for h in hits)
    merged: list[list] = []
    for first, last, hit in spans:
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
            merged[-1][2].append(hit)
        else:
            merged.append([first, last, [hit]])
    return [
        Chunk(first=first, last=last, hits=sorted(h.sentence_id for h in group), score=max(h.score for h in group),
              text=book.span_text(first, last), iteration=iteration, weight=max(h.weight for h in group))
        for first, last, group in merged
    ]
