"""The Reader tab: a cited sentence in its place (two paragraphs either side, its chapter and page), never past
the reader's spoiler ceiling; pages turned back and on and chapters opened up to that ceiling; "Save this passage
to the notebook". Citation links anywhere on the page open it through a hidden box and button
(``static/links.js``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr
import numpy as np

from ...book import load_cached, reading_ceiling
from ...errors import EliteError
from .. import notebook, render
from ..answering import handler
from ..inputs import text
from ..render import inert_markdown as md
from ..state import Session
from . import notebook as notebook_panel

if TYPE_CHECKING:
    from ..page import Context, Page

PASSAGE = 6
"""Sentences on each side of the one shown that "Ask about this passage" pins, within its paragraph (a selection
pins at most twice as many and one more)."""
SHOWN = 400
"""How far from the cited sentence a selected sentence may be (the Reader shows a few paragraphs around it)."""
CITED = re.compile(r"([0-9a-f]{1,64}):(\d{1,9})")
"""What a citation link writes: the start of its book's content hash, and the sentence."""


@dataclass
class ReaderUI:
    tab: gr.Tab
    chapter: gr.Dropdown
    earlier: gr.Button
    later: gr.Button
    view: gr.HTML
    save: gr.Button
    about: gr.Button
    selection: gr.Textbox
    """The sentences of the text selected in the Reader when "Ask about this passage" was pressed (written by
    ``static/links.js``)."""


@dataclass
class LinksUI:
    """Where a clicked citation writes its sentence number, and the button it presses."""

    target: gr.Textbox
    go: gr.Button


EMPTY = "<div class='reader'>Click a citation to read it in place, or open a chapter.</div>"


def create_ui(ctx) -> ReaderUI:
    with gr.Tab("Reader", id="reader-tab", elem_id="reader-tab") as tab:
        with gr.Row(elem_classes="reader-pages"):
            chapter = gr.Dropdown([], label="Open a chapter", elem_id="reader-chapter", scale=3,
                                  info="the chapters up to your spoiler ceiling")
            earlier = gr.Button("◀ Earlier", size="sm", elem_id="reader-earlier", scale=1)
            later = gr.Button("Later ▶", size="sm", elem_id="reader-later", scale=1)
        return ReaderUI(tab, chapter, earlier, later, gr.HTML(EMPTY, elem_id="reader"),
                        gr.Button("Save this passage to the notebook", size="sm", elem_id="save-quote"),
                        gr.Button("Ask about this passage (the selected text, or the paragraph shown)", size="sm",
                                  elem_id="ask-about"),
                        gr.Textbox(elem_id="reader-selection", visible="hidden"))


def create_links() -> LinksUI:
    return LinksUI(gr.Textbox(elem_id="reader-target", visible="hidden"),
                   gr.Button("go", elem_id="reader-go", visible="hidden"))


def on_cite(page: Page, ctx: Context, target, session: Session):
    """A citation clicked anywhere on the page: the Reader opens at that sentence, in its paragraph, never past the
    reader's spoiler ceiling."""
    ui, state = page.reader, page.session.state
    found = CITED.fullmatch(str(target or "").strip())
    if not found:
        return {state: session}
    key, sid = found.group(1), int(found.group(2))
    book = cited_book(ctx, session, key)
    if book is None:
        return {page.chat.status: "That passage is in a book not opened in this visit; open the book first."}
    session.reading = (book, sid)
    return {state: session, ui.view: render.reader(book, sid, ceiling=session.ceiling_in(book),
                                                   other=book is not session.book),
            page.tabs: gr.Tabs(selected="reader-tab")}


def on_chapters(page: Page, ctx: Context, ceiling, session: Session):
    """The Reader shown, or the ceiling moved: its chapter list is the open book's chapters up to the ceiling."""
    book = session.book
    if book is None:
        return {page.reader.chapter: gr.Dropdown(choices=[], value=None)}
    return {page.reader.chapter: gr.Dropdown(choices=render.chapters_read(book, stop(session, book, ceiling)),
                                             value=None)}


def on_chapter(page: Page, ctx: Context, chosen, ceiling, session: Session):
    """A chapter chosen: the Reader opens at its first sentence (never past the ceiling)."""
    book = session.book
    if book is None or chosen is None or not str(chosen).isdigit():
        return {page.session.state: session}
    return shown_at(page, session, book, int(chosen), stop(session, book, ceiling))


def on_earlier(page: Page, ctx: Context, ceiling, session: Session):
    """"◀ Earlier": the page before the one the Reader shows."""
    return turned_page(page, session, ceiling, -1)


def on_later(page: Page, ctx: Context, ceiling, session: Session):
    """"Later ▶": the page after the one the Reader shows, never past the ceiling."""
    return turned_page(page, session, ceiling, 1)


def turned_page(page: Page, session: Session, ceiling, pages: int) -> dict:
    """A page turned back or on from where the Reader stands (the start of the open book when it shows nothing),
    never past the ceiling; at the ceiling, the status says so."""
    book, sid = session.reading if session.reading is not None else (session.book, 0)
    if book is None:
        return {page.chat.status: "Open a book first."}
    last = stop(session, book, ceiling)
    target = render.turned(book, sid, pages, last)
    if pages > 0 and target <= sid and last is not None:
        return {page.chat.status: "This is as far as your spoiler ceiling lets the Reader go."}
    return shown_at(page, session, book, target, last)


def stop(session: Session, book, ceiling) -> int | None:
    """The last sentence of ``book`` the Reader may show: the open book's up to the ceiling its box says now (when
    it reads as a place in it), else up to the one kept for the book."""
    if book is session.book:
        try:
            read = reading_ceiling(book, text(ceiling))
            return read[0] if read else None
        except EliteError:
            pass
    return session.ceiling_in(book)


def shown_at(page: Page, session: Session, book, sid: int, last: int | None) -> dict:
    """The Reader at sentence ``sid`` of ``book`` (no later than ``last``), not highlighted: the reader turned to
    it."""
    sid = min(sid, last) if last is not None else sid
    session.reading = (book, sid)
    return {page.session.state: session, page.reader.view: render.reader(
        book, sid, ceiling=last, other=book is not session.book, cited=False)}


def cited_book(ctx: Context, session: Session, key: str):
    """The book of this visit whose content hash starts with ``key``: the open one, or one on the shelf (reopened
    from the parsed-book cache)."""
    if session.book is not None and session.book.digest.startswith(key):
        return session.book
    digest = next((d for d in session.shelf if d.startswith(key)), None)
    return load_cached(digest, ctx.cache_dir) if digest else None


def quoted(session: Session):
    """The passage the Reader shows, as a notebook entry ("Save this passage to the notebook")."""
    if session.reading is None or session.reading[1] >= len(session.reading[0]):
        return "Open a passage in the Reader first (click a citation)."
    return notebook.quote_entry(*session.reading)


def on_about(page: Page, ctx: Context, selected, session: Session):
    """The text selected in the Reader (else the paragraph it shows) becomes what the next question is about,
    pinned as evidence."""
    ui, state = page.reader, page.session.state
    if session.reading is None or session.book is None or session.reading[0].digest != session.book.digest:
        return {page.chat.status: "Open a passage of the open book in the Reader first (click a citation)."}
    book, sid = session.reading
    paragraph = [int(s) for s in np.flatnonzero(book.paragraph_of == book.paragraph_of[sid])]
    chosen = sorted({int(n) for n in re.findall(r"\d{1,9}", text(selected)) if abs(int(n) - sid) <= SHOWN})
    session.about = chosen[:2 * PASSAGE + 1] or [s for s in paragraph if abs(s - sid) <= PASSAGE]
    where = book.sentence(session.about[0]).citation
    what = f"the {len(session.about)} selected sentences from {where}" if chosen else f"the passage at {where}"
    return {state: session, page.chat.status: f"Your next question is about {md(what)}: pinned as evidence, "
            "and ELITE answers it. Type the question above.", page.chat.question: "", ui.selection: ""}


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state = page.reader, page.session.state
    ui.about.click(handler(on_about, page, ctx), [ui.selection, state],
                   [state, page.chat.status, page.chat.question, ui.selection], concurrency_limit=None)
    page.links.go.click(handler(on_cite, page, ctx), [page.links.target, state],
                        [state, ui.view, page.tabs, page.chat.status], concurrency_limit=None)
    ceiling = page.chat.ceiling
    for shown in (ui.tab.select, ceiling.submit, ceiling.blur):
        shown(handler(on_chapters, page, ctx), [ceiling, state], [ui.chapter], concurrency_limit=None)
    ui.chapter.input(handler(on_chapter, page, ctx), [ui.chapter, ceiling, state], [state, ui.view],
                     concurrency_limit=None)
    for button, turn in ((ui.earlier, on_earlier), (ui.later, on_later)):
        button.click(handler(turn, page, ctx), [ceiling, state], [state, ui.view, page.chat.status],
                     concurrency_limit=None)
    notebook_panel.on_save(page, ctx, ui.save, quoted)
