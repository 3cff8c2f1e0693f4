"""Exports, downloaded in one click: the shown run's question, answer and trace as Markdown or JSON, and the
reading notebook as Markdown. Files are named by the book and the question; in hosted mode by a hash, never by
what a visitor typed."""

from __future__ import annotations

import contextlib
import hashlib
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from .. import render
from ..state import Session


@dataclass
class ExportsUI:
    markdown: gr.DownloadButton
    json: gr.DownloadButton


def create_ui(ctx) -> ExportsUI:
    with gr.Row():
        return ExportsUI(gr.DownloadButton("Export Markdown", size="sm", elem_id="export-md", interactive=False),
                         gr.DownloadButton("Export JSON", size="sm", elem_id="export-json", interactive=False))


def export(session: Session, kind: str, readable: bool = False) -> str | None:
    """Write the shown run's trace as Markdown or JSON, or (``notebook``) the reading notebook as Markdown; the
    file is named by the book and the question when ``readable``, else by a hash of its text."""
    if kind == "notebook":
        if not session.notebook:
            return None
        return written(render.notebook_markdown(session.notebook), "notebook", "md",
                       "Reading notebook" if readable else "")
    if not session.traces or session.book is None:
        return None
    trace = session.traces[session.shown]
    text = trace.to_json(indent=1) if kind == "json" else render.markdown_export(session.book, trace)
    name = f"{session.book.title} - {trace.question}" if readable else ""
    return written(text, "trace", "json" if kind == "json" else "md", name)


EXPORTS = Path(tempfile.gettempdir()) / "elite-reader"
KEPT_SECONDS = 900
"""How long an export file is kept (Gradio serves its own copy, which its cache cleaning removes)."""


def written(text: str, stem: str, suffix: str, name: str = "") -> str:
    """``text`` saved for download as ``name`` (letters, digits and a few signs kept), or under its hash; exports
    older than :data:`KEPT_SECONDS` are removed first."""
    removed_old(EXPORTS, KEPT_SECONDS)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    safe = re.sub(r"[^\w ,.()-]+", "", name, flags=re.UNICODE).strip(" .")[:100]
    folder = EXPORTS / (digest if safe else "")
    path = folder / (f"{safe}.{suffix}" if safe else f"{stem}-{digest}.{suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def removed_old(folder: Path, seconds: float) -> None:
    """Remove the files under ``folder`` last written over ``seconds`` ago, and the folders they leave empty."""
    now = time.time()
    for path in sorted(folder.rglob("*"), key=lambda p: -len(p.parts)) if folder.is_dir() else []:
        with contextlib.suppress(OSError):
            if path.is_dir():
                path.rmdir()
            elif now - path.stat().st_mtime > seconds:
                path.unlink()


def downloads(page, ctx, session: Session) -> dict:
    """The export buttons, each holding the file it downloads (disabled while there is nothing to export)."""
    readable = not ctx.config.hosted
    files = {page.exports.markdown: export(session, "md", readable), page.exports.json: export(session, "json",
                                                                                                 readable),
             page.notebook.export: export(session, "notebook", readable)}
    return {button: gr.update(value=path, interactive=path is not None) for button, path in files.items()}
