"""The answer step alone, tried several ways on the evidence a row placed: ``python -m benchmarks.answer_step --set
SET --from DIR [--fold tune|held] --variants "" "quote_first=true" ...``.

Each question is answered again on the evidence the row in ``DIR`` (a :mod:`benchmarks.answers` folder) placed for
it, by the engine's own answer step (:meth:`~elite_ui.methods.base.Engine.answer_from`) under its ceiling, once per
variant (settings changed on the default preset, written out; ``""`` is the default itself), the grounding check
off; its answer is then checked as the engine checks it (:func:`~elite_ui.methods.grounding.grounded`; a
multiple-choice question gets one vote, unchecked; where the check chooses what the model reads, ``passage_answers``,
it runs in the engine). The search is not run again, so a variant costs one model call a question (``passage_answers``
up to one a passage read, and one more) and its figures differ from the default's only by the answer step. The
questions are taken a novel at a time in turn, each answered by every variant before the next, so that a run stopped
by ``--minutes`` has answered every novel alike; kept answers are checked again by the check as it stands. Per
variant: the share answered right before and after the check, each paired against the first variant with a 95%
bootstrap interval, the share of right answers the check keeps whole and of wrong ones it catches (issue 40's goal:
0.9 each). Answers are kept in
``runs/answer_step/<set>/<variant>/results.jsonl`` (a run resumes); figures in
``benchmarks/results/<date>/answer-step-<set>[-<fold>].json``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
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
    off, then checked (:func:`checked`). Where the check chooses what the model reads (``passage_answers``) it
    runs in the engine, and the answer before it is not seen (both texts are the answer given)."""
    chosen = overridden(preset("elite", preset_for(llm)[0]), variant.split())
    in_engine = bool(chosen.passage_answers) and not question.options
    settings = chosen if in_engine else overridden(chosen, ["grounding=false"])
    engine = Elite(llm, settings, embed=embed, names=names_for(read, None))
    engine.reading = read
    started = time.perf_counter()
    answer = finished(engine.answer_from(read, question.question, question.options,
                                         engine.listing(read, evidence, []), evidence))
    raw = (answer.choice or "") if question.options else answer.text
    record = {"id": question.id, "variant": variant, "beyond": question.beyond, "evidence": evidence,
              "prediction": raw, "checked": raw, "left_out": answer.left_out, "in_engine": in_engine,
              "seconds": round(time.perf_counter() - started, 2)}
    return checked(record, read, question, embed)


def checked(record: dict, read, question: datasets.Question, embed) -> dict:
    """``record`` (an answer of :func:`answered_again`) with its answer checked as the engine checks it now
    (:func:`~elite_ui.methods.grounding.grounded`; a choice, or an answer the engine checked, as it stands), the
    text before and after the check each judged: a kept answer is checked again when the check has changed."""
    raw = record["prediction"]
    if not (question.options or record.get("in_engine")) and raw != not_said(read.ceiling):
        evidence = record["evidence"]
        kept, found = grounded(read, raw, question.question, evidence, embed, names_for(read, None))
        record |= {"checked": checked_answer(read, raw, kept, found, evidence).text, "left_out": len(found.left_out)}
    after = judged(question, record["checked"])
    return record | {"right_unchecked": judged(question, raw)["correct"], "correct": after["correct"],
                     "abstained": after.get("abstained")}


def run_variants(llm, embed, variants: list[str], questions: dict, placed: list[dict], out: Path,
                 until: float) -> dict[str, list[dict]]:
    """Each placed question not yet answered by every variant answered by each in turn (their results kept under
    ``out``, a folder a variant), until the clock passes ``until``; each variant's results for the questions all of
    them answered, in ``placed``'s order, each checked again (:func:`checked`)."""
    paths = {variant: out / (variant or "default") / "results.jsonl" for variant in variants}
    done = {variant: {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
            if path.exists() else {} for variant, path in paths.items()}
    books: dict = {}

    def read(question: datasets.Question):
        if (question.book, question.up_to) not in books:
            book = books.get(question.book) or books.setdefault(question.book, load_book(question.book))
            books[question.book, question.up_to] = part(book, question.up_to).book
        return books[question.book, question.up_to]

    for record in placed:
        if time.time() > until:
            break
        question = questions[record["id"]]
        for variant, path in paths.items():
            if question.id in done[variant]:
                continue
            result = answered_again(llm, embed, read(question), question, record["evidence"], variant)
            done[variant][question.id] = result
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as sink:
                sink.write(json.dumps(result, ensure_ascii=False) + "\n")
            print(f"{variant or 'default'}: {question.id} {'right' if result['correct'] else 'wrong'} "
                  f"{result['prediction'][:100]!r}", file=sys.stderr, flush=True)
    answered = [r["id"] for r in placed if all(r["id"] in found for found in done.values())]
    return {variant or "default": [checked(done[variant][q], read(questions[q]), questions[q], embed)
                                   for q in answered] for variant in variants}


def in_turn(placed: list[dict], questions: dict) -> list[dict]:
    """``placed`` taken one novel at a time in turn (each novel's own order kept), so that a run stopped early has
    answered every novel alike."""
    order = Counter()
    place = {}
    for record in placed:
        book = questions[record["id"]].book
        place[record["id"]] = (order[book], book)
        order[book] += 1
    return sorted(placed, key=lambda r: place[r["id"]])


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
            "beyond": len(beyond), "beyond_abstained": mean(r["abstained"] for r in beyond),
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
    parser.add_argument("--minutes", type=float, default=0, help="ask no new question after this many minutes (0: "
                        "none); the figures count the questions every variant answered")
    args = parser.parse_args()
    questions = {q.id: q for q in datasets.read(SETS[args.set])}
    placed = [json.loads(line) for line in (Path(args.source) / "results.jsonl").read_text(encoding="utf-8")
              .splitlines()]
    placed = [r for r in placed if "evidence" in r]
    llm, embed = measuring_llm(args.model), MiniLMEmbedder()
    until = time.time() + args.minutes * 60 if args.minutes else math.inf
    results = run_variants(llm, embed, args.variants, questions, in_turn(placed, questions),
                           Path(args.out) / args.set, until)
    first = next(iter(results.values()))
    out = {name: figures(rows, first) for name, rows in results.items()}
    print(json.dumps(out, indent=1))
    write_figures(f"answer-step-{args.set}" + (f"-{args.fold}" if args.fold else ""), out)


if __name__ == "__main__":
    main()
