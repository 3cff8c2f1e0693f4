"""Command line: ``python -m elite_ui.models list`` shows the catalogue and what fits this machine;
``python -m elite_ui.models pull NAME`` downloads a model (then ``python app.py --model NAME`` runs it)."""

from __future__ import annotations

import argparse
import sys

from ..errors import EliteError
from .catalogue import catalogue, entry, this_machine
from .hub import downloaded, pull


def table() -> str:
    """The catalogue as a text table: where each model would run here, whether it is downloaded, the pick."""
    machine = this_machine()
    pick = machine.recommend()
    rows = [("", "name", "tier", "size", "memory", "context", "licence", "runs here", "downloaded")]
    for m in catalogue().values():
        rows.append(("*" if m == pick else "", m.name, m.tier, f"{m.size_mb / 1000:.1f} GB", f"{m.memory_gb:.1f} GB",
                     f"{m.context:,}", m.licence, machine.runs(m) or "does not fit",
                     "yes" if downloaded(m) else "no"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join([f"This machine: {machine.describe()}.", *lines, "* recommended here"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m elite_ui.models", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the catalogue, what fits this machine and what is downloaded")
    pulled = commands.add_parser("pull", help="download a catalogue model into the Hugging Face cache")
    pulled.add_argument("name", help=", ".join(catalogue()))
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print(table())
        else:
            model = entry(args.name)
            path = pull(model)
            print(f"{model.label} is ready: {path}\nRun it with: python app.py --model {model.name}")
    except EliteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
