"""Soak: many questions in a row on one loaded book with the scripted model; prints memory growth.

``python -m benchmarks.soak [--questions 50]``: five warm-up questions, then N more; resident memory (psutil) and
Python-heap memory (tracemalloc) are compared before and after the N, with every trace kept as a session would.
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

import psutil

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.models import MiniLMEmbedder, ScriptedLLM

REPLIES = {"terms": ["Darcy\nPemberley\nletter"], "judge": ["no", "yes"], "breadth": ["Derbyshire"],
           "depth": ["Elizabeth"], "importance": ["Darcy owns Pemberley.", "Nobody knows."],
           "answer": ["Darcy's estate is Pemberley."]}
QUESTIONS = ["What is Pemberley?", "Who wrote the letter?", "How many times does Elizabeth laugh?",
             "Where is Derbyshire?", "Who is Georgiana?"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=50)
    args = parser.parse_args()
    book = load_book(CORPUS / "pride-and-prejudice.txt")
    engine = Elite(ScriptedLLM(REPLIES), PRESETS["laptop"], embed=MiniLMEmbedder())
    traces = [engine.run(book, q) for q in QUESTIONS]
    gc.collect()
    process = psutil.Process()
    tracemalloc.start()
    rss_before = process.memory_info().rss
    heap_before, _ = tracemalloc.get_traced_memory()
    errors = 0
    for n in range(args.questions):
        trace = engine.run(book, QUESTIONS[n % len(QUESTIONS)])
        errors += trace.answer is None
        traces.append(trace)
    gc.collect()
    rss_after = process.memory_info().rss
    heap_after, _ = tracemalloc.get_traced_memory()
    print(f"{args.questions} questions, {errors} without an answer")
    print(f"resident memory: {rss_before / 1e6:.1f} MB -> {rss_after / 1e6:.1f} MB "
          f"({(rss_after - rss_before) / rss_before:+.1%})")
    print(f"Python heap (the {args.questions} traces kept): +{(heap_after - heap_before) / 1e6:.2f} MB")
    write_figures("soak", {"questions": args.questions, "errors": errors, "rss_before_mb": round(rss_before / 1e6, 1),
                           "rss_after_mb": round(rss_after / 1e6, 1),
                           "rss_growth": round((rss_after - rss_before) / rss_before, 4),
                           "heap_growth_mb": round((heap_after - heap_before) / 1e6, 2)})


if __name__ == "__main__":
    main()
