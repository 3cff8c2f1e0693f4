"""ELITE stage by stage, measured: ``python -m benchmarks.ablation [--sets nd,ft,nv] [--rows NAME,...]``.

Each row adds one stage to the one before (the lexical core alone makes no model call), on the same questions and
seed, retrieval only at a budget of 1,000 tokens, on the embedded model; BM25 over 100-word chunks (question and
options as the query) and the paper preset are measured beside them. Per row: evidence recall, the share of
questions whose quoted sentences hold gold evidence (hit@3), model calls, prompt tokens evaluated (not reused
from the KV cache) and the median seconds per question. Every run is the benchmark harness's (``python -m
elite_ui.bench run``), kept in ``--out`` so that an interrupted ablation resumes; the summaries are written to
``benchmarks/results/<date>/ablation.json``, where docs/benchmark.md's table is made from.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from benchmarks import SHARED_BENCHMARKS, write_figures
from elite_ui.bench.cli import parser as bench_parser
from elite_ui.bench.harness import run

SETS = {
    "nd": (SHARED_BENCHMARKS / "novels-dev" / "novels-dev.jsonl", 0),
    "ft": (Path("data/fairytale/dataset.jsonl"), 150),
    "nv": (Path("tests/data/novels.jsonl"), 0),
}
"""Question sets: our novels-dev, a seeded sample of FairytaleQA's test split (converted first with ``python -m
elite_ui.bench convert fairytaleqa ../shared/benchmarks/fairytaleqa --out data/fairytale``), and the eight novel
questions of tests/data. Each with how many questions to take (0: all)."""

CORE = ["model_terms=false", "judge=false", "importance_samples=0", "trim=false", "option_words=true",
        "recall_index=100", "neighbor_num=2", "ranking=bm25", "reach=3"]
ROWS = {
    "bm25 chunks": ("bm25", "laptop", []),
    "paper preset": ("elite", "paper", []),
    "lexical core": ("elite", "laptop", CORE),
    "+ model terms": ("elite", "laptop", [*CORE, "model_terms=true"]),
    "+ judge and further iterations": ("elite", "laptop", [*CORE, "model_terms=true", "judge=true", "iter_max=2",
                                                         "next_terms=judge"]),
    "+ breadth/depth": ("elite", "laptop", [*CORE, "model_terms=true", "judge=true", "iter_max=2",
                                             "next_terms=explore"]),
    "+ importance": ("elite", "laptop", [*CORE, "model_terms=true", "judge=true", "iter_max=2",
                                          "next_terms=explore", "importance_samples=1", "importance_chunks=3"]),
    "+ trimming": ("elite", "laptop", [*CORE, "model_terms=true", "judge=true", "iter_max=2", "next_terms=explore",
                                        "importance_samples=1", "importance_chunks=3", "trim=true"]),
    "default preset": ("elite", "laptop", []),
}
"""Each row: strategy, preset and the settings it overrides. The stages are added in the order the issue asked."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--rows", default=",".join(ROWS), help="row names, comma-separated")
    parser.add_argument("--out", default="runs/ablation", help="where the runs are kept (and resumed from)")
    args = parser.parse_args()
    figures = {}
    for key in args.sets.split(","):
        dataset, limit = SETS[key]
        for name in args.rows.split(","):
            strategy, preset, overrides = ROWS[name]
            folder = Path(args.out) / key / re.sub(r"[^a-z0-9]+", "-", name).strip("-")
            argv = ["run", str(dataset), "--strategy", strategy, "--preset", preset, "--retrieval-only",
                    "--out", str(folder), *(["--limit", str(limit), "--shuffle", "--seed", "0"] if limit else [])]
            for item in overrides:
                argv += ["--set", item]
            summary = json.loads((run(bench_parser().parse_args(argv)) / "summary.json").read_text())
            figures.setdefault(key, {})[name] = {k: summary[k] for k in (
                "questions", "evidence_recall", "quote_hit", "llm_calls", "evaluated_tokens", "seconds_median",
                "context_tokens")} | {"settings": overrides, "preset": preset, "strategy": strategy}
            row = figures[key][name]
            print(f"{key} {name:30s} recall {row['evidence_recall']} hit@3 {row['quote_hit']} calls {row['llm_calls']} "
                  f"evaluated {row['evaluated_tokens']} median {row['seconds_median']} s", flush=True)
    write_figures("ablation", figures)


if __name__ == "__main__":
    main()
