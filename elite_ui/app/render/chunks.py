"""Plain chunk RAG's trace view: the chunks placed in the context, with their scores."""

from __future__ import annotations

from ...book import Book
from ...methods.registry import METHODS
from ...methods.trace import Event, Kind
from .common import ceiling_note, cite_link, clipped, esc, totals_line


def trace_html(book: Book, events: list[Event]) -> str:
    """The trace of plain chunk RAG: the chunks placed in the context, with their scores."""
    parts = ["<div class='trace'>", ceiling_note(events)]
    for retrieval in (e.data for e in events if e.kind == Kind.RETRIEVAL):
        label = METHODS[retrieval.method].label
        rows = "".join(
            f"<tr><td>{n}</td><td>{cite_link(book, c.first)}–{cite_link(book, c.last)}</td>"
            f"<td>{c.score:.3f}</td>"
            f"<td>{clipped(book.span_text(c.first, c.last), 240)}</td></tr>"
            for n, c in enumerate(retrieval.chunks, 1) if c.last < len(book))
        placed = len(retrieval.chunks)
        parts.append(f"<div class='retrieval'><b>{esc(label)}</b>: {placed} chunk{'s' * (placed != 1)} placed "
                     f"({retrieval.seconds * 1000:.0f} ms)<table><tr><th>#</th><th>sentences</th><th>score</th>"
                     f"<th>text</th></tr>{rows}</table></div>")
    parts.append(totals_line(events))
    parts.append("</div>")
    return "".join(parts)
