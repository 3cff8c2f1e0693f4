"""The settings panel: ELITE's preset and every setting the panel shows, made from the settings' description.
Plain chunk RAG takes its budget from here too."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...methods.elite import PRESETS, Settings
from .controls import Controls, create_controls


@dataclass
class SettingsUI:
    controls: Controls


def create_ui(ctx) -> SettingsUI:
    with gr.Accordion("Settings", open=False, elem_id="settings-panel"):
        return SettingsUI(create_controls(Settings, PRESETS, ctx.config.preset, "Preset",
                                          "laptop (the default): one pass with the model's terms, what measured "
                                          "best on a small model, 2 model calls; paper: every stage of the "
                                          "paper, with its parameters: 80 to 416 model calls a question, nearly "
                                          "all for importance, 2 to 9 minutes on the embedded demo model "
                                          "(measured, docs/settings.md)", ids="elite"))


def create_event_handlers(page, ctx) -> None:
    page.settings.controls.on_preset()
