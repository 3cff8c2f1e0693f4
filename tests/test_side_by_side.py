"""Plain chunk RAG as an answering method, for the app's side-by-side view: what it places, what it costs, how it
answers, and the two columns it is shown in."""

import pytest

from elite_ui.app import render
from elite_ui.methods.chunk_rag import ChunkRag, ChunkSettings
from elite_ui.methods.elite import Elite, Settings
from elite_ui.models import ScriptedLLM
from elite_ui.settings import made

from .conftest import trigram_embed

SETTINGS = made(Settings, evidence_tokens=600, importance_samples=0, iter_max=1)
CHUNKS = ChunkSettings(evidence_tokens=600)


def chunk_rag(llm, ranker: str) -> ChunkRag:
    return ChunkRag(llm, CHUNKS, ranker=ranker, embed=trigram_embed)


@pytest.fixture(scope="module", params=["bm25", "embedding"])
def method(request, pride):
    llm = ScriptedLLM({"answer": ["Pemberley is Darcy's estate."], "terms": ["Pemberley"], "judge": ["yes"]})
    chosen = chunk_rag(llm, request.param)
    return llm, chosen, chosen.prepare(pride)


def test_chunks_are_placed_best_first_within_the_budget_and_answered_with_citations(method, pride):
    llm, chosen, prepared = method
    trace = chosen.run(pride, "What is Pemberley?", prepared=prepared)
    assert [e.kind for e in trace.events] == ["start", "retrieval", "llm_call", "answer", "done"]
    placed = trace.of("retrieval")[0].data.chunks
    assert placed and sum(llm.count_tokens(pride.span_text(c.first, c.last)) for c in placed) <= 600
    scores = [c.score for c in placed]
    assert scores == sorted(scores, reverse=True)
    answer = trace.answer
    assert answer.text == "Pemberley is Darcy's estate." and answer.citations
    assert {c.sentence_id for c in answer.citations} <= set(answer.evidence)
    assert trace.totals().llm_calls == 1
    if chosen.name == "bm25":
        assert "pemberley" in pride.span_text(placed[0].first, placed[0].last).lower()


def test_nothing_past_a_spoiler_ceiling_is_placed(method, pride):
    _, chosen, prepared = method
    cut = pride.up_to(500, "chapter 5")
    trace = chosen.run(cut, "What is Pemberley?", prepared=prepared)
    assert all(c.last <= 500 for c in trace.of("retrieval")[0].data.chunks)


def test_a_chosen_option_comes_from_the_same_answer_step(pride):
    llm = ScriptedLLM({"answer": ["(B)"]})
    trace = chunk_rag(llm, "bm25").run(pride, "What is Pemberley?", {"A": "A town", "B": "Darcy's estate"})
    assert trace.answer.choice == "B"


def test_two_columns_show_answer_evidence_cost_and_time(pride):
    llm = ScriptedLLM({"answer": ["It is an estate [S4000]."], "terms": ["Pemberley"], "judge": ["yes"]})
    elite = Elite(llm, SETTINGS, embed=trigram_embed).run(pride, "What is Pemberley?")
    bm25 = chunk_rag(llm, "bm25").run(pride, "What is Pemberley?")
    html = render.side_by_side(pride, [elite, bm25])
    assert html.count("class='column'") == 2 and "<h4>ELITE</h4>" in html and "<h4>BM25 chunks</h4>" in html
    assert html.count("LLM calls") == 2 and "class='cite'" in html
    assert "Chunk" not in render.trace_html(pride, elite.events)
    assert "BM25 chunks</b>" in render.trace_html(pride, bm25.events)
