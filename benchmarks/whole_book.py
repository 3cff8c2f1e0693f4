"""Whole-book mode against ELITE and BM25 chunks, with the same generator: ``python -m benchmarks.whole_book``.

FairytaleQA's stories fit the embedded model's context (here 8,192 tokens), so whole-book mode can read each
story whole. On the same seeded sample of the test split, each method answers with its own answer step (the
default preset): accuracy (FairytaleQA's free-form answers scored by the harness: correct when the token F1 to a
reference reaches ``F1_CORRECT``), F1, model calls, context and prompt tokens evaluated (not reused from the KV
cache), and the median seconds per question. The runs are kept in ``--out`` (resumed when interrupted).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks import write_figures
from elite_ui.bench.cli import parser as bench_parser
from elite_ui.bench.harness import run, summarise

DATASET = Path("data/fairytale/dataset.jsonl")
"""FairytaleQA's test split, converted (``python -m elite_ui.bench convert fairytaleqa ...``)."""
METHODS = ("whole", "elite", "bm25")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--out", default="runs/whole_book")
    args = parser.parse_args()
    figures = {}
    for method in METHODS:
        argv = ["run", str(DATASET), "--method", method, "--own-answer", "--shuffle", "--seed", "0",
                "--limit", str(args.questions), "--n-ctx", "8192", "--out", str(Path(args.out) / method)]
        results = run(bench_parser().parse_args(argv)) / "results.jsonl"
        rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]
        summary = summarise(rows)
        figures[method] = {k: summary.get(k) for k in ("questions", "accuracy", "f1", "llm_calls",
                                                         "evaluated_tokens", "seconds_median")} | {
            "answered": sum(not r.get("error") for r in rows),
            "read_before": sum(not r.get("error") and r["evaluated_tokens"] < 1000 for r in rows)}
        print(method, figures[method], flush=True)
    write_figures("whole_book", figures)


if __name__ == "__main__":
    main()
