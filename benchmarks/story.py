"""The story so far and the X-Ray, measured: ``python -m benchmarks.story``.

For every corpus novel: the time to build the extractive recap of the whole book, and, with the spoiler ceiling at
half the book, the share of recap sentences that exist and lie before the ceiling (it must be 100%). Then the top
five companions of Elizabeth (Pride and Prejudice) and of Toad (The Wind in the Willows), and the time to build
an X-Ray of Jean Valjean in Les Misérables.
"""

from __future__ import annotations

import time

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book, reading_ceiling
from elite_ui.book.names import names_for
from elite_ui.book.story import recap, xray


def main() -> None:
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
