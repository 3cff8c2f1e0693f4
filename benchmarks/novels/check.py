"""Check the question set: ``python -m benchmarks.novels.check [FILE]``; exit status 1 on any error.

Errors: a line that is not a question in our format (see :mod:`elite_ui.bench.datasets`), a duplicate id, an id
whose prefix is not its book's, an empty question or answer, a book not found, evidence that is not an exact
substring of its book file (read as UTF-8 with universal newlines, less the page numbers and running lines of a PDF
saved as text) or is over 1,000 characters, a multi-hop question whose evidence is not in at least two chapters (the
app's loader's chapters), a question marked ``reworded`` that shares more than one content word with its evidence,
and a set that misses its shape: at least 300 questions over at least 10 novels, a third reworded, a quarter
multi-hop. A question's content words are its words less stopwords and less names (words it writes with a capital
letter, the first word aside); one is shared when any inflected form of it (lemminflect) is a word of the evidence.
Evidence under 20 or over 300 characters is a warning.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from benchmarks.novels import BOOKS, opened, prefix_of
from benchmarks.novels.build import SET
from elite_ui.bench.datasets import read
from elite_ui.book.lexicon import content_words, forms, words
from elite_ui.errors import EliteError

SHAPE = {"questions": 300, "novels": 10, "reworded": 1 / 3, "multi-hop": 1 / 4}
SHARED_AT_MOST = 1
"""A reworded question shares at most this many content words with its evidence."""


def question_words(question: str) -> list[str]:
    """The question's content words, names left out."""
    names = {w.lower() for w in question.split()[1:] if w[:1].isupper()}
    names = {n for name in names for n in words(name)}
    return [w for w in content_words(question) if w not in names]


def shared_words(question: str, evidence: list[str]) -> list[str]:
    """The question's content words that the evidence writes in some form."""
    written = set(words(" ".join(evidence)))
    return [w for w in question_words(question) if written & set(forms(w))]


def problems(q) -> list[str]:
    """What is wrong with one question."""
    out = []
    name = Path(q.book).stem
    if name not in BOOKS.values():
        return [f"book not among the eleven: {q.book}"]
    if BOOKS.get(q.id.split("-")[0]) != name:
        out.append(f"id prefix is not the book's ({name})")
    if not q.question.strip() or not str(q.answer).strip():
        out.append("empty question or answer")
    book, raw = opened(prefix_of(name))
    chapters = set()
    for k, piece in enumerate(q.evidence):
        if piece not in raw:
            out.append(f"evidence {k + 1} is not in the book: {piece[:60]!r}")
        elif len(piece) > 1000:
            out.append(f"evidence {k + 1} has {len(piece)} characters")
        at = book.text.find(piece)
        if at >= 0:
            chapters.add(int(book.chapter_of[book.sentence_at(at)]))
    if not q.evidence:
        out.append("no evidence")
    if q.complexity == "mh" and len(chapters) < 2:
        out.append("multi-hop, but its evidence lies in one chapter")
    if q.reworded and len(shared := shared_words(q.question, q.evidence)) > SHARED_AT_MOST:
        out.append(f"marked reworded, but shares {shared} with its evidence")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(SET))
    args = parser.parse_args(argv)
    try:
        questions = read(args.file)
    except EliteError as exc:
        print("ERROR", exc)
        return 1
    errors = [f"{q.id}: {p}" for q in questions for p in problems(q)]
    errors += [f"id {i} used {n} times" for i, n in Counter(q.id for q in questions).items() if n > 1]
    warnings = [f"{q.id}: evidence of {len(piece)} characters" for q in questions for piece in q.evidence
                if not 20 <= len(piece) <= 300]
    shape = {"questions": len(questions), "novels": len({q.book for q in questions}),
             "reworded": sum(bool(q.reworded) for q in questions) / max(len(questions), 1),
             "multi-hop": sum(q.complexity == "mh" for q in questions) / max(len(questions), 1)}
    errors += [f"the set has {key} {shape[key]:.3g}, fewer than {least:.3g}" for key, least in SHAPE.items()
               if shape[key] < least]
    for line in warnings:
        print("WARNING", line)
    for line in errors:
        print("ERROR", line)
    per_book = Counter(Path(q.book).stem for q in questions)
    print(f"{len(questions)} questions on {len(per_book)} novels: {dict(sorted(per_book.items()))}")
    print(f"reworded {shape['reworded']:.0%}, multi-hop {shape['multi-hop']:.0%}; aspects "
          f"{dict(sorted(Counter(q.aspect for q in questions).items()))}")
    print(f"{len(errors)} errors, {len(warnings)} warnings")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
