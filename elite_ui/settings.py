"""Settings described once. Each field of a settings class carries its help, its range and whether the app's
settings panel shows it (dataclass field metadata, through :func:`setting`); the page's controls, the command
line's flags, the benchmark's ``--set NAME=VALUE`` and the docs' tables are all made from that description.

A settings class may hold typed groups of settings (as paper-qa's sub-settings: a field whose default factory is a
dataclass of settings, its docstring one sentence of help), each passed whole to the stage it tunes. A grouped
setting keeps its own name everywhere a reader or a trace sees it (its flag, its control, the trace's recorded
settings), so settings are read and changed by that flat name (:func:`flat`, :func:`made`, :func:`with_overrides`).
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, replace
from typing import Any

from .errors import EliteError

TRUE, FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


class SettingsError(EliteError):
    """A setting was given a value it cannot take."""


def setting(default: Any, help_text: str, *, low: float | None = None, high: float | None = None,
            choices: tuple[str, ...] | None = None, panel: bool = False, kind: type | None = None,
            **extra: Any) -> Any:
    """A settings field: its default, one line of help, the range (``low``..``high``) or ``choices`` a value
    must keep to, and whether the app's settings panel shows it. ``kind`` is the value's type when the default
    (None) does not tell; ``extra`` keeps anything else a generator needs (an environment variable's name...)."""
    return dataclasses.field(default=default, metadata={
        "help": help_text, "low": low, "high": high, "choices": choices, "panel": panel,
        "kind": kind or type(default), **extra})


@dataclass(frozen=True)
class Checked:
    """A settings class or group whose fields with choices are checked when it is made (a group checks its own)."""

    def __post_init__(self):
        for d in described(type(self)):
            if d.choices and not d.group:
                d.check(getattr(self, d.name))


@dataclass(frozen=True)
class Described:
    """One field as :func:`setting` described it."""

    name: str
    default: Any
    help: str
    kind: type
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None
    panel: bool = False
    extra: dict = dataclasses.field(default_factory=dict)
    group: str = ""
    """The group field that holds this setting ("" for one of the class's own)."""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def metavar(self) -> str:
        if self.choices:
            return "{" + ",".join(self.choices) + "}"
        return {int: "N", float: "X"}.get(self.kind, self.name.upper())

    def parse(self, text: str) -> Any:
        """``text`` read as this setting's value, or a :class:`SettingsError` in one sentence."""
        text = str(text).strip()
        if self.kind is bool:
            if text.lower() not in TRUE | FALSE:
                raise SettingsError(f"{self.name} is yes or no, not {text!r}.")
            return text.lower() in TRUE
        try:
            value = self.kind(text)
        except ValueError:
            noun = {int: "a whole number", float: "a number"}.get(self.kind, "a value")
            raise SettingsError(f"{self.name} takes {noun}, not {text!r}.") from None
        return self.check(value)

    def check(self, value: Any) -> Any:
        """``value`` if it is within this setting's range or choices, else a :class:`SettingsError`."""
        if self.choices and value not in self.choices:
            raise SettingsError(f"{self.name} must be one of {', '.join(self.choices)}, not {value!r}.")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise SettingsError(f"{self.name} goes from {self.low:g} to {self.high:g}; {value!r} is out of range.")
        return value


def described(cls: type, within: str = "") -> list[Described]:
    """The settings of a class as described, in order: its own and its groups' (each group's in place, marked with
    the group's name), then those it extends (the answer step's)."""
    inherited = {f.name for base in cls.__mro__[1:] if dataclasses.is_dataclass(base) for f in dataclasses.fields(base)}
    out = []
    for f in sorted(dataclasses.fields(cls), key=lambda f: f.name in inherited):
        if f.name in grouped(cls):
            out += described(f.default_factory, f.name)
            continue
        meta = dict(f.metadata)
        known = {k: meta.pop(k) for k in ("help", "low", "high", "choices", "panel", "kind") if k in meta}
        out.append(Described(f.name, f.default, known.get("help", ""), known.get("kind") or type(f.default),
                             known.get("low"), known.get("high"), known.get("choices"), known.get("panel", False),
                             meta, within))
    return out


def grouped(cls: type) -> dict[str, type]:
    """The groups of a settings class: each group field's name and its class."""
    return {f.name: f.default_factory for f in dataclasses.fields(cls) if dataclasses.is_dataclass(f.default_factory)}


def flat(settings) -> dict[str, Any]:
    """Every setting of ``settings`` by its own name, the groups' included (what a trace records)."""
    return {d.name: getattr(getattr(settings, d.group) if d.group else settings, d.name)
            for d in described(type(settings))}


def changed(settings, values: dict[str, Any]):
    """``settings`` with ``values`` (by each setting's own name) set, in its groups too."""
    where = {d.name: d.group for d in described(type(settings))}
    unknown = sorted(set(values) - set(where))
    if unknown:
        raise TypeError(f"{type(settings).__name__} has no setting {', '.join(unknown)}")
    own = {k: v for k, v in values.items() if not where[k]}
    inner = {g: replace(getattr(settings, g), **{k: v for k, v in values.items() if where[k] == g})
             for g in {where[k] for k in values} - {""}}
    return replace(settings, **own, **inner)


def made(cls: type, **values: Any):
    """A ``cls`` of its defaults with ``values`` (by each setting's own name, grouped or not) set."""
    return changed(cls(), values)


def recorded(cls: type, values: dict):
    """The settings a trace recorded (its ``start`` event's), the fields ``cls`` does not know left out."""
    known = {d.name for d in described(cls)}
    return changed(cls(), {k: v for k, v in values.items() if k in known})


def with_overrides(settings, **overrides):
    """``settings`` with the non-None ``overrides`` applied."""
    return changed(settings, {k: v for k, v in overrides.items() if v is not None})


def overridden(settings, items: list[str]):
    """``settings`` with ``NAME=VALUE`` overrides (the benchmark's ``--set``), each read as its field's type."""
    changes = {}
    for item in items:
        name, sep, value = item.partition("=")
        known = {d.name: d for d in described(type(settings))}
        if not sep or not value.strip() or name.strip() not in known:
            raise SettingsError(f"--set {item}: expected NAME=VALUE with NAME one of the settings "
                                f"({', '.join(known)}).")
        changes[name.strip()] = known[name.strip()].parse(value)
    return with_overrides(settings, **changes)


def add_flags(parser: argparse.ArgumentParser, groups: dict[str, type]) -> None:
    """One flag per setting of the classes in ``groups`` (by the name of what they set, such as "elite"); a
    setting shared by several classes gets one flag, in the first group, whose help names the others."""
    owners: dict[str, list[str]] = {}
    for title, cls in groups.items():
        for d in described(cls):
            owners.setdefault(d.name, []).append(title)
    seen: set[str] = set()
    for title, cls in groups.items():
        group = parser.add_argument_group(f"{title} settings")
        for d in described(cls):
            if d.name in seen:
                continue
            seen.add(d.name)
            also = f" (also {', '.join(owners[d.name][1:])})" if len(owners[d.name]) > 1 else ""
            if d.kind is bool:
                group.add_argument(d.flag, action=argparse.BooleanOptionalAction, default=None,
                                   help=f"{d.help}{also}")
            else:
                group.add_argument(d.flag, type=as_flag(d), default=None, metavar=d.metavar, help=f"{d.help}{also}")


def as_flag(d: Described):
    """``d.parse`` as argparse wants a flag's type: errors as ``ArgumentTypeError`` (one line, exit code 2)."""
    def parse(text: str):
        try:
            return d.parse(text)
        except SettingsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = d.name
    return parse


def from_flags(settings, args: argparse.Namespace):
    """``settings`` with every flag :func:`add_flags` made that was given and that this class has."""
    names = {d.name for d in described(type(settings))}
    return with_overrides(settings, **{k: v for k, v in vars(args).items() if k in names})


def given_elsewhere(cls: type, args: argparse.Namespace, groups: dict[str, type]) -> list[str]:
    """Flags given on the command line that belong to other classes of ``groups`` and not to ``cls``."""
    mine = {d.name for d in described(cls)}
    theirs = {d.name for c in groups.values() for d in described(c)} - mine
    return [f"--{k.replace('_', '-')}" for k, v in vars(args).items() if k in theirs and v is not None]


def table(presets: dict[str, Any]) -> str:
    """A Markdown table of the settings of one class: each preset's value and the help."""
    names = list(presets)
    cls = type(next(iter(presets.values())))
    rows = ["| setting | " + " | ".join(names) + " | what it does |", "| --- |" + " --- |" * (len(names) + 1)]
    values, heads, last = {n: flat(p) for n, p in presets.items()}, grouped(cls), None
    for d in described(cls):
        if d.group != last and d.group:
            rows.append(f"| **{d.group}** |" + " |" * len(names) + f" {heads[d.group].__doc__} |")
        last = d.group
        rows.append(f"| `{d.name}` | " + " | ".join(shown(values[n][d.name]) for n in names) + f" | {d.help} |")
    return "\n".join(rows)


def shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
