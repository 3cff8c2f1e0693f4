"""The Trace tab: the list of runs, the trace of the one shown with its chart and book map, and "Edit the search
and run again" (an iteration's terms to remove or add, passages to pin, search again from there)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...methods.elite import Edit
from ...methods.registry import METHODS
from ...reading import Asked
from ...settings import recorded
from .. import render
from ..answering import RUN, answer_turn, apart, asked_of, charts, handler, one_at_a_time, outputs
from ..inputs import choice, text
from ..render import inert_markdown as md
from ..state import Session, editable
from .exports import downloads

if TYPE_CHECKING:
    from ..page import Context, Page


@dataclass
class TraceUI:
    runs: gr.Dropdown
    edit_iteration: gr.Dropdown
    edit_terms: gr.Textbox
    pins: gr.Textbox
    rerun: gr.Button
    html: gr.HTML
    importance: gr.Plot
    book_map: gr.Plot


EMPTY = "<div class='trace empty'>Ask a question: how its answer is found shows here, stage by stage.</div>"


def shown_run(page, session: Session) -> dict:
    """The trace panel as the open book's shown run draws it (the empty panel when it has none yet)."""
    if session.book is not None and session.traces:
        events = session.traces[session.shown].events
        return {page.trace.html: render.trace_html(session.book, events)} | charts(page, session.book, events)
    hidden = gr.update(visible=False)
    return {page.trace.html: EMPTY, page.trace.importance: hidden, page.trace.book_map: hidden}


def create_ui(ctx) -> TraceUI:
    with gr.Tab("Trace", id="trace-tab"):
        runs = gr.Dropdown([], label="Show the trace of run", elem_id="run-select")
        with gr.Accordion("Edit the search and run again", open=False, elem_id="edit-panel"):
            iteration = gr.Dropdown([], label="Search again from iteration", elem_id="edit-iteration")
            terms = gr.Textbox(label="Terms of that iteration (one per line: remove or add)", lines=4,
                               elem_id="edit-terms")
            pins = gr.Textbox(label="Pinned passages (click \"pin\" beside a retrieved sentence, or type S1234)",
                              elem_id="pins")
            rerun = gr.Button("Search again", elem_id="rerun")
        return TraceUI(runs, iteration, terms, pins, rerun,
                       gr.HTML(EMPTY, elem_id="trace"),
                       gr.Plot(label="Importance", elem_id="importance-plot", visible=False),
                       gr.Plot(label="Book map", elem_id="book-map", visible=False))


def edit_choices(session: Session, iteration=None):
    """The iterations of the shown run that may be searched again, and the terms of the one chosen."""
    by = editable(session.traces[session.shown]) if session.traces else {}
    if not by:
        return gr.update(choices=[], value=None), ""
    iteration = choice(iteration, by) or max(by)
    return gr.update(choices=sorted(by), value=iteration), "\n".join(by[iteration])


def after_run(page: Page, ctx: Context, session: Session) -> dict:
    """After a run or a new book: the list of runs, the edit panel, the notebook, the exports, the browser's copy of
    the session, the model's speed and the side-by-side view."""
    ui = page.trace
    labels = session.labels()
    iterations, terms = edit_choices(session)
    compared, session.compared = session.compared, None
    return {ui.runs: gr.update(choices=labels, value=labels[session.shown] if labels else None),
            ui.edit_iteration: iterations, ui.edit_terms: terms,
            page.notebook.view: render.notebook_html(session.notebook),
            page.session.stored: session.saved(ctx.receipts), page.model.running: md(ctx.model.running()),
            page.side.html: render.side_by_side(session.book, compared) if compared else gr.skip()
            } | downloads(page, ctx, session)


def refresh_after(event, page: Page, ctx: Context):
    """:func:`after_run` once ``event`` (a run, a new book) is over (and once more after the last of several)."""
    ui = page.trace
    return event.then(handler(after_run, page, ctx), page.session.state,
                      [ui.runs, ui.edit_iteration, ui.edit_terms, page.notebook.view, page.session.stored,
                       page.model.running, page.side.html, page.exports.markdown, page.exports.json,
                       page.notebook.export], concurrency_limit=None, trigger_mode="always_last")


def on_rerun(page: Page, ctx: Context, iteration, terms_text, pins_text, session: Session):
    """"Search again": the shown run's search from the chosen iteration with the reader's terms and pinned
    passages, its earlier iterations kept as they were."""
    book = session.book
    if book is None or not session.traces:
        yield {page.chat.status: "Ask a question first; then edit its search."}
        return
    base = session.traces[session.shown]
    iteration = choice(iteration, editable(base))
    if iteration is None:
        yield {page.chat.status: "Only an ELITE search with terms can be edited (not counting, M-RAG or chunk "
                                 "RAG runs)."}
        return
    terms = [t.strip() for t in re.split(r"[\n,;]+", text(terms_text)) if t.strip()]
    pinned = [int(n) for n in re.findall(r"\d{1,9}", text(pins_text))]
    if not terms and not pinned:
        yield {page.chat.status: "Give at least one term, or pin a passage."}
        return
    start = base.of("start")[0].data
    number = session.shown + 1
    asked = Asked(base.question, start.ceiling or "", method="elite",
                  settings=recorded(METHODS["elite"].settings, start.settings), options=start.options,
                  edit=Edit(base.events, iteration, terms, pinned, run=number))
    said = f"{base.question} (search edited from run {number}, iteration {iteration})"
    again = searched_again(page, ctx, session, book, said, base.question, number,
                           lambda: asked_of(ctx, session, book, asked).events())
    return (yield from one_at_a_time(page, session, again, ctx.model))


def searched_again(page: Page, ctx: Context, session: Session, book, said: str, question: str, number: int, steps):
    """The edited search as a new turn of the conversation, and a new run in the list of runs."""
    run = yield from answer_turn(page, ctx, session, book, said, question, "Searching again…", steps)
    if run is not None:
        yield {page.chat.status: f"Done. Run {number} stays in the list of runs above the trace."}


def on_iteration(iteration, session: Session):
    """The iteration to search again from, chosen: its terms, one per line."""
    return edit_choices(session, iteration)[1]


def on_run_select(page: Page, ctx: Context, label, session: Session):
    """"Show the trace of run": that run's trace, charts, terms to edit and exports."""
    ui, state = page.trace, page.session.state
    labels = session.labels()
    if label not in labels:
        return {state: session}
    session.shown = labels.index(label)
    shown, book = session.traces[session.shown], session.book
    iterations, terms = edit_choices(session)
    return {state: session, ui.html: render.trace_html(book, shown.events), ui.edit_iteration: iterations,
            ui.edit_terms: terms} | charts(page, book, shown.events) | downloads(page, ctx, session)


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state = page.trace, page.session.state
    searched = ui.rerun.click(apart(handler(on_rerun, page, ctx)), [ui.edit_iteration, ui.edit_terms, ui.pins, state],
                              outputs(page), trigger_mode="multiple", **RUN)
    refresh_after(searched, page, ctx)
    ui.edit_iteration.input(on_iteration, [ui.edit_iteration, state], ui.edit_terms, concurrency_limit=None)
    ui.runs.input(handler(on_run_select, page, ctx), [ui.runs, state],
                  [state, ui.html, ui.importance, ui.book_map, ui.edit_iteration, ui.edit_terms,
                   page.exports.markdown, page.exports.json, page.notebook.export], concurrency_limit=None)
