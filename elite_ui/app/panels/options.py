"""Multiple-choice options A-D, optional: given, the answer is the chosen option (ELITE votes for it)."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ..inputs import text


@dataclass
class OptionsUI:
    boxes: dict[str, gr.Textbox]

    def chosen(self, values: dict) -> dict[str, str] | None:
        """The options the reader filled in, by letter (None when there are none)."""
        return {k: text(values[box]) for k, box in self.boxes.items() if text(values[box]).strip()} or None

    def spent(self, session, *shown) -> list:
        """After a question (answered or stopped): the boxes that still hold the options it was asked with,
        emptied; options typed since (or for a question refused while another ran) are kept."""
        asked = session.turns[-1].options if session.turns else {}
        return ["" if asked.get(k) and text(value) == asked[k] else gr.skip()
                for k, value in zip(self.boxes, shown, strict=True)]


def create_ui(ctx) -> OptionsUI:
    with gr.Accordion("Multiple-choice options (optional)", open=False):
        return OptionsUI({letter: gr.Textbox(label=letter, elem_id=f"option-{letter}") for letter in "ABCD"})

