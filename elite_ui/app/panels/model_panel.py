"""The model panel: which model answers, loaded for every visitor. A catalogue of downloadable models with what
fits this machine (download with progress, then load); the embedded one, a GGUF file, or an OpenAI-compatible
server whose models are listed to choose from (Ollama's and llama-server's addresses one click away); where the
model runs and how fast it was on the last question. The settings preset follows the model. Locked in hosted
mode. Above the conversation, a note says which model answers, honestly when it is the small demo model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import gradio as gr

from ...errors import EliteError
from ...models import BACKENDS, ModelChoice
from ...models.catalogue import catalogue, entry, this_machine
from ...models.hub import downloaded, pull
from ...models.openai import SERVERS, server_models
from ...reading import preset_for
from ..answering import handler
from ..render import esc
from ..render import inert_markdown as md
from ..state import Model

if TYPE_CHECKING:
    from ..page import Context, Page


@dataclass
class ModelUI:
    pick: gr.Dropdown
    download: gr.Button
    kind: gr.Radio
    path: gr.Textbox
    url: gr.Textbox
    servers: list[gr.Button]
    listing: gr.Button
    name: gr.Dropdown
    load: gr.Button
    status: gr.Markdown
    running: gr.Markdown


def choices() -> list[tuple[str, str]]:
    """The catalogue as the dropdown shows it: size, memory, where it would run here, whether it is downloaded."""
    machine, pick = this_machine(), this_machine().recommend()
    return [(f"{m.label} · {m.tier} · {m.size_mb / 1000:.1f} GB file, {m.memory_gb:.0f} GB memory · "
             f"{'runs on the ' + machine.runs(m) if machine.runs(m) else 'too big for this machine'}"
             f"{' · downloaded' if downloaded(m) else ''}{' · recommended' if m == pick else ''}", m.name)
            for m in catalogue().values()]


def create_ui(ctx) -> ModelUI:
    cfg, locked = ctx.config, ctx.config.hosted
    kinds = [(b.label, b.kind) for b in BACKENDS.values() if b.kind != "scripted" or cfg.scripted]
    start, pick = ctx.model.configured(), this_machine().recommend()
    with gr.Accordion("Model", open=False, elem_id="model-panel"):
        gr.Markdown(f"This machine: {md(this_machine().describe())}.", elem_id="machine")
        with gr.Row():
            chosen = gr.Dropdown(choices(), value=pick.name if pick else None, label="Download a model",
                                 info="from the Hugging Face Hub, into its usual cache; licences on each model's "
                                      "page", interactive=not locked, elem_id="catalogue", scale=4)
            download = gr.Button("Download and load", interactive=not locked, elem_id="download", scale=1)
        kind = gr.Radio(kinds, value=start.kind, label="Model", interactive=not locked, elem_id="model-kind")
        path = gr.Textbox(label="GGUF path", value=start.path, interactive=not locked)
        url = gr.Textbox(label="Server URL (OpenAI-compatible)", value=start.server, interactive=not locked,
                         elem_id="server-url")
        with gr.Row():
            servers = [gr.Button(label, size="sm", interactive=not locked) for label in SERVERS]
            listing = gr.Button("List the server's models", size="sm", interactive=not locked, elem_id="list-models")
        name = gr.Dropdown([], value=start.name if start.kind == "server" else None, allow_custom_value=True,
                           label="Model name on the server", interactive=not locked, elem_id="server-model")
        load = gr.Button("Load model", interactive=not locked)
        status = gr.Markdown(md(ctx.model.status), elem_id="model-status")
        running = gr.Markdown(md(ctx.model.running()), elem_id="model-running")
    return ModelUI(chosen, download, kind, path, url, servers, listing, name, load, status, running)


def note(model: Model) -> str:
    """Which model answers, its size, where it runs and the preset it answers with; for the embedded 135M model,
    that it is a fast demo whose answers are often wrong."""
    if model.llm is None:
        return f"<div class='model-note missing'>No model is loaded ({esc(model.status)}).</div>"
    name = f"<b>{esc(model.llm.name)}</b>"
    if model.choice is not None and model.choice.kind == "embedded":
        return (f"<div class='model-note demo'>Answering with {name}, the fast demo model: its answers are often "
                "wrong. Load a larger model in the <a href='#model-panel' class='open-model'>Model panel</a> for "
                "real answers; the quoted passages under <i>What the book says</i> come from the book itself.</div>")
    if model.choice is not None and model.choice.kind == "scripted":
        return f"<div class='model-note demo'>Answering with {name}, a scripted test model.</div>"
    size = model.llm.parameters
    said = (f"{size:.1f}B parameters" if size >= 1 else f"{size * 1000:.0f}M parameters") if size else \
        "its size unknown"
    where = model.llm.placement()
    return (f"<div class='model-note'>Answering with {name} ({said}{', ' + esc(where) if where else ''}), "
            f"with the {preset_for(model.llm)[0]} settings preset; the quoted passages under <i>What the book "
            "says</i> come from the book itself, and each answer cites them.</div>")


def loaded(page: Page, ctx: Context, choice: ModelChoice) -> dict:
    """Load ``choice`` and show it: status, where it runs, the note, the preset that goes with it and why."""
    ui = page.model
    try:
        status = md(ctx.model.load(choice))
    except EliteError as exc:
        return {ui.status: f"**Model not loaded:** {md(str(exc))} ({md(ctx.model.status)})"}
    shown = {ui.status: status, ui.running: md(ctx.model.running()), page.chat.model_note: note(ctx.model),
             ui.pick: gr.Dropdown(choices=choices())}
    chosen, why = preset_for(ctx.model.llm)
    return shown | {page.settings.controls.preset: chosen, ui.status: f"{status}; settings preset: {chosen} "
                                                                      f"({md(why)})"}


def on_load_model(page: Page, ctx: Context, kind, path, url, name):
    """"Load model": the embedded one, a GGUF file, or a server's model."""
    return loaded(page, ctx, ModelChoice(str(kind or ""), path=str(path or ""), server=str(url or ""),
                                         name=str(name or "")))


def on_download(page: Page, ctx: Context, name, progress=gr.Progress(track_tqdm=True)):
    """"Download and load": a catalogue model from the Hugging Face Hub, with progress, then loaded."""
    try:
        model = entry(str(name or ""))
        progress(0, desc=f"Downloading {model.label}")
        pull(model)
    except EliteError as exc:
        return {page.model.status: f"**Not downloaded:** {md(str(exc))}"}
    return loaded(page, ctx, ModelChoice("catalogue", name=model.name))


def on_list(page: Page, ctx: Context, url):
    """"List the server's models": what the server at ``url`` offers."""
    ui = page.model
    try:
        found = server_models(str(url or ""))
    except EliteError as exc:
        return {ui.status: f"**No model list:** {md(str(exc))}"}
    return {ui.name: gr.Dropdown(choices=found, value=found[0] if found else None), ui.kind: "server",
            ui.status: f"The server offers {len(found)} model{'s' * (len(found) != 1)}."}


def create_event_handlers(page: Page, ctx: Context) -> None:
    ui, preset = page.model, page.settings.controls.preset
    if ctx.config.hosted:
        return
    shown = [ui.status, ui.running, page.chat.model_note, ui.pick, preset]
    ui.load.click(handler(on_load_model, page, ctx), [ui.kind, ui.path, ui.url, ui.name], shown)
    ui.download.click(handler(on_download, page, ctx), ui.pick, shown)
    ui.listing.click(handler(on_list, page, ctx), ui.url, [ui.name, ui.kind, ui.status])
    for button, address in zip(ui.servers, SERVERS.values(), strict=True):
        button.click(lambda address=address: (address, "server"), None, [ui.url, ui.kind])
