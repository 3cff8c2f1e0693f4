"""One question answered by each method of the app's side-by-side view, on the embedded model:
``python -m benchmarks.side_by_side [BOOK] [--question Q ...]``.

For each question: ELITE (laptop preset, with the book's character-name index), chunk-embedding RAG (MiniLM) and
BM25 over 100-word chunks, each answering through the same answer step; printed: the answer, the evidence
sentences placed, the LLM calls, prompt and generated tokens and seconds, and each chunk index's build time.
"""

from __future__ import annotations

import argparse
import time

from benchmarks import ROOT, write_figures
from elite_ui.book import load_book
from elite_ui.book.names import build_names
from elite_ui.methods import METHODS, Tools
from elite_ui.models import MiniLMEmbedder
from elite_ui.models.llama_cpp import LlamaCppLLM

QUESTIONS = ["Where does Toad live?", "What does Mole do at the start of the story?", "Who is Portly?"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", nargs="?", default=str(ROOT / "assets" / "the-wind-in-the-willows.txt"))
    parser.add_argument("--question", action="append", help="a question (repeatable)")
    args = parser.parse_args()
    book = load_book(args.book)
    llm, tools = LlamaCppLLM(n_ctx=4096), Tools(MiniLMEmbedder(), names=build_names(book))
    engines = {name: METHODS[name].engine(llm, tools=tools) for name in ("elite", "embedding", "bm25")}
    prepared = {name: engine.prepare(book) for name, engine in engines.items()}
    preparation = {name: {"seconds": round(p.seconds, 2), "bytes": p.bytes} for name, p in prepared.items()
                   if name != "elite"}
    figures = {"book": book.title, "preparation": preparation, "questions": []}
    for question in args.question or QUESTIONS:
        row = {"question": question}
        for name, engine in engines.items():
            started = time.perf_counter()
            trace = engine.run(book, question, prepared=prepared[name])
            t = trace.totals()
            row[name] = {"answer": trace.answer.text, "evidence": len(trace.answer.evidence),
                         "calls": t.llm_calls, "prompt_tokens": t.prompt_tokens,
                         "generated": t.completion_tokens, "seconds": round(time.perf_counter() - started, 1)}
            print(f"{question} | {name}: {t.llm_calls} calls, {t.prompt_tokens:,} prompt + "
                  f"{t.completion_tokens} generated tokens, {row[name]['seconds']} s, "
                  f"{row[name]['evidence']} evidence sentences: {trace.answer.text[:100]!r}")
        figures["questions"].append(row)
    print("index build:", preparation)
    write_figures("side-by-side", figures)


if __name__ == "__main__":
    main()
