"""M-RAG on the embedded model, printed as figures: ``python -m benchmarks.mrag BOOK [--sample N] [--audit N]
[--model GGUF | --server URL --model NAME]``.

1. extraction (laptop preset, or --set NAME=VALUE): time, LLM calls and tokens, coverage after the first call and
   after retries, fallback rate, markers dropped; with ``--sample N`` only N windows spread over the book are
   extracted and the whole-book time is extrapolated from them;
2. the fidelity audit: support rate (content words, names, numbers), share flagged; with ``--audit N`` the model
   also judges each statement of N sampled markers;
3. storage: marker store bytes against the book's;
4. key retrieval against chunk-embedding retrieval on the same book (20 questions, median matching time).

The marker store is the app's (``$ELITE_CACHE``), so a full run leaves the book ready to ask in the app.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks import write_figures
from elite_ui.book import load_book
from elite_ui.methods.lexical import chunks
from elite_ui.methods.mrag import PRESETS, MarkerIndex, Mrag, MragSettings, Store, Window
from elite_ui.methods.trace import Event
from elite_ui.models import MiniLMEmbedder, open_llm
from elite_ui.settings import overridden

QUESTIONS = ["Who is the main character?", "Where does the story begin?", "Who is the hero's closest friend?",
             "What happens at the end?", "Who dies?", "What is the weather like?", "Who owns the house?",
             "What does the letter say?", "Who is in prison?", "Where do they travel?", "Who is married?",
             "What happens in the river?", "Who is the enemy?", "What is stolen?", "Who tells the story?",
             "What animal appears?", "Who is rich?", "What is the secret?", "Who helps the hero?",
             "What happens at night?"]


def extraction(engine: Mrag, book, sample: int) -> tuple[list[Window], int, float]:
    planned = len(engine.plan(book)[1])
    only = None if not sample else set(np.linspace(0, planned - 1, sample).round().astype(int).tolist())
    started = time.perf_counter()
    for event in engine.build(book, only):
        if event.kind == "index_progress":
            print(f"  windows {event.data.done}/{event.data.total} (eta {event.data.eta_seconds} s)",
                  flush=True)
    seconds = time.perf_counter() - started
    stored = Store(engine.folder(book)).load()
    chosen = [stored[n] for n in sorted(stored) if only is None or n in only]
    return chosen, planned, seconds


def describe(windows: list[Window], planned: int, book_bytes: int, folder: Path, paragraphs) -> dict:
    index = MarkerIndex(paragraphs, windows, folder, book_bytes)
    stats = index.stats()
    per_window = stats["extraction_seconds"] / max(len(windows), 1)
    stats["windows_measured"], stats["windows_in_book"] = len(windows), planned
    stats["seconds_per_window"] = round(per_window, 2)
    stats["whole_book_seconds_estimate"] = round(per_window * planned, 1)
    stats["tokens_per_window"] = round((stats["prompt_tokens"] + stats["completion_tokens"]) / max(len(windows), 1))
    lines = sum(len(Store.line(w).encode()) for w in windows)
    stats["store_bytes_estimate"] = round(lines / max(len(windows), 1) * planned
                                          + stats["markers"] / max(len(windows), 1) * planned * 384 * 4)
    stats["storage_expansion_estimate"] = round(stats["store_bytes_estimate"] / book_bytes, 2)
    stats["markers_estimate"] = round(stats["markers"] / max(len(windows), 1) * planned)
    return stats


def matching(markers: int, chunk_count: int) -> dict:
    """Matching time alone (cosine against every vector, then ranking) for a key matrix and a chunk matrix of
    these sizes: it depends only on their counts, so it can be measured for a book not fully extracted."""
    rng = np.random.default_rng(0)
    times = {}
    for name, count in (("keys", markers), ("chunks", chunk_count)):
        vectors = rng.standard_normal((count, 384)).astype(np.float32)
        query = rng.standard_normal(384).astype(np.float32)
        runs = []
        for _ in range(50):
            started = time.perf_counter()
            np.argsort(-(vectors @ query))
            runs.append(time.perf_counter() - started)
        times[f"{name}"] = count
        times[f"{name}_match_ms"] = round(statistics.median(runs) * 1000, 3)
    return times


def statement_audit(engine: Mrag, book, index: MarkerIndex, count: int) -> dict:
    model = [m for m in index.markers if m.source == "model"]
    picked = random.Random(0).sample(model, min(count, len(model)))
    shares = []
    for marker in picked:
        events: list[Event] = list(engine.check_statements(book, index, marker))
        shares += [s["supported"] for e in events if e.kind == "audit" for s in e.data.statements]
    return {"markers_judged": len(picked), "statements": len(shares),
            "statements_supported": round(sum(shares) / len(shares), 4) if shares else None}


def latency(engine: Mrag, book, index: MarkerIndex) -> dict:
    embed = engine.embed
    spans = chunks(book)
    started = time.perf_counter()
    chunk_vectors = np.asarray(embed([book.span_text(a, b) for a, b in spans]), dtype=np.float32)
    chunk_embedding_seconds = time.perf_counter() - started
    keys, chunk_times, query_times = [], [], []
    for question in QUESTIONS:
        started = time.perf_counter()
        query = np.asarray(embed([question]), dtype=np.float32)[0]
        query_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        np.argsort(-(index.vectors @ query))
        keys.append(time.perf_counter() - started)
        started = time.perf_counter()
        np.argsort(-(chunk_vectors @ query))
        chunk_times.append(time.perf_counter() - started)
    return {"keys": len(index.vectors), "chunks": len(spans),
            "key_match_ms": round(statistics.median(keys) * 1000, 3),
            "chunk_match_ms": round(statistics.median(chunk_times) * 1000, 3),
            "query_embedding_ms": round(statistics.median(query_times) * 1000, 2),
            "chunk_embedding_seconds": round(chunk_embedding_seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("book")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="laptop")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--sample", type=int, default=0, help="extract only N windows spread over the book")
    parser.add_argument("--audit", type=int, default=0, help="statements of N markers judged by the model")
    parser.add_argument("--model", help="a GGUF file (default: the embedded SmolLM2-135M), or with --server the name")
    parser.add_argument("--server", help="an OpenAI-compatible server's base URL")
    args = parser.parse_args()
    settings: MragSettings = overridden(PRESETS[args.preset], args.set)
    book = load_book(args.book)
    llm = open_llm(args.model, server=args.server, n_ctx=4096)
    engine = Mrag(llm, settings, embed=MiniLMEmbedder())
    print(f"{book.title}: {len(book.text.encode()) / 1e6:.2f} MB, settings {settings}")
    windows, planned, seconds = extraction(engine, book, args.sample)
    paragraphs = engine.plan(book)[0]
    figures = {"book": Path(args.book).name, "sample": args.sample, "wall_seconds": round(seconds, 1),
               "extraction": describe(windows, planned, len(book.text.encode()), engine.folder(book), paragraphs)}
    if args.sample:
        index = MarkerIndex(paragraphs, windows, engine.folder(book), len(book.text.encode()))
    else:
        index = engine.index(book)
        figures["extraction"]["store_bytes"] = index.stats()["store_bytes"]
        figures["extraction"]["storage_expansion"] = index.stats()["storage_expansion"]
        figures["retrieval"] = latency(engine, book, index)
    figures["matching_by_size"] = matching(figures["extraction"]["markers_estimate"], len(chunks(book)))
    if args.audit:
        figures["statement_audit"] = statement_audit(engine, book, index, args.audit)
    print(json.dumps(figures, indent=1))
    write_figures(f"mrag-{Path(args.book).stem}" + (f"-sample{args.sample}" if args.sample else ""), figures)


if __name__ == "__main__":
    main()
