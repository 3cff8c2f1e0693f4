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
