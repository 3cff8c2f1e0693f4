"""One self-contained HTML page comparing benchmark runs: a summary table and plotly charts (plotly.js inline)."""

from __future__ import annotations

import html
import json
from collections import defaultdict
from pathlib import Path

import plotly.graph_objects as go

PHASES = ("prepare", "retrieval", "generation")


def load(run: Path) -> tuple[str, dict, list[dict]]:
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return run.name, summary, rows


def quality_figure(runs) -> go.Figure:
    fig = go.Figure()
    labels = [label for label, _, _ in runs]
    fig.add_bar(name="accuracy", x=labels, y=[s["accuracy"] for _, s, _ in runs])
    fig.add_bar(name="evidence recall", x=labels, y=[s["evidence_recall"] for _, s, _ in runs])
    fig.update_layout(title="Accuracy and evidence recall", barmode="group", yaxis_range=[0, 1], height=380)
    return fig


def time_figure(runs) -> go.Figure:
    """Seconds per phase against book length (characters), one line per method and phase (paper Table 3)."""
    fig = go.Figure()
    for label, _, rows in runs:
        per_book = defaultdict(list)
        for r in rows:
            per_book[r["book_bytes"]].append(r)
        sizes = sorted(per_book)
        for phase in PHASES:
            key = "book_prepare_seconds" if phase == "prepare" else f"{phase}_seconds"
            ys = [sum(r[key] for r in per_book[b]) / len(per_book[b]) for b in sizes]
            fig.add_scatter(x=sizes, y=ys, mode="lines+markers", name=f"{label}: {phase}")
    fig.update_layout(title="Seconds per phase against book size", xaxis_title="book size (bytes)", xaxis_type="log",
                      yaxis_title="seconds (mean per question; preparation once per book)", height=420)
    return fig


def storage_figure(runs) -> go.Figure:
    fig = go.Figure()
    fig.add_bar(x=[label for label, _, _ in runs], y=[s["expansion_ratio"] for _, s, _ in runs],
                text=[f"{s['storage_bytes'] / 1e6:.2f} MB" for _, s, _ in runs])
    fig.update_layout(title="Storage expansion: (book + persisted bytes) / book bytes (paper Table 4)", height=360)
    return fig


def table(runs) -> str:
    columns = ["questions", "accuracy", "f1", "evidence_recall", "context_tokens", "llm_calls",
               "prepare_seconds_per_book", "retrieval_seconds", "generation_seconds", "storage_bytes",
               "expansion_ratio"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ["run", *columns])
    body = "".join("<tr><td>" + html.escape(label) + "</td>" + "".join(
        f"<td>{'' if s.get(c) is None else html.escape(str(s.get(c)))}</td>" for c in columns) + "</tr>"
        for label, s, _ in runs)
    return f"<table><tr>{head}</tr>{body}</table>"


def write_report(run_dirs: list[Path], out: Path) -> Path:
    runs = [load(d) for d in run_dirs]
    figures = [quality_figure(runs), time_figure(runs), storage_figure(runs)]
    charts = [fig.to_html(full_html=False, include_plotlyjs="inline" if i == 0 else False, div_id=f"chart-{i}")
              for i, fig in enumerate(figures)]
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>ELITE Reader benchmark</title>"
            "<style>body{font-family:sans-serif;margin:24px} table{border-collapse:collapse;font-size:13px}"
            "td,th{border:1px solid #ccc;padding:3px 6px}</style></head><body>"
            "<h1>ELITE Reader benchmark</h1>" + table(runs) + "".join(charts) + "</body></html>")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out
