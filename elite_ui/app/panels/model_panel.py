"""The model panel: which model answers (the embedded one, a GGUF file, an OpenAI-compatible server; the
scripted test model when the app runs with one), loaded for every visitor; locked in hosted mode."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...errors import EliteError
from ...models import BACKENDS, ModelChoice


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
    with gr.Accordion("Model", open=False):
        return ModelUI(
            gr.Radio(kinds, value=ctx.model.configured().kind, label="Model", interactive=not locked),
            gr.Textbox(label="GGUF path", value=cfg.model or "", interactive=not locked),
            gr.Textbox(label="Server URL (OpenAI-compatible)", value=cfg.server or "", interactive=not locked),
            gr.Textbox(label="Model name on the server", value=cfg.model_name or "", interactive=not locked),
            gr.Button("Load model", interactive=not locked),
            gr.Markdown(ctx.model.status, elem_id="model-status"),
        )


def create_event_handlers(page, ctx) -> None:
    ui = page.model

    def on_load_model(kind, path, url, name):
        try:
            return ctx.model.load(ModelChoice(kind, path=path or "", server=url or "", name=name or ""))
        except EliteError as exc:
            return f"**Model not loaded:** {exc} ({ctx.model.status})"

    ui.load.click(on_load_model, [ui.kind, ui.path, ui.url, ui.name], ui.status)
