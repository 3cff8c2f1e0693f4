"""The Notebook tab: every question of the session with its answer and cited passages, and the passages saved
from the Reader; exported as Markdown."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .. import render


@dataclass
class NotebookUI:
    view: gr.HTML
    export: gr.DownloadButton


def create_ui(ctx) -> NotebookUI:
    with gr.Tab("Notebook", id="notebook-tab", elem_id="notebook-tab"):
        return NotebookUI(gr.HTML(render.notebook_html([]), elem_id="notebook"),
                          gr.DownloadButton("Export the notebook as Markdown", size="sm", elem_id="export-notebook",
                                            interactive=False))
