"""The conversation and the question: which model answers (with an honest note on the demo model), the spoiler
ceiling, Ask and Stop (enabled only while a question runs), example questions, the status line; a question is
answered by the chosen method (and again by a second one for the side-by-side view)."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...book import Book, reading_ceiling
from ...errors import EliteError
from ...methods.registry import METHODS
from .. import render
from ..answering import answer_turn, one_at_a_time, outputs, releases_stop
from ..inputs import text
from ..render import inert_markdown as md
from ..sample import EXAMPLES, example_questions, is_sample
from ..state import Session
from . import model_panel, trace


def examples(book: Book | None, names: list[str]) -> gr.Dataset:
    """The example questions about the open book (:func:`~elite_ui.app.sample.example_questions`), shown if any."""
    asked = example_questions(book, names)
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
                             info="empty: the whole book; also 'book 2 chapter 10'. A model may know a famous book "
                                  "to its end: each answer is checked against the book up to here, and what it does "
                                  "not support is left out")
        front = gr.Checkbox(label="Search the front matter too", value=False, scale=1, elem_id="front",
                            info="a preface or introduction before chapter 1 may tell the whole plot")
    with gr.Row(elem_classes="question-row"):
        question = gr.Textbox(label="Question", placeholder="Who does Elizabeth marry?", scale=5, elem_id="question")
        ask = gr.Button("Ask", variant="primary", scale=1, elem_id="ask")
        stop = gr.Button("Stop", variant="stop", scale=1, elem_id="stop", interactive=False)
    status = gr.Markdown("", elem_id="status")
    shown = gr.Dataset(components=[question], samples=[[q] for q in EXAMPLES], elem_id="examples",
                       label="Example questions about the sample book")
    return ChatUI(note, conversation, ceiling, front, question, ask, stop, status, shown)


def engine_for(page, ctx, name: str, session: Session, values: dict, asked: Book):
    """The engine of method ``name`` with the settings its panel shows (a method without a panel of its own
    takes the main settings panel's preset and the settings it shares with it), for a question of ``asked`` (the
    book cut at the reader's ceiling)."""
    method = METHODS[name]
    own = getattr(page, method.panel).controls
    return session.engine(method, own.settings(values, method.settings, method.presets), ctx.model, ctx.cache_dir,
                          asked)


def create_event_handlers(page, ctx) -> None:
    ui, state, model = page.chat, page.session.state, ctx.model
    asked_with = {state, ui.question, ui.ceiling, ui.front, page.strategy.strategy, page.strategy.compare,
                  *page.options.boxes.values(), *page.settings.controls.inputs, *page.mrag.controls.inputs}

    @releases_stop(page)
    def on_ask(values: dict):
        session: Session = values[state]
        book, said = session.book, text(values[ui.question]).strip()
        if book is None:
            freed = (f" If this page showed a book, its session was idle over {ctx.config.idle_minutes} minutes "
                     "and was freed: reload the page to bring it back." if ctx.config.hosted else "")
            yield {ui.status: "Load a book first (or try the sample book)." + freed}
            return
        if not said:
            yield {ui.status: "Type a question first."}
            return
        if model.llm is None:
            yield {ui.status: f"No model: {md(model.status)}"}
            return
        options = page.options.chosen(values)
        return (yield from one_at_a_time(page, session, answered(values, session, book, said, options), model))

    def answered(values: dict, session: Session, book, said: str, options):
        """The question answered by the chosen method, then by the side-by-side one if the reader chose one."""
        session.ceiling_text = text(values[ui.ceiling]).strip()
        asked = book
        about, session.about = session.about, []

        def steps():
            nonlocal asked
            read = reading_ceiling(book, session.ceiling_text)
            asked = book.up_to(*read, front=bool(values[ui.front])) if read else book
            engine = engine_for(page, ctx, "elite" if about else values[page.strategy.strategy], session, values,
                                asked)
            return engine.ask(asked, said, options, prepared=ctx.model.prepared_for(engine, book),
                              **({"about": about} if about else {}))

        run = yield from answer_turn(page, ctx, session, book, said, said, "Searching the book…", steps, options)
        compare = values[page.strategy.compare]
        if run is None:
            return
        if compare in (None, "none", values[page.strategy.strategy]):
            yield {ui.status: "Done."}
            return
        method = METHODS[compare]
        try:
            engine = engine_for(page, ctx, compare, session, values, asked)
            first = method.builds and engine.prepared_key(book) not in ctx.model.prepared
            yield {ui.status: f"Answering again with {method.label} for the side-by-side view"
                              + (f" (building {method.builds} first, once per book)…" if first else "…")}
            other = engine.run(asked, said, options, prepared=ctx.model.prepared_for(engine, book))
        except EliteError as exc:
            yield {ui.status: f"**No side-by-side answer from {method.label}:** {md(str(exc))}"}
            return
        session.keep(other, book)
        session.compared = [run, other]
        yield {ui.status: "Done: both answers are in the Side by side tab."}

    def on_stop(session: Session):
        session.cancel.set()
        session.stop_unfinished()
        return (render.chat(session.book, session.turns), "Stopped. Ask another question when you like.",
                gr.Button(interactive=False))

    def on_example(sample):
        """An example chosen fills the question box (links.js puts the cursor there: Enter asks it)."""
        return text(sample[0]) if isinstance(sample, list | tuple) and sample else gr.skip()

    ui.examples.click(on_example, ui.examples, ui.question, concurrency_limit=None, show_progress="hidden")
    # no limit here: every visitor's calls line up fairly for the model's capacity (models.capacity), one run per
    # visitor at a time (Session.begin)
    boxes = list(page.options.boxes.values())
    running = [trigger(on_ask, asked_with, outputs(page), concurrency_limit=None)
               for trigger in (ui.ask.click, ui.question.submit)]
    # a build is stopped through the session's cancel flag alone, so that it can say how far it got
    stopped = ui.stop.click(on_stop, state, [ui.conversation, ui.status, ui.stop],
                            cancels=[*running, page.trace.searched], concurrency_limit=None)
    for event in running:
        trace.refresh_after(event, page, ctx)
    for event in (*running, stopped):
        event.then(page.options.spent, [state, *boxes], boxes, concurrency_limit=None)
