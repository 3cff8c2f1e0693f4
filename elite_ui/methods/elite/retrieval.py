"""ELITE's collection step: rank the book's sentences against the target words (``methods.lexical``: the paper's
overlap, Eq. 1, or BM25, smoothed over neighbours), keep the best, widen them into chunks.

Target words are the content words of the terms (stopwords and one-letter words dropped), so a multi-word term
such as "Mr. Darcy's letter" contributes the words ``darcy`` and ``letter``.
"""

from __future__ import annotations

import math

import numpy as np

from ...book import Book
from ..lexical import RANKINGS, matching, smoothed, targets
from ..trace import Chunk, Hit
from .settings import FeedbackSettings, RetrievalSettings


def collect(
    book: Book,
    terms: list[str],
    how: RetrievalSettings,
    *,
    required: list[str] | None = None,
    exclude: set[int] | frozenset[int] = frozenset(),
    weights: list[float] | None = None,
) -> list[Hit]:
    """Top ``recall_index`` sentences holding words of ``terms``, by the ``ranking`` of ``how`` (smoothed over its
    ``reach`` neighbours).

    ``required``: terms of which each returned sentence must hold at least one word (an iteration's new terms);
    ``exclude``: sentence IDs already retrieved; ``weights``: one a term, what its words count for in ``bm25``.
    """
    found, k = targets(book, terms, weights), how.recall_index
    if not found or k <= 0:
        return []
    overlap = np.zeros(len(book), dtype=np.int32)
    for target in found:
        overlap[target.sentences] += 1
    raw = RANKINGS[how.ranking](book, found)
    rank = smoothed(raw, how.reach, how.decay)
    eligible = overlap > 0
    if required is not None:
        required_words = {w for term in required for w in book.lexicon.content_words(term)}
        eligible &= matching([t for t in found if t.word in required_words], len(book))
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


def feedback_documents(book: Book, hits: list[Hit], docs: int, known: set[str],
                       common: float = 0.02) -> list[tuple[Hit, list[str]]]:
    """The first ``docs`` hits, the feedback documents of pseudo-relevance feedback, each with its candidate words:
    its content words less ``known`` words (the query's), numbers, words of two letters and words in more than
    ``common`` of the book's sentences (their weight is the book's background, not the passage's)."""
    limit = common * len(book)
    vocabulary, frequency = book.index.vocabulary, book.index.document_frequency

    def candidate(word: str) -> bool:
        wid = vocabulary.get(word)
        return word.isalpha() and len(word) > 2 and word not in known and wid is not None and frequency[wid] <= limit
    return [(hit, [w for w in book.lexicon.content_words(hit.text) if candidate(w)]) for hit in hits[:docs]]


def rm3_weights(book: Book, documents: list[tuple[Hit, list[str]]]) -> dict[str, float]:
    """RM3's expansion weights (Lavrenko & Croft, "Relevance-Based Language Models", SIGIR 2001; as Anserini's RM3
    selects words): each document weighted by its share of the documents' ranking weights, a word's weight the sum
    over them of P(w|d) = tf(w, d) / |d| times the document's weight."""
    total = sum(max(hit.weight, 0.0) for hit, _ in documents) or 1.0
    weights: dict[str, float] = {}
    for hit, words in documents:
        for word in set(words):
            weights[word] = weights.get(word, 0.0) + words.count(word) / len(words) * max(hit.weight, 0.0) / total
    return weights


def bo1_weights(book: Book, documents: list[tuple[Hit, list[str]]]) -> dict[str, float]:
    """Bo1's expansion weights (Amati, "Probability Models for Information Retrieval based on Divergence from
    Randomness", 2003; as Terrier's Bo1 computes them): tf_x log2((1 + P_n) / P_n) + log2(1 + P_n), where tf_x is
    the word's frequency in the feedback documents and P_n = F / N its expected frequency, F its sentences in the
    book and N the book's sentences: a word weighs more the more its feedback frequency exceeds chance."""
    tf: dict[str, int] = {}
    for _, words in documents:
        for word in words:
            tf[word] = tf.get(word, 0) + 1
    vocabulary, frequency, n = book.index.vocabulary, book.index.document_frequency, max(len(book), 1)
    weights = {}
    for word, count in tf.items():
        p = frequency[vocabulary[word]] / n
        weights[word] = count * math.log2((1 + p) / p) + math.log2(1 + p)
    return weights


FEEDBACK_MODELS = {"rm3": rm3_weights, "bo1": bo1_weights}
"""Pseudo-relevance feedback's term-weighting models, by name (the ``feedback_model`` setting)."""


def feedback_words(book: Book, hits: list[Hit], how: FeedbackSettings, known: set[str],
                   common: float = 0.02) -> list[str]:
    """The ``feedback_terms`` heaviest words of the first ``feedback_docs`` hits under the ``feedback_model`` (RM3
    or Bo1), leaving out the query's words (``known``) and the common ones (:func:`feedback_documents`)."""
    weights = FEEDBACK_MODELS[how.feedback_model](book, feedback_documents(book, hits, how.feedback_docs, known,
                                                                            common))
    return sorted(weights, key=lambda w: (-weights[w], w))[: how.feedback_terms]


def widen(book: Book, hits: list[Hit], neighbor_num: int, iteration: int = 0) -> list[Chunk]:
    """Each hit plus ``neighbor_num`` sentences on each side, within the part of the book searched; overlapping or
    touching spans merge into one chunk, which keeps the best score and weight of its hits."""
    start, end = book.searched_from, len(book) - 1
    spans = sorted((max(start, h.sentence_id - neighbor_num), min(end, h.sentence_id + neighbor_num), h)
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
