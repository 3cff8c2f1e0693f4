"""The visitor's session: their state on the server, and the copy their browser keeps (encrypted, in its local
storage) so that a page reload brings back the book, the conversation, the notebook and the names."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from ...book import load_cached
from ...book.names import names_for
from .. import notebook, render
from ..render import inert_markdown as md
from ..state import Session, Shelved
from .book import opened

DIGEST = re.compile(r"[0-9a-f]{64}")


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
    state = page.session.state
    outputs = [state, page.book.card, page.book.upload, page.book.switch, page.chat.conversation, page.chat.ceiling,
               page.notebook.view, page.names.box, page.chat.status]

    def on_page_load(saved, session: Session):
        """Bring back the session the browser kept: the open book (from the parsed-book cache) with its
        conversation and spoiler ceiling, the other books' conversations, and the notebook."""
        if not isinstance(saved, dict) or session.turns or session.book:
            return {state: session}
        for digest, kept in (saved.get("shelf") if isinstance(saved.get("shelf"), dict) else {}).items():
            if DIGEST.fullmatch(str(digest)) and isinstance(kept, dict) and isinstance(kept.get("label"), str):
                session.shelf[digest] = Shelved(kept["label"], turns_from(kept.get("turns")),
                                                ceiling=str(kept.get("ceiling") or ""))
        session.notebook = notebook.entries_from(saved.get("notebook"))
        book = load_cached(saved.get("book") or "", ctx.cache_dir)
        turns = turns_from(saved.get("turns"))
        if book is not None:
            session.open(book)
            session.turns, session.ceiling_text = turns, str(saved.get("ceiling") or "")
            session.names = names_for(book, ctx.cache_dir)
        else:
            session.turns = turns
        found = (f"*{md(book.title)}* reopened from the cache" if book else
                 "the book is no longer in the cache; upload it again" if saved.get("book") else "no book")
        status = (f"Session restored: {found}; questions: {len(session.turns)}, notebook entries: "
                  f"{len(session.notebook)}. Runs and their traces are not kept across a reload.")
        shown = opened(page, session) if book else {state: session,
                                                     page.chat.conversation: render.chat(None, session.turns)}
        return shown | {page.notebook.view: render.notebook_html(session.notebook), page.chat.status: status}

    page.demo.load(on_page_load, [page.session.stored, state], outputs)


def turns_from(records) -> list[dict]:
    """The conversation turns the browser sent back (anything malformed is left out)."""
    turns = []
    for record in records if isinstance(records, list) else []:
        try:
            turns.append(notebook.turn_from(record))
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            continue
    return turns
