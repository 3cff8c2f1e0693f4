"""The book: the upload box, "Try the sample book", the book card, the books of this visit (each with its own
conversation), and the language the book is read as."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...book import load_cached
from ...book import open_file as open_file_of
from ...book.cache import evict
from ...errors import EliteError
from ...methods.whole import fits
from .. import render
from ..answering import handler
from ..inputs import choice
from ..render import inert_markdown as md
from ..sample import SAMPLE
from ..state import Session
from . import names as names_panel
from . import reader, story, trace

if TYPE_CHECKING:
    from ..page import Context, Page

LANGUAGES = ["en", "fr", "de", "es", "zh", "it", "pt", "nl", "ru"]
"""Languages the reader may read a book as (any Snowball language works; these are offered)."""


UPLOAD, ANOTHER = "Book (.txt, .epub, .pdf)", "Open another book (.txt, .epub, .pdf)"


@dataclass
class BookUI:
    upload: gr.File
    sample: gr.Button
    card: gr.HTML
    switch: gr.Dropdown
    language: gr.Dropdown


def create_ui(ctx) -> BookUI:
    return BookUI(
        gr.File(label=UPLOAD, file_types=[".txt", ".epub", ".pdf"], elem_id="upload"),
        gr.Button("Try the sample book: The Wind in the Willows", size="sm", elem_id="sample",
                  visible=SAMPLE.exists()),
        gr.HTML(render.NO_BOOK, elem_id="book-info"),
        gr.Dropdown([], label="Books this visit", elem_id="book-switch", visible=False,
                    info="each book keeps its own conversation; choose one to go back to it"),
        gr.Dropdown(["detected", *LANGUAGES], value="detected", label="Book language", elem_id="language",
                    info="how the book is cut into words and matched; change it if the detected language is wrong"),
    )


def opened(page, ctx, session: Session) -> dict:
    """What shows the open book: its card, its conversation, the books of the visit, its ceiling, its shown run;
    nothing of the book before it (the question asked of it, its passage in the Reader)."""
    book = session.book
    return {page.session.state: session, page.book.card: render.book_card(book, hosted=ctx.config.hosted),
            page.book.upload: gr.File(value=None, label=ANOTHER),
            page.book.switch: gr.Dropdown(choices=session.books(), value=book.digest,
                                          visible=len(session.books()) > 1),
            page.chat.conversation: render.chat(book, session.turns), page.chat.ceiling: session.ceiling_text,
            page.chat.question: "", page.reader.view: reader.EMPTY} | trace.shown_run(page, session) | story.fresh(
        page, book)


def opened_outputs(page) -> list:
    """Everything :func:`opened` updates."""
    return [page.session.state, page.book.card, page.book.upload, page.book.switch, page.chat.conversation,
            page.chat.ceiling, page.chat.question, page.reader.view, page.trace.html, page.trace.importance,
            page.trace.book_map, page.story.html, page.story.figure, page.story.shared]


def whole_offered(page, ctx, book) -> dict:
    """When the whole book fits the model's context, the status offers whole-book mode (the reader chooses)."""
    tokens = fits(book, ctx.model.llm) if ctx.model.llm is not None else None
    if tokens is None:
        return {}
    return {page.chat.status: f"Loaded *{md(book.title)}*. It fits the model's context ({tokens:,} tokens): choose "
                              "the method *Whole book* to have the model read all of it. Ask a question."}


def open_file(page, ctx, path: str, session: Session, request: gr.Request):
    """Open the book at ``path`` in ``session``, if the visitor may open one now: its card as soon as the file is
    read, the book when its sentences are found and indexed; the cache kept to its cap."""
    ui = page.book
    refused = ctx.visitors.may_open(request, session)
    if refused:
        yield {page.chat.status: f"**Not opened:** {refused}", ui.upload: None}
        return
    try:
        opening = open_file_of(path, max_bytes=ctx.config.max_upload_mb * 1024 * 1024, cache_dir=ctx.cache_dir)
        if opening.book is None:
            yield {ui.card: render.reading_card(opening),
                   page.chat.status: f"Reading *{md(opening.draft.title or opening.path.stem)}*…"}
        book = opening.finish()
    except EliteError as exc:
        kept = f" The book already loaded, *{md(session.book.title)}*, stays." if session.book else ""
        card = render.book_card(session.book, hosted=ctx.config.hosted) if session.book else render.NO_BOOK
        yield {page.chat.status: f"**Could not load the book:** {md(str(exc))}{kept}", ui.upload: None, ui.card: card}
        return
    evict(ctx.cache_dir, ctx.config.cache_mb * 2**20)
    session.open(book)
    yield opened(page, ctx, session) | {page.chat.status: f"Loaded *{md(book.title)}*. Ask a question."} | (
        whole_offered(page, ctx, book))


def reading(ctx) -> dict:
    """How every event that opens a book runs: in one line, ``--uploads`` at once, its card not hidden by progress."""
    return {"concurrency_limit": ctx.config.uploads, "concurrency_id": "book", "show_progress": "minimal"}


def on_named(page: Page, ctx: Context, session: Session):
    """The open book's character names up to its ceiling (0.8 s for the longest novel), after it opened."""
    return {page.session.state: session} | names_panel.listed(page, ctx, session, session.ceiling_text)


def after_opening(page: Page, ctx: Context, event) -> None:
    """What follows any event that opens a book: the cursor in the question box, then the book's character names
    up to its ceiling, the run's views, the language box back to "detected"."""
    state = page.session.state
    event.then(None, js="() => focusQuestion()")
    # "always_last": a book opened while the one before is still listed gets its own listing after it (Gradio's
    # default, "once", drops a trigger that comes while the same step runs: the examples stayed the first book's)
    listed = event.then(handler(on_named, page, ctx), state, [state, *names_panel.outputs(page)],
                        concurrency_limit=None, trigger_mode="always_last")
    trace.refresh_after(listed, page, ctx).then(lambda: "detected", None, page.book.language, concurrency_limit=None,
                                                trigger_mode="always_last")


def on_upload(page: Page, ctx: Context, file, session: Session, request: gr.Request):
    """A book uploaded: opened (or, for a visitor over their limits, refused in one sentence)."""
    if file is None:
        yield {page.session.state: session}
        return
    yield from open_file(page, ctx, file if isinstance(file, str) else file.name, session, request)


def on_sample(page: Page, ctx: Context, session: Session, request: gr.Request):
    """"Try the sample book": The Wind in the Willows, opened."""
    yield from open_file(page, ctx, str(SAMPLE), session, request)


def on_switch(page: Page, ctx: Context, digest, session: Session):
    """"Books this visit": back to an earlier book of the visit, with its conversation, runs and ceiling."""
    ui, state = page.book, page.session.state
    digest = choice(digest, session.shelf)
    if session.book is None or digest is None:
        return {state: session}
    book = load_cached(digest, ctx.cache_dir)
    if book is None:
        gone = md(session.shelf[digest].label)
        return {page.chat.status: f"*{gone}* is no longer in the cache; upload it again.",
                ui.switch: session.book.digest}
    session.open(book)
    return opened(page, ctx, session) | {page.chat.status: f"Back to *{md(book.title)}*."}


def on_language(page: Page, ctx: Context, code, session: Session):
    """"Book language": the book read as another language (its words, stems and names found again)."""
    ui, state = page.book, page.session.state
    book, code = session.book, choice(code, ["detected", *LANGUAGES])
    if book is None or code is None:
        return {state: session}
    wanted = book.stats.get("detected", book.language) if code == "detected" else code
    if wanted == book.language:
        return {state: session}
    session.book = book.read_as(wanted)
    session.book.stats["detected"] = book.stats.get("detected", book.language)
    session.names = None
    return {state: session, ui.card: render.book_card(session.book, hosted=ctx.config.hosted),
            page.chat.status: f"*{md(session.book.title)}* is read as {session.book.lexicon.name}."
            } | names_panel.listed(page, ctx, session, session.ceiling_text)


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state = page.book, page.session.state
    shown = [*opened_outputs(page), page.chat.status]
    opens = reading(ctx)
    for event in (ui.upload.upload(handler(on_upload, page, ctx), [ui.upload, state], shown, **opens),
                  ui.sample.click(handler(on_sample, page, ctx), state, shown, **opens),
                  ui.switch.input(handler(on_switch, page, ctx), [ui.switch, state], shown, **opens)):
        after_opening(page, ctx, event)
    # chosen (select), not merely passed by Tab: Gradio sends an input event each time the box loses focus
    ui.language.select(handler(on_language, page, ctx), [ui.language, state],
                       [state, ui.card, *names_panel.outputs(page), page.chat.status], concurrency_limit=None)
