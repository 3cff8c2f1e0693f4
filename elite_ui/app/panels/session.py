"""The visitor's session: their state on the server, and the copy their browser keeps (encrypted, in its local
storage) so that a page reload brings back the book, the conversation, the notebook and the names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...book import load_cached
from .. import notebook, render
from ..answering import handler
from ..notebook import Turn
from ..receipts import kept_secret
from ..render import inert_markdown as md
from ..state import Session, Shelved
from . import names as names_panel
from .book import opened, opened_outputs

if TYPE_CHECKING:
    from ..page import Context, Page


@dataclass
class SessionUI:
    state: gr.State
    stored: gr.BrowserState


def create_ui(ctx) -> SessionUI:
    idle = ctx.config.idle_minutes * 60 if ctx.config.hosted else None
    secret = kept_secret(ctx.cache_dir, "browser-secret")
    kept = gr.BrowserState(None, storage_key="elite-reader-session", secret=secret)
    return SessionUI(gr.State(Session(), time_to_live=idle), kept)


def on_page_load(page: Page, ctx: Context, saved, session: Session, request: gr.Request):
    """Bring back the session the browser kept: the open book (from the parsed-book cache) with its conversation
    and spoiler ceiling, the other books' conversations, and the notebook."""
    state = page.session.state
    ctx.visitors.track(request, session)
    if not isinstance(saved, dict) or session.turns or session.book:
        return {state: session}
    receipts = saved.get("receipts") if isinstance(saved.get("receipts"), dict) else {}

    def received(digest) -> bool:
        """Whether this browser opened the book: a book's hash alone reopens nothing."""
        return ctx.receipts.valid(digest, receipts.get(digest))

    for digest, kept in (saved.get("shelf") if isinstance(saved.get("shelf"), dict) else {}).items():
        if received(digest) and isinstance(kept, dict) and isinstance(kept.get("label"), str):
            session.shelf[digest] = Shelved(kept["label"], turns_from(kept.get("turns")),
                                            ceiling=str(kept.get("ceiling") or ""))
    session.notebook = notebook.entries_from(saved.get("notebook"))
    refused = ctx.visitors.may_open(request, session) if received(saved.get("book")) else None
    book = load_cached(saved["book"], ctx.cache_dir) if received(saved.get("book")) and not refused else None
    turns = turns_from(saved.get("turns"))
    if book is not None:
        session.open(book)
        session.turns, session.ceiling_text = turns, str(saved.get("ceiling") or "")
    else:
        session.turns = turns
    found = (f"*{md(book.title)}* reopened from the cache" if book else
             f"the book was not reopened: {refused}" if refused else
             "the book could not be reopened; upload it again" if saved.get("book") else "no book")
    status = (f"Session restored: {found}; questions: {len(session.turns)}, notebook entries: "
              f"{len(session.notebook)}. Runs and their traces are not kept across a reload.")
    shown = (opened(page, ctx, session) | names_panel.listed(page, ctx, session, session.ceiling_text)
             if book else {state: session, page.chat.conversation: render.chat(None, session.turns)})
    return shown | {page.notebook.view: render.notebook_html(session.notebook), page.chat.status: status}


def on_unload(page: Page, ctx: Context, request: gr.Request):
    """The tab (or API client) closed or reloaded: free its session's books and runs (a browser keeps its copy)."""
    closed = ctx.visitors.sessions.pop(request.session_hash, None)
    if closed is not None:
        closed.release()


def create_event_handlers(page: Page, ctx: Context) -> None:
    state = page.session.state
    outputs = [*opened_outputs(page), page.notebook.view, *names_panel.outputs(page), page.chat.status]
    loaded = page.demo.load(handler(on_page_load, page, ctx), [page.session.stored, state], outputs)
    loaded.then(None, js="() => focusStart()")
    page.demo.unload(handler(on_unload, page, ctx))


def turns_from(records) -> list[Turn]:
    """The conversation turns the browser sent back (anything malformed is left out)."""
    turns = []
    for record in records if isinstance(records, list) else []:
        try:
            turns.append(Turn.from_record(record))
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            continue
    return turns
