"""Every corpus novel loaded, with its sentences and chapters: ``python -m benchmarks.chapters``.

Prints, per novel of ../shared/corpus, the sentences, the chapters found by the book's own headings (and their
numbers: the first and last, and whether they run on without a gap), the parts, what is marked front matter, and
whether a Project Gutenberg licence is left at the end (the tests check the same of the shipped novels).
"""

from __future__ import annotations

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book


def main() -> None:
    rows = []
    for path in sorted(CORPUS.glob("*.txt")):
        book = load_book(path)
        licence = "PROJECT GUTENBERG" in book.text[-3000:].upper()
        summary = book.summary()
        refs = [c.ref for c in book.chapters if c.kind == "chapter"]
        rows.append({"book": path.name, "sentences": len(book), "chapters": summary["chapters"],
                     "parts": summary["parts"], "front_matter": summary["front_matter"],
                     "first_and_last": [refs[0], refs[-1]] if refs else [], "numbered_in_order": in_order(book),
                     "first_titles": [c.title for c in book.chapters if c.kind == "chapter"][:3],
                     "licence_left": licence, "seconds": round(book.load_seconds, 2)})
        row = rows[-1]
        order = "in order" if row["numbered_in_order"] else "NUMBERS SKIP"
        print(f"{path.name:38s} {len(book):7,d} sentences {row['chapters']:4d} chapters "
              f"({' to '.join(refs[:1] + refs[-1:])}, {order}) {row['parts']} parts; "
              f"front matter: {', '.join(row['front_matter']) or 'none'}{'; LICENCE LEFT' if licence else ''}")
    short = [r["book"] for r in rows if r["sentences"] <= 2000 or r["chapters"] < 10]
    print(f"{len(rows)} novels; under 2,000 sentences or 10 chapters: {', '.join(short) or 'none'}")
    write_figures("chapters", {"rows": rows})


def in_order(book) -> bool:
    """Whether the chapters' own numbers run on without a gap: 1, 2, 3..., starting again at 1 only at a new part
    or a new kind of chapter (letters, then chapters)."""
    expected, word, new_part = 1, None, False
    for chapter in book.chapters:
        if chapter.kind == "part":
            new_part = True
        elif chapter.kind == "chapter":
            restart = (new_part or chapter.word != word) and chapter.number == 1
            if chapter.number != expected and not restart:
                return False
            expected, word, new_part = chapter.number + 1, chapter.word, False
    return True


if __name__ == "__main__":
    main()
