"""The reader's spoiler ceiling: "I have read up to chapter 12 / page 80 / 40%" as the last sentence read."""

from __future__ import annotations

import re

import numpy as np

from ..errors import BookError
from .model import Book

CEILING = re.compile(r"^\s*(?:(chapter|ch\.?|page|p\.?)\s*(\d+)|(\d+(?:\.\d+)?)\s*%)\s*$", re.I)


def reading_ceiling(book: Book, spec: str) -> tuple[int, str] | None:
    """The last sentence a reader has read, from "chapter 12", "page 80" or "40%" (None when ``spec`` is empty),
    and how to name it."""
    if not spec.strip():
        return None
    found = CEILING.match(spec)
    if not found:
        raise BookError(f'"{spec.strip()}" is not a reading position; write "chapter 12", "page 80" or "40%".')
    kind, number, percent = found.groups()
    if percent is not None:
        share = min(float(percent), 100.0) / 100
        last = int(np.searchsorted(book.bounds[:, 1], int(len(book.text) * share), side="right")) - 1
        return max(last, 0), f"{percent}% of the book"
    n = int(number)
    if kind.lower().startswith("c"):
        if not 1 <= n <= len(book.chapters):
            raise BookError(f"chapter {n} is not in this book, which has {len(book.chapters)} chapters.")
        last = book.chapters[n].first_sentence - 1 if n < len(book.chapters) else len(book) - 1
        return last, f"chapter {n} ({book.chapters[n - 1].title})"
    if book.page_starts is None:
        raise BookError("this book has no pages (it is not a PDF); give a chapter or a percentage.")
    if not 1 <= n <= len(book.page_starts):
        raise BookError(f"page {n} is not in this book, which has {len(book.page_starts)} pages.")
    end = int(book.page_starts[n]) if n < len(book.page_starts) else len(book.text)
    return max(int(np.searchsorted(book.bounds[:, 1], end, side="right")) - 1, 0), f"page {n}"
