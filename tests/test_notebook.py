"""The reading notebook and what the browser keeps of a session: entries with their locations, the Markdown
export, the conversation as JSON and back, and the cached book reopened by its hash."""

from pathlib import Path

from markdown_it import MarkdownIt

from elite_ui.app import notebook, render
from elite_ui.app.notebook import Turn
from elite_ui.app.panels.exports import export
from elite_ui.app.receipts import Receipts
from elite_ui.app.state import Session, editable, run_label
from elite_ui.book import load_book, load_cached, reading_ceiling
from elite_ui.methods.elite import Elite, Settings
from elite_ui.models import ScriptedLLM
from elite_ui.settings import made

from .conftest import trigram_embed


def answered(pride):
    llm = ScriptedLLM({"terms": ["Pemberley"], "judge": ["yes"], "answer": ["Darcy's estate [S4000]."]})
    settings = made(Settings, importance_samples=0, iter_max=1)
    return Elite(llm, settings, embed=trigram_embed).run(pride, "What is Pemberley?")


def test_entries_carry_answers_quotes_and_where_they_are(pride):
    trace = answered(pride)
    entry = notebook.answer_entry(pride, trace, run_label(1, trace))
    assert entry.question == "What is Pemberley?" and entry.run == "1. What is Pemberley? (ELITE)"
    cited = pride.sentence(trace.answer.citations[0].sentence_id)
    assert entry.quotes[0].label == cited.citation
    assert entry.quotes[0].where.startswith(f"{cited.chapter_name} ({cited.chapter_title})")
    quote = notebook.quote_entry(pride, 1000)
    assert quote.kind == "quote" and quote.quotes[0].text == " ".join(pride.sentence(1000).text.split())
    text = render.notebook_markdown([entry, quote])
    shown = MarkdownIt().render(text)
    assert text.startswith("# Reading notebook") and "<h2>Q: What is Pemberley?</h2>" in shown
    assert f"— [{cited.citation}] {cited.chapter_name}" in shown and "<h2>Passage, chapter" in shown
    html = render.notebook_html([entry, quote])
    assert html.count("class='entry") == 2 and f"data-sid='{cited.id}'" in html
    assert f"data-book='{pride.digest[:16]}'" in html, "each link opens the book it was made in"


def test_the_conversation_survives_as_json(pride):
    trace = answered(pride)
    turns = [Turn("What is Pemberley?", {"A": "a house", "B": "a horse"}, answer=trace.answer),
             Turn("Why?", error="the model server failed."), Turn("And?", stopped=True)]
    again = [Turn.from_record(t.record()) for t in turns]
    assert again[0].answer.text == trace.answer.text and again[0].answer.citations == trace.answer.citations
    assert again[0].options == {"A": "a house", "B": "a horse"}
    assert again[1].error == "the model server failed." and again[2].stopped
    assert Turn.from_record({"question": "Lost?"}).stopped
    html = render.chat(pride, again)
    assert "<li><span class='label'>A</span> a house</li>" in html
    assert "class='stopped'" in html and html.count("class='error'") == 1


def test_entries_sent_back_by_a_browser_are_checked_field_by_field(pride):
    trace = answered(pride)
    good = [notebook.answer_entry(pride, trace, "1. run"), notebook.quote_entry(pride, 10)]
    forged = [{"kind": "quote", "sentence": "1' onclick='x", "label": "S1", "where": "ch. 1", "text": "t",
               "book": pride.digest, "title": "P", "when": "now"},
              {"kind": "answer", "question": "Q?", "answer": 3}, "text", None]
    assert notebook.entries_from([e.record() for e in good] + forged) == good
    assert notebook.entries_from({"not": "a list"}) == []


def test_a_session_saves_its_book_hash_and_exports_its_notebook(pride, tmp_path):
    session = Session()
    session.book = pride
    trace = answered(pride)
    session.traces.append(trace)
    session.notebook.append(notebook.answer_entry(pride, trace, run_label(1, trace)))
    receipts = Receipts(tmp_path)
    saved = session.saved(receipts)
    assert receipts.valid(pride.digest, saved["receipts"][pride.digest]), "a receipt for the book"
    assert not receipts.valid(pride.digest, "0" * 64) and not receipts.valid(pride.digest, None)
    assert not Receipts(tmp_path / "another app").valid(pride.digest, saved["receipts"][pride.digest])
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


def test_each_book_of_a_visit_keeps_its_own_conversation_and_ceiling(pride, write_book, tmp_path):
    other = write_book("A Short Tale\n\nCHAPTER I\n\nThe owl flew.\n\nCHAPTER II\n\nThe owl slept.\n")
    session = Session()
    session.open(pride)
    session.turns.append(Turn("What is Pemberley?"))
    session.ceiling_text = "chapter 3"
    chapter_3 = reading_ceiling(pride, "chapter 3")[0]
    assert session.ceiling_in(pride) == chapter_3 and pride.sentence(chapter_3 + 1).chapter_ref == "ch. 4"
    session.open(other)
    assert session.turns == [] and session.ceiling_text == "" and session.ceiling_in(other) is None
    assert session.ceiling_in(pride) == chapter_3, "kept on the shelf"
    assert session.books() == [("A Short Tale (txt)", other.digest), (f"{pride.title} (txt)", pride.digest)]
    session.open(pride)
    assert [t.question for t in session.turns] == ["What is Pemberley?"] and session.ceiling_text == "chapter 3"
    saved = session.saved(Receipts(tmp_path))
    assert saved["ceiling"] == "chapter 3" and saved["shelf"][other.digest]["label"] == "A Short Tale (txt)"
