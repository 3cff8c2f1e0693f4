"""The Notebook tab: every question of the session with its answer and cited passages, the passages saved from
the Reader, and the recaps and X-Rays saved from the Story tab; exported as Markdown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from .. import render
from ..answering import handler
from ..state import Session
from .exports import downloads

if TYPE_CHECKING:
    from ..page import Context, Page


@dataclass
class NotebookUI:
    view: gr.HTML
    export: gr.DownloadButton


def create_ui(ctx) -> NotebookUI:
    with gr.Tab("Notebook", id="notebook-tab", elem_id="notebook-tab"):
        return NotebookUI(gr.HTML(render.notebook_html([]), elem_id="notebook"),
                          gr.DownloadButton("Export the notebook as Markdown", size="sm", elem_id="export-notebook",
                                            interactive=False))


def saved_to_notebook(page: Page, ctx: Context, entry_of, session: Session) -> dict:
    """What ``entry_of(session)`` makes of the session (an entry, or the sentence saying why there is none) saved
    to the notebook; the notebook and its export shown."""
    entry = entry_of(session)
    if isinstance(entry, str):
        return {page.chat.status: entry}
    session.notebook.append(entry)
    said = f"Saved “{render.inert_markdown(entry.heading)}” to the notebook."
    return {page.session.state: session, page.notebook.view: render.notebook_html(session.notebook),
            page.chat.status: said, page.notebook.export: downloads(page, ctx, session)[page.notebook.export]}


def on_save(page: Page, ctx: Context, button: gr.Button, entry_of) -> None:
    """``button`` saves to the notebook what ``entry_of`` makes of the session (:func:`saved_to_notebook`), then
    updates the browser's copy."""
    state = page.session.state
    button.click(handler(saved_to_notebook, page, ctx, entry_of), state,
                 [state, page.notebook.view, page.chat.status, page.notebook.export],
                 concurrency_limit=None).then(lambda s: s.saved(ctx.receipts), state, page.session.stored,
                                                trigger_mode="always_last")
