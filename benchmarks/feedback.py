"""Pseudo-relevance feedback (RM3), a MiniLM reranker and term proximity in ELITE, with confidence intervals:
``python -m benchmarks.feedback [--sets nd,ft150]``.

The default preset, the same with ``feedback_terms`` words of RM3 searched in a second pass (no model call), and
the same with its collected sentences reranked by MiniLM (``rerank``) or placed with term proximity counting
(``proximity``), beside BM25 over 100-word chunks, on the
ablation's question sets (retrieval only, budget 1,000 tokens, the embedded model writing the terms; runs kept in
``runs/ablation`` and resumed). Each row's evidence recall comes with a 95% bootstrap interval over questions, and
its difference from BM25 with a paired one. novels-dev has 60 questions: a first look, not a verdict (issue 27
asks for a larger set).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import write_figures
from benchmarks.ablation import ROWS, Row, run_row
from elite_ui.bench.scoring import bootstrap_interval

FEEDBACK = {"default preset + RM3 feedback (8 words)": Row("elite", "laptop", ["feedback_terms=8"]),
            "default preset + RM3 feedback (4 words)": Row("elite", "laptop", ["feedback_terms=4"]),
            "default preset + MiniLM rerank": Row("elite", "laptop", ["rerank=true"]),
            "default preset + term proximity": Row("elite", "laptop", ["proximity=1.0"])}
COMPARED = ["bm25 chunks", "default preset", *FEEDBACK]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="nd,ft150")
    parser.add_argument("--out", default="runs/ablation")
    args = parser.parse_args()
    ROWS.update(FEEDBACK)
    figures = {}
    for key in args.sets.split(","):
        results = {name: {r["id"]: r for r in run_row(key, name, Path(args.out))} for name in COMPARED}
        ids = sorted(set.intersection(*(set(found) for found in results.values())))
        base = [results["bm25 chunks"][i]["evidence_recall"] for i in ids]
        figures[key] = {}
        for name in COMPARED:
            recall = [results[name][i]["evidence_recall"] for i in ids]
            row = {"questions": len(ids), "evidence_recall": round(sum(recall) / len(ids), 3),
                   "interval": bootstrap_interval(recall),
                   "llm_calls": round(sum(results[name][i]["llm_calls"] for i in ids) / len(ids), 2)}
            if name != "bm25 chunks":
                row["minus_bm25"] = round(row["evidence_recall"] - sum(base) / len(ids), 3)
                row["minus_bm25_interval"] = bootstrap_interval(recall, base)
            figures[key][name] = row
            versus = (f" vs bm25 {row['minus_bm25']:+.3f} {row['minus_bm25_interval']}" if "minus_bm25" in row
                      else "")
            print(f"{key} {name:42s} recall {row['evidence_recall']} {row['interval']}{versus} calls "
                  f"{row['llm_calls']} ({len(ids)} questions)", flush=True)
    write_figures("feedback", figures)


if __name__ == "__main__":
    main()
