"""The Story tab: the story so far (all chapters, or the last few for a reader coming back) and a character's X-Ray,
both made from the book cut at the spoiler ceiling the chat shows, so nothing past it can appear."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...book.story import recap, together, xray
from ...errors import Cancelled, EliteError
from ...methods.recap import Recaps
from ...reading import part
from .. import notebook
from ..answering import RUN, apart, handler, one_build
from ..inputs import text
from ..render import esc
from ..render import inert_markdown as md
from ..render.story import recap_html, together_html, written_html, xray_figure, xray_html
from ..state import Session
from . import notebook as notebook_panel

if TYPE_CHECKING:
    from ..page import Context, Page


@dataclass
class StoryUI:
    how: gr.Radio
    last: gr.Number
    recap: gr.Button
    character: gr.Dropdown
    xray: gr.Button
    save: gr.Button
    html: gr.HTML
    figure: gr.Plot
    shared: gr.HTML
    pick: gr.Textbox
    """Where a click on a companion (a name, or its point on the map) writes the two names, and the button it
    presses."""
    go: gr.Button


def invitation(book) -> str:
    """What the Story tab says before it shows anything of ``book`` (or of none yet)."""
    ask = f"Ask for <i>{esc(book.title)}</i>'s story so far" if book else "Load a book, then ask for the story so far"
    return f"<div class='story'>{ask} or a character's X-Ray; both stop at your spoiler ceiling.</div>"


def fresh(page, book) -> dict:
    """The Story tab for a book just opened: nothing of the book before it."""
    return {page.story.html: invitation(book), page.story.figure: gr.update(visible=False), page.story.shared: ""}


def create_ui(ctx) -> StoryUI:
    demo = ctx.model.choice is None or ctx.model.choice.kind in ("embedded", "scripted")
    with gr.Tab("Story", id="story-tab", elem_id="story-tab"):
        how = gr.Radio([("extracts (no model)", "extracts"), ("written by the model", "written")],
                       value="extracts" if demo else "written", label="The story so far as", elem_id="recap-how",
                       info="written by the model: each chapter once per book and model, kept, resumed after a "
                            "Stop; extracts: the chapters' most central sentences, at once")
        with gr.Row():
            last = gr.Number(0, precision=0, minimum=0, maximum=999, label="Only the last chapters (0: all)",
                             elem_id="recap-last", scale=1)
            recap_button = gr.Button("The story so far", elem_id="recap", scale=1)
            character = gr.Dropdown([], label="Character", allow_custom_value=True, elem_id="xray-character",
                                    scale=2, info="from the Character names panel")
            xray_button = gr.Button("X-Ray", elem_id="xray", scale=1)
        save = gr.Button("Save to the notebook", size="sm", elem_id="save-story")
        return StoryUI(how, last, recap_button, character, xray_button, save,
                       gr.HTML(invitation(None), elem_id="story"),
                       gr.Plot(visible=False, elem_id="xray-plot"), gr.HTML(elem_id="xray-shared"),
                       gr.Textbox(elem_id="xray-pick", visible="hidden"),
                       gr.Button("go", elem_id="xray-go", visible="hidden"))


def written(page, ctx, book, until: str, chapters: int | None, session: Session, progress):
    """The model's recaps, chapter by chapter (those written before come from the cache); Stop keeps them."""
    ui, state, chat = page.story, page.session.state, page.chat
    llm = ctx.model.llm
    writer = Recaps(llm, book, ctx.cache_dir, session.cancel, session.share(ctx.model, background=True))
    steps = writer.build(chapters)
    yield {chat.status: "Writing the chapters' recaps (those written before are kept)…",
           chat.stop: gr.Button(interactive=True), ui.figure: gr.Plot(visible=False), ui.shared: ""}
    try:
        while True:
            try:
                done, total = next(steps)
            except StopIteration as finished:
                recaps = finished.value
                break
            progress(done / total, desc=f"Chapter {done} of {total}")
        progress(1.0, desc="Condensing the chapters")
        so_far = writer.so_far(recaps)
    except Cancelled:
        yield {chat.status: "Stopped: the chapters written so far are kept; press again to go on."}
        return
    except EliteError as exc:
        yield {chat.status: f"**No recap:** {md(str(exc))}"}
        return
    if not so_far.lines and not any(r.lines for r in recaps):
        extracts = recap(book, last_chapters=chapters)
        left, copies = sum(r.dropped for r in recaps), sum(r.copied for r in recaps)
        why = (f"of the {left} sentence{'s' * (left != 1)} {md(llm.name)} wrote, "
               + (f"{copies} copied the chapter out instead of recapping it and the rest " if copies else "none ")
               + "cite no sentence of the chapter that supports them" if left
               else f"{md(llm.name)} wrote no sentence of a recap")
        yield {ui.html: recap_html(book, extracts, until),
               chat.status: f"No written recap: {why}. These are the extracts; a larger model writes recaps that "
                            "can be cited."}
        return
    session.story = notebook.story_entry(book, f"The story so far, {until}", f"Written by {llm.name}: "
                                         + " ".join(t for t, _ in so_far.lines),
                                         [sid for r in recaps for _, ids in r.lines for sid in ids])
    yield {state: session, ui.html: written_html(book, recaps, until, llm.name, so_far),
           chat.status: f"The story so far, {until}, written by the model."}


def drawn(ctx, session: Session, ceiling, work=None) -> tuple:
    """``work(book)`` on the book cut at ``ceiling``, as one of the visitor's heavy views: (the book, where it is
    cut, the result, None), or a sentence saying why not in the last place. Without ``work``, only the cut
    book and where it is cut (no heavy view's turn is taken)."""
    try:
        book, until = part(session.book, text(ceiling))
    except EliteError as exc:
        return None, "", None, md(str(exc))
    if work is None:
        return book, until, None, None
    with ctx.visitors.heavy(session) as refused:
        return (book, until, None, refused) if refused else (book, until, work(book), None)


def picked(pick) -> list[str] | None:
    """The two names a click on a companion writes (a JSON list), or None."""
    try:
        names = json.loads(text(pick))
    except ValueError:
        return None
    return [str(name) for name in names] if isinstance(names, list) and len(names) == 2 else None


def on_recap(page: Page, ctx: Context, how, last, ceiling, session: Session, progress=gr.Progress()):
    """The story so far up to the ceiling: each chapter's extracts, or (written) the model's recaps, built once per
    book and model."""
    ui, state, chat = page.story, page.session.state, page.chat
    if session.book is None:
        yield {chat.status: "Load a book first (or try the sample book)."}
        return
    chapters = int(last) if isinstance(last, int | float) and 0 < last < 1000 else None
    book, until, recaps, refused = drawn(ctx, session, ceiling, None if how == "written" else
                                         lambda part: recap(part, last_chapters=chapters))
    if refused:
        yield {chat.status: f"**No recap:** {refused}"}
        return
    if how != "written":
        session.story = notebook.story_entry(book, f"The story so far, {until}", f"Extracts of {len(recaps)} "
                                             "chapters.", [sid for r in recaps for sid in r.sentences])
        yield {state: session, ui.html: recap_html(book, recaps, until), ui.figure: gr.Plot(visible=False),
               ui.shared: "", chat.status: f"The story so far, {until}."}
        return
    if ctx.model.llm is None:
        yield {chat.status: f"No model: {md(ctx.model.status)}"}
        return
    return (yield from one_build(page, ctx, session, written(page, ctx, book, until, chapters, session,
                                                             progress)))


def on_xray(page: Page, ctx: Context, name, ceiling, session: Session):
    """A character's X-Ray up to the ceiling: mentions, first appearance, descriptions, companions and the map."""
    ui, state, chat = page.story, page.session.state, page.chat
    if session.book is None:
        return {chat.status: "Load a book first (or try the sample book)."}
    if not text(name).strip():
        return {chat.status: "Choose a character of the book (the Character names panel lists them)."}
    book, until, found, refused = drawn(ctx, session, ceiling, lambda part: (
        (cast := session.named(part, ctx.cache_dir, text(name))) and xray(part, *cast)))
    if refused or not found:
        return {chat.status: f"**No X-Ray:** {refused}" if refused else
                f"No character named “{md(text(name))}” {until} (the Character names panel lists them)."}
    companions = ", ".join(f"{name} ({count})" for name, count, _ in found.companions[:5]) or "no one"
    session.story = notebook.story_entry(book, f"X-Ray: {found.name}, {until}", f"Named in {found.mentions} "
                                         f"sentences; appears most with {companions}.", found.story)
    return {state: session, ui.html: xray_html(book, found, until), ui.shared: "",
            ui.figure: gr.Plot(xray_figure(found), visible=True),
            chat.status: f"X-Ray of {md(found.name)}, {until}."}


def on_together(page: Page, ctx: Context, pick, ceiling, session: Session):
    """The passages two characters share: the X-Ray's character and a companion (a name or a map point
    clicked writes the pair as JSON)."""
    ui, chat = page.story, page.chat
    pair = picked(pick)
    if pair is None or session.book is None:
        return {chat.status: "Show a character's X-Ray first, then click one of their companions."}
    book, until, shared, refused = drawn(ctx, session, ceiling, lambda part: (
        (cast := session.named(part, ctx.cache_dir, *pair)) and (cast, together(part, *cast))))
    if refused or not shared:
        return {chat.status: f"**No X-Ray:** {refused}" if refused else
                "Show a character's X-Ray first, then click one of their companions."}
    (_, character, other), passages = shared
    return {ui.shared: together_html(book, character.name, other.name, passages, until)}


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state, chat = page.story, page.session.state, page.chat
    shown = [state, ui.html, ui.figure, ui.shared, chat.status]
    ui.recap.click(apart(handler(on_recap, page, ctx)), [ui.how, ui.last, chat.ceiling, state],
                   [*shown, chat.stop], **RUN)
    ui.xray.click(handler(on_xray, page, ctx), [ui.character, chat.ceiling, state], shown, concurrency_limit=None)
    ui.go.click(handler(on_together, page, ctx), [ui.pick, chat.ceiling, state], [ui.shared, chat.status],
                concurrency_limit=None)
    notebook_panel.on_save(page, ctx, ui.save, lambda s: s.story or "Show the story so far or an X-Ray first.")
