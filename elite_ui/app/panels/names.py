"""The character names: the book's name index as text the reader may edit (one character per line)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...book.names import NameIndex, save_names
from ...errors import EliteError
from ...reading import part
from .. import inputs
from ..answering import handler
from ..render import inert_markdown as md
from ..state import Session
from . import chat

if TYPE_CHECKING:
    from ...book import Book
    from ..page import Context, Page


@dataclass
class NamesUI:
    box: gr.Textbox
    apply: gr.Button


def create_ui(ctx) -> NamesUI:
    with gr.Accordion("Character names", open=False, elem_id="names-panel"):
        return NamesUI(
            gr.Textbox(label="One character per line: name: variant, variant", lines=8, max_lines=20,
                       elem_id="names", info="found in the book when it loads; a term naming a character also "
                                             "searches its other names (name_variants)"),
            gr.Button("Use these names", size="sm", elem_id="apply-names"),
        )


def shown_names(ctx, session: Session, book: Book | None, ceiling) -> NameIndex | None:
    """The character names of ``book`` (the open book, as it was when asked) as far as the reader has read
    (``ceiling``, as the chat shows it): found in that part of the book alone, or the reader's own list cut to what
    it names. None without a book, or at a ceiling that does not read as a place in the book."""
    if book is None:
        return None
    try:
        book = part(book, inputs.text(ceiling)).book
    except EliteError:
        return None
    return session.names_in(book, ctx.cache_dir)


def listed(page, ctx, session: Session, ceiling) -> dict:
    """The names box, the X-Ray's choice of character and the example questions at ``ceiling`` (left as they are
    where no names can be shown, or when another book opened while they were found: its own listing follows;
    before a book, the sample book's examples for the model that answers): found once, for all three."""
    book = session.book
    if book is None:  # the sample book's examples, for the model that answers
        return {page.names.box: gr.skip(), page.chat.examples: chat.examples(ctx, None, [])}
    names = shown_names(ctx, session, book, ceiling)
    if names is None or session.book is not book:
        return {page.names.box: gr.skip()}
    picks = [c.name for c in names.characters]
    return {page.names.box: names.as_text(),
            page.story.character: gr.update(choices=picks, value=picks[0] if picks else None),
            page.chat.examples: chat.examples(ctx, book, picks)}


def outputs(page) -> list:
    """What :func:`listed` updates."""
    return [page.names.box, page.story.character, page.chat.examples]


def on_apply_names(page: Page, ctx: Context, text, session: Session):
    """"Use these names": the reader's list of characters, kept for the book."""
    if session.book is None:
        return session, "Load a book first."
    try:
        session.names = NameIndex.from_text(inputs.text(text))
    except EliteError as exc:
        return session, f"**Names not changed:** {md(str(exc))}"
    kept = ("for this visit" if ctx.config.hosted else "for this book"
            if save_names(session.book, session.names, ctx.cache_dir) else
            "for this visit (the cache folder cannot be written)")
    return session, (f"{len(session.names.characters)} characters; a term naming one also searches its other "
                     f"names. Kept {kept}.")


def on_ceiling(page: Page, ctx: Context, ceiling, session: Session) -> dict:
    """The ceiling moved (or a list was applied): the names, the X-Ray's choices and the examples found again."""
    return listed(page, ctx, session, ceiling)


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state = page.names, page.session.state
    applied = ui.apply.click(handler(on_apply_names, page, ctx), [ui.box, state], [state, page.chat.status],
                             concurrency_limit=None)
    # the names are found once when the ceiling moves or a list is applied, not at every key typed into the box
    # nor when another model is loaded (its note changes): the sample book's examples follow the model
    for changed in (page.chat.ceiling.submit, page.chat.ceiling.blur, applied.then, page.chat.model_note.change):
        changed(handler(on_ceiling, page, ctx), [page.chat.ceiling, state], outputs(page), concurrency_limit=None,
                trigger_mode="always_last")
