"""The Side by side tab: the same question answered by two methods, in two columns."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr


@dataclass
class SideUI:
    html: gr.HTML


def create_ui(ctx) -> SideUI:
    with gr.Tab("Side by side", id="side-tab", elem_id="side-tab"):
        return SideUI(gr.HTML("<div class='side-by-side'>Choose a method under \"Side by side with\", then ask."
                              "</div>", elem_id="side-by-side"))

