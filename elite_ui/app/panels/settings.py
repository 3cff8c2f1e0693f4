"""The settings panel: ELITE's preset and every setting the panel shows, made from the settings' description.
Plain chunk RAG takes its budget from here too."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...methods.elite import PRESETS, Settings
from ...reading import preset_for
from .controls import Controls, create_controls

PRESET_HELP = ("follows the model loaded: capable for a model of a billion parameters or more (what measured best "
               "with Qwen2.5 1.5B), laptop for the small demo model (one pass, 2 model calls); paper: every stage of "
               "the paper, with its parameters: 80 to 416 model calls a question, nearly all for importance "
               "(measured, docs/settings.md)")


@dataclass
class SettingsUI:
    controls: Controls


def create_ui(ctx) -> SettingsUI:
    with gr.Accordion("Settings", open=False, elem_id="settings-panel"):
        return SettingsUI(create_controls(Settings, PRESETS, ctx.config.preset or preset_for(ctx.model.llm)[0],
                                          "Preset", PRESET_HELP, ids="elite"))


def create_event_handlers(page, ctx) -> None:
    page.settings.controls.on_preset()
