"""ELITE's collection step: rank sentences by word overlap with the target terms, widen the best into chunks.

Target words are the content words of the terms (stopwords and one-letter words dropped), so a multi-word term
such as "Mr. Darcy's letter" contributes the words ``darcy`` and ``letter``. A target word matches a sentence
through any of its inflected forms (letter, letters). overlap(s, T) counts the distinct target words in s
(the paper's Eq. 1). Ties are broken by rarer words first (summed inverse document frequency), then book order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...book import Book
from ..trace import Chunk, Hit


@dataclass
class Target:
    word: str
    sentences: np.ndarray
    idf: float


def targets(book: Book, terms: list[str]) -> list[Target]:
    """The distinct target words of ``terms`` with the sentences each matches through any of its forms."""
    out: dict[str, Target] = {}
    n = max(len(book), 1)
    for term in terms:
        for word in book.lexicon.content_words(term):
            if word in out:
                continue
            postings = [book.index.postings(f) for f in book.forms(word)]
            sentences = np.unique(np.concatenate(postings)) if postings else np.zeros(0, dtype=np.int32)
            out[word] = Target(word, sentences, math.log((n + 1) / (len(sentences) + 1)) + 1.0)
    return list(out.values())


def collect(
    book: Book,
    terms: list[str],
    k: int,
    *,
    required: list[str] | None = None,
    exclude: set[int] | frozenset[int] = frozenset(),
) -> list[Hit]:
    """Top ``k`` sentences by overlap with the words of ``terms``.

    ``required``: terms of which each returned sentence must hold at least one word (an iteration's new terms);
    ``exclude``: sentence IDs already retrieved.
    """
    found = targets(book, terms)
    if not found or k <= 0:
        return []
    overlap = np.zeros(len(book), dtype=np.int32)
    weight = np.zeros(len(book), dtype=np.float64)
    for target in found:
        overlap[target.sentences] += 1
        weight[target.sentences] += target.idf
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
    order = np.lexsort((candidates, -weight[candidates], -overlap[candidates]))[:k]
    chosen = candidates[order]
    matched = {int(s): [] for s in chosen}
    for target in found:
        for sid in chosen[np.isin(chosen, target.sentences)]:
            matched[int(sid)].append(target.word)
    hits = []
    for rank, sid in enumerate(chosen.tolist(), 1):
        s = book.sentence(sid)
        hits.append(Hit(sid, s.start, s.end, s.chapter, s.chapter_title, s.page, int(overlap[sid]),
                        matched[sid], s.text, rank))
    return hits


def widen(book: Book, hits: list[Hit], neighbor_num: int, iteration: int = 0) -> list[Chunk]:
    """Each hit plus ``neighbor_num`` sentences on each side; overlapping or touching spans merge into one chunk."""
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
        Chunk(first, last, sorted(h.sentence_id for h in group), max(h.score for h in group),
              book.span_text(first, last), iteration)
        for first, last, group in merged
    ]
