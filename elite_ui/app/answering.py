"""A turn of the conversation, however it was asked (a question, an edited search): the stop flag renewed, the
turn added, the method's events run under the model lock and shown as they come (the answer streaming into the
conversation, the trace and charts refreshed at a bounded rate), the finished run kept and shown."""

from __future__ import annotations

import threading
import time

from ..book import Book
from ..errors import EliteError
from ..methods.trace import Kind, Trace
from . import render
from .state import Session

MILESTONES = {Kind.TERMS, Kind.COLLECTION, Kind.COUNT, Kind.JUDGE, Kind.EXPLORATION, Kind.ANSWER, Kind.DONE}
"""Events that always refresh the trace and charts; others (importance, chunks...) refresh at most every
REFRESH_SECONDS (the trace) and FIGURE_SECONDS (the charts), so a long question stays smooth."""
REFRESH_SECONDS = 0.3
FIGURE_SECONDS = 1.0


def outputs(page) -> list:
    """Everything a turn may update."""
    return [page.session.state, page.chat.conversation, page.trace.html, page.trace.importance, page.trace.book_map,
            page.chat.status, page.side.html]


def answer_turn(page, ctx, session: Session, book: Book, said: str, question: str, note: str, steps_of):
    """A new turn (``said``), answered by the events ``steps_of()`` makes once the session's stop flag is renewed,
    shown as they come. Returns the finished run's trace, or None when it ended in an error (then said in the
    conversation)."""
    session.stop_unfinished()
    session.cancel = threading.Event()
    turn = {"question": said, "partial": ""}
    session.turns.append(turn)
    trace = Trace(question)
    yield {page.chat.conversation: render.chat(book, session.turns), page.trace.html: "", page.chat.status: note}
    try:
        yield from stream(page, ctx, session, turn, trace, book, steps_of())
    except EliteError as exc:
        turn["error"] = str(exc)
        yield {page.chat.conversation: render.chat(book, session.turns), page.chat.status: f"**{exc}**"}
        return None
    session.keep(trace, book)
    session.shown = len(session.traces) - 1
    return trace


def stream(page, ctx, session: Session, turn: dict, trace: Trace, book: Book, steps):
    """Run a question's events under the model lock, showing the answer and the trace as they grow."""
    shown = {"trace": 0.0, "figures": 0.0}
    with ctx.model.lock:
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
            figures = event.kind in MILESTONES or now - shown["figures"] >= FIGURE_SECONDS
            shown["trace"] = now
            shown["figures"] = now if figures else shown["figures"]
            update = {page.chat.conversation: render.chat(book, session.turns),
                      page.trace.html: render.trace_html(book, trace.events)}
            if figures:
                update |= {page.trace.importance: render.importance_figure(trace.events),
                           page.trace.book_map: render.book_map(book, trace.events)}
            if event.iteration:
                update[page.chat.status] = f"Iteration {event.iteration}: {event.kind}"
            yield update
