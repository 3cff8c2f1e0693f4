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
    with gr.Accordion("Settings", open=False):
        return SettingsUI(create_controls(Settings, PRESETS, ctx.config.preset, "Preset",
                                          "paper: the paper's settings; laptop: about half a minute on a CPU"))


def create_event_handlers(page, ctx) -> None:
    page.settings.controls.on_preset()
