"""A settings class as page controls, made from its description (:mod:`elite_ui.settings`): a preset dropdown,
then a slider, checkbox or radio for every field the settings panel shows; and the settings read back."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...settings import described, flat, with_overrides
from ..inputs import choice


@dataclass
class Controls:
    cls: type
    presets: dict
    preset: gr.Dropdown
    fields: dict[str, gr.components.Component]

    @property
    def inputs(self) -> set:
        return {self.preset, *self.fields.values()}

    def settings(self, values: dict, cls: type | None = None, presets: dict | None = None):
        """The settings the controls show, as ``cls`` (default: their own class; another class takes the fields
        it shares with them, over its preset of the same name)."""
        cls, presets = cls or self.cls, presets or self.presets
        kinds = {d.name: d.kind for d in described(cls)}
        chosen = {name: kinds[name](values[control]) for name, control in self.fields.items()
                  if name in kinds and values.get(control) is not None}
        return with_overrides(presets.get(values.get(self.preset), presets["laptop"]), **chosen)

    def on_preset(self) -> None:
        """Choosing a preset shows its values."""
        def shown(name):
            preset = self.presets.get(choice(name, self.presets))
            return [flat(preset)[n] if preset else gr.skip() for n in self.fields]

        self.preset.change(shown, self.preset, list(self.fields.values()))


def create_controls(cls: type, presets: dict, preset: str, label: str, info: str, ids: str = "") -> Controls:
    """The preset dropdown and one control per field described with ``panel=True``, set to ``preset``'s values;
    with ``ids``, each has the page id ``{ids}-preset`` or ``{ids}-{field}``."""
    chosen = flat(presets[preset])
    dropdown = gr.Dropdown(sorted(presets), value=preset, label=label, info=info,
                           elem_id=f"{ids}-preset" if ids else None)
    fields = {}
    for d in described(cls):
        if not d.panel:
            continue
        shown = {"value": chosen[d.name], "label": d.name, "info": d.help,
                 "elem_id": f"{ids}-{d.name}" if ids else None}
        if d.kind is bool:
            fields[d.name] = gr.Checkbox(**shown)
        elif d.choices:
            fields[d.name] = gr.Radio(list(d.choices), **shown)
        else:
            fields[d.name] = gr.Slider(d.low, d.high, step=d.extra.get("step", 1), **shown)
    return Controls(cls, presets, dropdown, fields)
