"""The method: which one answers, and which one answers each question a second time, side by side; both
lists come from the method registry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...errors import EliteError
from ...methods.registry import METHODS
from ...methods.whole import fits
from ...reading import part
from ..answering import handler
from ..inputs import text
from ..render import inert_markdown as md
from ..state import Session

if TYPE_CHECKING:
    from ..page import Context, Page


@dataclass
class MethodUI:
    method: gr.Radio
    compare: gr.Dropdown


def create_ui(ctx) -> MethodUI:
    main = [m for m in METHODS.values() if m.main]
    return MethodUI(
        gr.Radio([(m.label, m.name) for m in main], value="elite", label="Method", elem_id="method",
                 info="; ".join(f"{m.label}: {m.summary}" for m in main)),
        gr.Dropdown([("none", "none"), *((m.label, m.name) for m in METHODS.values())], value="none",
                    label="Side by side with", elem_id="compare",
                    info="answer each question a second way too, and show both answers with their evidence, cost "
                         "and time"),
    )


def refused_whole(ctx, session, ceiling) -> str | None:
    """Why Whole book cannot answer for the open book up to ``ceiling`` (it does not fit the loaded model's
    context), in one sentence; None when it can, or before a book and a model are loaded."""
    if session.book is None or ctx.model.llm is None:
        return None
    try:
        book, where = part(session.book, text(ceiling))
    except EliteError:
        return None
    if fits(book, ctx.model.llm) is not None:
        return None
    return (f"*{md(session.book.title)}* {where} is about {len(book.text) // 4:,} tokens, more than the model's "
            f"context of {ctx.model.llm.n_ctx:,} holds: Whole book reads a book that fits, so ELITE answers.")


def on_method(page: Page, ctx: Context, chosen, ceiling, session: Session):
    """Whole book chosen for a book that does not fit is said at once (not after Ask), and ELITE kept."""
    refused = refused_whole(ctx, session, ceiling) if chosen == "whole" else None
    return ("elite", refused) if refused else (gr.skip(), gr.skip())


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, state = page.method, page.session.state
    ui.method.select(handler(on_method, page, ctx), [ui.method, page.chat.ceiling, state],
                       [ui.method, page.chat.status], concurrency_limit=None)
