"""Benchmark scripts, run from the repository's root as modules (``python -m benchmarks.engine``); each prints its
figures, and keeps them with :func:`write_figures` in ``benchmarks/results/<date>/``, where the docs' tables are
made from. They may read the corpus and question sets in ``../shared``; the app and the tests never do."""

import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
SHARED_BENCHMARKS = ROOT.parent / "shared" / "benchmarks"


def write_figures(name: str, figures: dict) -> Path:
    """Keep ``figures`` as benchmarks/results/<today>/<name>.json and say where."""
    out = ROOT / "benchmarks" / "results" / time.strftime("%Y-%m-%d") / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=1))
    print(f"written to {out.relative_to(ROOT)}")
    return out
