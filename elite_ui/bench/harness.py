"""Running a question set: each question answered (or, with ``--retrieval-only``, only retrieved for) by one
method, one line per question appended to DIR/results.jsonl as it goes (an interrupted run resumes where it
stopped), then DIR/summary.json: accuracy by aspect and complexity, evidence recall, times, storage."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from tqdm import tqdm

from ..book import Book, load_book
from ..errors import EliteError
from ..models import LLM, Embed, open_llm
from ..settings import flat, overridden
from . import datasets
from .methods import Generated, Retrieved, benched, defaults, generate
from .scoring import evidence_recall, quote_hit, score


def done_ids(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def run(args: argparse.Namespace, llm: LLM | None = None, embed: Embed | None = None) -> Path:
    """Answer (or, with --retrieval-only, only retrieve for) each question not yet in DIR/results.jsonl."""
    questions = datasets.sample(datasets.read(args.dataset), args.seed if args.shuffle else None, args.skip,
                                args.limit)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    finished = done_ids(results)
    todo = [q for q in questions if q.id not in finished]
    settings = overridden(defaults(args.method, args.preset), args.set)
    llm = llm or open_llm(args.model_name or args.model, server=args.server, n_ctx=args.n_ctx)
    chosen = benched(args.method, llm, embed, settings)
    prepared = {}
    books: dict[str, Book] = {}

    with results.open("a", encoding="utf-8") as sink:
        for q in tqdm(todo, desc=f"{args.method}", unit="question", initial=len(finished),
                      total=len(questions), file=sys.stderr):
            if q.book not in books:
                books[q.book] = load_book(q.book)
            book = books[q.book]
            first_use = book.digest not in prepared
            if first_use:
                prepared[book.digest] = chosen.prepare(book)
            prep = prepared[book.digest]
            error = None
            try:
                if args.own_answer:
                    found, prediction = chosen.answer(book, prep, q.question, q.options, args.budget)
                    generated = Generated(prediction, 0.0, 0, 0, 0)
                else:
                    found = chosen.retrieve(book, prep, q.question, q.options, args.budget)
                    generated = None if args.retrieval_only else generate(llm, q.question, q.options, found.context)
            except EliteError as exc:
                error, found = str(exc), Retrieved("", 0.0)
                generated = None if args.retrieval_only else Generated("", 0.0, 0, 0, 0)
            correct, f1 = score(q, generated.prediction if generated else None)
            row = {
                "id": q.id, "method": args.method, "book": Path(q.book).name, "book_bytes": len(book.text.encode()),
                "aspect": q.aspect, "complexity": q.complexity, "question": q.question,
                "prediction": generated.prediction if generated else None, "answer": q.answer,
                "correct": correct, "f1": f1, "evidence_recall": evidence_recall(q.evidence, found.context),
                "context": found.context, "context_tokens": llm.count_tokens(found.context),
                "llm_calls": found.llm_calls + (generated.llm_calls if generated else 0),
                "prompt_tokens": found.prompt_tokens + (generated.prompt_tokens if generated else 0),
                "completion_tokens": found.completion_tokens + (generated.completion_tokens if generated else 0),
                "evaluated_tokens": found.evaluated_tokens + (generated.evaluated_tokens if generated else 0),
                "quotes": found.quotes, "quote_hit": quote_hit(q.evidence, found.quotes),
                "prepare_seconds": round(prep.seconds, 4) if first_use else 0.0,
                "book_prepare_seconds": round(prep.seconds, 4), "storage_bytes": prep.bytes,
                "retrieval_seconds": round(found.seconds, 4),
                "generation_seconds": round(generated.seconds, 4) if generated else 0.0, "error": error,
                **found.extra,
            }
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
            sink.flush()
    summary = summarise([json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line])
    summary["run"] = {k: v for k, v in vars(args).items() if k != "func"} | {
        "model": llm.name, "settings": flat(settings), "date": time.strftime("%Y-%m-%d")}
    (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return out


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(statistics.mean(values), 4) if values else None


def summarise(rows: list[dict]) -> dict:
    """Accuracy overall and by aspect and complexity, evidence recall, mean times, storage and expansion."""
    def accuracy(group):
        return mean([float(r["correct"]) for r in group if r["correct"] is not None])

    by_aspect, by_complexity = defaultdict(list), defaultdict(list)
    for r in rows:
        by_aspect[r.get("aspect") or "-"].append(r)
        by_complexity[r.get("complexity") or "-"].append(r)
    books = {r["book"]: r for r in rows}
    storage = sum(r["storage_bytes"] for r in books.values())
    book_bytes = sum(r["book_bytes"] for r in books.values())
    return {
        "method": rows[0]["method"] if rows else None,
        "questions": len(rows),
        "accuracy": accuracy(rows),
        "f1": mean([r["f1"] for r in rows]),
        "accuracy_by_aspect": {k: accuracy(v) for k, v in sorted(by_aspect.items())},
        "accuracy_by_complexity": {k: accuracy(v) for k, v in sorted(by_complexity.items())},
        "evidence_recall": mean([r["evidence_recall"] for r in rows]),
        "context_tokens": mean([r["context_tokens"] for r in rows]),
        "llm_calls": mean([r["llm_calls"] for r in rows]),
        "evaluated_tokens": mean([r.get("evaluated_tokens") for r in rows]),
        "seconds_median": round(statistics.median(r["retrieval_seconds"] + r["generation_seconds"] for r in rows), 2)
        if rows else None,
        "quote_hit": mean([None if r.get("quote_hit") is None else float(r["quote_hit"]) for r in rows]),
        "prepare_seconds_per_book": mean([r["book_prepare_seconds"] for r in books.values()]),
        "retrieval_seconds": mean([r["retrieval_seconds"] for r in rows]),
        "generation_seconds": mean([r["generation_seconds"] for r in rows]),
        "books": len(books),
        "storage_bytes": storage,
        "book_bytes": book_bytes,
        "expansion_ratio": round((book_bytes + storage) / book_bytes, 3) if book_bytes else None,
    }
