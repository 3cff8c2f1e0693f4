"""The sample book a first visit can try in one click (Kenneth Grahame's The Wind in the Willows, public domain)
and the example questions offered with it."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from ..book import Book

SAMPLE = Path(__file__).resolve().parents[2] / "assets" / "the-wind-in-the-willows.txt"

EXAMPLES = ["Who is Mole's friend who lives by the river?", "What happens to Toad after he steals the motor-car?",
            "How many times is Toad Hall mentioned?"]
"""Questions about the sample book, one click from the question box with the demo model: of the candidates in
``benchmarks/examples.py``, those whose answer the default preset puts in the evidence and the embedded demo model
states (docs/settings.md, "The demo preset")."""
CAPABLE_EXAMPLES = ["Who is the Water Rat's friend?", "What did Toad steal?", "How many times is Toad Hall mentioned?"]
"""The same with a real model (one the ``capable`` preset answers with): the candidates a 1.5B model states with
it, in a sentence the checks do not mark (``python -m benchmarks.examples --model ...``)."""


@cache
def sample_digest() -> str:
    return hashlib.sha256(SAMPLE.read_bytes()).hexdigest() if SAMPLE.exists() else ""


def is_sample(book: Book | None) -> bool:
    return book is not None and book.digest == sample_digest()


def example_questions(book: Book | None, names: list[str], capable: bool = False) -> list[str]:
    """Example questions about ``book``: the sample book's own (for a real model, ``capable``, or the demo model),
    else made from the names of its two most mentioned characters (as far as the reader has read); none before a
    book, or names, are known."""
    if book is None or is_sample(book):
        return CAPABLE_EXAMPLES if capable else EXAMPLES
    if not names:
        return []
    other = [f"How are {names[0]} and {names[1]} related?"] if len(names) > 1 else []
    return [f"Who is {names[0]}?", *other, f"How many times is {names[0]} mentioned?"]
