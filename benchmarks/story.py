"""The story so far and the X-Ray, measured: ``python -m benchmarks.story``.

For every corpus novel: the time to build the extractive recap of the whole book, and, with the spoiler ceiling at
half the book, the share of recap sentences that exist and lie before the ceiling (it must be 100%). Then the top
five companions of Elizabeth (Pride and Prejudice) and of Toad (The Wind in the Willows), and the time to build
an X-Ray of Jean Valjean in Les Misérables.

``--written [MODEL] [--up-to CEILING]``: instead, the recaps a real model writes (Qwen2.5-Coder-1.5B unless
``MODEL`` says otherwise) of Pride and Prejudice's chapters up to the ceiling ("chapter 5"): seconds per chapter,
the share of chapters with a recap, its sentences cited by the model's labels or by their words, and those
dropped.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book, reading_ceiling
from elite_ui.book.names import names_for
from elite_ui.book.story import recap, xray


def written(model: str | None, up_to: str) -> dict:
    """The recaps a real model writes of Pride and Prejudice's chapters up to ``up_to``, written afresh."""
    from elite_ui.methods.recap import Recaps
    from elite_ui.models import open_llm

    if model is None:
        from benchmarks.real_model import real_model

        model = str(real_model())
    llm, book = open_llm(model, n_ctx=4096), load_book(CORPUS / "pride-and-prejudice.txt")
    book = book.up_to(*reading_ceiling(book, up_to))
    writer, seconds = Recaps(llm, book, tempfile.mkdtemp(prefix="recaps-")), []
    steps, started = writer.build(), time.perf_counter()
    while True:
        try:
            next(steps)
        except StopIteration as done:
            recaps = done.value
            break
        seconds.append(round(time.perf_counter() - started, 1))
        started = time.perf_counter()
        print(f"chapter {len(seconds)}: {seconds[-1]} s", flush=True)
    lines = sum(len(r.lines) for r in recaps)
    by_words = sum(r.matched for r in recaps)
    return {"model": llm.name, "up_to": up_to, "chapters": len(recaps), "seconds": seconds,
            "written": sum(bool(r.lines) for r in recaps), "sentences": lines, "cited_by_words": by_words,
            "cited_by_labels": lines - by_words, "dropped": sum(r.dropped for r in recaps),
            "copied": sum(r.copied for r in recaps),
            "recaps": [[r.ref, [t for t, _ in r.lines]] for r in recaps]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--written", nargs="?", const="", default=None, metavar="MODEL",
                        help="measure a real model's written recaps instead")
    parser.add_argument("--up-to", default="chapter 5")
    args = parser.parse_args()
    if args.written is not None:
        figures = written(args.written or None, args.up_to)
        print(figures)
        write_figures("story-written", figures)
        return
    books, found = [], {}
    for path in sorted(CORPUS.glob("*.txt")):
        book = load_book(path)
        start = time.perf_counter()
        whole = recap(book)
        seconds = time.perf_counter() - start
        last, label = reading_ceiling(book, "50%")
        half = [sid for chapter in recap(book.up_to(last, label)) for sid in chapter.sentences]
        before = sum(0 <= sid <= last for sid in half) / max(len(half), 1)
        books.append({"book": path.stem, "chapters": len(whole), "recap_s": round(seconds, 2),
                      "extracts_at_half": len(half), "before_ceiling": before})
        print(books[-1], flush=True)
    for stem, who in (("pride-and-prejudice", "Elizabeth"), ("the-wind-in-the-willows", "Toad"),
                      ("les-miserables", "Valjean")):
        book = load_book(CORPUS / f"{stem}.txt")
        names = names_for(book, None)
        start = time.perf_counter()
        x = xray(book, names, names.find(who))
        found[who] = {"book": stem, "character": x.name, "mentions": x.mentions,
                      "xray_s": round(time.perf_counter() - start, 2),
                      "companions": [[name, count] for name, count, _ in x.companions[:5]]}
        print(found[who], flush=True)
    write_figures("story", {"books": books, "xray": found})


if __name__ == "__main__":
    main()
