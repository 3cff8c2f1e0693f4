"""The layering: the engines, the book model, the models, the benchmark and the CLI never import Gradio; the trace
is their one contract with the page."""

import subprocess
import sys

from elite_ui.testing.browser import ROOT


def test_nothing_below_the_app_imports_gradio():
    probe = ("import sys, elite_ui.book, elite_ui.models, elite_ui.methods.registry, elite_ui.bench.harness, "
             "elite_ui.ask; print(sorted(m for m in sys.modules if m.split('.')[0] in ('gradio', 'plotly')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"


def test_every_kind_of_event_has_one_payload_type_and_no_method_adds_one():
    """The trace says by itself which payload each kind carries (``Event.data`` is one of them); no method's module
    adds to it when imported."""
    from elite_ui.methods.trace import PAYLOADS, Kind, Payload

    assert set(Kind) == set(PAYLOADS) and set(PAYLOADS.values()) == set(Payload.__args__)
    added = [str(p) for p in (ROOT / "elite_ui").rglob("*.py") if "PAYLOADS[" in p.read_text(encoding="utf-8")]
    assert added == []
