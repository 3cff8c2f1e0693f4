"""Where the reader is and what they highlighted, from their reading apps, found in our books:
``python -m benchmarks.library``.

Each corpus novel is written as an EPUB with the nesting e-books have (:func:`elite_ui.testing.reading_apps.
nested_epub`) and read back. For 50 sentences of each (seeded), the sentence's start is written as Calibre's viewer
writes it (a CFI of its own form), as the EPUB standard writes it and as KOReader writes it (an xpointer), and
each is followed back through the EPUB: how many land in the right chapter, and on the exact sentence. 30 more
sentences of each become highlights whose text an e-reader shows with other typography (curly quotes, an em dash,
the ligature ﬁ): found with their place, with none (the text alone), and with their chapter's title alone (what
KOReader writes of a highlight in a book whose places it cannot give). And the share of the book read
alone (all a text file's position is): how many land in the right chapter.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book
from elite_ui.book.formats import epub_spine
from elite_ui.library import Marked, Reading, locate
from elite_ui.library.places import cfi_place, xpointer_place
from elite_ui.testing.reading_apps import nested_epub, written_places

NOVELS = ["pride-and-prejudice", "jane-eyre", "emma", "frankenstein", "the-picture-of-dorian-gray",
          "the-scarlet-letter", "wuthering-heights", "white-fang", "dubliners", "the-wind-in-the-willows"]
PLACES, HIGHLIGHTS = 50, 30


def shown(text: str) -> str:
    """A sentence as an e-reader shows it: curly apostrophes, an em dash for a double hyphen, the ﬁ ligature."""
    return text.replace("'", "\u2019").replace("--", "\u2014").replace("fi", "\ufb01")


def novel(name: str, folder: Path) -> dict:
    txt = load_book(CORPUS / f"{name}.txt")
    path = nested_epub(txt, folder / f"{name}.epub")
    book = load_book(path)
    items = epub_spine(path.read_bytes(), path.name).items
    rng = np.random.default_rng(0)
    picked = rng.choice(np.arange(book.first_read, len(book)), PLACES + HIGHLIGHTS, replace=False).tolist()
    places, highlights = picked[:PLACES], picked[PLACES:]
    counts = {kind: {"chapter": 0, "sentence": 0} for kind in ("calibre", "standard", "koreader", "fraction")}
    started = time.perf_counter()
    for sid in places:
        written = written_places(path, book, sid)
        found = {"calibre": cfi_place(items, written.calibre), "standard": cfi_place(items, written.standard),
                 "koreader": xpointer_place(items, written.koreader),
                 "fraction": int(round(book.bounds[sid, 0] / len(book.text), 3) * len(book.text))}
        for kind, offset in found.items():
            got = book.sentence_at(offset) if offset is not None else None
            counts[kind]["chapter"] += got is not None and book.chapter_of[got] == book.chapter_of[sid]
            counts[kind]["sentence"] += got == sid
    places_seconds = (time.perf_counter() - started) / PLACES
    marked = {"placed": [], "text alone": [], "text and chapter": []}
    for sid in highlights:
        text = shown(book.sentence(sid).text)
        marked["placed"].append(Marked("Calibre", text, place=written_places(path, book, sid).calibre))
        marked["text alone"].append(Marked("Calibre", text))
        marked["text and chapter"].append(Marked("KOReader", text,
                                                 chapter=book.chapters[int(book.chapter_of[sid])].title))
    found = {}
    for how, marks in marked.items():
        located = locate(book, path, [Reading("Calibre", marked=marks)])
        found[how] = {"matched": sum(sid in f.sentences for f, sid in zip(located.found, highlights, strict=True)),
                      "exact": sum(f.how == "exact" for f in located.found)}
    return {"novel": name, "sentences": len(book), "places": {k: {n: int(v) for n, v in c.items()}
                                                               for k, c in counts.items()},
            "highlights": found, "seconds_a_place": round(places_seconds, 3)}


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    rows = []
    for name in NOVELS:
        row = novel(name, folder)
        rows.append(row)
        p = row["places"]
        print(f"{name}: chapter/sentence of {PLACES}: " + ", ".join(f"{k} {v['chapter']}/{v['sentence']}"
                                                                   for k, v in p.items())
              + f"; highlights of {HIGHLIGHTS} matched: placed {row['highlights']['placed']['matched']}, text alone "
                f"{row['highlights']['text alone']['matched']}, text and chapter "
                f"{row['highlights']['text and chapter']['matched']}; {row['seconds_a_place'] * 1000:.0f} ms a place")
    write_figures("library", {"places_each": PLACES, "highlights_each": HIGHLIGHTS, "rows": rows})


if __name__ == "__main__":
    main()
