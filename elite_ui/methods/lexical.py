"""Lexical ranking: the formulas that score a book's sentences against a set of words, each a small named function
chosen by name (``RANKINGS``), in the manner of bm25s. ELITE's collection ranks with them, and every method's
answer quotes its best evidence sentences by them.

- ``overlap`` (the ELITE paper's Eq. 1): the number of distinct target words in the sentence; ties go to rarer
  words (summed :func:`idf_smooth`).
- ``bm25``: each target word in the sentence adds its :func:`idf_lucene` times :func:`saturation` of the
  sentence's length (Robertson and Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond", with
  Lucene's IDF as bm25s computes it), so one rare word outweighs several common ones.

A target word matches a sentence through any of its inflected forms (letter, letters); :func:`smoothed` adds
neighbours' scores, so that clustered matches outrank a sentence that holds them alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..book import Book

K1, B = 1.2, 0.75
"""BM25's term-frequency saturation and length normalisation, Lucene's defaults."""


def idf_smooth(df: int, n: int) -> float:
    """scikit-learn's smooth IDF, ln((n + 1) / (df + 1)) + 1: the overlap ranking's tie-break."""
    return math.log((n + 1) / (df + 1)) + 1.0


def idf_lucene(df: int, n: int) -> float:
    """Lucene's BM25 IDF, ln(1 + (n - df + 0.5) / (df + 0.5)): never negative, however common the word."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def saturation(length: np.ndarray, average: float, k1: float = K1, b: float = B) -> np.ndarray:
    """BM25's term-frequency factor for a word present once, (k1 + 1) / (1 + k1 (1 - b + b |s| / avg |s|)):
    a match counts for less in a longer sentence."""
    return (k1 + 1.0) / (1.0 + k1 * (1.0 - b + b * length / max(average, 1e-9)))


@dataclass
class Target:
    word: str
    sentences: np.ndarray
    df: int
    forms: tuple[str, ...] = ()
    weight: float = 1.0
    """What a match of it counts for in the ``bm25`` rankings (the most of the terms that hold it)."""


def targets(book: Book, terms: list[str], weights: list[float] | None = None) -> list[Target]:
    """The distinct target words of ``terms`` with the sentences each matches through any of its forms; forms of
    one word ("week", "weeks") are one target, so that a word counts once however it is inflected. ``weights``
    (one a term, else 1) weigh a target in the ``bm25`` rankings by the heaviest term that holds it."""
    out: dict[frozenset[str], Target] = {}
    for term, weight in zip(terms, weights or [1.0] * len(terms), strict=True):
        for word in book.lexicon.content_words(term):
            forms = book.forms(word)
            if frozenset(forms) in out:
                out[frozenset(forms)].weight = max(out[frozenset(forms)].weight, weight)
                continue
            postings = [book.index.postings(f) for f in forms]
            sentences = np.unique(np.concatenate(postings)) if postings else np.zeros(0, dtype=np.int32)
            out[frozenset(forms)] = Target(word, sentences, len(sentences), tuple(forms), weight)
    return list(out.values())


def overlap_scores(book: Book, found: list[Target]) -> np.ndarray:
    """The paper's Eq. 1, with the summed smooth IDF of the matched words as a fraction below 1 to break ties."""
    n = max(len(book), 1)
    overlap = np.zeros(len(book), dtype=np.float64)
    weight = np.zeros(len(book), dtype=np.float64)
    for target in found:
        overlap[target.sentences] += 1
        weight[target.sentences] += idf_smooth(target.df, n)
    return overlap + weight / (weight.max() + 1.0)


def bm25_scores(book: Book, found: list[Target]) -> np.ndarray:
    """Each matched word's Lucene IDF (times its target's weight) times the saturation of the sentence's length
    (its distinct words)."""
    n = max(len(book), 1)
    lengths = book.sentence_lengths
    factor = saturation(lengths, float(lengths.mean()) if len(lengths) else 1.0)
    score = np.zeros(len(book), dtype=np.float64)
    for target in found:
        score[target.sentences] += target.weight * idf_lucene(target.df, n) * factor[target.sentences]
    return score


RANKINGS: dict[str, Callable[[Book, list[Target]], np.ndarray]] = {"overlap": overlap_scores, "bm25": bm25_scores}


def span_bm25(book: Book, found: list[Target], starts: np.ndarray) -> np.ndarray:
    """BM25 with each span of consecutive sentences as a document (``starts``: each span's first sentence; the
    spans tile the book): a word's frequency is the number of the span's sentences that hold it, its IDF is over
    the spans, the span's length is its sentences' distinct words."""
    lengths = np.add.reduceat(book.sentence_lengths, starts)
    factor_length = 1.0 - B + B * lengths / max(float(lengths.mean()), 1e-9)
    score = np.zeros(len(starts), dtype=np.float64)
    for target in found:
        present = np.zeros(len(book), dtype=np.float64)
        present[target.sentences] = 1.0
        tf = np.add.reduceat(present, starts)
        idf = idf_lucene(int((tf > 0).sum()), len(starts))
        score += target.weight * idf * tf * (K1 + 1.0) / (tf + K1 * factor_length)
    return score


WINDOW = 5
"""The most words apart two target words may be for their proximity to count."""


def proximity_scores(book: Book, found: list[Target], sentence_ids) -> np.ndarray:
    """Term proximity (Rasolofo and Savoy 2003, "Term Proximity Scoring for Keyword-Based Retrieval Systems", the
    pair weight of BM25TP): in each of ``sentence_ids``, every pair of distinct target words at most
    :data:`WINDOW` words apart adds the smaller of their :func:`idf_lucene` over the square of the distance between
    their closest occurrences. Zero for every other sentence."""
    out = np.zeros(len(book), dtype=np.float64)
    target_of = {form: n for n, target in enumerate(found) for form in target.forms}
    idf = [idf_lucene(t.df, max(len(book), 1)) for t in found]
    for sid in sentence_ids:
        where: dict[int, list[int]] = {}
        for position, word in enumerate(book.lexicon.words(book.sentence(sid).text)):
            if word in target_of:
                where.setdefault(target_of[word], []).append(position)
        pairs = list(where.items())
        for i, (a, at_a) in enumerate(pairs):
            for b, at_b in pairs[i + 1:]:
                distance = min(abs(x - y) for x in at_a for y in at_b)
                if 0 < distance <= WINDOW:
                    out[sid] += min(idf[a], idf[b]) / distance**2
    return out


def smoothed(scores: np.ndarray, reach: int, decay: float) -> np.ndarray:
    """Each sentence's score plus its neighbours' within ``reach``, weighted ``decay`` per sentence of distance."""
    if reach <= 0:
        return scores
    kernel = np.asarray([decay ** abs(d) for d in range(-reach, reach + 1)])
    return np.convolve(scores, kernel, mode="same")


def best_sentences(book: Book, sentence_ids: list[int], scores: np.ndarray, n: int,
                   first: np.ndarray | None = None) -> list[int]:
    """The ``n`` sentences of ``sentence_ids`` with the highest positive ``scores`` (book order breaks ties), those
    ``first`` marks (if given) before the others."""
    return sorted((sid for sid in sentence_ids if scores[sid] > 0),
                  key=lambda sid: (first is not None and not first[sid], -scores[sid], sid))[:n]


def matching(found: list[Target], n: int) -> np.ndarray:
    """Which of ``n`` sentences match one of the targets ``found``."""
    hit = np.zeros(n, dtype=bool)
    for target in found:
        hit[target.sentences] = True
    return hit


def chunks(book: Book, words: int = 100) -> list[tuple[int, int]]:
    """Consecutive sentences grouped into chunks of about ``words`` words: (first, last) sentence IDs."""
    lengths = np.diff(book.bounds, axis=1)[:, 0] / 6.0
    out, first, total = [], 0, 0.0
    for sid, length in enumerate(lengths):
        total += length
        if total >= words:
            out.append((first, sid))
            first, total = sid + 1, 0.0
    if first < len(book):
        out.append((first, len(book) - 1))
    return out


def tilings(book: Book, words: int = 100, count: int = 1) -> list[list[tuple[int, int]]]:
    """``count`` tilings of the book into chunks of about ``words`` words: the first is :func:`chunks`; the k-th
    starts each chunk k/count of the way into the first's (the sentences before its first start are left out),
    so that with 2 every chunk boundary falls in the middle of another chunk: half-overlapping passages (Callan,
    "Passage-Level Evidence in Document Retrieval", SIGIR 1994), which centre a match that a boundary would cut. A
    book of one sentence has no second tiling."""
    first = chunks(book, words)
    out = [first]
    for k in range(1, count):
        starts = sorted({a + (b + 1 - a) * k // count for a, b in first} - {0})
        if starts:
            out.append([(a, b - 1) for a, b in zip(starts, [*starts[1:], len(book)], strict=True)])
    return out


def passage_scores(book: Book, tiled: list[tuple[list[tuple[int, int]], np.ndarray]]) -> np.ndarray:
    """Each sentence's passage-level evidence: the best score of a span holding it, over the ``tiled`` (spans,
    scores) pairs (each tiling's spans in book order, as :func:`tilings` makes them)."""
    out = np.zeros(len(book), dtype=np.float64)
    for spans, scores in tiled:
        firsts, lasts = (np.asarray(ends) for ends in zip(*spans, strict=True))
        spread = np.repeat(scores, lasts - firsts + 1)
        out[firsts[0] : lasts[-1] + 1] = np.maximum(out[firsts[0] : lasts[-1] + 1], spread)
    return out


def scaled(scores: np.ndarray) -> np.ndarray:
    """``scores`` over their maximum (0 to 1), so that two rankings of different scales can be added."""
    return scores / max(float(scores.max()), 1e-9) if len(scores) else scores


def touches(span: tuple[int, int], other: tuple[int, int]) -> bool:
    """Whether two spans of sentences overlap or meet end to end."""
    return span[0] <= other[1] + 1 and other[0] <= span[1] + 1


def overlaps_half(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    """Whether more than half of ``span``'s sentences lie in one of the spans ``taken``."""
    first, last = span
    return any(min(last, b) - max(first, a) + 1 > (last - first + 1) / 2 for a, b in taken)
