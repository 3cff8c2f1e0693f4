"""The reader: a cited sentence highlighted in its paragraph, with the paragraphs around it and its chapter."""

from __future__ import annotations

from ...book import Book
from .common import esc, italics


def reader(book: Book, sid: int, around: int = 2, ceiling: int | None = None, other: bool = False) -> str:
    """The cited sentence highlighted inside its paragraph and ``around`` paragraphs each side, with its chapter;
    nothing after sentence ``ceiling`` (the reader's spoiler ceiling). ``other``: the book is not the open one
    (its title is said)."""
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
        piece = (f"<mark id='cited' class='s' data-sid='{i}'>{italics(esc(s.text))}</mark>" if i == sid else
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
