"""One question answered by each strategy of the app's side-by-side view, on the embedded model:
``python benchmarks/side_by_side.py [BOOK] [--question Q ...]``.

For each question: ELITE (laptop preset, with the book's character-name index), chunk-embedding RAG (MiniLM) and
BM25 over 100-word chunks, each answering through the same answer step; printed: the answer, the evidence
sentences placed, the LLM calls, prompt and generated tokens and seconds, and each chunk index's build time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import write_figures  # noqa: E402
from elite_ui.baselines import BM25, ChunkRag, Embedding  # noqa: E402
from elite_ui.documents import load_book  # noqa: E402
from elite_ui.elite import PRESETS, Elite  # noqa: E402
from elite_ui.importance import MiniLMEmbedder  # noqa: E402
from elite_ui.llm import LlamaCppLLM  # noqa: E402
from elite_ui.names import build_names  # noqa: E402

QUESTIONS = ["Where does Toad live?", "What does Mole do at the start of the story?", "Who is Portly?"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", nargs="?", default=str(ROOT / "assets" / "the-wind-in-the-willows.txt"))
    parser.add_argument("--question", action="append", help="a question (repeatable)")
    args = parser.parse_args()
    book = load_book(args.book)
    llm, embed = LlamaCppLLM(n_ctx=4096), MiniLMEmbedder()
    settings = PRESETS["laptop"]
    engines = {"elite": lambda: Elite(llm, settings, embed=embed, names=build_names(book))}
    preparation = {}
    for method in (Embedding(llm, embed), BM25(llm, embed)):
        prepared = method.prepare(book)
        preparation[method.name] = {"seconds": round(prepared.seconds, 2), "bytes": prepared.bytes}
        engines[method.name] = lambda method=method, prepared=prepared: ChunkRag(llm, settings, method, prepared)
    figures = {"book": book.title, "preparation": preparation, "questions": []}
    for question in args.question or QUESTIONS:
        row = {"question": question}
        for name, make in engines.items():
            started = time.perf_counter()
            trace = make().run(book, question)
            t = trace.totals()
            row[name] = {"answer": trace.answer.text, "evidence": len(trace.answer.evidence),
                         "calls": t["llm_calls"], "prompt_tokens": t["prompt_tokens"],
                         "generated": t["completion_tokens"], "seconds": round(time.perf_counter() - started, 1)}
            print(f"{question} | {name}: {t['llm_calls']} calls, {t['prompt_tokens']:,} prompt + "
                  f"{t['completion_tokens']} generated tokens, {row[name]['seconds']} s, "
                  f"{row[name]['evidence']} evidence sentences: {trace.answer.text[:100]!r}")
        figures["questions"].append(row)
    print("index build:", preparation)
    write_figures("side-by-side", figures)


if __name__ == "__main__":
    main()
