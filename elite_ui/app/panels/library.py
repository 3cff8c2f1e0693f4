"""The Library panel (outside hosted mode): a Calibre library, or a folder of books, searched by title or author
and in the text of every book; the book chosen opens with the spoiler ceiling where the reader's reading app left
them (Calibre's viewer, KOReader) and their highlights in the notebook, each with "Ask about this highlight"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...across import kept_index
from ...errors import EliteError
from ...library import LibraryError, located_in, open_shelf
from ...library.index import MAX_BOOKS
from ...reading import MAX_ABOUT
from .. import notebook, render
from ..answering import handler
from ..inputs import text
from ..render import inert_markdown as md
from ..state import Session
from . import book as book_panel

if TYPE_CHECKING:
    from ..page import Context, Page

HOSTED = "This app is hosted: it opens no folder of the machine it runs on. Upload the book instead."


@dataclass
class LibraryUI:
    folder: gr.Textbox
    words: gr.Textbox
    search: gr.Button
    found: gr.Dropdown
    open: gr.Button
    pick: gr.Textbox
    go: gr.Button


def create_ui(ctx) -> LibraryUI:
    with gr.Accordion("Your library (Calibre, KOReader)", open=False, elem_id="library-panel",
                      visible=not ctx.config.hosted):
        return LibraryUI(
            gr.Textbox(ctx.config.library or "", label="Calibre library, or a folder of books", elem_id="library",
                       info="where you are and what you highlighted come from Calibre's viewer and KOReader's "
                            "sidecar files; nothing there is changed"),
            gr.Textbox(label="Title, author, or words of the books", elem_id="library-words"),
            gr.Button("Search", size="sm", elem_id="library-search"),
            gr.Dropdown([], label="Books found", elem_id="library-found", interactive=True),
            gr.Button("Open with my place and highlights", size="sm", elem_id="library-open"),
            gr.Textbox(elem_id="highlight-pick", visible="hidden"),
            gr.Button("go", elem_id="highlight-go", visible="hidden"),
        )


def on_search(page: Page, ctx: Context, folder, words, session: Session, progress=gr.Progress()):
    """The library searched by title or author, and in its books' text, each up to where the reader is (the
    library's index, built at the first search and kept current: :mod:`elite_ui.across`)."""
    ui = page.library
    if ctx.config.hosted:
        return {page.chat.status: HOSTED}
    try:
        shelf = open_shelf(text(folder))
        found = shelf.search(text(words))
        index = kept_index(text(folder), ctx.cache_dir, ctx.config.koreader, lambda done, books, label: progress(
            (done, books), desc=f"Reading into the library's index: {label[:80]}", unit="books"))
        in_text = index.search(text(words), books=5)
    except (EliteError, OSError) as exc:
        return {page.chat.status: md(str(exc)), ui.found: gr.update(choices=[], value=None)}
    said = [f"{len(found)} book{'s' * (len(found) != 1)} found by title or author." if found else
            "No title or author holds these words."]
    if in_text.books:
        by_key = {index.key_of(e.file()): e for e in shelf.search("", limit=MAX_BOOKS) if e.file() is not None}
        found += [by_key[b.key] for b in in_text.books if b.key in by_key and by_key[b.key] not in found]
        said.append("In their text (as far as you have read): " + "; ".join(
            f"{b.title}, {b.hits[0].chapter}: “{b.hits[0].text[:120]}”" for b in in_text.books) + ".")
    if in_text.unread_left:
        said.append(f"{in_text.unread_left} book{'s' * (in_text.unread_left != 1)} you have not opened hold them "
                    "too.")
    return {page.chat.status: md(" ".join(said)),
            ui.found: gr.update(choices=[(b.label(), b.id) for b in found], value=found[0].id if found else None)}


def on_open(page: Page, ctx: Context, folder, picked, session: Session, request: gr.Request):
    """"Open with my place and highlights": the book opened, its ceiling where the reading apps left the reader,
    their highlights in the notebook."""
    if ctx.config.hosted:
        yield {page.chat.status: HOSTED}
        return
    try:
        shelf = open_shelf(text(folder))
        entry = shelf.book(picked) if type(picked) is int else None
    except LibraryError as exc:
        yield {page.chat.status: md(str(exc))}
        return
    if entry is None or entry.file() is None:
        yield {page.chat.status: "Search the library and choose a book first."}
        return
    file = entry.file()
    yield from book_panel.open_file(page, ctx, str(file), session, request)
    if session.book is None or session.book.path != str(file):
        return  # not opened: the sentence saying why is shown
    yield placed(page, session, shelf, entry, ctx.config.koreader)


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state = page.library, page.session.state
    searching = handler(on_search, page, ctx)
    ui.search.click(searching, [ui.folder, ui.words, state], [ui.found, page.chat.status], concurrency_limit=None)
    ui.words.submit(searching, [ui.folder, ui.words, state], [ui.found, page.chat.status], concurrency_limit=None)
    shown = [*book_panel.opened_outputs(page), page.chat.status, page.notebook.view]
    opened = ui.open.click(handler(on_open, page, ctx), [ui.folder, ui.found, state], shown,
                           **book_panel.reading(ctx))
    book_panel.after_opening(page, ctx, opened)
    opened.then(lambda s: s.saved(ctx.receipts), state, page.session.stored, trigger_mode="always_last")
    ui.go.click(handler(about_highlight, page), [ui.pick, state], [state, page.chat.status, page.chat.question],
                concurrency_limit=None)


def placed(page, session: Session, shelf, entry, koreader: str | None) -> dict:
    """After a library's book opened: the ceiling where the reader's apps left them, their highlights in the
    notebook (each once), and one sentence saying so."""
    state = page.session.state
    try:
        located, problems = located_in(session.book, shelf, entry, koreader)
    except (EliteError, OSError) as exc:
        return {page.chat.status: f"Opened; where you are could not be read: {md(str(exc))}"}
    kept = {(e.book, tuple(e.about)) for e in session.notebook}
    for found in located.found:
        if found.sentences and (session.book.digest, tuple(found.sentences[:MAX_ABOUT])) not in kept:
            session.notebook.append(notebook.highlight_entry(session.book, found.marked.source,
                                                             found.marked.chapter, found.marked.note,
                                                             found.sentences))
    if located.sentence is not None:
        session.ceiling_text = f"S{located.sentence}"
    said = located.said(session.book) or "Your reading apps say nothing yet of where you are in this book."
    if located.sentence is not None:
        said += " The spoiler ceiling is set there; change it if you like."
    return {state: session, page.chat.ceiling: session.ceiling_text,
            page.notebook.view: render.notebook_html(session.notebook),
            page.chat.status: md(" ".join([said, *problems]))}


def about_highlight(page, picked, session: Session) -> dict:
    """"Ask about this highlight": its sentences become what the next question is about, pinned as evidence."""
    found = re.fullmatch(r"([0-9a-f]{64}):([0-9,]{1,200})", text(picked))
    book = session.book
    if found is None or book is None or found.group(1) != book.digest:
        return {page.chat.status: "Open the book of this highlight first."}
    session.about = sorted({int(n) for n in found.group(2).split(",") if n and int(n) < len(book)})[:MAX_ABOUT]
    if not session.about:
        return {page.chat.status: "That highlight is not in this book."}
    where = book.sentence(session.about[0]).citation
    return {page.session.state: session, page.chat.status: f"Your next question is about your highlight at "
            f"{md(where)}: pinned as evidence, and ELITE answers it. Type the question above.", page.chat.question: ""}
