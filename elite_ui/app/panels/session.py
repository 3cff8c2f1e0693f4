"""The visitor's session: their state on the server, and the copy their browser keeps (encrypted, in its local
storage) so that a page reload brings back the book, the conversation, the notebook and the names."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from ...book import load_cached
from ...book.names import names_for
from .. import notebook, render
from ..state import Session


@dataclass
class SessionUI:
    state: gr.State
    stored: gr.BrowserState


def create_ui(ctx) -> SessionUI:
    return SessionUI(gr.State(Session()), gr.BrowserState(None, storage_key="elite-reader-session",
                                                          secret=browser_secret(ctx.cache_dir)))


def browser_secret(cache_dir: Path) -> str:
    """The key the browser's copy of a session is encrypted with, kept in the cache so it outlives a restart."""
    path = Path(cache_dir) / "browser-secret"
    try:
        if path.exists():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_hex(16)
        path.write_text(secret)
        return secret
    except OSError:
        return secrets.token_hex(16)


def create_event_handlers(page, ctx) -> None:
    state, outputs = page.session.state, [page.session.state, page.book.card, page.chat.conversation,
                                          page.notebook.view, page.names.box, page.chat.status]

    def on_page_load(saved, session: Session):
        """Bring back the session the browser kept: the book (from the parsed-book cache), the conversation
        and the notebook."""
        if not isinstance(saved, dict) or session.turns or session.book:
            return {}
        try:
            session.turns = [notebook.turn_from(r) for r in saved.get("turns", []) if isinstance(r, dict)]
        except (TypeError, ValueError, KeyError, IndexError):
            session.turns = []
        session.notebook = notebook.entries_from(saved.get("notebook"))
        book = load_cached(saved.get("book") or "", ctx.cache_dir)
        if book is not None:
            session.book, session.names = book, names_for(book, ctx.cache_dir)
        found = (f"*{book.title}* reopened from the cache" if book else
                 "the book is no longer in the cache; load it again" if saved.get("book") else "no book")
        shown = {state: session, page.chat.conversation: render.chat(book, session.turns),
                 page.notebook.view: render.notebook_html(book, session.notebook),
                 page.chat.status: f"Session restored: {found}; questions: {len(session.turns)}, notebook "
                                   f"entries: {len(session.notebook)}."}
        if book:
            shown |= {page.book.card: render.book_card(book), page.names.box: session.names.as_text()}
        return shown

    page.demo.load(on_page_load, [page.session.stored, state], outputs)
