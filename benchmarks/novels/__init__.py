"""novels-300: a development set of questions with exact evidence over eleven corpus novels, and the procedure that
writes and checks it (see README.md): ``passages`` prints the seeded passages questions are written from, ``build``
turns the written drafts into the question set, ``check`` verifies it."""

from benchmarks import CORPUS

BOOKS = {"tc": "a-tale-of-two-cities", "ak": "anna-karenina", "em": "emma", "fr": "frankenstein",
         "lm": "les-miserables", "mm": "middlemarch", "hf": "the-adventures-of-huckleberry-finn",
         "dg": "the-picture-of-dorian-gray", "sl": "the-scarlet-letter", "wf": "white-fang",
         "wh": "wuthering-heights"}
"""The eleven novels (by the prefix of their questions' ids), files of ../shared/corpus."""


def book_path(prefix: str):
    return CORPUS / f"{BOOKS[prefix]}.txt"
