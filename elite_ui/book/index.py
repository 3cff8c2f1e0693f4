"""The word index: each lower-cased word of the book mapped to the sentences that hold it, built once at load."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .lexicon import ENGLISH, WORD, Lexicon


@dataclass
class WordIndex:
    """Inverted index: word -> sorted sentence IDs, stored as one CSR array pair (numpy, no per-word lists)."""

    vocabulary: dict[str, int]
    indptr: np.ndarray
    sentence_ids: np.ndarray
    document_frequency: np.ndarray

    def postings(self, word: str) -> np.ndarray:
        wid = self.vocabulary.get(word)
        if wid is None:
            return self.sentence_ids[:0]
        return self.sentence_ids[self.indptr[wid] : self.indptr[wid + 1]]


def build_index(text: str, bounds: np.ndarray, lex: Lexicon = ENGLISH) -> tuple[WordIndex, int]:
    """Inverted index over lower-cased words: one pass per sentence (a regex, or jieba for Chinese), then numpy
    (sorting word/sentence pairs)."""
    lower = text.lower()
    if lex.segmented:
        per_sentence = [lex.words(lower[a:b]) for a, b in bounds.tolist()]
    else:
        findall = WORD.findall
        per_sentence = [findall(lower, a, b) for a, b in bounds.tolist()]
    every_word = list(itertools.chain.from_iterable(per_sentence))
    vocabulary = {w: i for i, w in enumerate(dict.fromkeys(every_word))}
    word_ids = np.fromiter(map(vocabulary.__getitem__, every_word), dtype=np.int64, count=len(every_word))
    sentence_of = np.repeat(np.arange(len(bounds), dtype=np.int64), [len(ws) for ws in per_sentence])
    n_sent = max(len(bounds), 1)
    pairs = np.sort(word_ids * n_sent + sentence_of)
    pairs = pairs[np.append(True, pairs[1:] != pairs[:-1])] if len(pairs) else pairs
    counts = np.bincount(pairs // n_sent, minlength=len(vocabulary))
    indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    index = WordIndex(vocabulary, indptr, (pairs % n_sent).astype(np.int32), counts.astype(np.int32))
    return index, len(word_ids)
