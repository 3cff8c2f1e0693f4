"""Whole-book mode: the model reads the whole story when it fits, the book first so questions share its prefix."""

from __future__ import annotations

import pytest

from elite_ui.book import reading_ceiling
from elite_ui.errors import QuestionError
from elite_ui.methods import METHODS
from elite_ui.methods.whole import PRESETS, WholeBook, fits
from elite_ui.models import ScriptedLLM

TALE = ("The Owl and the Lamp\n\nCHAPTER I\n\nOld Mirek kept the lighthouse on the rock. Every night he trimmed the "
        "lamp.\n\nCHAPTER II\n\nOne winter an owl nested in the lamp room. Mirek fed it mice.\n\nCHAPTER III\n\n"
        "In spring the owl flew away, and Mirek wept.\n")


def test_a_short_book_is_read_whole_book_first(write_book):
    book = write_book(TALE)
    llm = ScriptedLLM({"answer": ["Mirek fed the owl mice [S5]."]}, n_ctx=2048)
    trace = WholeBook(llm, PRESETS["laptop"]).run(book, "What did Mirek feed the owl?")
    answer = trace.of("answer")[0].data
    assert "mice" in answer.text and answer.evidence == list(range(book.first_read, len(book)))
    prompts = [r.messages[-1]["content"] for r in llm.log]
    assert len(prompts) == 1 and prompts[0].startswith("The book:\n[S") and "Question: What did" in prompts[0]
    again = WholeBook(llm, PRESETS["laptop"]).run(book, "Who wept?")
    first, second = (r.messages[-1]["content"] for r in llm.log)
    shared = first.split("Question:")[0]
    assert second.startswith(shared), "both questions begin with the same book: the model reuses it"
    assert again.of("retrieval")[0].data.chunks[0].first == book.first_read
    from elite_ui.app import render

    assert "Whole book" in render.trace_html(book, again.events)
    assert fits(book, llm) is not None and METHODS["whole"].main and trace.of("start")[0].data.method == "whole"


def test_a_book_too_long_for_the_context_is_one_sentence(write_book, pride):
    llm = ScriptedLLM({"answer": ["x"]}, n_ctx=1024)
    with pytest.raises(QuestionError, match=r"more than the model's context of 1,024 leaves for it; ask with ELITE"):
        WholeBook(llm, PRESETS["laptop"]).run(pride, "Who is Darcy?")
    assert fits(pride, llm) is None and not llm.log
    book = write_book(TALE)
    last, label = reading_ceiling(book, "chapter 2")
    cut = WholeBook(ScriptedLLM({"answer": ["x"]}, n_ctx=2048), PRESETS["laptop"]).run(book.up_to(last, label), "Who?")
    assert max(cut.of("answer")[0].data.evidence) == last, "nothing past the ceiling is read"
