"""Where each view of the word index ranks the gold evidence: ``python -m benchmarks.evidence_ranks``.

For every gold evidence sentence of a question set, with the lexical core's target words (the question's and the
options' content words), its rank among the book's sentences by ELITE's sentence ranking (``bm25``, smoothed over
3 neighbours) and the rank of the 100-word chunk holding it by BM25 over chunks (:func:`span_bm25`); printed as
the share ranked in the top 5, 10 and 20. This is why chunk fusion places a fixed chunk first in each pair
(docs/benchmark.md). No model call.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np

from benchmarks import SHARED_BENCHMARKS, write_figures
from elite_ui.bench import datasets
from elite_ui.bench.scoring import gold_sentences, normalise
from elite_ui.book import load_book
from elite_ui.methods.lexical import bm25_scores, smoothed, span_bm25, targets
from elite_ui.methods.lexical import chunks as chunk_spans

SETS = {"novels-dev": (SHARED_BENCHMARKS / "novels-dev" / "novels-dev.jsonl", 0),
        "FairytaleQA's 150": (Path("data/fairytale/dataset.jsonl"), 150)}
TOPS = (5, 10, 20)


def positions(scores: np.ndarray) -> np.ndarray:
    """Each item's place when ``scores`` are sorted best first (0: the best; ties in order)."""
    place = np.empty(len(scores), dtype=np.int64)
    place[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
    return place


def ranks(question: datasets.Question, books: dict) -> list[tuple[int, int]]:
    """(sentence rank, chunk rank) of each gold evidence sentence found in the book."""
    book = books.get(question.book) or books.setdefault(question.book, load_book(question.book))
    words = [question.question, *(question.options or {}).values()]
    found = targets(book, words)
    sentence_place = positions(smoothed(bm25_scores(book, found), 3, 0.5))
    spans = chunk_spans(book, 100)
    starts = np.asarray([first for first, _ in spans])
    chunk_place = positions(span_bm25(book, found, starts))
    texts = [normalise(book.sentence(sid).text) for sid in range(len(book))]
    out = []
    for item in question.evidence:
        for gold in gold_sentences(item):
            head = gold[:40]
            sid = next((sid for sid, text in enumerate(texts) if head in text), None)
            if sid is not None:
                out.append((int(sentence_place[sid]), int(chunk_place[np.searchsorted(starts, sid, "right") - 1])))
    return out


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    figures, books = {}, {}
    for name, (path, limit) in SETS.items():
        questions = datasets.read(path)
        random.Random(0).shuffle(questions)
        found = [r for q in questions[: limit or None] for r in ranks(q, books)]
        by_sentence, by_chunk = np.asarray([s for s, _ in found]), np.asarray([c for _, c in found])
        figures[name] = {"evidence_sentences": len(found),
                         "sentence": {k: round(float((by_sentence < k).mean()), 3) for k in TOPS},
                         "chunk": {k: round(float((by_chunk < k).mean()), 3) for k in TOPS}}
        print(name, figures[name], flush=True)
    write_figures("evidence_ranks", figures)


if __name__ == "__main__":
    main()
