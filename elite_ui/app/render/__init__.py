"""What the reader sees, rendered from the trace: HTML (every book or model string escaped) and plotly figures.

One module a view: ``chat``, ``book`` (the card), ``iterations`` (ELITE's trace), ``markers`` (M-RAG's),
``chunks`` (plain chunk RAG's), ``side`` (side by side), ``figures`` (the book map), ``reader``, ``notebook``,
``export`` (Markdown); ``common`` holds what they share. Nothing here runs a model or imports Gradio.
"""

from __future__ import annotations

import plotly.graph_objects as go

from ...book import Book
from ...methods.trace import Event
from . import chunks, iterations, markers
from .book import NO_BOOK, book_card, reading_card
from .chat import chat
from .common import esc, highlight, inert_markdown, linked, method_of
from .export import markdown_export
from .figures import book_map
from .markers import build_progress, index_card
from .notebook import notebook_html, notebook_markdown
from .reader import chapters_read, reader, turned
from .side import side_by_side

CHUNKS = (chunks.trace_html, iterations.importance_figure)
VIEWS = {"elite": (iterations.trace_html, iterations.importance_figure),
         "mrag": (markers.trace_html, markers.similarity_figure),
         "embedding": CHUNKS, "bm25": CHUNKS, "whole": CHUNKS}
"""The trace view that shows each method's runs (by its name in the registry): its HTML and its chart."""


def trace_html(book: Book, events: list[Event]) -> str:
    """The trace panel of a run, in its method's view."""
    return VIEWS[method_of(events)][0](book, events)


def importance_figure(book: Book, events: list[Event]) -> go.Figure:
    """The chart beside the trace: chunk importance (ELITE) or key similarity (M-RAG)."""
    return VIEWS[method_of(events)][1](book, events)


__all__ = ["NO_BOOK", "book_card", "book_map", "build_progress", "chapters_read", "chat", "esc", "highlight",
           "importance_figure", "index_card", "inert_markdown", "linked", "markdown_export", "notebook_html",
           "notebook_markdown", "reader", "reading_card", "side_by_side", "trace_html", "turned"]
