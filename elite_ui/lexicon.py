"""Words: how text is cut into normalised words, which words carry no content, and inflected forms."""

from __future__ import annotations

import re
from functools import lru_cache

from lemminflect import getAllInflections, getAllLemmas
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

WORD = re.compile(r"[^\W_]+")
"""A word is a run of letters and digits; apostrophes and hyphens split words ("don't" -> don, t)."""

NAME = re.compile(r"(?<![.!?\"“‘]\s)(?<!^)\b[A-Z][a-z]{2,}\b", re.M)
"""A capitalised word that does not open a sentence: most likely a name."""
NUMBER = re.compile(r"\b(?:\d[\d,.]*\d|\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
                    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million)\b", re.I)
"""A number, in digits or in words."""

STOPWORDS = frozenset(ENGLISH_STOP_WORDS) | {"did", "does", "doing", "s", "t", "d", "ll", "ve", "re", "m"}


def words(text: str) -> list[str]:
    """Lower-cased words of ``text`` in order."""
    return WORD.findall(text.lower())


def content_words(text: str) -> list[str]:
    """Distinct words of ``text`` that are neither stopwords nor single characters, in order."""
    return list(dict.fromkeys(w for w in words(text) if len(w) > 1 and w not in STOPWORDS))


@lru_cache(maxsize=4096)
def forms(word: str) -> tuple[str, ...]:
    """``word`` with its lemmas and every inflection of them (walk -> walks, walked, walking), lower-cased."""
    word = word.lower()
    lemmas = {word}
    for found in getAllLemmas(word).values():
        lemmas.update(found)
    out = dict.fromkeys([word])
    for lemma in sorted(lemmas):
        out[lemma.lower()] = None
        for inflected in getAllInflections(lemma).values():
            out.update(dict.fromkeys(f.lower() for f in inflected))
    return tuple(out)
