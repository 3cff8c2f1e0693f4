"""Words: how text is cut into normalised words, which words carry no content, and inflected forms, per language.

English (the default) uses scikit-learn's stopwords and lemminflect's inflections; other languages use the
``stop-words`` lists and PyStemmer's Snowball stemmers (a word's forms are the book's words with its stem);
Chinese is cut into words with jieba. :func:`detect_language` (py3langid) picks the lexicon of a book.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import groupby

from lemminflect import getAllInflections, getAllLemmas
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

WORD = re.compile(r"[^\W_]+")
"""A word is a run of letters and digits; apostrophes and hyphens split words ("don't" -> don, t)."""


def letters(category: str) -> str:
    """A character class of the Basic Multilingual Plane's letters of a Unicode ``category`` ("Lu" capitals, "Ll"
    small letters), as ranges: ``re`` knows no ``\\p{Lu}``, and ``[A-Z]`` misses "Éponine" and "Thénardier"."""
    points = [n for n in range(0x10000) if unicodedata.category(chr(n)) == category]
    runs = [[n for _, n in run] for _, run in groupby(enumerate(points), lambda pair: pair[1] - pair[0])]
    return "[" + "".join(re.escape(chr(run[0])) + (f"-{re.escape(chr(run[-1]))}" if len(run) > 1 else "")
                         for run in runs) + "]"


def unmarked(word: str) -> str:
    """``word`` without its letters' marks (accents, diaeresis, cedilla): "Éponine" -> "Eponine"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


CAPITAL, SMALL = letters("Lu"), letters("Ll")
"""A capital letter and a small one, of any alphabet that has both."""
CAPITALISED_WORD = rf"{CAPITAL}{SMALL}{{2,}}"
"""A capitalised word of three letters or more ("Thénardier")."""
INSIDE = r"(?<![.!?\"“‘]\s)(?<!^)\b"
"""Where a word does not open a sentence (nor a line, nor a quotation)."""
NAME = re.compile(rf"{INSIDE}{CAPITALISED_WORD}\b", re.M)
"""A capitalised word that does not open a sentence: most likely a name."""
NUMBER = re.compile(r"\b(?:\d[\d,.]*\d|\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
                    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million)\b", re.I)
"""A number, in digits or in words."""

HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "dr", "messrs", "mme", "mlle"})
"""Titles before a name: never a search term's word nor a matched word (every "Mr." would match "Mr. Darcy")."""
STOPWORDS = frozenset(ENGLISH_STOP_WORDS) | {"did", "does", "doing", "s", "t", "d", "ll", "ve", "re", "m"} | HONORIFICS

STEMMERS = {"fr": "french", "de": "german", "es": "spanish", "it": "italian", "pt": "portuguese", "nl": "dutch",
            "sv": "swedish", "da": "danish", "nb": "norwegian", "fi": "finnish", "ru": "russian", "pl": "polish",
            "ro": "romanian", "hu": "hungarian", "tr": "turkish", "ca": "catalan", "el": "greek"}
"""ISO 639-1 code -> PyStemmer's Snowball algorithm."""
SEGMENTED = {"zh"}
"""Languages written without spaces between words: cut into words by jieba."""
NAMES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish", "zh": "Chinese", "it": "Italian",
         "pt": "Portuguese", "nl": "Dutch", "ru": "Russian"}


@dataclass(frozen=True)
class Lexicon:
    """How one language's text becomes words: ``words``, ``content_words`` and ``stems``."""

    language: str
    stopwords: frozenset[str]

    @property
    def name(self) -> str:
        return NAMES.get(self.language, self.language)

    @property
    def segmented(self) -> bool:
        return self.language in SEGMENTED

    def words(self, text: str) -> list[str]:
        """Lower-cased words of ``text`` in order."""
        if self.segmented:
            return [w for w in jieba().lcut(text.lower()) if WORD.fullmatch(w)]
        return WORD.findall(text.lower())

    def content_words(self, text: str) -> list[str]:
        """Distinct words of ``text`` that are neither stopwords nor single letters (a Chinese word may be one
        character), in order."""
        short = 0 if self.segmented else 1
        return list(dict.fromkeys(w for w in self.words(text) if len(w) > short and w not in self.stopwords))

    def matcher(self, phrases: list[str]) -> re.Pattern:
        """A case-insensitive pattern for any of ``phrases`` as whole words, their words apart by any spacing or
        punctuation ("Mr.\\nDarcy"); in a language written without spaces, wherever its characters stand."""
        joiner, (before, after) = ((r"[\W_]*", ("", "")) if self.segmented
                                   else (r"[\W_]+", (r"(?<![^\W_])", r"(?![^\W_])")))
        alternatives = sorted((joiner.join(map(re.escape, p.split())) for p in phrases if p.split()), key=len,
                              reverse=True)
        return re.compile(f"{before}(?:{'|'.join(alternatives) or '(?!)'}){after}", re.I)

    def stems(self, words: list[str]) -> list[str] | None:
        """The Snowball stems of ``words``, or None for languages without a stemmer (English uses lemminflect).
        Each call makes its own stemmer (0.3 µs): PyStemmer's are not safe to share between threads."""
        algorithm = STEMMERS.get(self.language)
        if not algorithm:
            return None
        import Stemmer

        return Stemmer.Stemmer(algorithm).stemWords(words)


@cache
def lexicon(language: str = "en") -> Lexicon:
    """The lexicon of an ISO 639-1 language code; a language without a stopword list gets none."""
    if language == "en":
        return Lexicon("en", STOPWORDS)
    from stop_words import LANGUAGE_MAPPING, get_stop_words

    listed = frozenset(w.lower() for w in get_stop_words(language)) if language in LANGUAGE_MAPPING else frozenset()
    return Lexicon(language, listed)


ENGLISH = lexicon("en")


def words(text: str) -> list[str]:
    """Lower-cased English words of ``text`` in order."""
    return ENGLISH.words(text)


def content_words(text: str) -> list[str]:
    """Distinct English content words of ``text`` in order."""
    return ENGLISH.content_words(text)


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


def detect_language(text: str, samples: int = 20, size: int = 1000) -> str:
    """The ISO 639-1 code of the language ``text`` is written in, read from ``samples`` slices spread over it
    (English when there are too few letters, or too few different ones, to tell: a book of one repeated word)."""
    import py3langid

    step = max(len(text) // samples, size)
    sample = "\n".join(text[i : i + size] for i in range(0, len(text), step))
    letters = [c for c in sample.lower() if c.isalpha()]
    return py3langid.classify(sample)[0] if len(letters) >= 80 and len(set(letters)) >= 15 else "en"


@lru_cache(maxsize=1)
def jieba():
    import jieba as segmenter

    segmenter.setLogLevel(logging.WARNING)
    return segmenter
