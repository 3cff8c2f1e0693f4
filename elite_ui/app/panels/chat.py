"""The conversation and the question: which model answers (with an honest note on the demo model), the spoiler
ceiling, Ask and Stop (enabled only while a question runs), example questions, the status line; a question is
answered by the chosen method (and again by a second one for the side-by-side view)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import gradio as gr

from ...book import Book
from ...errors import EliteError
from ...methods.registry import METHODS
from ...reading import CAPABLE_PRESET, Asked, preset_for
from .. import render
from ..answering import RUN, STOPPED, answer_turn, apart, asked_of, handler, one_at_a_time, outputs, panel_of
from ..inputs import text
from ..render import inert_markdown as md
from ..sample import example_questions, is_sample
from ..state import Session
from . import model_panel, trace

if TYPE_CHECKING:
    from ..page import Context, Page


def real_model(ctx) -> bool:
    """Whether the model that answers is a real one (it gets the ``capable`` preset): the sample book's example
    questions are then those such a model states."""
    return preset_for(ctx.model.llm)[0] == CAPABLE_PRESET


def examples(ctx, book: Book | None, names: list[str]) -> gr.Dataset:
    """The example questions about the open book (:func:`~elite_ui.app.sample.example_questions`) for the model
    that answers, shown if any."""
    asked = example_questions(book, names, real_model(ctx))
    about = "the sample book" if book is None or is_sample(book) else book.title
    return gr.Dataset(samples=[[q] for q in asked], label=f"Example questions about {about}", visible=bool(asked))


@dataclass
class ChatUI:
    model_note: gr.HTML
    conversation: gr.HTML
    ceiling: gr.Textbox
    front: gr.Checkbox
    question: gr.Textbox
    ask: gr.Button
    stop: gr.Button
    status: gr.Markdown
    examples: gr.Dataset


def create_ui(ctx) -> ChatUI:
    note = gr.HTML(model_panel.note(ctx.model), elem_id="model-note")
    conversation = gr.HTML(render.chat(None, []), elem_id="chat")
    with gr.Row(elem_classes="ceiling-row"):
        ceiling = gr.Textbox(label="I have read up to (spoiler ceiling)", elem_id="ceiling", scale=4,
                             placeholder="chapter 12, page 80 or 40%",
                             info="empty: the whole book; also 'book 2 chapter 10' or a chapter's title. A model may "
                                  "know a famous book to its end: each answer is checked against the book up to here, "
                                  "and what it does not support is left out")
        front = gr.Checkbox(label="Search the front matter too", value=False, scale=1, elem_id="front",
                            info="a preface or introduction before chapter 1 may tell the whole plot")
    with gr.Row(elem_classes="question-row"):
        question = gr.Textbox(label="Question", placeholder="Who does Elizabeth marry?", scale=5, elem_id="question")
        ask = gr.Button("Ask", variant="primary", scale=1, elem_id="ask")
        stop = gr.Button("Stop", variant="stop", scale=1, elem_id="stop", interactive=False)
    status = gr.Markdown("", elem_id="status")
    shown = gr.Dataset(components=[question], samples=[[q] for q in example_questions(None, [], real_model(ctx))],
                       elem_id="examples", label="Example questions about the sample book")
    return ChatUI(note, conversation, ceiling, front, question, ask, stop, status, shown)


def method_settings(page: Page, name: str, values: dict):
    """The settings of method ``name`` as its panel shows them (a method without a panel of its own takes the main
    settings panel's preset and the settings it shares with it)."""
    method = METHODS[name]
    own = panel_of(page, method).controls
    return own.settings(values, method.settings, method.presets)


def on_ask(page: Page, ctx: Context, values: dict):
    """Ask (or Enter in the question box): the question answered by the chosen method, one run of the visitor at
    a time, in its place in the model's line."""
    ui, session = page.chat, values[page.session.state]
    book, said = session.book, text(values[ui.question]).strip()
    if book is None:
        freed = (f" If this page showed a book, its session was idle over {ctx.config.idle_minutes} minutes "
                 "and was freed: reload the page to bring it back." if ctx.config.hosted else "")
        yield {ui.status: "Load a book first (or try the sample book)." + freed}
        return
    if not said:
        yield {ui.status: "Type a question first."}
        return
    if ctx.model.llm is None:
        yield {ui.status: f"No model: {md(ctx.model.status)}"}
        return
    options = page.options.chosen(values)
    run = answered(page, ctx, values, session, book, said, options)
    return (yield from one_at_a_time(page, session, run, ctx.model))


def answered(page: Page, ctx: Context, values: dict, session: Session, book: Book, said: str, options):
    """The question answered by the chosen method (ELITE for a question about a passage), then by the side-by-side
    one if the reader chose one, both of the same part of the book."""
    ui = page.chat
    session.ceiling_text = text(values[ui.ceiling]).strip()
    about, session.about = session.about, []
    name = "elite" if about else values[page.method.method]
    asked = Asked(said, session.ceiling_text, bool(values[ui.front]), name, method_settings(page, name, values),
                  options, tuple(about))
    run = yield from answer_turn(page, ctx, session, book, said, said, "Searching the book…",
                                 lambda: asked_of(ctx, session, book, asked).events(), options)
    compare = values[page.method.compare]
    if run is None:
        return
    if compare in (None, "none", values[page.method.method]):
        yield {ui.status: "Done."}
        return
    yield from compared(page, ctx, session, book, replace(asked, method=compare,
                                                          settings=method_settings(page, compare, values), about=()),
                        run)


def compared(page: Page, ctx: Context, session: Session, book: Book, asked: Asked, run):
    """The same question answered again by another method, for the Side by side tab beside ``run``."""
    ui, method = page.chat, METHODS[asked.method]
    try:
        again = asked_of(ctx, session, book, asked)
        first = method.builds and again.engine.prepared_key(book) not in ctx.model.prepared
        yield {ui.status: f"Answering again with {method.label} for the side-by-side view"
                          + (f" (building {method.builds} first, once per book)…" if first else "…")}
        other = again.answer()
    except EliteError as exc:
        yield {ui.status: f"**No side-by-side answer from {method.label}:** {md(str(exc))}"}
        return
    session.keep(other, book)
    session.compared = [run, other]
    yield {ui.status: "Done: both answers are in the Side by side tab."}


def on_stop(session: Session):
    """Stop: the visitor's run ends at its next step; the conversation goes on (a build says itself how far it
    got)."""
    said = session.stop()
    return (render.chat(session.book, session.turns),
            gr.skip() if said else STOPPED, gr.Button(interactive=False))


def on_example(sample):
    """An example chosen fills the question box (links.js puts the cursor there: Enter asks it)."""
    return text(sample[0]) if isinstance(sample, list | tuple) and sample else gr.skip()


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state = page.chat, page.session.state
    asked_with = {state, ui.question, ui.ceiling, ui.front, page.method.method, page.method.compare,
                  *page.options.boxes.values(), *page.settings.controls.inputs, *page.mrag.controls.inputs}
    ui.examples.click(on_example, ui.examples, ui.question, concurrency_limit=None, show_progress="hidden")
    # no limit here: every visitor's calls line up fairly for the model's capacity (models.capacity), one run per
    # visitor at a time (Session.begin)
    boxes = list(page.options.boxes.values())
    asking = apart(handler(on_ask, page, ctx))
    # a click while a run goes on is sent, not dropped: Ask pressed at once after Stop (the stopped run ends at its
    # next step), or told that a run goes on (answering.BUSY)
    running = [trigger(asking, asked_with, outputs(page), trigger_mode="multiple", **RUN)
               for trigger in (ui.ask.click, ui.question.submit)]
    # every run is stopped through the session's stop flag alone, never by cancelling its event (which Gradio's
    # page shows as an error): the run's last update says it was stopped (answering.one_at_a_time)
    stopped = ui.stop.click(on_stop, state, [ui.conversation, ui.status, ui.stop], concurrency_limit=None)
    for event in running:
        trace.refresh_after(event, page, ctx)
    for event in (*running, stopped):
        event.then(page.options.spent, [state, *boxes], boxes, concurrency_limit=None, trigger_mode="always_last")
