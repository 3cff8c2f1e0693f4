"""The answer a reader sees, measured end to end with a real model: ``python -m benchmarks.answers --set SET --rows
ROW,ROW [--model PATH] [--fold tune|held] [--after N] [--sample N] [--skip N] [--limit N]``.

Each question is asked through the app's one front door (:func:`elite_ui.reading.reading`), under its spoiler
ceiling when it has one, and its answer scored as a reader would judge it: the letter for multiple choice; for a
free-form answer, whether it says the question's key (each item of ``key``, in any of its alternatives: the name,
place or number that answers it; a question with no key, FairytaleQA's, by how much of a reference it says:
:func:`elite_ui.bench.scoring.recall`) and its token F1 against the gold answer; under a ceiling with the answer beyond
it, whether it says the book up to there does not say (abstention) and whether it said the key anyway (an answer
from beyond the ceiling: the model's memory, or a leak). Rows (``ROWS``): ``memory`` (no book: what the model
remembers of a famous novel), ``gold`` (the answer step reading only the gold evidence: how far the model reads
right when the search is perfect), ``bm25`` (BM25 chunks with the same answer step), ``default`` (the preset the
model gets, :func:`elite_ui.reading.preset_for`), the other presets, each of the loop's stages switched on in turn,
and any settings changed on the default written as the row's name (``"fuse_tilings=1 reach=0"``).
``--evidence-only`` measures only the evidence each row places (the model's terms asked once and kept, no other
call); ``--within`` keeps the questions answered within their ceiling, ``--beyond`` those whose answer lies beyond it.
The model is Qwen2.5-Coder-1.5B-Instruct unless ``--model`` says otherwise (:mod:`benchmarks.real_model`).

Runs are kept in ``runs/answers/<set>/<row>/results.jsonl`` (an interrupted run resumes), and every row's figures
with 95% bootstrap intervals, paired against ``bm25`` where both ran, and each question's right or wrong, in
``benchmarks/results/<date>/answers-<set>[-<fold>][-within|-beyond][-after<N>].json`` (``evidence-...`` with
``--evidence-only``; rows run before on the same questions are kept there).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmarks import ROOT, SHARED_BENCHMARKS, ablation, write_figures
from benchmarks.grounding import gold_ids
from benchmarks.tables import latest
from elite_ui.bench import datasets
from elite_ui.bench.scoring import bootstrap_interval, evidence_recall, judged, keyed
from elite_ui.book import Book, load_book
from elite_ui.errors import EliteError
from elite_ui.methods import Kind, Tools
from elite_ui.methods.base import choose
from elite_ui.methods.parsing import clean_answer
from elite_ui.methods.prompts import answer, answer_tail, labelled, messages, options_block
from elite_ui.models import LLM, Completion, MiniLMEmbedder, Request, open_llm
from elite_ui.reading import Asked, preset, preset_for, reading
from elite_ui.settings import overridden


@dataclass(frozen=True)
class Row:
    """How a row answers: ``memory`` (no book), or a registered method with a preset (empty: the model's own,
    :func:`elite_ui.reading.preset_for`) and settings changed."""

    method: str
    preset: str = ""
    settings: tuple[str, ...] = ()
    named_part: bool = True
    """Whether a question that names a part of the book is answered from that part alone (``Asked.named_part``)."""


ROWS = {
    "memory": Row("memory"),
    "gold": Row("gold"),
    "bm25": Row("bm25"),
    "embedding": Row("embedding"),
    "default": Row("elite"),
    "- named part": Row("elite", named_part=False),
    "- part extracts": Row("elite", settings=("part_extracts=0",)),
    "laptop": Row("elite", "laptop"),
    "paper": Row("elite", "paper"),
    "whole": Row("whole"),
    "+ terms at full weight": Row("elite", settings=("model_weight=1.0",)),
    "- model terms": Row("elite", settings=("model_terms=false",)),
    "quoted answer": Row("elite", settings=("quoted=true",)),
    "+ terms example": Row("elite", settings=("terms_example=true",)),
    "+ imagined passage": Row("elite", settings=("imagined_passage=true",)),
    "+ judge and iterations": Row("elite", settings=("judge=true", "next_terms=judge")),
    "+ breadth/depth": Row("elite", settings=("judge=true", "next_terms=explore")),
    "+ importance": Row("elite", settings=("importance_samples=1", "importance_chunks=3")),
    "+ trim": Row("elite", settings=("trim=true",)),
    "- votes": Row("elite", settings=("voter_num=1",)),
    "best passage first": Row("elite", settings=("evidence_order=rank",)),
    "context-wide budget": Row("elite", settings=("evidence_tokens=0",)),
    "1600 tokens": Row("elite", settings=("evidence_tokens=1600",)),
    "500 tokens": Row("elite", settings=("evidence_tokens=500",)),
    "bm25 1600 tokens": Row("bm25", settings=("evidence_tokens=1600",)),
    "1600 tokens unchecked": Row("elite", settings=("evidence_tokens=1600", "grounding=false")),
    "unchecked": Row("elite", settings=("grounding=false",)),
    "+ abstain": Row("elite", settings=("abstain=true",)),
}


def named(name: str) -> Row:
    """The row called ``name``: one of :data:`ROWS`, or settings changed on the default written out
    (``"fuse_tilings=1 reach=0"``), to try a setting without naming it first."""
    return ROWS.get(name) or Row("elite", settings=tuple(name.split()))


SETS = {
    "walk": ROOT / "benchmarks" / "answer_sets" / "pride-walk.jsonl",
    "jane": ROOT / "benchmarks" / "answer_sets" / "jane-walk.jsonl",
    "nd": SHARED_BENCHMARKS / "novels-dev" / "novels-dev.jsonl",
    "nn": ROOT / "benchmarks" / "answer_sets" / "novels-keyed.jsonl",
    "nc": ROOT / "benchmarks" / "answer_sets" / "novels-ceilings.jsonl",
    "np": ROOT / "benchmarks" / "answer_sets" / "named-parts.jsonl",
    "wp": ROOT / "benchmarks" / "answer_sets" / "what-happens.jsonl",
    "ql": ROOT / "data" / "quality" / "dataset.jsonl",
    "ft": ROOT / "data" / "fairytale" / "dataset.jsonl",
}
"""Question sets: ``walk``, the questions of issue 40's walk through Pride and Prejudice under "chapter 10" (12 answered
in chapters 1-10, 10 whose answer lies later); ``jane``, the same walk through Jane Eyre, a novel in no fold and no
benchmark before (8 and 6; written from the novel, asked once while stop 64's fixes were made, chosen on by nothing);
``nd``, novels-dev's 60 multiple-choice questions; ``nn``, novels-300's 307 free-form questions with their keys;
``nc``, its single-hop questions under spoiler ceilings (``benchmarks/answer_sets/build.py``); ``np``, 18
questions that name a part of the book ("in chapter 3", "when the story begins"), written from eleven novels for
:mod:`elite_ui.book.scope` before it was measured, two of them under a ceiling (one named part beyond it);
``wp``, 17 questions that ask only what happens in a part ("What happens in chapter 3?", "How does the novel
open?"), written from eleven novels before ``part_extracts`` was measured, one under a ceiling;
``ql``, QuALITY's 202 multiple-choice questions on 15 stories (L-Eval's copy, converted first: ``python -m
elite_ui.bench convert leval ../shared/benchmarks/leval/quality.jsonl --out data/quality``), in no fold: settings
may be chosen on it; ``ft``, FairytaleQA's test split (converted first: ``python -m elite_ui.bench convert fairytaleqa
../shared/benchmarks/fairytaleqa --out data/fairytale``), only the ablation's held-out 300 (``fth``, in its seeded
order: :data:`SEEDED`), short stories, free-form, no ceiling, no key: right when the answer says enough of one of
its references (:data:`elite_ui.bench.scoring.RECALL_CORRECT`)."""
SEEDED = {"ft": ablation.SETS["fth"]}
"""Sets taken in the ablation's seeded order, only the questions it holds out (:mod:`benchmarks.ablation`)."""
FOLDS = {"tune": ("anna-karenina", "frankenstein", "les-miserables", "middlemarch", "the-scarlet-letter",
                  "pride-and-prejudice"),
         "held": ("emma", "wuthering-heights", "a-tale-of-two-cities", "the-adventures-of-huckleberry-finn",
                  "white-fang", "the-picture-of-dorian-gray")}
"""Settings are chosen on the ``tune`` novels and reported on the ``held`` ones (novels-dev's six): cross-validated
by novel."""


class TermsOnly(LLM):
    """``--evidence-only``: ``llm``'s search terms, each asked once and kept in ``cache`` (a JSON-lines file), and
    an empty reply to every other call, so that the evidence each row places is measured again in moments."""

    def __init__(self, llm: LLM, cache: Path):
        self.llm, self.cache = llm, cache
        self.name, self.n_ctx, self.parameters = llm.name, llm.n_ctx, llm.parameters
        lines = cache.read_text(encoding="utf-8").splitlines() if cache.exists() else []
        self.kept = dict(json.loads(line) for line in lines)

    def count_tokens(self, text: str) -> int:
        return self.llm.count_tokens(text)

    def count_messages(self, messages: list[dict[str, str]]) -> int:
        return self.llm.count_messages(messages)

    def _complete(self, request: Request) -> Completion:
        if request.purpose != "terms":
            return Completion("")
        asked = json.dumps(request.messages, ensure_ascii=False)
        if asked not in self.kept:
            self.kept[asked] = self.llm.complete(request).text
            with self.cache.open("a", encoding="utf-8") as sink:
                sink.write(json.dumps([asked, self.kept[asked]], ensure_ascii=False) + "\n")
        return Completion(self.kept[asked])


def remembered(llm: LLM, book: Book, question: datasets.Question) -> tuple[str, dict]:
    """The ``memory`` row: the model asked with the book's title and author only."""
    asked = messages(f"About the novel {book.title} by {book.author or 'an unknown author'}:\n\nQuestion: "
                     f"{question.question}{options_block(question.options)}\n\n{answer_tail(question.options)}")
    return replied(llm, asked, question, 12 if question.options else 96)


def replied(llm: LLM, asked: list[dict[str, str]], question: datasets.Question, max_tokens: int,
            **costs) -> tuple[str, dict]:
    """One answering call of a row that reads no book or only what it is handed: its answer and costs."""
    result = llm.complete(Request("answer", asked, max_tokens=max_tokens))
    text = (choose(llm, asked, result.text, question.options) or "") if question.options else clean_answer(result.text)
    return text, {"llm_calls": 1, "evaluated_tokens": result.prompt_tokens - result.cached_tokens,
                  "seconds": round(result.seconds, 2), **costs}


def gold_read(llm: LLM, book: Book, question: datasets.Question) -> tuple[str, dict]:
    """The ``gold`` row: the default's answer step reading only the sentences that hold the question's gold
    evidence, each with its neighbours (:data:`GOLD_AROUND` either side), unchecked: what the model answers when the
    search is perfect, the most any retrieval can give it."""
    ids = gold_ids(book, question)
    shown = sorted({n for sid in ids for n in book.around(sid, GOLD_AROUND)})
    context = "\n".join(labelled(book, sid) for sid in shown) or "(nothing found)"
    settings = preset("elite", preset_for(llm)[0])
    asked = answer(question.question, question.options, context, settings)
    return replied(llm, asked, question, settings.choice_tokens if question.options else settings.answer_tokens,
                   evidence=shown, key_in_evidence=keyed(context, question.key))


GOLD_AROUND = 1
"""Neighbours either side of each gold sentence the ``gold`` row reads."""


def answered(llm: LLM, embed, book: Book, question: datasets.Question, row: Row) -> tuple[str, dict]:
    """A row's answer to ``question`` through the app's front door, with what it cost and when it came."""
    settings = overridden(preset(row.method, row.preset or preset_for(llm)[0]), list(row.settings))
    ready = reading(book, Asked(question.question, question.up_to, method=row.method, settings=settings,
                                options=question.options, named_part=row.named_part), llm, Tools(embed))
    started, marks = time.perf_counter(), {}

    def mark(event) -> None:
        if event.kind in (Kind.QUOTES, Kind.ANSWER_DELTA, Kind.ANSWER):
            marks.setdefault(event.kind.value, round(time.perf_counter() - started, 2))

    trace = ready.answer(on_event=mark)
    totals, answer = trace.totals(), trace.answer
    context = "\n".join(ready.part.book.sentence(sid).text for sid in answer.evidence)
    first = marks.get("answer_delta", marks.get("answer"))
    return answer.choice or "" if question.options else answer.text, {
        "llm_calls": totals.llm_calls, "evaluated_tokens": totals.evaluated_tokens,
        "seconds": round(time.perf_counter() - started, 2), "quotes_at": marks.get("quotes"),
        "first_answer_at": first, "evidence_recall": evidence_recall(question.evidence, context),
        "key_in_evidence": keyed(context, question.key), "evidence": answer.evidence,
        "quotes": [q.text for q in answer.quotes], "citations": [c.sentence_id for c in answer.citations]}


def run_row(llm: LLM, embed, name: str, questions: list[datasets.Question], out: Path) -> list[dict]:
    """Every question not yet in ``out`` answered by row ``name``; all its results."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.jsonl"
    done = stored(path, questions)
    books: dict[str, Book] = {}
    row = named(name)
    with path.open("a", encoding="utf-8") as sink:
        for n, question in enumerate(q for q in questions if q.id not in done):
            book = books.setdefault(question.book, load_book(question.book))
            try:
                prediction, costs = (remembered(llm, book, question) if row.method == "memory"
                                     else gold_read(llm, book, question) if row.method == "gold"
                                     else answered(llm, embed, book, question, row))
            except EliteError as exc:
                prediction, costs = "", {"error": str(exc)}
            record = {"id": question.id, "row": name, "question": question.question, "up_to": question.up_to,
                      "beyond": question.beyond, "gold": question.answer, "prediction": prediction,
                      **judged(question, prediction), **costs}
            done[question.id] = record
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
            sink.flush()
            print(f"{name} {n + 1}: {question.id} {'right' if record['correct'] else 'wrong'} "
                  f"({record.get('seconds', 0)} s) {prediction[:100]!r}", file=sys.stderr, flush=True)
    return [done[q.id] for q in questions if q.id in done]


def stored(path: Path, questions: list[datasets.Question]) -> dict[str, dict]:
    """The answers kept in ``path`` by question, each judged again (the scoring may have been mended since)."""
    asked = {q.id: q for q in questions}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        record = json.loads(line)
        if record["id"] in asked:
            record.update(judged(asked[record["id"]], record["prediction"]))
        found[record["id"]] = record
    return found


def kept(out: Path, questions: list[datasets.Question]) -> list[dict] | None:
    """A row's results already in ``out`` for ``questions`` (the baseline of a row run on its own), if any."""
    found = stored(out / "results.jsonl", questions)
    return [found[q.id] for q in questions if q.id in found] or None


def mean(values) -> float | None:
    values = [float(v) for v in values if v is not None]
    return round(statistics.mean(values), 3) if values else None


def figures(results: list[dict], baseline: list[dict] | None) -> dict:
    """A row's figures: accuracy with its interval (and paired against ``baseline``), abstention on the questions
    whose answer lies beyond the ceiling, wrong answers among those answered, costs and latency."""
    right = [float(r["correct"]) for r in results]
    within = [r for r in results if not r["beyond"]]
    beyond = [r for r in results if r["beyond"]]
    answered_within = [r for r in within if not r.get("abstained")]
    out = {"questions": len(results), "accuracy": mean(right), "interval": bootstrap_interval(right),
           "f1": mean(r.get("f1") for r in within), "evidence_recall": mean(r.get("evidence_recall") for r in results),
           "key_in_evidence": mean(r.get("key_in_evidence") for r in within),
           "seconds_mean": mean(r.get("seconds") for r in results),
           "seconds_median": round(statistics.median(r.get("seconds") or 0 for r in results), 2) if results else None,
           "first_answer_after_quotes": mean(r["first_answer_at"] - r["quotes_at"] for r in results
                                             if None not in (r.get("first_answer_at"), r.get("quotes_at"))),
           "llm_calls": mean(r.get("llm_calls") for r in results),
           "evaluated_tokens": mean(r.get("evaluated_tokens") for r in results),
           "right_by_question": {r["id"]: int(r["correct"]) for r in results}}
    if within and beyond:
        out["within"] = {"questions": len(within), "accuracy": mean(r["correct"] for r in within),
                         "wrong_among_answered": mean(not r["correct"] for r in answered_within)}
    if beyond:
        out["beyond"] = {"questions": len(beyond), "abstained": mean(r["abstained"] for r in beyond),
                         "answered_from_beyond": sum(r["from_beyond"] for r in beyond)}
    if baseline is not None:
        out["vs_bm25"] = paired(results, baseline, "correct")
        out["evidence_vs_bm25"] = {name: paired(results, baseline, name)
                                   for name in ("evidence_recall", "key_in_evidence")}
    return out


def paired(results: list[dict], baseline: list[dict], name: str) -> dict | None:
    """The mean difference of figure ``name`` between ``results`` and ``baseline`` on the questions both have it
    for, with its paired bootstrap interval."""
    base = {r["id"]: float(r[name]) for r in baseline if r.get(name) is not None}
    both = [r for r in results if r["id"] in base and r.get(name) is not None]
    if not both:
        return None
    return {"questions": len(both), "difference": mean(float(r[name]) - base[r["id"]] for r in both),
            "interval": bootstrap_interval([float(r[name]) for r in both], [base[r["id"]] for r in both])}


def per_novel(questions: list[datasets.Question], after: int = 0, sample: int = 0) -> list[datasets.Question]:
    """Each novel's questions after its first ``after``, at most ``sample`` of them (0: all)."""
    taken: Counter[str] = Counter()
    last = after + (sample or len(questions))
    return [q for q in questions if taken.update([q.book]) or after < taken[q.book] <= last]


def measuring_llm(path: str | None, n_ctx: int = 4096) -> LLM:
    """The model a benchmark measures with: the GGUF file ``path``, or Qwen2.5-Coder-1.5B-Instruct (assembled
    once, :mod:`benchmarks.real_model`)."""
    if path is None:
        from benchmarks.real_model import real_model

        path = str(real_model())
    return open_llm(path, n_ctx=n_ctx)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), required=True)
    parser.add_argument("--rows", default="memory,bm25,default")
    parser.add_argument("--model", help="a GGUF file (default: Qwen2.5-Coder-1.5B-Instruct, assembled once)")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--repeat-penalty", type=float, default=None, help="llama.cpp's repeat penalty (default: "
                                                                            "the backend's)")
    parser.add_argument("--fold", choices=sorted(FOLDS), help="only the questions of this fold's novels")
    parser.add_argument("--sample", type=int, default=0, help="at most this many questions a novel (the first ones)")
    parser.add_argument("--after", type=int, default=0, help="leave out the first this many questions of each novel "
                                                             "(those --sample took)")
    parser.add_argument("--skip", type=int, default=0, help="leave out the set's first this many questions (those an "
                                                            "earlier run's --limit took)")
    parser.add_argument("--limit", type=int, default=0)
    part_of = parser.add_mutually_exclusive_group()
    part_of.add_argument("--within", action="store_true", help="only the questions whose answer lies within the "
                                                               "ceiling")
    part_of.add_argument("--beyond", action="store_true", help="only the questions whose answer lies beyond the "
                                                               "ceiling")
    parser.add_argument("--out", default="runs/answers")
    parser.add_argument("--evidence-only", action="store_true", help="measure only the evidence each row places: "
                        "the model's terms asked once and kept, no other call (results under OUT/evidence)")
    parser.add_argument("--fresh", action="store_true", help="keep only these rows in the results file (not the "
                                                                "rows an earlier run wrote there)")
    args = parser.parse_args()
    questions = datasets.read(SETS[args.set])
    if args.set in SEEDED:
        held = SEEDED[args.set]
        questions = datasets.sample(questions, ablation.SEED, held.skip, held.limit)
    if args.fold:
        questions = [q for q in questions if Path(q.book).stem in FOLDS[args.fold]]
    questions = per_novel(questions, args.after, args.sample)
    if args.within or args.beyond:
        questions = [q for q in questions if q.beyond == args.beyond]
    questions = datasets.sample(questions, skip=args.skip, limit=args.limit)
    llm, embed = measuring_llm(args.model, args.n_ctx), MiniLMEmbedder()
    if args.repeat_penalty is not None:
        llm.repeat_penalty = args.repeat_penalty
    if args.evidence_only:
        args.out = str(Path(args.out) / "evidence")
        Path(args.out).mkdir(parents=True, exist_ok=True)
        llm = TermsOnly(llm, Path(args.out) / "terms.jsonl")
    names = args.rows.split(",")
    results = {name: run_row(llm, embed, name, questions, Path(args.out) / args.set / name.replace(" ", "_")
                             .replace("/", "-")) for name in names}
    baseline = results.get("bm25") or kept(Path(args.out) / args.set / "bm25", questions)
    table = {name: figures(rows, baseline if name != "bm25" else None) for name, rows in results.items()}
    for name in set(table) - {"bm25", "default"} if "default" in results else ():
        table[name]["evidence_vs_default"] = {figure: paired(results[name], results["default"], figure)
                                              for figure in ("evidence_recall", "key_in_evidence")}
    for name, row in table.items():
        print(name, json.dumps(row))
    side = "-within" if args.within else "-beyond" if args.beyond else ""
    name = (f"{'evidence' if args.evidence_only else 'answers'}-{args.set}" + (f"-{args.fold}" if args.fold else "")
            + side + (f"-after{args.after}" if args.after else "") + (f"-skip{args.skip}" if args.skip else ""))
    try:
        earlier = {} if args.fresh else json.loads(latest(name).read_text(encoding="utf-8"))["rows"]
    except (FileNotFoundError, KeyError, ValueError):
        earlier = {}
    write_figures(name, {"model": llm.name, "n_ctx": llm.n_ctx, "questions": len(questions),
                         "sample": args.sample, "rows": earlier | table})


if __name__ == "__main__":
    main()
