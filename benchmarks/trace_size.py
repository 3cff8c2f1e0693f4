"""How big a question's trace can get: ``python -m benchmarks.trace_size``.

A book of one 20 MB sentence ("Pemberley " two million times) is loaded and asked a question with each preset on
the scripted model; prints how many pieces the book was cut into, the longest, and the size of the trace's HTML
as the page shows it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchmarks import write_figures
from elite_ui.app import render
from elite_ui.book import load_book
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.models import ScriptedLLM


def main() -> None:
    path = Path(tempfile.mkdtemp(prefix="trace-size-")) / "one-sentence-20mb.txt"
    path.write_text("Pemberley " * 2_000_000, encoding="utf-8")
    book = load_book(path)
    llm = ScriptedLLM({"terms": ["Pemberley"], "judge": ["no", "yes"], "breadth": ["Pemberley"],
                       "depth": ["Pemberley"], "answer": ["It is Pemberley [S1]."]})
    found = {"book_mb": round(path.stat().st_size / 2**20, 1), "sentences": len(book),
             "longest": int((book.bounds[:, 1] - book.bounds[:, 0]).max())}
    for name in sorted(PRESETS):
        trace = Elite(llm, PRESETS[name]).run(book, "What is Pemberley?")
        found[f"trace_mb_{name}"] = round(len(render.trace_html(book, trace.events).encode()) / 2**20, 2)
    print(found)
    write_figures("trace_size", found)


if __name__ == "__main__":
    main()
