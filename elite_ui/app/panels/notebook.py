"""The Notebook tab: every question of the session with its answer and cited passages, and the passages saved
from the Reader; exported as Markdown."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .. import render
from .exports import export


@dataclass
class NotebookUI:
    view: gr.HTML
    export: gr.Button


def create_ui(ctx) -> NotebookUI:
    with gr.Tab("Notebook", id="notebook-tab", elem_id="notebook-tab"):
        return NotebookUI(gr.HTML(render.notebook_html(None, []), elem_id="notebook"),
                          gr.Button("Export the notebook as Markdown", size="sm", elem_id="export-notebook"))


def create_event_handlers(page, ctx) -> None:
    page.notebook.export.click(lambda s: export(s, "notebook"), page.session.state, page.exports.download,
                               concurrency_limit=None)
