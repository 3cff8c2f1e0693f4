"""The strategy: which method answers, and which one answers each question a second time, side by side; both
lists come from the method registry."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...methods.registry import METHODS


@dataclass
class StrategyUI:
    strategy: gr.Radio
    compare: gr.Dropdown


def create_ui(ctx) -> StrategyUI:
    main = [m for m in METHODS.values() if m.main]
    return StrategyUI(
        gr.Radio([(m.label, m.name) for m in main], value="elite", label="Strategy", elem_id="strategy",
                 info="; ".join(f"{m.label}: {m.summary}" for m in main)),
        gr.Dropdown([("none", "none"), *((m.label, m.name) for m in METHODS.values())], value="none",
                    label="Side by side with", elem_id="compare",
                    info="answer each question a second way too, and show both answers with their evidence, cost "
                         "and time"),
    )
