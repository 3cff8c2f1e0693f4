"""Editable search: the reader removes or adds terms, pins passages and searches again from an iteration; the
new run keeps the earlier iterations, says what changed, and leaves the first run as it was."""

from dataclasses import asdict

from elite_ui.methods.elite import Edit, Elite, Settings
from elite_ui.models import ScriptedLLM
from elite_ui.settings import made, with_overrides

from .conftest import trigram_embed

SETTINGS = made(Settings, recall_index=4, neighbor_num=1, deep_search_index=2, deep_search_num=3, iter_max=2,
                    max_terms=5, importance_samples=1, question_words=False)
REPLIES = {"terms": ["Darcy\nletter"], "importance": ["A letter."], "judge": ["No, not enough."],
           "breadth": ["Wickham\nPemberley"], "depth": ["housekeeper"], "trim": ["S1"], "answer": ["He wrote [S1]."]}


def first_run(pride):
    llm = ScriptedLLM(REPLIES)
    return llm, Elite(llm, SETTINGS, embed=trigram_embed).run(pride, "What did Darcy's letter say?")


def test_a_rerun_from_the_second_iteration_keeps_the_first_and_uses_the_reader_s_terms(pride):
    llm, run = first_run(pride)
    before = run.of("terms")[1].data.new
    assert [t.text for t in before[:2]] == ["Wickham", "Pemberley"]
    calls = len(llm.log)
    pin = 2000
    edit = Edit(run.events, 2, [t.text for t in before[1:]] + ["Lambton"], pinned=[pin])
    again = Elite(llm, SETTINGS, embed=trigram_embed).run(pride, "What did Darcy's letter say?", edit=edit)
    assert [e.data for e in again.of("terms")[:1]] == [e.data for e in run.of("terms")[:1]]
    assert [h.sentence_id for h in again.of("collection")[0].data.hits] == \
        [h.sentence_id for h in run.of("collection")[0].data.hits]
    changed = again.of("edit")[0].data
    assert asdict(changed) == {"run": 1, "iteration": 2, "added": ["Lambton"], "removed": ["Wickham"], "pinned": [pin]}
    second = again.of("terms")[1].data.new
    assert [(t.text, t.origin) for t in second] == [(t.text, t.origin) for t in before[1:]] + [("Lambton", "reader")]
    assert second[-1].by == "reader"
    hits = again.of("collection")[1].data.hits
    searched = {w for t in second for w in t.words}
    assert hits and all(searched & set(h.matched) for h in hits)
    assert all("wickham" not in h.matched for h in hits)
    pinned = [c for c in again.of("chunks")[1].data.chunks if c.pinned]
    assert len(pinned) == 1 and pinned[0].first <= pin <= pinned[0].last
    assert pin in again.answer.evidence
    purposes = [r.purpose for r in llm.log[calls:]]
    assert "terms" not in purposes and purposes.count("judge") == 1


def test_the_first_run_is_left_as_it_was(pride):
    llm, run = first_run(pride)
    snapshot = run.to_json()
    Elite(llm, SETTINGS, embed=trigram_embed).run(pride, "What did Darcy's letter say?",
                                                  edit=Edit(run.events, 2, ["Lambton"], pinned=[5]))
    assert run.to_json() == snapshot


def test_a_pinned_passage_survives_the_model_s_trimming(pride):
    llm, run = first_run(pride)
    llm.replies["trim"] = ["S299"]
    trimming = with_overrides(SETTINGS, trim=True, iter_max=1)
    again = Elite(llm, trimming, embed=trigram_embed).run(pride, "What did Darcy's letter say?",
                                                          edit=Edit(run.events, 1, ["Darcy"], pinned=[300]))
    trim = again.of("trim")[0].data
    assert trim.by_model and {299, 300, 301} <= set(trim.kept)


def test_a_rerun_from_the_first_iteration_searches_only_the_reader_s_terms(pride):
    llm, run = first_run(pride)
    again = Elite(llm, SETTINGS, embed=trigram_embed).run(pride, "What did Darcy's letter say?",
                                                          edit=Edit(run.events, 1, ["Lambton"], run=2))
    assert [t.text for t in again.of("terms")[0].data.new] == ["Lambton"]
    assert again.of("edit")[0].data.removed == ["Darcy", "letter"] and again.of("edit")[0].data.run == 2
    assert all(h.matched == ["lambton"] for h in again.of("collection")[0].data.hits)


def test_a_question_about_a_passage_pins_it_first_and_shows_it_at_the_top(pride):
    import pytest

    from elite_ui.app import render
    from elite_ui.errors import QuestionError
    from elite_ui.methods import METHODS

    passage = [3000, 3001, 3002]
    llm = ScriptedLLM(REPLIES)
    run = Elite(llm, SETTINGS, embed=trigram_embed).run(pride, "What happens here?", about=[*passage, 10**9])
    assert run.of("start")[0].data.about == passage, "sentences that do not exist are dropped"
    first = run.of("chunks")[0].data.chunks[0]
    assert first.pinned and first.first <= 3000 and first.last >= 3002 and run.of("terms")[0].data.new
    assert set(passage) <= set(run.answer.evidence), "pinned passages are never trimmed"
    told = 'The question is about the passage [S3000 to S3002]: "' + " ".join(pride.sentence(3000).text.split()[:5])
    asked = {call.data.purpose: call.data.prompt for call in run.of("llm_call")}
    assert told in asked["terms"] and asked["answer"].count(told) == 2, "the model is told which passage is meant"
    searched = {t.text.lower() for e in run.of("terms") for t in e.data.new}
    assert searched and not searched & {"question", "passage", "s3000", "s3002"}, "the mention's own words are not"
    assert run.of("start")[0].data.question == "What happens here?" and run.answer.quotes[0].sentence_id in passage
    html = render.trace_html(pride, run.events)
    assert html.index("Asked about this passage") < html.index("Iteration 1")
    with pytest.raises(QuestionError, match="answered by ELITE"):
        METHODS["bm25"].engine(ScriptedLLM(REPLIES)).run(pride, "What happens here?", about=passage)
