"""Asking across a library: the books that matter found first in the library's index
(:class:`~elite_ui.library.index.LibraryIndex`), then each asked through the one front door
(:mod:`elite_ui.reading`) under its own spoiler ceiling, and one answer citing book, chapter and sentence. The
page, the API and the command line search and ask a library through here."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from .book import Book, load_book
from .library.index import LibraryIndex, Searched
from .reading import Asked
from .records import (
    AnswerRecord,
    BookAnswer,
    LibraryAnswer,
    LibraryFound,
    ShelfBook,
    ShelfSentence,
    chaptered,
    cited_line,
)

ASKED_BOOKS = 3
"""Books a question across the library is asked of: the best matches of its words."""
UNREAD = "ask with unread to include them"
"""How the reader brings in the books no reading app has opened (the command line's, the API's and MCP's
``unread``)."""
FRESH_SECONDS = 60.0
"""How long a library's index is taken as current before the library is looked at again."""
_kept: dict[tuple, tuple[LibraryIndex, float]] = {}
_keeping = threading.Lock()


def kept_index(folder: str | Path, cache_dir: str | Path, koreader: str | Path | None = None,
               told: Callable[[int, int, str], object] | None = None) -> LibraryIndex:
    """The library's index, brought up to date when it was last looked at over :data:`FRESH_SECONDS` ago (one
    update at a time; ``told`` as :meth:`LibraryIndex.update` tells)."""
    key = (str(folder), str(cache_dir), str(koreader))
    with _keeping:
        index, checked = _kept.get(key, (None, 0.0))
        if index is None or time.monotonic() - checked > FRESH_SECONDS:
            index = index or LibraryIndex(folder, cache_dir, koreader)
            index.update(told)
            _kept[key] = (index, time.monotonic())
        return index


def library_found(words: str, searched: Searched) -> LibraryFound:
    """A library search as data."""
    return LibraryFound(words=words, unread_left=searched.unread_left, books=[
        ShelfBook(book=b.key, title=b.title, authors=b.authors, up_to=b.up_to, score=b.score,
                  sentences=[ShelfSentence(sentence=h.sentence, chapter=h.chapter, text=h.text) for h in b.hits])
        for b in searched.books])


def said_by(record: AnswerRecord) -> bool:
    """Whether a book's answer rests on its sentences (an answer that the book does not say cites none)."""
    return bool(record["citations"])


def ask_across(index: LibraryIndex, question: str, answer: Callable[[Book, Asked], AnswerRecord],
               unread: bool = False, books: int = ASKED_BOOKS, cache_dir=None, include: str = UNREAD) -> LibraryAnswer:
    """``question`` answered across the library: the ``books`` whose sentences hold its words best (up to where
    the reader is in each; those no reading app has opened only with ``unread``), each asked by ``answer`` (the
    caller's way of running a question: the app's fair line, the command line's model), the answers that their
    books support put together, each naming its book and citing its chapters; ``include``: how this caller's
    reader brings in the unopened books that hold the words too."""
    searched = index.search(question, books=books, unread=unread)
    asked = []
    for found in searched.books:
        book = load_book(index.folder / found.key, cache_dir=cache_dir)
        ceiling = f"S{found.ceiling}" if found.ceiling is not None else ""
        asked.append(BookAnswer(title=found.title, authors=found.authors,
                                answer=answer(book, Asked(question, ceiling))))
    said = put_together(asked, len(searched.books), searched.unread_left, include)
    return LibraryAnswer(question=question, answer=said, books=asked, searched=library_found(question, searched))


def put_together(asked: list[BookAnswer], searched: int, unread_left: int | None, include: str = UNREAD) -> str:
    """One answer from each book's: those their sentences support, the book named, its labels as chapters, each
    citation with its chapter."""
    lines = []
    for one in asked:
        record = one["answer"]
        if said_by(record):
            cited = "; ".join(cited_line(c) for c in record["citations"][:3])
            lines.append(f"In {one['title']}: {chaptered(record)} ({cited})")
    if not lines:
        lines.append("The book whose words came closest does not say." if searched == 1 else
                     f"None of the {searched} books whose words came closest says." if searched else
                     "Nothing in your library, as far as you have read, holds these words.")
    if unread_left:
        lines.append(f"{unread_left} book{'s' * (unread_left != 1)} you have not opened hold the words too "
                     f"({include}).")
    return "\n".join(lines)
