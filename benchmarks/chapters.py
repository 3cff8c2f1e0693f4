"""Every corpus novel loaded, with its sentences and chapters: ``python -m benchmarks.chapters``.

Prints, per novel of ../shared/corpus, the sentences, the chapters found, the first chapter titles, and whether a
Project Gutenberg licence is left at the end (the tests check the same of the novels shipped with the repository).
"""

from __future__ import annotations

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book


def main() -> None:
    rows = []
    for path in sorted(CORPUS.glob("*.txt")):
        book = load_book(path)
        licence = "PROJECT GUTENBERG" in book.text[-3000:].upper()
        rows.append({"book": path.name, "sentences": len(book), "chapters": len(book.chapters),
                     "first_titles": [c.title for c in book.chapters[:3]], "licence_left": licence,
                     "seconds": round(book.load_seconds, 2)})
        print(f"{path.name:42s} {len(book):7,d} sentences {len(book.chapters):4d} chapters "
              f"{'LICENCE LEFT ' if licence else ''}first: {' | '.join(rows[-1]['first_titles'])[:80]}")
    short = [r["book"] for r in rows if r["sentences"] <= 2000 or r["chapters"] < 10]
    print(f"{len(rows)} novels; under 2,000 sentences or 10 chapters: {', '.join(short) or 'none'}")
    write_figures("chapters", {"rows": rows})


if __name__ == "__main__":
    main()
