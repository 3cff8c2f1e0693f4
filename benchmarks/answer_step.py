"""The answer step alone, tried several ways on the evidence a row placed: ``python -m benchmarks.answer_step --set
SET --from DIR [--fold tune|held] --variants "" "quote_first=true" ...``.

Each question is answered again on the evidence the row in ``DIR`` (a :mod:`benchmarks.answers` folder) placed for
it, by the engine's own answer step (:meth:`~elite_ui.methods.base.Engine.answer_from`) under its ceiling, once per
variant (settings changed on the default preset, written out; ``""`` is the default itself), the grounding check
off; its answer is then checked as the engine checks it (:func:`~elite_ui.methods.grounding.grounded`; a
multiple-choice question gets one vote, unchecked). The search is not run again, so a variant costs one model call a
question and its figures differ from the default's only by the answer step. Per variant: the share answered right
before and after the check, each paired against the first variant with a 95% bootstrap interval, the share of right
answers the check keeps whole and of wrong ones it catches (issue 40's goal: 0.9 each). Answers are kept in
``runs/answer_step/<set>/<variant>/results.jsonl`` (a run resumes); figures in
``benchmarks/results/<date>/answer-step-<set>[-<fold>].json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks import write_figures
from benchmarks.answers import SETS, mean, measuring_llm, paired
from elite_ui.bench import datasets
from elite_ui.bench.scoring import bootstrap_interval, judged
from elite_ui.book import load_book
from elite_ui.book.names import names_for
from elite_ui.methods.base import checked_answer, not_said
from elite_ui.methods.elite import Elite
from elite_ui.methods.grounding import grounded
from elite_ui.models import MiniLMEmbedder
from elite_ui.models.base import finished
from elite_ui.reading import part, preset, preset_for
from elite_ui.settings import overridden


def answered_again(llm, embed, read, question: datasets.Question, evidence: list[int], variant: str) -> dict:
    """``question`` answered on ``evidence`` by the default's answer step with ``variant``'s settings, the check
    off, then checked: both texts, each judged."""
    settings = overridden(preset("elite", preset_for(llm)[0]), [*variant.split(), "grounding=false"])
    names = names_for(read, None)
    engine = Elite(llm, settings, embed=embed, names=names)
    engine.reading = read
    started = time.perf_counter()
    answer = finished(engine.answer_from(read, question.question, question.options,
                                         engine.listing(read, evidence, []), evidence))
    raw = shown = (answer.choice or "") if question.options else answer.text
    left_out = 0
    if not question.options and raw != not_said(read.ceiling):
        kept, found = grounded(read, raw, question.question, evidence, embed, names)
        shown, left_out = checked_answer(read, raw, kept, found, evidence).text, len(found.left_out)
    unchecked, checked = judged(question, raw), judged(question, shown)
    return {"id": question.id, "variant": variant, "beyond": question.beyond, "evidence": evidence,
            "prediction": raw, "checked": shown, "left_out": left_out, "right_unchecked": unchecked["correct"],
            "correct": checked["correct"], "abstained": checked.get("abstained"),
            "seconds": round(time.perf_counter() - started, 2)}


def run_variant(llm, embed, variant: str, questions: dict, placed: list[dict], out: Path) -> list[dict]:
    """Every placed question not yet in ``out`` answered by ``variant``; all its results, in ``placed``'s order."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.jsonl"
    done = {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())} \
        if path.exists() else {}
    books: dict = {}
    with path.open("a", encoding="utf-8") as sink:
        for record in (r for r in placed if r["id"] not in done):
            question = questions[record["id"]]
            book = books.get(question.book) or books.setdefault(question.book, load_book(question.book))
            result = answered_again(llm, embed, part(book, question.up_to).book, question, record["evidence"],
                                    variant)
            done[question.id] = result
            sink.write(json.dumps(result, ensure_ascii=False) + "\n")
            sink.flush()
            print(f"{variant or 'default'}: {question.id} {'right' if result['correct'] else 'wrong'} "
                  f"{result['prediction'][:100]!r}", file=sys.stderr, flush=True)
    return [done[r["id"]] for r in placed]


def figures(results: list[dict], baseline: list[dict]) -> dict:
    """A variant's figures, paired against ``baseline`` (the first variant's results)."""
    right = [r for r in results if r["right_unchecked"]]
    wrong = [r for r in results if not r["right_unchecked"] and not r["beyond"]]
    beyond = [r for r in results if r["beyond"]]
    return {"questions": len(results),
            "right_unchecked": mean(r["right_unchecked"] for r in results),
            "right_unchecked_interval": bootstrap_interval([float(r["right_unchecked"]) for r in results]),
            "right": mean(r["correct"] for r in results),
            "interval": bootstrap_interval([float(r["correct"]) for r in results]),
            "right_kept": mean(not r["left_out"] for r in right),
            "wrong_caught": mean(bool(r["left_out"]) for r in wrong),
            "beyond_abstained": mean(r["abstained"] for r in beyond),
            "seconds_mean": mean(r["seconds"] for r in results),
            "vs_first": paired(results, baseline, "correct"),
            "unchecked_vs_first": paired(results, baseline, "right_unchecked")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), required=True)
    parser.add_argument("--from", dest="source", required=True,
                        help="a benchmarks.answers row's folder, whose evidence each variant reads")
    parser.add_argument("--variants", nargs="+", default=[""], help='settings changed, written out ("" the default)')
    parser.add_argument("--fold", default="", help="the questions' fold (tune, held), named in the results' file")
    parser.add_argument("--model", help="a GGUF file (default: Qwen2.5-Coder-1.5B-Instruct, assembled once)")
    parser.add_argument("--out", default="runs/answer_step")
    args = parser.parse_args()
    questions = {q.id: q for q in datasets.read(SETS[args.set])}
    placed = [json.loads(line) for line in (Path(args.source) / "results.jsonl").read_text(encoding="utf-8")
              .splitlines()]
    placed = [r for r in placed if "evidence" in r]
    llm, embed = measuring_llm(args.model), MiniLMEmbedder()
    results = {variant or "default": run_variant(llm, embed, variant, questions, placed,
                                                 Path(args.out) / args.set / (variant or "default"))
               for variant in args.variants}
    first = next(iter(results.values()))
    out = {name: figures(rows, first) for name, rows in results.items()}
    print(json.dumps(out, indent=1))
    write_figures(f"answer-step-{args.set}" + (f"-{args.fold}" if args.fold else ""), out)


if __name__ == "__main__":
    main()
