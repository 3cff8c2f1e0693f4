"""The reader: a cited sentence highlighted in its paragraph, with the paragraphs around it and its chapter."""

from __future__ import annotations

from ...book import Book
from .common import esc, italics

AROUND = 2
"""Paragraphs shown on each side of the one the Reader opens at: a page is ``2 * AROUND + 1`` paragraphs."""


def reader(book: Book, sid: int, around: int = AROUND, ceiling: int | None = None, other: bool = False,
           cited: bool = True) -> str:
    """The sentence ``sid`` inside its paragraph (highlighted when ``cited``; not when the reader turns pages) and
    ``around`` paragraphs each side, with its chapter; nothing after sentence ``ceiling`` (the reader's spoiler
    ceiling). ``other``: the book is not the open one (its title is said)."""
    if not 0 <= sid < len(book) or (ceiling is not None and sid > ceiling):
        return "<div class='reader'>No such sentence.</div>"
    target = book.sentence(sid)
    paragraph_of = book.paragraph_of
    first = int(paragraph_of[sid]) - around
    last = int(paragraph_of[sid]) + around
    lo = int(paragraph_of.searchsorted(first, side="left"))
    hi = int(paragraph_of.searchsorted(last, side="right")) - 1
    hi = hi if ceiling is None else min(hi, ceiling)
    paragraphs, current = [], None
    for i in range(lo, hi + 1):
        s = book.sentence(i)
        piece = (f"<mark id='cited' class='s' data-sid='{i}'>{italics(esc(s.text))}</mark>" if i == sid and cited else
                 f"<span class='s' data-sid='{i}'>{italics(esc(s.text))}</span>")
        if s.paragraph != current:
            paragraphs.append([])
            current = s.paragraph
        paragraphs[-1].append(piece)
    page = f" · page {target.page}" if target.page is not None else ""
    body = "".join(f"<p>{' '.join(p)}</p>" for p in paragraphs)
    title = f"<i>{esc(book.title)}</i> · " if other else ""
    return (f"<div class='reader' data-sid='{sid}'><div class='where'>{title}{esc(target.chapter_title)} · "
            f"{esc(target.chapter_name)}{page} · S{sid}</div>{body}</div>")


def turned(book: Book, sid: int, pages: int, ceiling: int | None = None, around: int = AROUND) -> int:
    """The sentence a page turned ``pages`` pages on (back when negative) from the one at ``sid`` opens at: the
    first of the paragraph ``pages * (2 * around + 1)`` paragraphs away, within the book and no later than
    ``ceiling``."""
    last = len(book) - 1 if ceiling is None else min(ceiling, len(book) - 1)
    paragraph = int(book.paragraph_of[min(max(sid, 0), last)]) + pages * (2 * around + 1)
    return min(max(int(book.paragraph_of.searchsorted(max(paragraph, 0), side="left")), 0), last)


def chapters_read(book: Book, ceiling: int | None = None) -> list[tuple[str, int]]:
    """The chapters the Reader can open, up to ``ceiling``: each its reference and title, and its first sentence."""
    return [(f"{c.ref}: {c.title}" if c.ref and c.ref.lower() not in c.title.lower() else c.title or c.ref,
             c.first_sentence) for c in book.chapters
            if c.first_sentence < len(book) and (ceiling is None or c.first_sentence <= ceiling)]
