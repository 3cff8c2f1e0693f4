"""novels-300: a development set of questions with exact evidence over eleven corpus novels, and the procedure that
writes and checks it (see README.md): ``passages`` prints the seeded passages questions are written from, ``build``
turns the written drafts into the question set, ``check`` verifies it."""

from functools import cache

from benchmarks import CORPUS

BOOKS = {"tc": "a-tale-of-two-cities", "ak": "anna-karenina", "em": "emma", "fr": "frankenstein",
         "lm": "les-miserables", "mm": "middlemarch", "hf": "the-adventures-of-huckleberry-finn",
         "dg": "the-picture-of-dorian-gray", "sl": "the-scarlet-letter", "wf": "white-fang",
         "wh": "wuthering-heights"}
"""The eleven novels (by the prefix of their questions' ids), files of ../shared/corpus."""


def book_path(prefix: str):
    return CORPUS / f"{BOOKS[prefix]}.txt"


def prefix_of(name: str) -> str:
    """The id prefix of a novel named by its file's stem."""
    return next(prefix for prefix, stem in BOOKS.items() if stem == name)


@cache
def opened(prefix: str):
    """The novel as the app loads it, and its file's text as Python reads it (universal newlines), less the page
    numbers and running lines of a PDF saved as text (:func:`~elite_ui.book.formats.unpaged`: Huckleberry Finn's)."""
    from elite_ui.book.formats import unpaged
    from elite_ui.book.load import load_book

    path = book_path(prefix)
    return load_book(path), unpaged(path.read_text(encoding="utf-8"))
