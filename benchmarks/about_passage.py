"""Questions about a passage, as a reader's highlight asks them: ``python -m benchmarks.about_passage``.

The passage is the gold evidence of the first two questions answered within their ceilings of each tune novel
of ``nc`` (ten; at most three sentences, pinned as the Reader's "Ask about this passage" and a reading app's
highlight pin it), and the questions are what a reader types about a highlight: Calibre's "Explain" action and "What
does this mean?". The whole book is read. Measured: how many answers cite only the passage (its sentences, or two
either side of them), and how many open the quotes ("What the book says") with one of its sentences. The model is
Qwen2.5-Coder-1.5B-Instruct unless ``--model`` says otherwise; each answer is kept in ``--out``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks import write_figures
from benchmarks.answers import SETS, measuring_llm
from benchmarks.grounding import gold_ids
from elite_ui.bench import datasets
from elite_ui.book import Book, load_book
from elite_ui.reading import Asked, reading

ASKS = ("Explain the following text in simple, easy to understand language.", "What does this mean?")
TUNE = ("ak", "fr", "lm", "mm", "sl")
"""The tune novels' question ids in ``nc`` begin so (Pride and Prejudice, a tune novel too, has none there)."""
EACH = 2
"""Passages of each novel."""
NEAR = 2
"""Sentences either side of the passage a citation may be and still cite it."""


def passages() -> list[tuple[str, Book, list[int]]]:
    """(question id, its book, the sentences of its gold evidence) for the first :data:`EACH` questions within
    their ceilings of each tune novel whose gold evidence the book holds; each book loaded once."""
    chosen, books = [], {}
    for question in datasets.read(SETS["nc"]):
        taken = sum(1 for qid, _, _ in chosen if qid[:2] == question.id[:2])
        if question.id.endswith("-in") and question.id[:2] in TUNE and taken < EACH:
            if question.book not in books:
                books[question.book] = load_book(question.book)
            if pinned := gold_ids(books[question.book], question)[:3]:
                chosen.append((question.id, books[question.book], pinned))
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a GGUF file (default: Qwen2.5-Coder-1.5B-Instruct)")
    parser.add_argument("--out", type=Path, default=Path("runs/about_passage.jsonl"))
    args = parser.parse_args()
    llm, rows = measuring_llm(args.model), []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for qid, book, pinned in passages():
            near = {sid for p in pinned for sid in range(p - NEAR, p + NEAR + 1)}
            for ask in ASKS:
                answer = reading(book, Asked(ask, about=tuple(pinned)), llm).answer().answer
                cites = [c.sentence_id for c in answer.citations]
                rows.append({"id": qid, "ask": ask, "pinned": pinned, "answer": answer.text, "cites": cites,
                             "cites_the_passage": bool(cites) and set(cites) <= near,
                             "quote_in_the_passage": bool(answer.quotes) and answer.quotes[0].sentence_id in pinned})
                print(json.dumps(rows[-1], ensure_ascii=False), file=out, flush=True)
    write_figures("about-passage", {
        "answers": len(rows), "passages": len(rows) // len(ASKS),
        "cite_only_the_passage": sum(r["cites_the_passage"] for r in rows),
        "cite_nothing": sum(not r["cites"] for r in rows),
        "first_quote_in_the_passage": sum(r["quote_in_the_passage"] for r in rows)})


if __name__ == "__main__":
    main()
