"""The book: the upload box, the book card, and the language the book is read as."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...book import load_book
from ...book.names import names_for
from ...errors import EliteError
from .. import render
from ..state import Session
from . import trace

LANGUAGES = ["en", "fr", "de", "es", "zh", "it", "pt", "nl", "ru"]
"""Languages the reader may read a book as (any Snowball language works; these are offered)."""


@dataclass
class BookUI:
    upload: gr.File
    card: gr.HTML
    language: gr.Dropdown


def create_ui(ctx) -> BookUI:
    return BookUI(
        gr.File(label="Book (.txt, .epub, .pdf)", file_types=[".txt", ".epub", ".pdf"], elem_id="upload"),
        gr.HTML("<div class='book-card'>No book loaded.</div>", elem_id="book-info"),
        gr.Dropdown(["detected", *LANGUAGES], value="detected", label="Book language", elem_id="language",
                    info="how the book is cut into words and matched; change it if the detected language is wrong"),
    )


def create_event_handlers(page, ctx) -> None:
    ui, state = page.book, page.session.state

    def on_upload(file, session: Session, progress=gr.Progress()):
        if file is None:
            return {}
        progress(0.1, desc="Reading the book")
        try:
            book = load_book(file if isinstance(file, str) else file.name,
                             max_bytes=ctx.config.max_upload_mb * 1024 * 1024, cache_dir=ctx.cache_dir)
        except EliteError as exc:
            kept = f" The book already loaded, *{session.book.title}*, stays." if session.book else ""
            return {page.chat.status: f"**Could not load the book:** {exc}{kept}", ui.upload: None}
        progress(1.0, desc="Ready")
        if session.book is None or session.book.digest != book.digest:
            session.traces, session.shown = [], -1  # runs point into their book's sentences
        session.book, session.names = book, None
        return {state: session, ui.card: render.book_card(book),
                page.chat.status: f"Loaded *{book.title}*. Ask a question.", page.names.box: ""}

    def on_book(session: Session):
        """After the card shows: the book's character names (0.5 s for the longest novel)."""
        if session.book is None or session.names is not None:
            return {}
        session.names = names_for(session.book, ctx.cache_dir)
        return {state: session, page.names.box: session.names.as_text()}

    def on_language(code, session: Session):
        book = session.book
        if book is None:
            return {}
        wanted = book.stats.get("detected", book.language) if code == "detected" else code
        if wanted != book.language:
            session.book = book.read_as(wanted)
            session.book.stats["detected"] = book.stats.get("detected", book.language)
            session.names = None
        session.names = session.names or names_for(session.book, ctx.cache_dir)
        return {state: session, ui.card: render.book_card(session.book), page.names.box: session.names.as_text(),
                page.chat.status: f"*{session.book.title}* is read as {session.book.lexicon.name}."}

    loaded = ui.upload.upload(on_upload, [ui.upload, state], [state, ui.card, page.chat.status, ui.upload,
                                                              page.names.box], concurrency_limit=None)
    named = loaded.then(on_book, state, [state, page.names.box], concurrency_limit=None)
    trace.refresh_after(named, page).then(lambda: "detected", None, ui.language, concurrency_limit=None)
    ui.language.input(on_language, [ui.language, state], [state, ui.card, page.names.box, page.chat.status],
                      concurrency_limit=None)
