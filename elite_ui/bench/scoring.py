"""How an answer and its context are scored: the chosen letter, token F1 against the references, evidence recall
(the share of the gold evidence's sentences found in the context, exactly or with rapidfuzz), and as a reader
judges an answer (:func:`judged`): whether it says the question's key (with no key, enough of a reference's words:
:func:`recall`), and under a spoiler ceiling with the answer beyond it, whether it says the book does not say."""

from __future__ import annotations

import re
from collections import Counter

from rapidfuzz import fuzz

from ..book.lexicon import STOPWORDS
from ..methods.base import NO_ANSWER
from ..methods.grounding import LABELS
from . import datasets

FUZZY_THRESHOLD = 90
"""An evidence sentence counts as present when rapidfuzz's partial_ratio against the context is at least this."""


F1_CORRECT = 0.5
"""A free-form prediction counts as correct when its token F1 against the best reference is at least this."""


RECALL_CORRECT = 0.7
"""A free-form answer to a question with no key is right when it says at least this share of the content words of
one of its references (:func:`recall`): more than two thirds, chosen against a reading by hand of 60 answers (BM25
chunks' on FairytaleQA with the 1.5B model: 56 judged alike, none judged right that was read wrong; F1 >= 0.5 judged
8 right where 27 were read right; docs/benchmark.md, "FairytaleQA")."""


ARTICLES = {"a", "an", "the"}


def normalise(text: str) -> str:
    return " ".join(text.lower().split())


def gold_sentences(item: str) -> list[str]:
    """A gold evidence string's sentences (of three words or more), normalised."""
    return [normalise(s) for s in re.split(r"(?<=[.!?])\s+", item) if len(s.split()) >= 3] or [normalise(item)]


def present(sentence: str, haystack: str) -> bool:
    """``sentence`` is in ``haystack``: exactly, ignoring case and spacing, or fuzzily at ``FUZZY_THRESHOLD``."""
    return sentence in haystack or (bool(haystack) and fuzz.partial_ratio(sentence, haystack) >= FUZZY_THRESHOLD)


def evidence_recall(evidence: list[str], context: str) -> float | None:
    """Mean over gold evidence strings of the share of their sentences found in ``context``. None when there is
    no gold evidence."""
    if not evidence:
        return None
    haystack = normalise(context)
    shares = [sum(present(s, haystack) for s in gold_sentences(item)) / len(gold_sentences(item))
              for item in evidence]
    return sum(shares) / len(shares)


def quote_hit(evidence: list[str], quotes: list[str] | None) -> bool | None:
    """Whether a sentence of the gold evidence is among the ``quotes`` (or a quote lies inside a gold sentence).
    None without gold evidence or quotes."""
    if not evidence or quotes is None:
        return None
    quoted = [normalise(q) for q in quotes]
    return any(present(s, q) or present(q, s) for item in evidence for s in gold_sentences(item) for q in quoted)


def tokens(text: str) -> list[str]:
    """The words F1 counts: lower-cased, articles and sentence labels ("[S12]", a citation, not a word) left out."""
    return [t for t in re.findall(r"[a-z0-9]+", LABELS.sub(" ", text).lower()) if t not in ARTICLES]


def token_f1(prediction: str, reference: str) -> float:
    p, r = tokens(prediction), tokens(reference)
    common = sum((Counter(p) & Counter(r)).values())
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(r)
    return 2 * precision * recall / (precision + recall)


def score(question: datasets.Question, prediction: str | None) -> tuple[bool | None, float | None]:
    """(correct, f1): the letter for multiple choice; token F1 against the best reference otherwise."""
    if prediction is None:
        return None, None
    if question.options:
        return prediction == question.answer, None
    references = question.answer if isinstance(question.answer, list) else [question.answer]
    best = max((token_f1(prediction, r) for r in references), default=0.0)
    return best >= F1_CORRECT, round(best, 4)


def bootstrap_interval(values: list[float], baseline: list[float] | None = None, resamples: int = 2000,
                       level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """A percentile bootstrap confidence interval (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993,
    ch. 13) of the mean of per-question ``values``; with ``baseline`` (the same questions, the same order), of the
    mean paired difference ``values - baseline``: questions are resampled with replacement ``resamples`` times."""
    import numpy as np

    data = np.asarray(values, dtype=float) - (np.asarray(baseline, dtype=float) if baseline is not None else 0.0)
    if not len(data):
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), (resamples, len(data)))].mean(axis=1)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return round(float(low), 3), round(float(high), 3)


ABSTAINED = re.compile(r"(?:does|do) not say|(?:doesn|don)'t say|not found|could not find|cannot find|can't find|"
                       r"no answer|not (?:mentioned|stated|given|said|told)|does not (?:mention|state|tell)", re.I)
"""An answer that says the book (up to the ceiling) does not say."""
STOCK = re.compile(r"(?:Not found so far: the book up to .*?|Not found: .*?|The passages found in the book) does not "
                   r"say \(its sentences closest to the question are quoted\)\.|The passages do not say\.|"
                   + re.escape(NO_ANSWER))
"""The app's and the answer prompt's own words for "does not say" (:func:`elite_ui.methods.base.not_said`,
:data:`elite_ui.methods.prompts.NOT_SAID`) or for no answer (:data:`elite_ui.methods.base.NO_ANSWER`): never the key
of an answer ("the book up to..." says no "book", nor "Not found: chapter 3 (III. THE WILD WOOD)..." "Wild Wood")."""


def said(text: str, alternative: str) -> bool:
    """Whether ``text`` says ``alternative``: its words in order, each possibly inflected (walk: walked)."""
    words = re.findall(r"[\w,]+", alternative.lower())
    pattern = r"\W+".join(rf"{re.escape(w)}\w{{0,3}}" for w in words)
    return bool(re.search(rf"(?<!\w){pattern}(?!\w)", text.lower()))


def recall(text: str, reference: str) -> float:
    """The share of ``reference``'s content words (stopwords left out, unless it has no other) that ``text`` says,
    each possibly inflected: how much of a short reference a sentence-long answer holds (token recall, the overlap
    measure Adlakha et al., TACL 2024, found closest to readers' judgement of long answers; F1 penalises every word
    the answer adds)."""
    words = list(dict.fromkeys(tokens(reference)))
    words = [w for w in words if w not in STOPWORDS] or words
    return sum(said(text, w) for w in words) / len(words) if words else 0.0


def keyed(text: str, key: list[list[str]] | None) -> bool | None:
    """Whether ``text`` says every item of ``key`` (one of its alternatives each); None without a key."""
    if not key:
        return None
    return all(any(said(text, alternative) for alternative in item) for item in key)


def judged(question: datasets.Question, prediction: str) -> dict:
    """How a reader would judge ``prediction``: right or wrong (the key said; with no key, enough of a reference
    recalled), whether it abstained, whether it said the key of an answer beyond the ceiling."""
    if question.options:
        return {"correct": prediction == question.answer}
    own = STOCK.sub(" ", prediction).strip()
    says_key = keyed(own, question.key)
    abstained = bool(ABSTAINED.search(prediction)) or not prediction.strip()
    if question.beyond:
        return {"correct": abstained and not says_key, "abstained": abstained, "from_beyond": bool(says_key)}
    references = question.answer if isinstance(question.answer, list) else [question.answer]
    f1 = max((token_f1(own, r) for r in references), default=0.0)
    recalled = max((recall(own, r) for r in references), default=0.0)
    return {"correct": bool(own) and (bool(says_key) if says_key is not None else recalled >= RECALL_CORRECT),
            "f1": round(f1, 4), "recall": round(recalled, 4), "abstained": abstained}
