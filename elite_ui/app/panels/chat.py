"""The conversation and the question: the spoiler ceiling, Ask and Stop, the status line; a question is answered
by the chosen method (and again by a second one for the side-by-side view)."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...book import reading_ceiling
from ...errors import EliteError
from ...methods.registry import METHODS, Tools
from .. import render
from ..answering import answer_turn, outputs
from ..state import Session
from . import trace


@dataclass
class ChatUI:
    conversation: gr.HTML
    ceiling: gr.Textbox
    question: gr.Textbox
    ask: gr.Button
    stop: gr.Button
    status: gr.Markdown


def create_ui(ctx) -> ChatUI:
    conversation = gr.HTML(render.chat(None, []), elem_id="chat")
    ceiling = gr.Textbox(label="I have read up to (spoiler ceiling)", elem_id="ceiling",
                         placeholder="chapter 12, page 80 or 40%; empty: the whole book")
    with gr.Row():
        question = gr.Textbox(label="Question", placeholder="Who does Elizabeth marry?", scale=5, elem_id="question")
        ask = gr.Button("Ask", variant="primary", scale=1, elem_id="ask")
        stop = gr.Button("Stop", variant="stop", scale=1, elem_id="stop")
    return ChatUI(conversation, ceiling, question, ask, stop, gr.Markdown("", elem_id="status"))


def engine_for(page, ctx, name: str, session: Session, values: dict):
    """The engine of method ``name`` with the settings its panel shows (a method without a panel of its own
    takes the main settings panel's preset and the settings it shares with it)."""
    method = METHODS[name]
    panels = [page.settings.controls, page.mrag.controls]
    own = next((c for c in panels if c.cls is method.settings), panels[0])
    tools = Tools(ctx.model.embed, session.cancel, ctx.cache_dir, session.names)
    return method.engine(ctx.model.llm, own.settings(values, method.settings, method.presets), tools)


def create_event_handlers(page, ctx) -> None:
    ui, state, model = page.chat, page.session.state, ctx.model
    asked_with = {state, ui.question, ui.ceiling, page.strategy.strategy, page.strategy.compare,
                  *page.options.boxes.values(), *page.settings.controls.inputs, *page.mrag.controls.inputs}

    def on_ask(values: dict):
        session: Session = values[state]
        book, question = session.book, values[ui.question]
        if book is None:
            yield {ui.status: "Load a book first."}
            return
        if model.llm is None:
            yield {ui.status: f"No model: {model.status}"}
            return
        options = page.options.chosen(values)
        asked = book

        def steps():
            nonlocal asked
            read = reading_ceiling(book, values[ui.ceiling] or "")
            asked = book.up_to(*read) if read else book
            session.ceiling = read[0] if read else None
            engine = engine_for(page, ctx, values[page.strategy.strategy], session, values)
            return engine.ask(asked, question, options, prepared=session.prepared_for(engine, book))

        said = question.strip()
        run = yield from answer_turn(page, ctx, session, book, said, said, "Searching the book…", steps)
        compare = values[page.strategy.compare]
        if run is None:
            return
        if compare in (None, "none", values[page.strategy.strategy]):
            yield {ui.status: "Done."}
            return
        method = METHODS[compare]
        try:
            engine = engine_for(page, ctx, compare, session, values)
            first = method.builds and engine.prepared_key(book) not in session.prepared
            yield {ui.status: f"Answering again with {method.label} for the side-by-side view"
                              + (f" (building {method.builds} first, once per book)…" if first else "…")}
            prepared = session.prepared_for(engine, book)
            with model.lock:
                other = engine.run(asked, said, options, prepared=prepared)
        except EliteError as exc:
            yield {ui.status: f"**No side-by-side answer from {method.label}:** {exc}"}
            return
        session.keep(other, book)
        yield {page.side.html: render.side_by_side(book, [run, other]),
               ui.status: "Done: both answers are in the Side by side tab."}

    def on_stop(session: Session):
        session.cancel.set()
        session.stop_unfinished()
        return render.chat(session.book, session.turns), "Stopped. Ask another question."

    running = [trigger(on_ask, asked_with, outputs(page), concurrency_limit=ctx.config.concurrency,
                       concurrency_id="model") for trigger in (ui.ask.click, ui.question.submit)]
    for event in running:
        trace.refresh_after(event, page)
    # a build is stopped through the session's cancel flag alone, so that it can say how far it got
    ui.stop.click(on_stop, state, [ui.conversation, ui.status], cancels=[*running, page.trace.searched],
                  concurrency_limit=None)
