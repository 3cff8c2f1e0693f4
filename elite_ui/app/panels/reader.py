"""The Reader tab: a cited sentence in its place (two paragraphs either side, its chapter and page), never past
the reader's spoiler ceiling; "Save this passage to the notebook". Citation links anywhere on the page open it
through a hidden box and button (``static/links.js``)."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .. import notebook, render
from ..state import Session


@dataclass
class ReaderUI:
    view: gr.HTML
    save: gr.Button


@dataclass
class LinksUI:
    """Where a clicked citation writes its sentence number, and the button it presses."""

    target: gr.Textbox
    go: gr.Button


def create_ui(ctx) -> ReaderUI:
    with gr.Tab("Reader", id="reader-tab", elem_id="reader-tab"):
        return ReaderUI(gr.HTML("<div class='reader'>Click a citation to read it in place.</div>", elem_id="reader"),
                        gr.Button("Save this passage to the notebook", size="sm", elem_id="save-quote"))


def create_links() -> LinksUI:
    return LinksUI(gr.Textbox(elem_id="reader-target", visible="hidden"),
                   gr.Button("go", elem_id="reader-go", visible="hidden"))


def create_event_handlers(page, ctx) -> None:
    ui, state = page.reader, page.session.state

    def on_cite(sid, session: Session):
        if session.book is None or not str(sid).strip().isdigit():
            return {}
        session.reading = int(sid)
        return {state: session, ui.view: render.reader(session.book, int(sid), ceiling=session.ceiling),
                page.tabs: gr.Tabs(selected="reader-tab")}

    def on_save_quote(session: Session):
        if session.book is None or session.reading is None or session.reading >= len(session.book):
            return {page.chat.status: "Open a passage in the Reader first (click a citation)."}
        session.notebook.append(notebook.quote_entry(session.book, session.reading))
        return {state: session, page.notebook.view: render.notebook_html(session.book, session.notebook),
                page.chat.status: f"Saved S{session.reading} to the notebook."}

    page.links.go.click(on_cite, [page.links.target, state], [state, ui.view, page.tabs], concurrency_limit=None)
    ui.save.click(on_save_quote, state, [state, page.notebook.view, page.chat.status],
                  concurrency_limit=None).then(lambda s: s.saved(), state, page.session.stored)
