"""Exports: the shown run's question, answer and trace as Markdown or JSON (file names are hashes, never user
input); the notebook's export writes here too."""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from .. import notebook, render
from ..state import Session


@dataclass
class ExportsUI:
    markdown: gr.Button
    json: gr.Button
    download: gr.File


def create_ui(ctx) -> ExportsUI:
    with gr.Row():
        return ExportsUI(gr.Button("Export Markdown", size="sm", elem_id="export-md"),
                         gr.Button("Export JSON", size="sm", elem_id="export-json"),
                         gr.File(label="Export", interactive=False, height=90, elem_id="download"))


def export(session: Session, kind: str) -> str | None:
    """Write the shown run's trace as Markdown or JSON, or (``notebook``) the reading notebook as Markdown."""
    if kind == "notebook":
        return written(notebook.markdown(session.notebook), "notebook", "md") if session.notebook else None
    if not session.traces or session.book is None:
        return None
    trace = session.traces[session.shown]
    text = trace.to_json(indent=1) if kind == "json" else render.markdown_export(session.book, trace)
    return written(text, "trace", "json" if kind == "json" else "md")


def written(text: str, stem: str, suffix: str) -> str:
    """``text`` saved for download under a name made from its hash, never from user input."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / "elite-reader" / f"{stem}-{digest}.{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def create_event_handlers(page, ctx) -> None:
    ui, state = page.exports, page.session.state
    ui.markdown.click(lambda s: export(s, "md"), state, ui.download, concurrency_limit=None)
    ui.json.click(lambda s: export(s, "json"), state, ui.download, concurrency_limit=None)
