"""The grounding check against the novels-dev questions: ``python -m benchmarks.grounding``.

1. Each question's correct option, written as an answer ("Sixteen years."), is checked against its gold evidence
   sentences: the check should keep it (one left out is a correct answer it wrongly removes). Each wrong option,
   checked against the same evidence, should be left out (one kept is a claim the evidence does not make that the
   check lets through). For the thresholds in :mod:`elite_ui.methods.grounding`, without and with the MiniLM
   second opinion. No model call.
2. ``--model``: the embedded model answers each question as a free-form one (ELITE's default preset, no options)
   and the check reads its answer: how many answer sentences the evidence supports, how many answers are correct
   (token F1 against the correct option at least 0.5), and how many of those lose a sentence to the check.
3. ``--answers SET:DIR ...``: a real model's answers, written with the check off (:func:`real_answers`).
4. ``--answers SET:FILE --passage-check [--check NAME=VALUE ...]``: the same answers, the model's passage check after
   the grounding check (its settings changed by ``--check``), at several thresholds (:func:`passage_checks`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks import SHARED_BENCHMARKS, write_figures
from elite_ui.bench import datasets
from elite_ui.bench.scoring import (
    ABSTAINED,
    F1_CORRECT,
    bootstrap_interval,
    gold_sentences,
    judged,
    normalise,
    token_f1,
)
from elite_ui.book import load_book
from elite_ui.book.names import found_names, names_for
from elite_ui.methods import prompts
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.methods.grounding import NO, RECITED, YES, answer_sentences, cited_passage, grounded, passage_odds
from elite_ui.models import MiniLMEmbedder
from elite_ui.models.llama_cpp import LlamaCppLLM
from elite_ui.reading import part
from elite_ui.settings import with_overrides

QUESTIONS = SHARED_BENCHMARKS / "novels-dev" / "novels-dev.jsonl"


def gold_ids(book, question: datasets.Question) -> list[int]:
    """The book's sentences that hold the question's gold evidence."""
    texts = [normalise(book.sentence(sid).text) for sid in range(len(book))]
    heads = [gold[:40] for item in question.evidence for gold in gold_sentences(item)]
    return sorted({sid for head in heads for sid, text in enumerate(texts) if head in text})


def kept(book, question: datasets.Question, option: str, evidence: list[int], embed) -> bool:
    _, found = grounded(book, f"{option.rstrip('.')}.", question.question, evidence, embed, found_names(book))
    return not found.left_out


def model_answers(questions: list[datasets.Question], books: dict) -> dict:
    """The embedded model's free-form answers, checked: sentences supported, and correct answers the check cuts."""
    llm = LlamaCppLLM(n_ctx=4096)
    sentences = supported = correct = cut = 0
    for question in questions:
        book = books[question.book]
        engine = Elite(llm, with_overrides(PRESETS["laptop"], grounding=False), names=found_names(book))
        answer = engine.run(book, question.question).answer
        _, found = grounded(book, answer.text, question.question, answer.evidence, engine.embed, found_names(book))
        sentences += found.sentences
        supported += found.sentences - len(found.left_out)
        right = token_f1(answer.text, question.options[question.answer]) >= F1_CORRECT
        correct += right
        cut += right and bool(found.left_out)
        print(question.id, f"{found.sentences - len(found.left_out)}/{found.sentences} supported", right, flush=True)
    return {"questions": len(questions), "answer_sentences": sentences, "supported": supported,
            "supported_share": round(supported / max(sentences, 1), 3), "correct_answers": correct,
            "correct_answers_cut": cut}


def unchecked(sets: list[str]):
    """Each of a real model's unchecked answers (``SET:FILE`` or ``SET:DIR``, :func:`real_answers`), as its question,
    its record (``correct`` judged as the scoring stands now) and the book as read up to its question's ceiling. An
    answer whose quotes are not the sentences its evidence labels (written before the loader numbered that book's
    sentences otherwise) is left out, and said."""
    from benchmarks.answers import SETS

    books: dict = {}
    for given in sets:
        key, _, folder = given.partition(":")
        questions = {q.id: q for q in datasets.read(SETS[key])}
        source = Path(folder)
        for line in (source if source.is_file() else source / "results.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            question = questions[record["id"]]
            record["correct"] = judged(question, record["prediction"])["correct"]
            book = books.get(question.book) or books.setdefault(question.book, load_book(question.book))
            if not numbered_alike(book, record):
                print(f"{record['id']}: left out, its evidence numbered by an earlier loader", flush=True)
                continue
            yield question, record, part(book, question.up_to).book


def numbered_alike(book, record: dict) -> bool:
    """Whether ``record``'s quotes are among the sentences its evidence labels in ``book`` as now read."""
    said = {" ".join(book.sentence(sid).text.split()) for sid in record.get("evidence", []) if sid < len(book)}
    return all(" ".join(quote.split()) in said for quote in record.get("quotes", []))


def written(record: dict) -> bool:
    """Whether an unchecked answer's record holds an answer to check: one written from evidence, not a reply that
    the passages do not say."""
    said = record["prediction"]
    return bool(said and not ABSTAINED.search(said) and "evidence" in record)


def real_answers(sets: list[str]) -> dict:
    """The check on a real model's own answers, written with the check off (``benchmarks.answers``' row ``unchecked``):
    each answer judged right or wrong as a reader would (its key; beyond a ceiling, any answer but "does not
    say" is wrong), then checked against the evidence it was written from, under its question's ceiling, with
    labels kept as the model wrote them and moved where another evidence sentence supports the claim (the
    default), and with a sentence citing none resting on all the evidence (not on one sentence). A right answer
    should be kept whole; a wrong one should lose a sentence. ``right after the check``: the share of all the
    questions a reader then sees answered right (what the ``default`` row measures, the check on);
    ``beyond_not_said``: of the questions whose answer lies beyond the ceiling, the share then answered "does not
    say"."""
    embed = MiniLMEmbedder()
    variants = {"labels as written": {"recite": 0}, "the default (labels moved)": {"recite": RECITED},
                "a sentence citing none rests on all the evidence (as before stop 48)": {"alone": False},
                "the question's words count as support (as before the claim rule)": {"claim": False},
                "a cited sentence near the question (on_topic=0.35)": {"topic": 0.35},
                "a cited sentence near the question (on_topic=0.25)": {"topic": 0.25}}
    tally = {name: dict.fromkeys(("right", "kept_right", "wrong", "caught", "after", "questions", "beyond",
                                  "beyond_not_said"), 0) for name in variants}
    for question, record, read in unchecked(sets):
        said = record["prediction"]
        for name, how in variants.items():
            count = tally[name]
            count["questions"] += 1
            count["beyond"] += question.beyond
            if not written(record):
                count["after"] += bool(record["correct"])
                count["beyond_not_said"] += question.beyond and bool(record["correct"])
                continue
            kept, found = grounded(read, said, question.question, record["evidence"], embed,
                                   names_for(read, None), **how)
            shown = kept if read.ceiling is not None else found.text
            after = judged(question, shown)["correct"]
            count["after"] += bool(after)
            count["beyond_not_said"] += question.beyond and bool(after)
            if record["correct"]:
                count["right"], count["kept_right"] = count["right"] + 1, count["kept_right"] + (not found.left_out)
            else:
                count["wrong"], count["caught"] = count["wrong"] + 1, count["caught"] + bool(found.left_out)
    return {name: {"questions": c["questions"], "right_answers": c["right"],
                   "right_kept": round(c["kept_right"] / max(c["right"], 1), 3), "wrong_answers": c["wrong"],
                   "wrong_caught": round(c["caught"] / max(c["wrong"], 1), 3),
                   "right_after_the_check": round(c["after"] / max(c["questions"], 1), 3),
                   "beyond": c["beyond"], "beyond_not_said": round(c["beyond_not_said"] / max(c["beyond"], 1), 3)}
            for name, c in tally.items()}


ODDS = (0.0, 0.5, 1.0, 1.5, 2.0)
"""The thresholds of ``passage_odds`` :func:`passage_checks` reports."""


def passage_checks(sets: list[str], earlier: dict | None = None, how: dict | None = None) -> dict:
    """The model's passage check (``passage_check``; Qwen2.5-Coder-1.5B) on its own unchecked answers, after the
    grounding check as it stands: each sentence the check keeps has the passage it cites asked whether it answers
    the question, and is left out at each threshold of :data:`ODDS` its log-odds of yes fall below. Per threshold:
    the share of questions a reader then sees answered right, and its paired difference from the check alone (with
    its 95% bootstrap interval), for all the questions, those whose answer lies within the ceiling (right: the key)
    and those whose answer lies beyond it (right: "does not say"), and how many of those say the key (from beyond);
    then each answer's log-odds (``odds``) and the sentences asked (``sentences``). ``earlier``, an earlier run's
    results, gives the log-odds of a passage it asked for the same question (or of an answer whose kept sentences
    are as many, where it lists no sentences), so that only the others are asked. ``how``: the grounding check's
    settings (:func:`elite_ui.methods.grounding.grounded`). The answers were written at temperature 0, so this is
    what the ``default`` row would show with the passage check on. Within the ceiling a wrong answer stated
    (``within_wrong``) is worse for a reader than "does not say"; both count as not right."""
    from benchmarks.real_model import real_model

    llm, earlier = None, earlier or {}
    embed, rows = MiniLMEmbedder(), []
    for question, record, read in unchecked(sets):
        said = kept = record["prediction"]  # an answer that says the passages do not say is shown as it is
        answered = written(record)
        if answered:
            kept, _ = grounded(read, said, question.question, record["evidence"], embed, names_for(read, None),
                               **(how or {}))
        sentences = answer_sentences(kept) if answered else []
        known = earlier.get("odds", {}).get(record["id"], [])
        listed = earlier.get("sentences", {}).get(record["id"])
        if listed is None and len(known) == len(sentences):
            asked = list(zip(sentences, known, strict=True))
        else:
            odds = {cited_passage(read, sentence): value for sentence, value in zip(listed, known, strict=True)} \
                if listed else {}
            asked = []
            for sentence in sentences:
                passage = cited_passage(read, sentence)
                if passage not in odds:
                    llm = llm or LlamaCppLLM(str(real_model()), n_ctx=4096)
                    odds[passage] = passage_odds(llm.choice_logprobs(prompts.answers_it(passage, question.question),
                                                                     (*YES, *NO)))
                asked.append((sentence, odds[passage]))
        rows.append((question, record, kept, asked))
        print(record["id"], [round(odds, 2) for _, odds in asked if odds is not None], flush=True)
    if llm is not None:
        llm.close()

    def shown(kept: str, asked: list, at: float | None) -> str:
        return kept if at is None or not asked else " ".join(s for s, odds in asked if odds is None or odds >= at)

    verdicts = {at: [judged(question, shown(kept, asked, at)) for question, _, kept, asked in rows]
                for at in (None, *ODDS)}
    right = {at: [bool(v["correct"]) for v in found] for at, found in verdicts.items()}
    beyond = [question.beyond for question, *_ in rows]
    figures = {}
    for at, found in verdicts.items():
        count = {"questions": len(rows), "right": round(sum(right[at]) / len(rows), 3),
                 "minus_off": [round((sum(right[at]) - sum(right[None])) / len(rows), 3),
                               list(bootstrap_interval(right[at], right[None]))],
                 "from_beyond": sum(bool(v.get("from_beyond")) for v in found),
                 "within_wrong": sum(not (v["correct"] or v["abstained"]) for v, b in zip(found, beyond, strict=True)
                                     if not b)}
        for name, inside in (("within", False), ("beyond", True)):
            mine, off = ([r for r, b in zip(rights, beyond, strict=True) if b == inside]
                         for rights in (right[at], right[None]))
            count |= {name: len(mine), f"{name}_right": sum(mine),
                      f"{name}_minus_off": [round((sum(mine) - sum(off)) / max(len(mine), 1), 3),
                                            list(bootstrap_interval(mine, off))]}
        figures["off" if at is None else f"{at:+.1f}"] = count
    figures["odds"] = {record["id"]: [odds if odds is None else round(odds, 3) for _, odds in asked]
                       for _, record, _, asked in rows}
    figures["sentences"] = {record["id"]: [sentence for sentence, _ in asked] for _, record, _, asked in rows}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="store_true", help="also check the embedded model's own answers")
    parser.add_argument("--answers", nargs="*", default=[], metavar="SET:DIR",
                        help="check a real model's unchecked answers instead: a question set of benchmarks.answers "
                             "and the folder of its row 'unchecked' (nc:runs/answers/nc/unchecked), or its results "
                             "file (the ones kept: benchmarks/results/2026-12-04/unchecked-nc-*.jsonl)")
    parser.add_argument("--passage-check", action="store_true",
                        help="with --answers: the model's passage check after the grounding check, at several "
                             "thresholds (the 1.5B model, benchmarks.real_model)")
    parser.add_argument("--odds-from", metavar="FILE",
                        help="with --passage-check: an earlier run's results, whose log-odds are read for the answers "
                             "whose kept sentences are the same (the model asks only the others)")
    parser.add_argument("--check", nargs="*", default=[], metavar="NAME=VALUE",
                        help="with --passage-check: the grounding check's settings changed (claim=false, alone=false, "
                             "recite=0), named in the results' file")
    parser.add_argument("--fold", default="", help="the answers' fold (tune, held), named in the results' file")
    args = parser.parse_args()
    if args.answers:
        earlier = json.loads(Path(args.odds_from).read_text(encoding="utf-8")) if args.odds_from else None
        how = {name: json.loads(value) for name, _, value in (change.partition("=") for change in args.check)}
        figures = (passage_checks(args.answers, earlier, how) | {"check": how} if args.passage_check
                   else real_answers(args.answers))
        print(figures)
        write_figures(("passage-check" if args.passage_check else "grounding-real")
                      + (f"-{args.fold}" if args.fold else "") + "".join(f"-{change}" for change in args.check),
                      figures)
        return
    books: dict = {}
    rows = {"lexical": {"correct_kept": 0, "wrong_left_out": 0}, "with MiniLM": {"correct_kept": 0,
                                                                                 "wrong_left_out": 0}}
    questions = [q for q in datasets.read(QUESTIONS) if q.options and q.evidence]
    wrong = 0
    for question in questions:
        book = books.get(question.book) or books.setdefault(question.book, load_book(question.book))
        evidence = gold_ids(book, question)
        for name, embed in (("lexical", None), ("with MiniLM", MiniLMEmbedder())):
            for letter, option in question.options.items():
                if letter == question.answer:
                    rows[name]["correct_kept"] += kept(book, question, option, evidence, embed)
                else:
                    rows[name]["wrong_left_out"] += not kept(book, question, option, evidence, embed)
        wrong += len(question.options) - 1
    figures = {name: {"questions": len(questions), "correct_kept": round(row["correct_kept"] / len(questions), 3),
                      "wrong_left_out": round(row["wrong_left_out"] / wrong, 3)} for name, row in rows.items()}
    for name, row in figures.items():
        print(name, row, flush=True)
    if args.model:
        figures["embedded model"] = model_answers(questions, books)
        print(figures["embedded model"])
    write_figures("grounding", figures)


if __name__ == "__main__":
    main()
