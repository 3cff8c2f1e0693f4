"""The benchmark harness: converters, metric arithmetic, resuming, and the report page."""

import csv
import json

import pytest

from elite_ui.bench import cli, datasets, harness, methods, scoring
from elite_ui.models import ScriptedLLM
from elite_ui.settings import overridden

from .conftest import trigram_embed

STORY = ("Once there was a miller who had three sons. The eldest son took the mill. The second son took the donkey. "
         "The youngest son got only the cat. The cat asked for a pair of boots. With the boots the cat caught "
         "rabbits for the king. The king was pleased and gave the cat gold. ") * 3


def test_leval_quality_and_free_form(tmp_path):
    source = tmp_path / "quality.jsonl"
    doc = {"input": STORY, "instructions": [
        "Who got the cat?\n\n (A) The eldest son \n (B) The youngest son \n (C) The king \n (D) Nobody ",
        "What did the cat want?"], "outputs": ["(B) The youngest son", "a pair of boots"]}
    source.write_text(json.dumps(doc) + "\n")
    questions = datasets.from_leval(source, tmp_path / "out")
    mc, free = questions
    assert mc.question == "Who got the cat?" and mc.options["B"] == "The youngest son" and mc.answer == "B"
    assert free.options is None and free.answer == "a pair of boots"
    path = datasets.write(tmp_path / "out" / "dataset.jsonl", questions)
    again = datasets.read(path)
    assert again[0].book == mc.book and json.loads(path.read_text().splitlines()[0])["book"].startswith("books/")


def test_fairytaleqa_evidence_is_the_cited_sections(tmp_path):
    root = tmp_path / "fairytaleqa"
    (root / "section-stories" / "test").mkdir(parents=True)
    (root / "questions" / "test").mkdir(parents=True)
    with (root / "section-stories" / "test" / "puss-story.csv").open("w", newline="") as f:
        csv.writer(f).writerows([["section", "text"], ["1", "A miller had three sons."],
                                 ["2", "The cat asked for boots."]])
    with (root / "questions" / "test" / "puss-questions.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["question_id", "local-or-sum", "cor_section", "attribute1", "attribute2", "question",
                         "ex-or-im1", "answer1", "answer2", "answer3", "ex-or-im2", "answer4", "answer5", "answer6"])
        writer.writerow(["1", "local", "1,2", "action", "", "What did the cat want?", "explicit", "boots", "", "",
                         "explicit", "a pair of boots", "", ""])
    [q] = datasets.from_fairytaleqa(root, tmp_path / "out")
    assert q.evidence == ["A miller had three sons.", "The cat asked for boots."]
    assert q.answer == ["boots", "a pair of boots"] and q.complexity == "mh" and q.aspect == "action"


def test_novelqa(tmp_path):
    book = tmp_path / "puss.txt"
    book.write_text(STORY)
    source = tmp_path / "puss.json"
    source.write_text(json.dumps([{"QID": "Q1", "Question": "Who got the cat?", "Options": ["The king", "The son"],
                                   "Answer": "B", "Aspect": "character", "Complexity": "sh",
                                   "Evidences": ["The youngest son got only the cat."]}]))
    [q] = datasets.from_novelqa(source, book, tmp_path / "out")
    assert q.options == {"A": "The king", "B": "The son"} and q.evidence and q.aspect == "character"


def test_metrics():
    context = "The youngest son got only the cat. Later, the cat caught rabbits for the king!"
    assert scoring.evidence_recall(["the YOUNGEST son got only the cat."], context) == 1.0
    assert scoring.evidence_recall(["The youngest son got only the cat. The dragon ate the mill whole."],
                                 context) == 0.5
    assert scoring.evidence_recall(["The cat caught rabbits for the kin"], context) == 1.0, "fuzzy at 90"
    assert scoring.evidence_recall([], context) is None
    assert scoring.token_f1("the youngest son", "youngest son") == 1.0
    assert scoring.token_f1("a cat", "a pair of boots") == 0.0
    assert scoring.token_f1("The son got the cat [S12, S14].", "the son got the cat") == 1.0, "labels are no words"
    mc = datasets.Question("1", "b", "q", "B", {"A": "x", "B": "y"})
    assert scoring.score(mc, "B") == (True, None) and scoring.score(mc, "A") == (False, None)
    free = datasets.Question("2", "b", "q", ["boots", "a pair of boots"])
    assert scoring.score(free, "he wanted boots") == (True, 0.5)
    assert scoring.score(free, None) == (None, None)


def test_summary_arithmetic():
    rows = [
        {"method": "s", "book": "a", "book_bytes": 1000, "storage_bytes": 500, "aspect": "plot", "complexity": "sh",
         "correct": True, "f1": None, "evidence_recall": 1.0, "context_tokens": 10, "llm_calls": 2,
         "book_prepare_seconds": 1.0, "retrieval_seconds": 0.5, "generation_seconds": 1.0},
        {"method": "s", "book": "a", "book_bytes": 1000, "storage_bytes": 500, "aspect": "plot", "complexity": "mh",
         "correct": False, "f1": None, "evidence_recall": 0.0, "context_tokens": 30, "llm_calls": 4,
         "book_prepare_seconds": 1.0, "retrieval_seconds": 1.5, "generation_seconds": 3.0},
        {"method": "s", "book": "b", "book_bytes": 3000, "storage_bytes": 0, "aspect": "setting", "complexity": "sh",
         "correct": True, "f1": None, "evidence_recall": None, "context_tokens": 20, "llm_calls": 3,
         "book_prepare_seconds": 3.0, "retrieval_seconds": 1.0, "generation_seconds": 2.0},
    ]
    s = harness.summarise(rows)
    assert s["accuracy"] == pytest.approx(2 / 3, abs=1e-4)
    assert s["accuracy_by_aspect"] == {"plot": 0.5, "setting": 1.0}
    assert s["accuracy_by_complexity"] == {"mh": 0.0, "sh": 1.0}
    assert s["evidence_recall"] == 0.5 and s["context_tokens"] == 20 and s["retrieval_seconds"] == 1.0
    assert s["prepare_seconds_per_book"] == 2.0 and s["storage_bytes"] == 500 and s["book_bytes"] == 4000
    assert s["expansion_ratio"] == 1.125


def small_dataset(tmp_path, n=5):
    book = datasets.save_book(tmp_path, "puss", STORY)
    questions = [datasets.Question(f"q{i}", book, "Who got the cat?", "B", {"A": "The king", "B": "The youngest son"},
                                   ["The youngest son got only the cat."], "character", "sh") for i in range(n)]
    return datasets.write(tmp_path / "dataset.jsonl", questions)


def args_for(dataset, out, method="bm25", limit=0, retrieval_only=False):
    return cli.parser().parse_args(["run", str(dataset), "--method", method, "--out", str(out), "--budget",
                                      "200", *(["--limit", str(limit)] if limit else []),
                                      *(["--retrieval-only"] if retrieval_only else [])])


def test_a_run_resumes_after_an_interruption(tmp_path):
    dataset, out = small_dataset(tmp_path), tmp_path / "run"
    answers = ["(B)", "(B)", KeyboardInterrupt(), "A"]
    with pytest.raises(KeyboardInterrupt):
        harness.run(args_for(dataset, out), ScriptedLLM({"answer": answers}), trigram_embed)
    assert len((out / "results.jsonl").read_text().splitlines()) == 2
    llm = ScriptedLLM({"answer": ["A"]})
    harness.run(args_for(dataset, out), llm, trigram_embed)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["q0", "q1", "q2", "q3", "q4"] and len(llm.log) == 3
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == 0.4 and summary["evidence_recall"] == 1.0 and summary["storage_bytes"] > 0
    assert rows[0]["prepare_seconds"] > 0 and rows[1]["prepare_seconds"] == 0.0, "prepared once per book"


def test_skip_takes_a_held_out_sample_after_the_first_questions(tmp_path):
    dataset = small_dataset(tmp_path, 6)
    args = cli.parser().parse_args(["run", str(dataset), "--strategy", "bm25", "--out", str(tmp_path / "held-out"),
                                    "--retrieval-only", "--skip", "4", "--limit", "5"])
    assert args.method == "bm25", "--strategy, the flag's old name, still sets the method"
    rows = (harness.run(args) / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in rows] == ["q4", "q5"]
    questions = datasets.read(dataset)
    shuffled = datasets.sample(questions, 0)
    assert sorted(q.id for q in shuffled) == [q.id for q in questions] != [q.id for q in shuffled]
    assert datasets.sample(questions, 0, 2, 3) == shuffled[2:5], "the same seeded order, whatever is taken of it"


@pytest.mark.parametrize("method", ["elite", "vanilla", "embedding", "bm25", "mrag"])
def test_every_method_fills_the_budget_with_the_evidence(tmp_path, method):
    dataset, out = small_dataset(tmp_path, 1), tmp_path / method
    llm = ScriptedLLM({"terms": ["youngest son\ncat"], "judge": ["yes"], "importance": ["x"], "answer": ["B"]})
    harness.run(args_for(dataset, out, method, retrieval_only=True), llm, trigram_embed)
    [row] = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert row["prediction"] is None and 0 < row["context_tokens"] <= 200
    assert row["evidence_recall"] == 1.0, method


def test_the_report_page_has_its_table_and_charts(tmp_path):
    dataset = small_dataset(tmp_path, 2)
    runs = []
    for method in ("bm25", "vanilla"):
        runs.append(harness.run(args_for(dataset, tmp_path / method, method), ScriptedLLM({"answer": ["B"]}),
                              trigram_embed))
    page = tmp_path / "report.html"
    assert cli.main(["report", *map(str, runs), "--out", str(page)]) == 0
    text = page.read_text()
    assert text.count("<tr>") == 3 and text.count("class=\"plotly-graph-div\"") == 3
    playwright = pytest.importorskip("playwright.sync_api")
    from .test_browser import ARGS, CHROMIUM
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        view = browser.new_page()
        view.goto(page.as_uri())
        view.wait_for_selector("#chart-2 .main-svg")
        assert view.locator(".js-plotly-plot").count() == 3
        assert view.locator("#chart-0 .bars path").count() >= 2
        browser.close()


def test_settings_can_be_overridden_from_the_command_line():
    from elite_ui.errors import EliteError
    from elite_ui.methods.elite import PRESETS

    changed = overridden(PRESETS["laptop"], ["trim=true", "recall_index=25"])
    assert changed.answering.trim is True and changed.retrieval.recall_index == 25
    kept = PRESETS["laptop"].retrieval.neighbor_num
    assert changed.retrieval.neighbor_num == kept, "a setting not given keeps the preset's value"
    mrag = overridden(methods.defaults("mrag", "laptop"), ["order=similarity", "few_shot=no"])
    assert mrag.order == "similarity" and mrag.few_shot is False and mrag.window_tokens == 1024
    with pytest.raises(EliteError, match="order must be one of"):
        overridden(mrag, ["order=random"])
    with pytest.raises(EliteError, match="NAME=VALUE"):
        overridden(PRESETS["laptop"], ["nonsense=1"])


def test_a_failing_question_is_recorded_and_the_run_goes_on(tmp_path):
    from elite_ui.errors import ModelError

    dataset, out = small_dataset(tmp_path, 3), tmp_path / "run"
    harness.run(args_for(dataset, out), ScriptedLLM({"answer": ["B", ModelError("server down"), "B"]}), trigram_embed)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["error"] for r in rows] == [None, "server down", None]
    assert [r["correct"] for r in rows] == [True, False, True]


def test_bad_inputs_give_one_line_errors(tmp_path, capsys):
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json")
    cases = [["convert", "leval", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")],
             ["convert", "leval", str(broken), "--out", str(tmp_path / "o")],
             ["report", str(tmp_path / "no-run"), "--out", str(tmp_path / "r.html")],
             ["run", str(small_dataset(tmp_path, 1)), "--method", "elite", "--set", "recall_index=abc", "--out",
              str(tmp_path / "run")]]
    for argv in cases:
        assert cli.main(argv) == 2
        assert capsys.readouterr().err.strip().startswith("error: ")


def test_a_bootstrap_interval_holds_the_mean_and_a_paired_one_the_mean_difference():
    values = [1.0, 0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.5] * 5
    low, high = scoring.bootstrap_interval(values)
    assert low < sum(values) / len(values) < high and low >= 0 and high <= 1
    same_low, same_high = scoring.bootstrap_interval(values, values)
    assert same_low == same_high == 0.0
    better = [min(1.0, v + 0.25) for v in values]
    low, high = scoring.bootstrap_interval(better, values)
    assert 0 < low <= high


def test_novels_300_drafts_parse_and_reworded_means_at_most_one_shared_content_word_names_aside():
    """benchmarks/novels (issue 27): a draft block's first line and the rule its check holds ``reworded`` to.
    The set itself needs ../shared/corpus and is checked by ``python -m benchmarks.novels.check``."""
    from benchmarks.novels.build import HEADER, blocks
    from benchmarks.novels.check import SHARED_AT_MOST, question_words, shared_words

    draft = "fr-04 sh plot reworded\nQ: How did Victor's mother come to die?\nA: Fever.\nE: 416\nE: 419-420\n\n" \
            "wf-03 mh setting\nQ: Where?\nA: There.\nE: 1\nE: 900\n"
    first, second = blocks(draft)
    head = HEADER.match(first[0])
    assert (head["id"], head["book"], head["complexity"], head["aspect"], bool(head["reworded"])) == \
        ("fr-04", "fr", "sh", "plot", True)
    assert not HEADER.match(second[0])["reworded"] and [line for line in second if line.startswith("E:")] == \
        ["E: 1", "E: 900"]
    assert not HEADER.match("fr-4 sh plot") and not HEADER.match("fr-04 xh plot")
    assert question_words("How did Victor's mother come to die?") == ["mother", "come", "die"]
    evidence = ["On the third day my mother sickened", "she died"]
    assert shared_words("How did Victor's mother come to die?", evidence) == ["mother", "die"] and SHARED_AT_MOST == 1


def test_an_answer_is_judged_by_its_key_and_beyond_the_ceiling_by_its_abstention():
    """The answers benchmark judges what a reader sees: the key (each item in one of its forms) for a free-form
    answer; under a ceiling with the answer beyond it, "does not say", and never the key (the model's memory)."""
    from elite_ui.bench.datasets import Question
    from elite_ui.bench.scoring import judged, keyed

    assert keyed("Elizabeth walked across the fields.", [["walk", "foot"]])
    assert not keyed("Elizabeth rode there.", [["walk", "foot"]]) and keyed("x", None) is None
    assert keyed("Four or five thousand a year.", [["thousand"], ["four", "five"]])
    assert not keyed("Five hundred a year.", [["thousand"], ["four", "five"]]), "every item must be said"
    within = Question("q", "b", "How many daughters?", "Five.", key=[["five", "5"]], up_to="chapter 10")
    assert judged(within, "The Bennets have five daughters [S237].")["correct"]
    assert not judged(within, "The Bennets have four daughters.")["correct"]
    beyond = Question("q", "b", "Who does Elizabeth marry?", "Darcy.", key=[["Darcy"]], up_to="chapter 10",
                      beyond=True)
    said = judged(beyond, "Not found so far: the book up to chapter 10 does not say.")
    assert said == {"correct": True, "abstained": True, "from_beyond": False}
    assert judged(beyond, "Elizabeth marries Mr. Darcy.") == {"correct": False, "abstained": False,
                                                              "from_beyond": True}


def test_a_question_with_no_key_is_judged_by_how_much_of_a_reference_the_answer_says():
    """FairytaleQA's references are short phrases and a real model answers in a sentence: F1 would judge "The old
    man had a wen like a tennis-ball growing out of his cheek" wrong against "a wen"; recall judges it right, and an
    answer that says only half of a reference's content words ("net" of "bring in the net") wrong."""
    from elite_ui.bench.datasets import Question
    from elite_ui.bench.scoring import judged, recall

    wen = Question("q", "b", "What grew in his right cheek?", ["a wen"])
    verdict = judged(wen, "The good old man had a wen like a tennis-ball growing out of his right cheek. [S0]")
    assert verdict["correct"] and verdict["recall"] == 1.0 and verdict["f1"] < 0.5
    net = Question("q", "b", "Why did Matte go out?", ["To bring in the net"])
    assert recall("His wife said to set the herring-net in the sea.", "To bring in the net") == 0.5
    assert not judged(net, "His wife said to set the herring-net in the sea.")["correct"], "content words only"
    assert recall("The villagers were quiet, hard-working folk.", "quiet, hard-working folk") == 1.0
    assert recall("She cherished her pig.", "her cherish pig") == 1.0, "a word may be inflected"
    assert not judged(wen, "The passages do not say.")["correct"]


def test_the_apps_own_does_not_say_is_never_an_answers_key():
    """"Not found so far: the book up to pt. 1, ch. 33 does not say..." holds the word "book": judged, it is no
    right answer to a question whose key is a book, and beyond the ceiling it is an abstention, not a leak."""
    from elite_ui.bench.datasets import Question
    from elite_ui.bench.scoring import judged
    from elite_ui.book.model import Ceiling
    from elite_ui.methods.base import not_said

    stock = not_said(Ceiling(sentence=2886, label="S2886, pt. 1, ch. 33"))
    within = Question("q", "b", "What did Anna do?", "Read an English novel.", key=[["novel", "book", "read"]],
                      up_to="S2886")
    assert not judged(within, stock)["correct"]
    assert judged(within, f"She read an English novel [S12]. {stock}")["correct"]
    beyond = Question("q", "b", "What did Anna do?", "Read an English novel.", key=[["novel", "book", "read"]],
                      up_to="S2800", beyond=True)
    assert judged(beyond, stock) == {"correct": True, "abstained": True, "from_beyond": False}
    assert judged(beyond, "The passages do not say.")["correct"]


def test_the_answer_step_alone_reads_the_evidence_a_row_placed_and_is_checked_as_the_engine_checks(pride):
    """``benchmarks.answer_step``: a variant's answer step reads the recorded evidence under the question's ceiling,
    with the check off; the answer is then checked: a claim its evidence holds is kept, one it does not is left out
    and the reader sees "does not say"."""
    from benchmarks.answer_step import answered_again
    from elite_ui.bench.datasets import Question
    from elite_ui.methods.prompts import QUOTE_FIRST_WRITTEN
    from elite_ui.reading import part

    says = next(sid for sid in range(len(pride)) if "Netherfield Park is let" in pride.sentence(sid).text)
    read = part(pride, "chapter 10").book
    question = Question("q", "b", "What is let at last?", "Netherfield Park.", key=[["netherfield"]],
                        up_to="chapter 10")
    evidence = list(range(says - 2, says + 3))
    llm = ScriptedLLM({"answer": [f"[S{says}] {pride.sentence(says).text}\nAnswer: Netherfield Park is let.",
                                  "Answer: Pemberley is let, to a duke from the north."]})
    kept = answered_again(llm, trigram_embed, read, question, evidence, "quote_first=true")
    assert llm.log[0].messages[-1]["content"].endswith(QUOTE_FIRST_WRITTEN)
    assert kept["prediction"] == f"Netherfield Park is let [S{says}]." and kept["correct"] and not kept["left_out"]
    assert kept["evidence"] == evidence and kept["right_unchecked"]
    invented = answered_again(llm, trigram_embed, read, question, evidence, "quote_first=true")
    assert invented["left_out"] == 1 and invented["abstained"] and not invented["correct"]


def test_the_answer_step_alone_takes_the_novels_in_turn_and_leaves_a_passage_choice_to_the_engines_check(pride):
    """``benchmarks.answer_step``: a run stopped early has answered every novel alike; a variant whose check chooses
    the passage read (``passage_answers``) is checked in the engine, each invented answer left out there."""
    from benchmarks.answer_step import answered_again, in_turn
    from elite_ui.bench.datasets import Question
    from elite_ui.reading import part

    asked = {n: Question(n, n[0], "?", "") for n in ("a1", "a2", "a3", "b1", "c1", "c2")}
    assert [r["id"] for r in in_turn([{"id": n} for n in asked], asked)] == ["a1", "b1", "c1", "a2", "c2", "a3"]
    says = next(sid for sid in range(len(pride)) if "Netherfield Park is let" in pride.sentence(sid).text)
    read = part(pride, "chapter 10").book
    question = Question("q", "b", "What is let at last?", "Netherfield Park.", key=[["netherfield"]],
                        up_to="chapter 10")
    evidence = [*range(says - 2, says + 3), *range(says + 40, says + 43)]
    llm = ScriptedLLM({"answer": [f"Netherfield Park is let [S{says}]."]})
    kept = answered_again(llm, trigram_embed, read, question, evidence, "passage_answers=2")
    assert kept["correct"] and kept["prediction"] == kept["checked"] and not kept["left_out"]
    assert len(llm.log) == 1 and f"[S{says + 40}]" not in llm.log[0].messages[-1]["content"]
    llm = ScriptedLLM({"answer": ["Pemberley is let, to a duke from the north."]})
    invented = answered_again(llm, trigram_embed, read, question, evidence, "passage_answers=2")
    assert len(llm.log) == 3 and invented["abstained"] and invented["left_out"] == 1


def test_a_benchmark_takes_each_novels_questions_after_those_a_sample_took():
    from benchmarks.answers import per_novel

    questions = [datasets.Question(f"{book}{i}", book, "Who?", "x", None, [], "", "") for book in "ab"
                 for i in range(4)]
    assert [q.id for q in per_novel(questions, sample=1)] == ["a0", "b0"]
    assert [q.id for q in per_novel(questions, after=1)] == ["a1", "a2", "a3", "b1", "b2", "b3"]
    assert [q.id for q in per_novel(questions, after=1, sample=2)] == ["a1", "a2", "b1", "b2"]
