"""Benchmark scripts; each prints its figures, and some keep them with :func:`write_figures`."""

import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_figures(name: str, figures: dict) -> Path:
    """Keep ``figures`` as benchmarks/results/<today>/<name>.json and say where."""
    out = ROOT / "benchmarks" / "results" / time.strftime("%Y-%m-%d") / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=1))
    print(f"written to {out.relative_to(ROOT)}")
    return out
