"""A turn of the conversation, however it was asked (a question, an edited search): one run of a visitor at a
time, the turn added, Stop enabled and the Trace tab shown, the method's events shown as they come (the answer
streaming into the conversation, the trace and charts refreshed at a bounded rate, the status line saying in words
what the method is doing, or where its call stands in the shared model's line), the finished run kept and shown."""

from __future__ import annotations

import contextlib
import functools
import inspect
import time

import gradio as gr

from ..book import Book
from ..errors import Cancelled, EliteError
from ..methods.registry import Method
from ..methods.trace import PAYLOADS, Kind, Trace
from ..reading import Asked, Reading, reading
from ..records import AnswerRecord
from . import render
from .notebook import Turn
from .render import inert_markdown as md
from .state import Model, Session

MILESTONES = {Kind.TERMS, Kind.COLLECTION, Kind.COUNT, Kind.JUDGE, Kind.EXPLORATION, Kind.ANSWER, Kind.DONE}
"""Events that always refresh the trace and (but those in NOTHING_TO_DRAW) the charts; others (importance,
chunks...) refresh at most every REFRESH_SECONDS (the trace) and FIGURE_SECONDS (the charts), so a long question
stays smooth and its first terms show at once."""
REFRESH_SECONDS = 0.3
FIGURE_SECONDS = 1.0
DELTA_SECONDS = 0.1
"""The answer being written is shown at most this often (a server that sends it in one burst is one update)."""
NOTHING_TO_DRAW = {Kind.TERMS, Kind.ANSWER}
"""Milestones after which the charts are not drawn again: terms add nothing to draw, and ``done`` follows the
answer at once (what drawing the charts costs: docs/serving.md, "What limits the app")."""


def outputs(page) -> list:
    """Everything a turn updates while it runs. As few as can be: Gradio rebuilds every output an update leaves
    out (a component built and configured for each, ``gr.skip()`` too), so what changes once a run (the
    side-by-side view, the model's speed, the options asked with) is updated after it
    (:func:`.panels.trace.refresh_after`, :func:`.panels.options.spent`)."""
    return [page.session.state, page.chat.conversation, page.trace.html, page.trace.importance, page.trace.book_map,
            page.chat.status, page.chat.stop, page.tabs]


def handler(fn, *bound):
    """``fn``, a module-level handler, with its first arguments bound (the page, the context), as Gradio reads a
    handler: its name (the page's endpoint is named after it, ``/on_ask``), its other parameters with their
    annotations (``gr.Request``, ``gr.Progress``), and a generator function where ``fn`` is one (its updates
    stream)."""
    if inspect.isgeneratorfunction(fn):
        def bound_fn(*args, **kwargs):
            return (yield from fn(*bound, *args, **kwargs))
    else:
        def bound_fn(*args, **kwargs):
            return fn(*bound, *args, **kwargs)
    functools.update_wrapper(bound_fn, fn)
    signature = inspect.signature(fn)
    left = list(signature.parameters.values())[len(bound):]
    bound_fn.__signature__ = signature.replace(parameters=left)
    # only the annotations left: the page's and the context's types are imported for type checking alone
    bound_fn.__annotations__ = {k: v for k, v in fn.__annotations__.items() if k in {p.name for p in left}}
    return bound_fn


def panel_of(page, method: Method):
    """The settings panel whose controls set ``method``: M-RAG's own, else the main settings panel (whose preset
    and the settings it shares a method without a panel of its own takes)."""
    return page.mrag if method.name == "mrag" else page.settings


def asked_of(ctx, session: Session, book: Book, asked: Asked) -> Reading:
    """``asked`` of the open ``book`` on the shared model, ready to run (:func:`elite_ui.reading.reading`): the
    visitor's tools and character names, and what the method prepared of the book, kept for every visitor."""
    return reading(book, asked, ctx.model.llm, session.tools(ctx.model, ctx.cache_dir),
                   names=lambda read: session.names_in(read, ctx.cache_dir), prepare=ctx.model.prepared_for)


def asking_each_book(ctx, session: Session):
    """How a question across the library (:func:`elite_ui.across.ask_across`) asks each of its books: opened in
    ``session``, the question taking its turn in the model's line like any of that visitor's."""
    def answer(book: Book, asked: Asked) -> AnswerRecord:
        session.open(book)
        with session.run(ctx.model):
            ready = asked_of(ctx, session, book, asked)
            return ready.record(ready.answer())
    return answer


RUNS = 64
"""Questions and builds (runs) going on at once, each with a thread of its own apart from the threads Gradio
serves every other call with (views, search, passages): runs waiting for the model hold none of those. Past this
many, a run waits in Gradio's queue, holding nothing (the app takes this many more of Gradio's workers)."""
RUN = {"concurrency_id": "runs", "concurrency_limit": RUNS}
"""How every run's event is registered (:data:`RUNS`)."""


@functools.cache
def run_threads():
    """The runs' threads (made once, within Gradio's event loop)."""
    import anyio

    return anyio.CapacityLimiter(RUNS)


def apart(fn):
    """``fn``, a handler that is a generator function, as an async generator function Gradio awaits: each of its
    steps runs in one of the threads kept for runs (:data:`RUNS`)."""
    import anyio

    async def run(*args, **kwargs):
        steps = fn(*args, **kwargs)
        try:
            while (step := await anyio.to_thread.run_sync(next, steps, DONE, limiter=run_threads())) is not DONE:
                yield step
        finally:
            # cancelled by Gradio (its caller left; Stop never cancels) while a step runs in its thread: the
            # generator is closed (its ``finally`` blocks run) when that step returns and the last reference goes
            with contextlib.suppress(ValueError):
                steps.close()

    return functools.update_wrapper(run, fn)


DONE = object()
"""What a run's next step is once it has none."""


BUSY = "Your last request is still running: wait for it to finish, or press Stop."
"""Said to a visitor who starts a second question or build while one runs."""
STOPPED = "Stopped. Ask another question when you like."
"""Said once a question is stopped (a build says itself how far it got)."""


def one_at_a_time(page, session: Session, run, asked: Model | None = None, says_stop: bool = False):
    """The updates of ``run`` (a generator begun here) until its fresh stop flag is set (a stopped run's late
    update would undo what Stop showed), then Stop disabled and a stopped question said to be; unless another run
    of the same visitor goes on: then one sentence, nothing runs, and Stop is left to that run. A question
    (``asked`` of that model) takes its place in the model's line here, at once; ``says_stop``:
    :attr:`Session.says_stop` (a build's updates all show). Returns what ``run`` returned (None when refused)."""
    with session.run(asked, says_stop=says_stop) as flag:
        if flag is None:
            gr.Warning(BUSY)  # a toast stays: the running question's next status line follows this one at once
            yield {page.chat.status: BUSY}
            return None
        ran = yield from run if says_stop else until_stopped(run, flag)
    if not session.busy:  # a run of the visitor begun since enabled Stop for itself: it stays
        said = {page.chat.conversation: render.chat(session.book, session.turns), page.chat.status: STOPPED} \
            if flag.is_set() and not says_stop else {}
        yield said | {page.chat.stop: gr.update(interactive=False)}
    return ran


def until_stopped(run, flag):
    """The updates of ``run`` while ``flag`` is not set; what it returns."""
    try:
        while True:
            try:
                update = next(run)
            except StopIteration as ended:
                return ended.value
            if not flag.is_set():
                yield update
    finally:
        run.close()


def one_build(page, ctx, session: Session, run):
    """The events of a long build ``run`` (an M-RAG index, written recaps): at most ``--builds`` at once across
    visitors (a visitor beyond that is told so in one sentence, not queued), and one run of the visitor at a
    time, which says itself how far it got when stopped."""
    builds = ctx.config.builds
    if not builds:
        yield {page.chat.status: "The host of this app lets visitors build no M-RAG index and write no recap."}
        return
    if not ctx.visitors.builds.acquire(blocking=False):
        yield {page.chat.status: f"Other readers' builds are running ({builds} at once, the most this app runs); "
                                 "try again when one has finished."}
        return
    try:
        return (yield from one_at_a_time(page, session, run, says_stop=True))
    finally:
        ctx.visitors.builds.release()


def answer_turn(page, ctx, session: Session, book: Book, said: str, question: str, note: str, steps_of,
                options: dict[str, str] | None = None):
    """A new turn (``said``, with the multiple-choice ``options`` it was asked with), answered by the events
    ``steps_of()`` makes, shown as they come (within :func:`one_at_a_time`). Returns the finished run's trace, or
    None when it was stopped or ended in an error (then said in the conversation)."""
    session.stop_unfinished()
    turn = Turn(said, options or {})
    session.turns.append(turn)
    trace = Trace(question)
    yield {page.chat.conversation: render.chat(book, session.turns), page.trace.html: "", page.chat.status: note,
           page.chat.stop: gr.update(interactive=True), page.tabs: gr.update(selected="trace-tab")}
    try:
        yield from stream(page, ctx, session, turn, trace, book, steps_of())
    except Cancelled:
        turn.stopped = True  # said by one_at_a_time
        return None
    except EliteError as exc:
        turn.error = said = str(exc)[:1].upper() + str(exc)[1:]
        yield {page.chat.conversation: render.chat(book, session.turns), page.chat.status: f"**{md(said)}**"}
        return None
    session.keep(trace, book)
    session.shown = len(session.traces) - 1
    return trace


def charts(page, book, events, sent: dict | None = None) -> dict:
    """The chart beside the trace (shown only when it has bars: no empty axes for a counting run, or when
    importance is off) and the book map. Within a run (``sent``: the visibility each chart was last given), a
    chart whose visibility is unchanged gets its figure alone: an update with properties makes Gradio rebuild the
    component's whole configuration, which cost a sixth of the app's CPU a question. (Updates here and in every
    run's path are ``gr.update`` dicts: building a component to update one costs a signature inspection.)"""
    sent = {} if sent is None else sent
    figure = render.importance_figure(book, events)
    out = {}
    for chart, drawn, visible in ((page.trace.importance, figure, bool(figure.data)),
                                  (page.trace.book_map, render.book_map(book, events), True)):
        out[chart] = drawn if sent.get(chart) == visible else gr.update(value=drawn, visible=visible)
        sent[chart] = visible
    return out


def stream(page, ctx, session: Session, turn: Turn, trace: Trace, book: Book, steps):
    """Run a question's events, showing the answer and the trace as they grow."""
    if ctx.model.llm is not None:
        ctx.model.llm.reset_speed()
    yield from events(page, session, turn, trace, book, steps)


def events(page, session: Session, turn: Turn, trace: Trace, book: Book, steps):
    """Each event of a run: the answer as it is written, the trace and charts at milestones and at intervals."""
    shown = {"trace": 0.0, "figures": 0.0, "delta": 0.0}
    sent: dict = {}
    for event in steps:
        trace.add(event)
        if event.kind == Kind.ANSWER_DELTA:
            turn.partial += event.data.text
            if time.monotonic() - shown["delta"] >= DELTA_SECONDS:
                shown["delta"] = time.monotonic()
                yield {page.chat.conversation: render.chat(book, session.turns)}
            continue
        if event.kind in (Kind.QUEUE, Kind.CALLS):
            yield {page.chat.status: status_line(event)}
            continue
        if event.kind == Kind.QUOTES:
            turn.quotes = event.data.quotes
            yield {page.chat.conversation: render.chat(book, session.turns), page.chat.status: status_line(event)}
            continue
        if event.kind == Kind.LLM_CALL:
            continue
        if event.kind == Kind.ANSWER:
            turn.answer = event.data
        now = time.monotonic()
        if event.kind not in MILESTONES and now - shown["trace"] < REFRESH_SECONDS:
            continue
        figures = (event.kind in MILESTONES - NOTHING_TO_DRAW or now - shown["figures"] >= FIGURE_SECONDS)
        shown["trace"] = now
        shown["figures"] = now if figures else shown["figures"]
        update = {page.chat.conversation: render.chat(book, session.turns),
                  page.trace.html: render.trace_html(book, trace.events)}
        if figures:
            update |= charts(page, book, trace.events, sent)
        if doing(event.kind) or event.kind == Kind.WARNING:
            update[page.chat.status] = status_line(event)
        yield update


def status_line(event) -> str:
    """The status line after ``event``, in words: the iteration, and what was done (or the warning, how far a long
    stage is through its calls, or where the next call stands in the shared model's line)."""
    if event.kind == Kind.QUEUE:
        return event.data.said()
    if event.kind == Kind.CALLS:
        return f"Iteration {event.iteration}: {event.data.said()}…"
    what = event.data.message if event.kind == Kind.WARNING else doing(event.kind) + "…"
    return f"Iteration {event.iteration}: {what}" if event.iteration else f"{what[:1].upper()}{what[1:]}"


def doing(kind: Kind) -> str:
    """What the status line says after an event of ``kind`` (its payload's ``doing``), if anything."""
    return getattr(PAYLOADS.get(kind), "doing", "")

