"""Speed and memory of the engine, printed as figures: ``python -m benchmarks.engine [--questions N]``.

1. read + segment + index the scale-test book (les-miserables.txt), median of 5 loads;
2. one collection step (overlap ranking of every sentence, top 25, widening) on it, median of 200 term sets;
3. memory held by the loaded book (tracemalloc, numpy included) against its file size;
4. per question on the embedded model (laptop preset): LLM calls, prompt tokens evaluated and reused, tokens
   generated, seconds by stage, and the share of time spent outside the LLM.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.methods.elite.retrieval import collect, widen
from elite_ui.methods.elite.settings import RetrievalSettings
from elite_ui.models import MiniLMEmbedder
from elite_ui.models.llama_cpp import LlamaCppLLM

QUESTIONS = [
    ("the-wind-in-the-willows.txt", "Where does Toad live?"),
    ("pride-and-prejudice.txt", "Who does Elizabeth Bennet marry?"),
    ("frankenstein.txt", "Where does Victor Frankenstein create the creature?"),
    ("les-miserables.txt", "What does the Bishop give Jean Valjean?"),
    ("jane-eyre.txt", "What secret does Mr. Rochester keep in the attic?"),
]


def loading(path: Path) -> dict:
    seconds = sorted(load_book(path).load_seconds for _ in range(5))
    print(f"load {path.name} ({path.stat().st_size / 1e6:.1f} MB): median {statistics.median(seconds):.3f} s "
          f"(min {seconds[0]:.3f}, max {seconds[-1]:.3f})")
    with tempfile.TemporaryDirectory() as cache:
        first = load_book(path, cache_dir=cache)
        cached = sorted(load_book(path, cache_dir=cache).load_seconds for _ in range(5))
    print(f"  seen before (parsed structure from the cache, {first.stats['cache_bytes'] / 2**20:.1f} MB): median "
          f"{statistics.median(cached) * 1000:.1f} ms")
    return {"book": path.name, "mb": round(path.stat().st_size / 1e6, 2), "sentences": len(first),
            "load_median_s": round(statistics.median(seconds), 3), "load_min_s": round(seconds[0], 3),
            "load_max_s": round(seconds[-1], 3), "cached_median_ms": round(statistics.median(cached) * 1000, 1),
            "cache_mb": round(first.stats["cache_bytes"] / 2**20, 1)}


def collection(path: Path) -> dict:
    book = load_book(path)
    rng = np.random.default_rng(0)
    common = [w for w, i in book.index.vocabulary.items() if len(w) > 3 and book.index.document_frequency[i] > 5]
    times = []
    for _ in range(200):
        terms = list(rng.choice(common, size=8, replace=False))
        started = time.perf_counter()
        widen(book, collect(book, terms, RetrievalSettings(recall_index=25)), 2)
        times.append(time.perf_counter() - started)
    print(f"collection step (8 terms, top 25, widening 2): median {statistics.median(times) * 1000:.2f} ms, "
          f"p95 {np.percentile(times, 95) * 1000:.2f} ms")
    return {"median_ms": round(statistics.median(times) * 1000, 2),
            "p95_ms": round(float(np.percentile(times, 95)) * 1000, 2)}


def memory(path: Path) -> dict:
    tracemalloc.start()
    book = load_book(path)
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = path.stat().st_size
    print(f"memory of the loaded book: {held / 1e6:.1f} MB held ({held / size:.1f}x the file), "
          f"peak while loading {peak / 1e6:.1f} MB ({peak / size:.1f}x); {len(book)} sentences")
    return {"held_mb": round(held / 1e6, 1), "held_x": round(held / size, 1), "peak_mb": round(peak / 1e6, 1)}


def questions(limit: int) -> list[dict]:
    llm = LlamaCppLLM(n_ctx=4096)
    embed = MiniLMEmbedder()
    embed(["warm up"])
    engine = Elite(llm, PRESETS["laptop"], embed=embed)
    rows = []
    for name, question in QUESTIONS[:limit]:
        book = load_book(CORPUS / name)
        trace = engine.run(book, question)
        t = trace.totals()
        outside = t.seconds - t.llm_seconds
        stages = ", ".join(f"{k} {v:.1f}" for k, v in t.llm_seconds_by_purpose.items())
        print(f"{name}: {question!r}\n  {t.iterations} iterations, {t.llm_calls} LLM calls, "
              f"{t.evaluated_tokens} prompt tokens evaluated, {t.cached_tokens} reused, "
              f"{t.completion_tokens} generated; {t.seconds:.1f} s total, outside the LLM {outside:.2f} s "
              f"({outside / t.seconds:.1%})\n  LLM seconds by stage: {stages}\n"
              f"  answer: {trace.answer.text[:150]}")
        rows.append({"book": name, "question": question, "iterations": t.iterations, "calls": t.llm_calls,
                     "evaluated_tokens": t.evaluated_tokens, "cached_tokens": t.cached_tokens,
                     "generated_tokens": t.completion_tokens, "seconds": round(t.seconds, 1),
                     "outside_share": round(outside / t.seconds, 4),
                     "llm_seconds_by_stage": t.llm_seconds_by_purpose})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=len(QUESTIONS), help="questions on the real model (0: none)")
    args = parser.parse_args()
    scale = CORPUS / "les-miserables.txt"
    figures = {"loading": loading(scale), "collection": collection(scale), "memory": memory(scale)}
    if args.questions:
        figures["questions"] = questions(args.questions)
    write_figures("engine", figures)


if __name__ == "__main__":
    main()
