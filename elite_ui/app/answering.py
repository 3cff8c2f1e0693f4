"""A turn of the conversation, however it was asked (a question, an edited search): the stop flag renewed, the
turn added, Stop enabled and the Trace tab shown, the method's events run under the model lock and shown as they
come (the answer streaming into the conversation, the trace and charts refreshed at a bounded rate, the status
line saying in words what the method is doing), the finished run kept and shown."""

from __future__ import annotations

import functools
import threading
import time

import gradio as gr

from ..book import Book
from ..errors import Cancelled, EliteError
from ..methods.trace import Kind, Trace
from . import render
from .render import inert_markdown as md
from .state import Session

MILESTONES = {Kind.TERMS, Kind.COLLECTION, Kind.COUNT, Kind.JUDGE, Kind.EXPLORATION, Kind.ANSWER, Kind.DONE}
"""Events that always refresh the trace and (but terms, which add nothing to draw) the charts; others (importance,
chunks...) refresh at most every REFRESH_SECONDS (the trace) and FIGURE_SECONDS (the charts), so a long question
stays smooth and its first terms show at once."""
REFRESH_SECONDS = 0.3
FIGURE_SECONDS = 1.0
DOING = {Kind.TERMS: "search terms chosen", Kind.COLLECTION: "matching sentences collected",
         Kind.CHUNKS: "widened into passages", Kind.IMPORTANCE: "weighing how much each passage matters",
         Kind.JUDGE: "the model judged the evidence", Kind.EXPLORATION: "searching further",
         Kind.TRIM: "evidence trimmed", Kind.COUNT: "mentions counted", Kind.RETRIEVAL: "passages ranked",
         Kind.ASSEMBLY: "evidence placed", Kind.AUDIT: "markers checked", Kind.ANSWER: "answer written"}
"""What the status line says after each kind of event."""


def outputs(page) -> list:
    """Everything a turn may update."""
    return [page.session.state, page.chat.conversation, page.trace.html, page.trace.importance, page.trace.book_map,
            page.chat.status, page.side.html, page.chat.stop, page.tabs, page.model.running]


def releases_stop(page):
    """A run's handler (a generator) that disables Stop once it ends, however it ends; Stop was enabled when the
    run began (a run stopped by Stop is disabled by Stop's own handler)."""
    def wrap(handler):
        @functools.wraps(handler)
        def run(*args):
            yield from handler(*args)
            yield {page.chat.stop: gr.Button(interactive=False)}
        return run
    return wrap


def answer_turn(page, ctx, session: Session, book: Book, said: str, question: str, note: str, steps_of,
                options: dict[str, str] | None = None):
    """A new turn (``said``, with the multiple-choice ``options`` it was asked with), answered by the events
    ``steps_of()`` makes once the session's stop flag is renewed, shown as they come. Returns the finished run's
    trace, or None when it was stopped or ended in an error (then said in the conversation)."""
    session.stop_unfinished()
    session.cancel = threading.Event()
    turn = {"question": said, "partial": "", "options": options or {}}
    session.turns.append(turn)
    trace = Trace(question)
    yield {page.chat.conversation: render.chat(book, session.turns), page.trace.html: "", page.chat.status: note,
           page.chat.stop: gr.Button(interactive=True), page.tabs: gr.Tabs(selected="trace-tab")}
    try:
        yield from stream(page, ctx, session, turn, trace, book, steps_of())
    except Cancelled:
        turn["stopped"] = True
        yield {page.chat.conversation: render.chat(book, session.turns),
               page.chat.status: "Stopped. Ask another question when you like."}
        return None
    except EliteError as exc:
        turn["error"] = str(exc)
        yield {page.chat.conversation: render.chat(book, session.turns), page.chat.status: f"**{md(str(exc))}**"}
        return None
    session.keep(trace, book)
    session.shown = len(session.traces) - 1
    return trace


def charts(page, book, events) -> dict:
    """The chart beside the trace (shown only when it has bars: no empty axes for a counting run, or when
    importance is off) and the book map."""
    figure = render.importance_figure(book, events)
    return {page.trace.importance: gr.Plot(figure, visible=bool(figure.data)),
            page.trace.book_map: gr.Plot(render.book_map(book, events), visible=True)}


def stream(page, ctx, session: Session, turn: dict, trace: Trace, book: Book, steps):
    """Run a question's events under the model lock, showing the answer and the trace as they grow."""
    with ctx.model.lock:
        if ctx.model.llm is not None:
            ctx.model.llm.reset_speed()
        yield from events(page, session, turn, trace, book, steps)
        yield {page.model.running: ctx.model.running()}


def events(page, session: Session, turn: dict, trace: Trace, book: Book, steps):
    """Each event of a run: the answer as it is written, the trace and charts at milestones and at intervals."""
    shown = {"trace": 0.0, "figures": 0.0}
    for event in steps:
        trace.add(event)
        if event.kind == Kind.ANSWER_DELTA:
            turn["partial"] += event.data.text
            yield {page.chat.conversation: render.chat(book, session.turns)}
            continue
        if event.kind == Kind.LLM_CALL:
            continue
        if event.kind == Kind.ANSWER:
            turn["answer"] = event.data
        now = time.monotonic()
        if event.kind not in MILESTONES and now - shown["trace"] < REFRESH_SECONDS:
            continue
        figures = (event.kind in MILESTONES - {Kind.TERMS}  # terms alone add nothing to draw
                   or now - shown["figures"] >= FIGURE_SECONDS)
        shown["trace"] = now
        shown["figures"] = now if figures else shown["figures"]
        update = {page.chat.conversation: render.chat(book, session.turns),
                  page.trace.html: render.trace_html(book, trace.events)}
        if figures:
            update |= charts(page, book, trace.events)
        if event.kind in DOING or event.kind == Kind.WARNING:
            update[page.chat.status] = status_line(event)
        yield update


def status_line(event) -> str:
    """The status line after ``event``, in words: the iteration, and what was done (or the warning)."""
    what = event.data.message if event.kind == Kind.WARNING else DOING[event.kind] + "…"
    return f"Iteration {event.iteration}: {what}" if event.iteration else f"{what[:1].upper()}{what[1:]}"
