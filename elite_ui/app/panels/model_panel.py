"""The model panel: which model answers (the embedded one, a GGUF file, an OpenAI-compatible server; the
scripted test model when the app runs with one), loaded for every visitor; locked in hosted mode. Above the
conversation, a note says which model answers, honestly when it is the small demo model."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...errors import EliteError
from ...models import BACKENDS, ModelChoice
from ..render import esc
from ..render import inert_markdown as md
from ..state import Model


@dataclass
class ModelUI:
    kind: gr.Radio
    path: gr.Textbox
    url: gr.Textbox
    name: gr.Textbox
    load: gr.Button
    status: gr.Markdown


def create_ui(ctx) -> ModelUI:
    cfg, locked = ctx.config, ctx.config.hosted
    kinds = [(b.label, b.kind) for b in BACKENDS.values() if b.kind != "scripted" or cfg.scripted]
    with gr.Accordion("Model", open=False, elem_id="model-panel"):
        return ModelUI(
            gr.Radio(kinds, value=ctx.model.configured().kind, label="Model", interactive=not locked),
            gr.Textbox(label="GGUF path", value=cfg.model or "", interactive=not locked),
            gr.Textbox(label="Server URL (OpenAI-compatible)", value=cfg.server or "", interactive=not locked),
            gr.Textbox(label="Model name on the server", value=cfg.model_name or "", interactive=not locked),
            gr.Button("Load model", interactive=not locked),
            gr.Markdown(md(ctx.model.status), elem_id="model-status"),
        )


def note(model: Model) -> str:
    """Which model answers; for the embedded 135M model, that it is a fast demo whose answers are often wrong."""
    if model.llm is None:
        return f"<div class='model-note missing'>No model is loaded ({esc(model.status)}).</div>"
    name = f"<b>{esc(model.llm.name)}</b>"
    if model.choice is not None and model.choice.kind == "embedded":
        return (f"<div class='model-note demo'>Answering with {name}, the fast demo model: its answers are often "
                "wrong. Load a larger model in the <a href='#model-panel' class='open-model'>Model panel</a> for "
                "real answers; the quoted passages under <i>What the book says</i> come from the book itself.</div>")
    if model.choice is not None and model.choice.kind == "scripted":
        return f"<div class='model-note demo'>Answering with {name}, a scripted test model.</div>"
    return f"<div class='model-note'>Answering with {name}.</div>"


def create_event_handlers(page, ctx) -> None:
    ui = page.model

    def on_load_model(kind, path, url, name):
        try:
            status = md(ctx.model.load(ModelChoice(kind, path=path or "", server=url or "", name=name or "")))
        except EliteError as exc:
            status = f"**Model not loaded:** {md(str(exc))} ({md(ctx.model.status)})"
        return status, note(ctx.model)

    if not ctx.config.hosted:
        ui.load.click(on_load_model, [ui.kind, ui.path, ui.url, ui.name], [ui.status, page.chat.model_note])
