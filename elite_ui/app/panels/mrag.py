"""M-RAG's panel: its extraction preset and settings, and building the book's marker index once (windows done
and left, time left; Stop, then Build again resumes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...errors import Cancelled, EliteError
from ...methods.mrag import PRESETS, Mrag, MragSettings
from ...methods.registry import METHODS
from ...methods.trace import Kind
from ...reading import part
from .. import render
from ..answering import RUN, apart, handler, one_build
from ..inputs import text
from ..render import inert_markdown as md
from ..state import Session
from .controls import Controls, create_controls

if TYPE_CHECKING:
    from ..page import Context, Page


@dataclass
class MragUI:
    controls: Controls
    build: gr.Button
    status: gr.HTML


def create_ui(ctx) -> MragUI:
    with gr.Accordion("M-RAG index and settings", open=False, elem_id="mrag-panel"):
        return MragUI(
            create_controls(MragSettings, PRESETS, "laptop", "Extraction preset",
                            "paper: 4,096-token windows; laptop: about 20 s per window on a CPU", ids="mrag"),
            gr.Button("Build M-RAG index", elem_id="build-index"),
            gr.HTML("<div class='index-card'>No M-RAG index yet.</div>", elem_id="index-status"),
        )


def on_build(page: Page, ctx: Context, values: dict):
    """"Build the index": the open book's markers, written once per book and model, from its start up to the
    reader's spoiler ceiling if there is one, the whole book if not (Stop, then Build again resumes; a later
    ceiling builds on)."""
    session: Session = values[page.session.state]
    if session.book is None:
        yield {page.chat.status: "Load a book first."}
        return
    if ctx.model.llm is None:
        yield {page.chat.status: f"No model: {md(ctx.model.status)}"}
        return
    return (yield from one_build(page, ctx, session, built(page, ctx, values, session)))


def built(page: Page, ctx: Context, values: dict, session: Session):
    """The build's progress as it goes, then the index's card."""
    ui, model = page.mrag, ctx.model
    engine: Mrag = METHODS["mrag"].engine(model.llm, ui.controls.settings(values),
                                          session.tools(model, ctx.cache_dir, background=True))
    done, ceiling = None, text(values[page.chat.ceiling]).strip()
    yield {page.chat.status: "Building the M-RAG index…", page.chat.stop: gr.Button(interactive=True)}
    try:
        through = len(part(session.book, ceiling).book) if ceiling else None
        for event in engine.build(session.book, through=through):  # others' questions go in between its calls
            if event.kind == Kind.QUEUE:
                yield {page.chat.status: event.data.said()}
            elif event.kind == Kind.INDEX_PROGRESS:
                done = event.data
                yield {ui.status: render.build_progress(done), page.chat.status: "Building the M-RAG index…"}
        index = ctx.model.prepared_for(engine, session.book).state
    except Cancelled:
        yield {ui.status: render.build_progress(done) if done else gr.skip(),
               page.chat.status: f"Stopped after {done.done if done else 0} of {done.total if done else '?'} "
                                 "windows; build again to resume where it stopped."}
        return
    except EliteError as exc:
        yield {page.chat.status: f"**Could not build the index:** {md(str(exc))}"}
        return
    kept = f" ({done.resumed} of {done.total} windows kept from an earlier run)" if done and done.resumed else ""
    upto = f" up to {ceiling}" if index.reach < len(session.book) else ""
    yield {page.session.state: session, ui.status: render.index_card(index.stats()),
           page.chat.status: f"The M-RAG index is ready{upto}{kept}; choose M-RAG and ask."}


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state = page.mrag, page.session.state
    ui.controls.on_preset()
    ui.build.click(apart(handler(on_build, page, ctx)), {state, page.chat.ceiling, *ui.controls.inputs},
                   [state, ui.status, page.chat.status, page.chat.stop], **RUN)
