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
from typing import NamedTuple

from benchmarks import SHARED_BENCHMARKS, write_figures
from elite_ui.bench.cli import parser as bench_parser
from elite_ui.bench.harness import run, summarise


class QuestionSet(NamedTuple):
    """A question set of the ablation: its file, how many questions of the seeded order it takes (0: all) after
    leaving out the first ``skip``, and the rows it is measured with (None: all)."""

    path: Path
    limit: int
    rows: tuple[str, ...] | None
    skip: int = 0


FAIRYTALE = Path("data/fairytale/dataset.jsonl")
CHEAP = ("bm25 chunks", "lexical core", "lexical core + chunk fusion", "lexical core with 3-sentence windows + chunk "
         "fusion", "previous default preset (windows only)", "default preset")
SETS = {
    "nd": QuestionSet(SHARED_BENCHMARKS / "novels-dev" / "novels-dev.jsonl", 0, None),
    "ft": QuestionSet(FAIRYTALE, 40, None),
    "nv": QuestionSet(Path("tests/data/novels.jsonl"), 0, (*CHEAP, "+ model terms", "+ judge and further iterations",
                                                           "default preset with its answer")),
    "ft150": QuestionSet(FAIRYTALE, 150, CHEAP),
    "fth": QuestionSet(FAIRYTALE, 300, CHEAP, skip=150),
    "nn": QuestionSet(Path("benchmarks/novels/novels-300.jsonl"), 0, CHEAP),
}
"""Question sets: our novels-dev, a seeded sample of FairytaleQA's test split (converted first with ``python -m
elite_ui.bench convert fairytaleqa ../shared/benchmarks/fairytaleqa --out data/fairytale``), and the eight novel
questions of tests/data (the rows up to the judge and the cheap rows: the long novels make the longer loops
the most expensive). ``ft150``, 150 FairytaleQA questions, compares the cheap rows on more questions than the
whole ablation can afford; ``fth``, the next 300 of the same order, is held out: no setting was chosen on it.
``nn`` is novels-300 (benchmarks/novels: 307 questions with exact evidence on eleven corpus novels), with the cheap
rows."""

SEED = 0
"""The seed of every set's random order."""

CORE = ["model_terms=false", "judge=false", "importance_samples=0", "trim=false", "option_words=true",
        "recall_index=100", "neighbor_num=2", "ranking=bm25", "reach=3", "fuse_chunks=0"]
LOOP = [*CORE, "model_terms=true", "judge=true", "iter_max=2"]


class Row(NamedTuple):
    """One row of the ablation (see ROWS)."""

    method: str
    preset: str
    settings: list[str]
    at_most: int = 0
    answered: bool = False


FEW, PAPER = 12, 4
"""How many questions of a set the rows of 4-6 calls take (the same seeded ones for each), and the paper preset
(importance on every chunk, 3-5 minutes a question here)."""
ROWS = {
    "bm25 chunks": Row("bm25", "laptop", []),
    "lexical core": Row("elite", "laptop", CORE),
    "+ model terms": Row("elite", "laptop", [*CORE, "model_terms=true"]),
    "+ judge and further iterations": Row("elite", "laptop", [*LOOP, "next_terms=judge"]),
    "+ breadth/depth": Row("elite", "laptop", [*LOOP, "next_terms=explore"], FEW),
    "+ importance": Row("elite", "laptop", [*LOOP, "next_terms=explore", "importance_samples=1",
                                            "importance_chunks=3"], FEW),
    "+ trimming": Row("elite", "laptop", [*LOOP, "next_terms=explore", "importance_samples=1", "importance_chunks=3",
                                          "trim=true"], FEW),
    "paper preset": Row("elite", "paper", [], PAPER),
    "lexical core + chunk fusion": Row("elite", "laptop", [*CORE, "fuse_chunks=100"]),
    "lexical core with 3-sentence windows + chunk fusion": Row("elite", "laptop", [*CORE, "fuse_chunks=100",
                                                                              "neighbor_num=1"]),
    "previous default preset (windows only)": Row("elite", "laptop", ["fuse_chunks=0", "neighbor_num=2"]),
    "default preset": Row("elite", "laptop", []),
    "default preset with its answer": Row("elite", "laptop", [], answered=True),
}
"""Each row: method, preset, the settings it overrides, at most how many of the set's questions it takes (0: all)
and whether the method also answers (its own answer step: the cost a reader waits for). The rows whose loop costs
4-6 calls a question take the first ``FEW`` of the seeded order, the paper preset fewer, and every row but the paper
preset is also summarised on those same questions. The stages are added in the order the issue asked."""


def run_row(key: str, name: str, out: Path) -> list[dict]:
    """One row on one set (resumed from its run folder): its results, one per question, in the seeded order."""
    dataset, limit, _, skip = SETS[key]
    row = ROWS[name]
    limit = min(limit or row.at_most, row.at_most or limit)
    folder = out / key / re.sub(r"[^a-z0-9]+", "-", name).strip("-")
    argv = ["run", str(dataset), "--method", row.method, "--preset", row.preset, "--out", str(folder),
            "--own-answer" if row.answered else "--retrieval-only", "--shuffle", "--seed", str(SEED),
            *(["--limit", str(limit)] if limit else []), "--skip", str(skip)]
    for item in row.settings:
        argv += ["--set", item]
    results = run(bench_parser().parse_args(argv)) / "results.jsonl"
    return [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]


def row_figures(name: str, results: list[dict]) -> dict:
    """The figures the table shows, with the row's settings."""
    row = ROWS[name]
    summary = summarise(results)
    return {k: summary[k] for k in ("questions", "evidence_recall", "quote_hit", "llm_calls", "evaluated_tokens",
                                    "seconds_median", "context_tokens", "accuracy")} | {
        "settings": row.settings, "preset": row.preset, "method": row.method}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--rows", default=",".join(ROWS), help="row names, comma-separated")
    parser.add_argument("--out", default="runs/ablation", help="where the runs are kept (and resumed from)")
    args = parser.parse_args()
    figures = {}
    for key in args.sets.split(","):
        names = [n for n in args.rows.split(",") if SETS[key].rows is None or n in SETS[key].rows]
        results = {name: run_row(key, name, Path(args.out)) for name in names}
        figures[key] = {name: row_figures(name, found) for name, found in results.items()}
        compared = {name: found for name, found in results.items() if name != "paper preset"}
        fewest = min(compared.values(), key=len)
        if any(len(found) > len(fewest) for found in compared.values()):
            same = {r["id"] for r in fewest}
            figures[f"{key}-same"] = {name: row_figures(name, [r for r in found if r["id"] in same])
                                      for name, found in compared.items()}
        for name, row in figures[key].items():
            print(f"{key} {name:30s} recall {row['evidence_recall']} hit@3 {row['quote_hit']} calls {row['llm_calls']} "
                  f"evaluated {row['evaluated_tokens']} median {row['seconds_median']} s "
                  f"({row['questions']} questions)", flush=True)
    write_figures("ablation", figures)


if __name__ == "__main__":
    main()
