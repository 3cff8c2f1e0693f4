"""The reading notebook and what the browser keeps of a session: entries with their locations, the Markdown
export, the conversation as JSON and back, and the cached book reopened by its hash."""

from pathlib import Path

from elite_ui.app import notebook, render
from elite_ui.app.panels.exports import export
from elite_ui.app.state import Session, editable, run_label
from elite_ui.book import load_book, load_cached
from elite_ui.methods.elite import Elite, Settings
from elite_ui.models import ScriptedLLM

from .conftest import trigram_embed


def answered(pride):
    llm = ScriptedLLM({"terms": ["Pemberley"], "judge": ["yes"], "answer": ["Darcy's estate [S4000]."]})
    return Elite(llm, Settings(importance_samples=0, iter_max=1), embed=trigram_embed).run(pride, "What is Pemberley?")


def test_entries_carry_answers_quotes_and_where_they_are(pride):
    trace = answered(pride)
    entry = notebook.answer_entry(pride, trace, run_label(1, trace))
    assert entry["question"] == "What is Pemberley?" and entry["run"] == "1. What is Pemberley? (ELITE)"
    cited = pride.sentence(trace.answer.citations[0].sentence_id)
    assert entry["quotes"][0]["label"] == cited.citation
    assert entry["quotes"][0]["where"].startswith(f"chapter {cited.chapter + 1} ({cited.chapter_title})")
    quote = notebook.quote_entry(pride, 10)
    assert quote["kind"] == "quote" and quote["text"] == " ".join(pride.sentence(10).text.split())
    text = notebook.markdown([entry, quote])
    assert text.startswith("# Reading notebook") and "## Q: What is Pemberley?" in text
    assert f"> — [{cited.citation}] chapter {cited.chapter + 1}" in text and "## Passage, chapter" in text
    html = render.notebook_html(pride, [entry, quote])
    assert html.count("class='entry") == 2 and f"data-sid='{cited.id}'" in html
    assert "data-sid" not in render.notebook_html(None, [entry]), "no links into another book"


def test_the_conversation_survives_as_json(pride):
    trace = answered(pride)
    turns = [{"question": "What is Pemberley?", "answer": trace.answer}, {"question": "Why?", "error": "stopped."}]
    again = [notebook.turn_from(notebook.turn_record(t)) for t in turns]
    assert again[0]["answer"].text == trace.answer.text and again[0]["answer"].citations == trace.answer.citations
    assert again[1]["error"] == "stopped."
    assert notebook.turn_from({"question": "Lost?"})["error"] == "stopped."


def test_entries_sent_back_by_a_browser_are_checked_field_by_field(pride):
    trace = answered(pride)
    good = [notebook.answer_entry(pride, trace, "1. run"), notebook.quote_entry(pride, 10)]
    forged = [{"kind": "quote", "sentence": "1' onclick='x", "label": "S1", "where": "ch. 1", "text": "t",
               "book": pride.digest, "title": "P", "when": "now"},
              {"kind": "answer", "question": "Q?", "answer": 3}, "text", None]
    assert notebook.entries_from(good + forged) == good
    assert notebook.entries_from({"not": "a list"}) == []


def test_a_session_saves_its_book_hash_and_exports_its_notebook(pride):
    session = Session()
    session.book = pride
    trace = answered(pride)
    session.traces.append(trace)
    session.notebook.append(notebook.answer_entry(pride, trace, run_label(1, trace)))
    saved = session.saved()
    assert saved["book"] == pride.digest and saved["notebook"][0]["question"] == "What is Pemberley?"
    assert Path(export(session, "notebook")).read_text(encoding="utf-8").startswith("# Reading notebook")
    assert export(Session(), "notebook") is None
    assert editable(trace) == {1: [t.text for t in trace.of("terms")[0].data.new]}


def test_a_cached_book_reopens_by_its_hash_only(tmp_path, write_book):
    path = tmp_path / "book.txt"
    path.write_text("CHAPTER I\n\nOld Mirek keeps the light. He mended the lamp.\n", encoding="utf-8")
    book = load_book(path, cache_dir=tmp_path / "cache")
    again = load_cached(book.digest, tmp_path / "cache")
    assert again.text == book.text and again.digest == book.digest
    assert load_cached("0" * 64, tmp_path / "cache") is None
    assert load_cached("../../etc/passwd", tmp_path / "cache") is None
