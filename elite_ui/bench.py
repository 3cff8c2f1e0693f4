"""The benchmark harness: ``python -m elite_ui.bench convert|run|report``.

``run`` answers a question set with one strategy and writes DIR/results.jsonl (one line per question, appended as
it goes, so an interrupted run resumes where it stopped) and DIR/summary.json. ``report`` compares runs in one
self-contained HTML page.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path

from rapidfuzz import fuzz
from tqdm import tqdm

from . import datasets
from .baselines import STRATEGIES, Generated, Prepared, Retrieved, generate
from .documents import Book, load_book
from .elite import PRESETS, with_overrides
from .errors import EliteError
from .importance import Embed
from .llm import DEFAULT_CONTEXT, LLM, open_llm

FUZZY_THRESHOLD = 90
"""An evidence sentence counts as present when rapidfuzz's partial_ratio against the context is at least this."""
F1_CORRECT = 0.5
"""A free-form prediction counts as correct when its token F1 against the best reference is at least this."""
ARTICLES = {"a", "an", "the"}


def normalise(text: str) -> str:
    return " ".join(text.lower().split())


def evidence_recall(evidence: list[str], context: str) -> float | None:
    """Mean over gold evidence strings of the share of their sentences found in ``context`` (exactly, ignoring case
    and spacing, or fuzzily at ``FUZZY_THRESHOLD``). None when there is no gold evidence."""
    if not evidence:
        return None
    haystack = normalise(context)
    shares = []
    for item in evidence:
        sentences = [normalise(s) for s in re.split(r"(?<=[.!?])\s+", item) if len(s.split()) >= 3] or [
            normalise(item)]
        found = sum(1 for s in sentences if s in haystack or (haystack and fuzz.partial_ratio(s, haystack)
                                                               >= FUZZY_THRESHOLD))
        shares.append(found / len(sentences))
    return sum(shares) / len(shares)


def tokens(text: str) -> list[str]:
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in ARTICLES]


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


def done_ids(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def run(args: argparse.Namespace, llm: LLM | None = None, embed: Embed | None = None) -> Path:
    """Answer (or, with --retrieval-only, only retrieve for) each question not yet in DIR/results.jsonl."""
    questions = datasets.read(args.dataset)
    if args.shuffle:
        random.Random(args.seed).shuffle(questions)
    questions = questions[: args.limit] if args.limit else questions
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    finished = done_ids(results)
    todo = [q for q in questions if q.id not in finished]
    kind = STRATEGIES[args.strategy]
    settings = with_setting_overrides(kind.defaults(args.preset), args.set)
    llm = llm or open_llm(args.model_name or args.model, server=args.server, n_ctx=args.n_ctx)
    strategy = kind(llm, embed, settings)
    prepared: dict[str, Prepared] = {}
    books: dict[str, Book] = {}

    with results.open("a", encoding="utf-8") as sink:
        for q in tqdm(todo, desc=f"{args.strategy}", unit="question", initial=len(finished),
                      total=len(questions), file=sys.stderr):
            if q.book not in books:
                books[q.book] = load_book(q.book)
            book = books[q.book]
            first_use = book.digest not in prepared
            if first_use:
                prepared[book.digest] = strategy.prepare(book)
            prep = prepared[book.digest]
            error = None
            try:
                found = strategy.retrieve(book, prep, q.question, q.options, args.budget)
                generated = None if args.retrieval_only else generate(llm, q.question, q.options, found.context)
            except EliteError as exc:
                error, found = str(exc), Retrieved("", 0.0)
                generated = None if args.retrieval_only else Generated("", 0.0, 0, 0, 0)
            correct, f1 = score(q, generated.prediction if generated else None)
            row = {
                "id": q.id, "strategy": args.strategy, "book": Path(q.book).name, "book_bytes": len(book.text.encode()),
                "aspect": q.aspect, "complexity": q.complexity, "question": q.question,
                "prediction": generated.prediction if generated else None, "answer": q.answer,
                "correct": correct, "f1": f1, "evidence_recall": evidence_recall(q.evidence, found.context),
                "context": found.context, "context_tokens": llm.count_tokens(found.context),
                "llm_calls": found.llm_calls + (generated.llm_calls if generated else 0),
                "prompt_tokens": found.prompt_tokens + (generated.prompt_tokens if generated else 0),
                "completion_tokens": found.completion_tokens + (generated.completion_tokens if generated else 0),
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
        "model": llm.name, "settings": asdict(settings), "date": time.strftime("%Y-%m-%d")}
    (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return out


def with_setting_overrides(settings, items: list[str]):
    """``settings`` with NAME=VALUE overrides, each value read as its field's type."""
    changes = {}
    for item in items:
        name, _, value = item.partition("=")
        default = getattr(settings, name.strip(), None)
        if default is None or not value:
            raise EliteError(f'--set {item}: expected NAME=VALUE with NAME one of the settings.')
        if isinstance(default, bool):
            changes[name.strip()] = value.strip().lower() in {"1", "true", "yes", "on"}
            continue
        try:
            changes[name.strip()] = type(default)(value)
        except ValueError:
            kind = "whole number" if isinstance(default, int) else "number"
            raise EliteError(f"--set {item}: {name.strip()} takes a {kind}.") from None
    return with_overrides(settings, **changes)


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
        "strategy": rows[0]["strategy"] if rows else None,
        "questions": len(rows),
        "accuracy": accuracy(rows),
        "f1": mean([r["f1"] for r in rows]),
        "accuracy_by_aspect": {k: accuracy(v) for k, v in sorted(by_aspect.items())},
        "accuracy_by_complexity": {k: accuracy(v) for k, v in sorted(by_complexity.items())},
        "evidence_recall": mean([r["evidence_recall"] for r in rows]),
        "context_tokens": mean([r["context_tokens"] for r in rows]),
        "llm_calls": mean([r["llm_calls"] for r in rows]),
        "prepare_seconds_per_book": mean([r["book_prepare_seconds"] for r in books.values()]),
        "retrieval_seconds": mean([r["retrieval_seconds"] for r in rows]),
        "generation_seconds": mean([r["generation_seconds"] for r in rows]),
        "books": len(books),
        "storage_bytes": storage,
        "book_bytes": book_bytes,
        "expansion_ratio": round((book_bytes + storage) / book_bytes, 3) if book_bytes else None,
    }


def convert(args: argparse.Namespace) -> Path:
    out = Path(args.out)
    source = Path(args.source)
    if args.format == "novelqa":
        if not args.book:
            raise EliteError("novelqa needs --book, the novel's text file.")
        questions = datasets.from_novelqa(source, Path(args.book), out)
    else:
        questions = datasets.CONVERTERS[args.format](source, out)
    path = datasets.write(out / "dataset.jsonl", questions)
    print(f"{len(questions)} questions written to {path}")
    return path


def report(args: argparse.Namespace) -> Path:
    from .report import write_report

    path = write_report([Path(d) for d in args.runs], Path(args.out))
    print(f"report written to {path}")
    return path


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="python -m elite_ui.bench", description=__doc__)
    commands = main.add_subparsers(dest="command", required=True)
    c = commands.add_parser("convert", help="convert a third-party QA set into our JSONL format")
    c.add_argument("format", choices=sorted(datasets.CONVERTERS))
    c.add_argument("source", help="leval: a .jsonl file; fairytaleqa: its folder; novelqa: a book's .json")
    c.add_argument("--book", help="novelqa: the novel's text file")
    c.add_argument("--out", required=True)
    c.set_defaults(func=convert)
    r = commands.add_parser("run", help="answer a question set with one strategy")
    r.add_argument("dataset")
    r.add_argument("--strategy", choices=sorted(STRATEGIES), required=True)
    r.add_argument("--model")
    r.add_argument("--server")
    r.add_argument("--model-name")
    r.add_argument("--n-ctx", type=int, default=DEFAULT_CONTEXT)
    r.add_argument("--preset", choices=sorted(PRESETS), default="laptop", help="ELITE's settings")
    r.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="override one of the strategy's settings (ELITE's or M-RAG's), e.g. --set trim=false "
                        "--set recall_index=25 --set order=similarity")
    r.add_argument("--budget", type=int, default=1000, help="context tokens given to the generator")
    r.add_argument("--limit", type=int, default=0)
    r.add_argument("--shuffle", action="store_true", help="take a seeded random sample instead of the first N")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--retrieval-only", action="store_true", help="skip answering: compare retrievers only")
    r.add_argument("--out", required=True)
    r.set_defaults(func=run)
    p = commands.add_parser("report", help="compare runs in one HTML page")
    p.add_argument("runs", nargs="+")
    p.add_argument("--out", default="report.html")
    p.set_defaults(func=report)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        started = time.perf_counter()
        args.func(args)
        print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    except EliteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError) as exc:
        # third-party files (converters) and run folders (report) that are missing or not in the expected form
        print(f"error: {args.command}: could not read the input ({type(exc).__name__}: {exc}).", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
