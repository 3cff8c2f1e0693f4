"""Print the seeded passages a novel's questions are written from: ``python -m benchmarks.novels.passages em``.

The book (read by the app's own loader, so sentence numbers are the app's) is cut into ``--count`` equal stretches
from its first chapter to its end; in each, one sentence of 12 words or more is drawn with the seed, and printed with
the two sentences before and three after. Every ``--hop``-th passage also gets a second one: a sentence of another
chapter naming the same person (one of the characters the app finds in the book; a passage naming none gets no
second one), drawn with the same seed. Sentence numbers are what a draft's ``E:`` lines cite.
"""

from __future__ import annotations

import argparse
import random
import re

from benchmarks.novels import BOOKS, book_path
from elite_ui.book.load import load_book
from elite_ui.book.names import NameIndex, found_names

BEFORE, AFTER = 2, 3


def around(book, sid: int) -> range:
    """The sentences printed with ``sid``: BEFORE before it, AFTER after it."""
    return book.around(sid, BEFORE, AFTER)


def window(book, sid: int) -> str:
    lines = []
    for n in around(book, sid):
        sentence = book.sentence(n)
        lines.append(f"  {n} [{sentence.chapter_ref}] {' '.join(sentence.text.split())}")
    return "\n".join(lines)


def long_enough(book, sid: int) -> bool:
    return len(book.sentence(sid).text.split()) >= 12


def second_hop(book, names: NameIndex, sid: int, rng: random.Random) -> int | None:
    """A sentence of another chapter naming a character the passage around ``sid`` names (the most mentioned)."""
    text = " ".join(book.sentence(n).text for n in around(book, sid))
    chapter = int(book.chapter_of[sid])
    for character in names.characters:
        pattern = r"\b(?:" + "|".join(map(re.escape, character.variants)) + r")\b"
        if not re.search(pattern, text):
            continue
        found = [m.start() for m in re.finditer(pattern, book.text)]
        ids = sorted({book.sentence_at(at) for at in found})
        ids = [n for n in ids if int(book.chapter_of[n]) != chapter and long_enough(book, n)]
        if ids:
            return rng.choice(ids)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", choices=sorted(BOOKS))
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--count", type=int, default=25)
    parser.add_argument("--hop", type=int, default=2)
    args = parser.parse_args()
    book = load_book(book_path(args.book))
    names = found_names(book)
    rng = random.Random(f"{args.seed}-{args.book}")
    first = next((c.first_sentence for c in book.chapters if c.kind == "chapter"), 0)
    edges = [first + (len(book) - first) * k // args.count for k in range(args.count + 1)]
    for k in range(args.count):
        candidates = [n for n in range(edges[k], edges[k + 1]) if long_enough(book, n)]
        sid = rng.choice(candidates)
        print(f"== {args.book} passage {k + 1}")
        print(window(book, sid))
        if k % args.hop == 0 and (hop := second_hop(book, names, sid, rng)) is not None:
            print("  -- second hop")
            print(window(book, hop))


if __name__ == "__main__":
    main()
