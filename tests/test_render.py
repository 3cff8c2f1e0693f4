"""What the page shows, rendered from events: escaped, highlighted, linked; and the app's hosted-mode rules."""

import html
import re
from types import SimpleNamespace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from elite_ui.app import render
from elite_ui.app.config import Config
from elite_ui.app.notebook import Entry, Quote, Turn, entries_from
from elite_ui.app.panels.exports import export
from elite_ui.app.panels.model_panel import note
from elite_ui.app.render.common import colour
from elite_ui.app.state import Model, Session
from elite_ui.book import reading_ceiling
from elite_ui.errors import ModelError
from elite_ui.methods.elite import PRESETS, Elite, Settings
from elite_ui.methods.trace import Kind
from elite_ui.models import ModelChoice, ScriptedLLM
from elite_ui.settings import flat, made

from .conftest import trigram_embed


def test_highlight_marks_inflected_forms_and_escapes_everything(pride):
    text = 'He <b>laughed</b> & laughs; "laughter" <script>x</script>'
    html = render.highlight(pride, text, ["laugh"])
    assert html.count("<mark>") == 2 and "<mark>laughed</mark>" in html and "<mark>laughs</mark>" in html
    assert "<b>" not in html and "&lt;script&gt;" in html and "&amp;" in html


def test_citations_link_only_sentences_that_exist(pride):
    html = render.linked("Seen in [S10] and [S99999999] <i>", pride)
    assert html.count("class='cite'") == 1 and "data-sid='10'" in html
    assert "[S99999999]" in html and "&lt;i&gt;" in html


def test_a_long_sentence_folds_under_show_more_with_its_marks(pride):
    text = "She laughed. " + "word " * 200 + "and laughing still <b>."
    html = render.highlight(pride, text, ["laugh"])
    shown, _, rest = html.partition("<details class='more'><summary>show more</summary>")
    assert "<mark>laughed</mark>" in shown and "<mark>laughing</mark>" in rest and rest.endswith("</details>")
    assert len(re.sub("<[^>]+>", "", shown)) <= 400 and "&lt;b&gt;" in rest
    assert "<details" not in render.highlight(pride, "She laughed.", ["laugh"])


def test_reader_view_highlights_the_sentence_in_its_chapter(pride):
    html = render.reader(pride, 1000)
    assert html.count("<mark id='cited' class='s' data-sid='1000'>") == 1 and pride.sentence(1000).chapter_name in html
    assert html.count("<span class='s' data-sid=") > 5, "every sentence can be selected by its ID"
    assert pride.sentence(1000).chapter_name == f"chapter {pride.sentence(1000).chapter - 1}", "after two front blocks"
    assert render.reader(pride, -5) == "<div class='reader'>No such sentence.</div>"
    capped = render.reader(pride, 1000, ceiling=1000)
    assert capped.count("<mark id='cited'") == 1 and pride.sentence(1001).text not in capped
    assert render.reader(pride, 1001, ceiling=1000) == "<div class='reader'>No such sentence.</div>"


def run(pride):
    replies = {"terms": ["Netherfield\nBingley"], "judge": ["no", "yes: enough"], "breadth": ["ball"],
               "depth": ["Netherfield"], "importance": ["A", "B"], "answer": ["Bingley rents it [S600]."]}
    settings = made(Settings, recall_index=4, neighbor_num=1, iter_max=3, importance_samples=1)
    return Elite(ScriptedLLM(replies), settings, embed=trigram_embed).run(pride, "Who rents <Netherfield>?")


def test_trace_panel_has_a_block_per_iteration_with_chips_hits_and_verdicts(pride):
    trace = run(pride)
    html = render.trace_html(pride, trace.events)
    assert html.count("<details open class='iteration'") == 2
    assert "chip question new" in html and "chip breadth" in html
    assert "title='written by the model for the question, new'>Bingley<" in html, "the model's, not the question's"
    said = next(e.data.said() for e in trace.events if e.kind == Kind.TERMS)
    assert said == "terms Netherfield (model), Bingley (model), rents (question)"
    assert html.count("<tr class='hit'>") == 8 and "<mark>" in html
    assert "not sufficient" in html and "sufficient: enough" in html and "iteration(s)" in html
    assert len(render.importance_figure(pride, trace.events).data) == 2
    assert len(render.book_map(pride, trace.events).data) == 3


def test_chat_and_markdown_export(pride):
    trace = run(pride)
    chat = render.chat(pride, [Turn("Who rents <Netherfield>?", answer=trace.answer)])
    assert "&lt;Netherfield&gt;" in chat and "class='cite'" in chat
    markdown = render.markdown_export(pride, trace)
    assert markdown.startswith("# Who rents \\<Netherfield>?") and "## Citations" in markdown
    assert "Iteration 2: judge sufficient" in markdown
    assert "Asked of the whole book · method: ELITE · model: scripted" in markdown
    cut = pride.up_to(*reading_ceiling(pride, "chapter 10"))
    assert "Asked of the book up to chapter 10 " in render.markdown_export(pride, run(cut))


HOSTILE = "<script>alert(1)</script> ![x](http://127.0.0.1:9/x.png) [click](javascript:alert(1)) <img src=x> $$x$$"


def test_the_markdown_export_is_inert_in_a_viewer(pride):
    """Book text, the model's answer and its terms may carry markup: a Markdown viewer shows it as text."""
    replies = {"terms": [HOSTILE], "judge": [f"no: {HOSTILE}", "yes"], "breadth": ["ball"], "depth": ["x"],
               "answer": [f"{HOSTILE} [S600]"]}
    trace = Elite(ScriptedLLM(replies), made(Settings, recall_index=4, neighbor_num=1, iter_max=2, importance_samples=0)
                  ).run(pride, HOSTILE)
    shown = MarkdownIt().render(render.markdown_export(pride, trace))
    assert "<script" not in shown and "<img" not in shown and "<a " not in shown and "href" not in shown
    assert shown.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 2, "the question and the answer"
    assert "![x](http://127.0.0.1:9/x.png)" in shown
    assert "<h2>Answer</h2>" in shown and "<strong>" in shown, "our own Markdown still works"


def test_the_notebook_export_is_inert_in_a_viewer(pride):
    """A hostile book's title and text, a question and an answer in the notebook: its Markdown export shows them
    as text in a CommonMark viewer, fetching and running nothing."""
    hostile = {"kind": "answer", "question": HOSTILE, "answer": f"{HOSTILE}\n\n# heading\n- list", "run": HOSTILE,
               "book": pride.digest, "title": HOSTILE, "when": "2026-12-01 10:00",
               "quotes": [{"sentence": 3, "label": HOSTILE, "where": HOSTILE, "text": HOSTILE}]}
    passage = {"kind": "quote", "sentence": 4, "label": "S4", "where": HOSTILE, "text": HOSTILE,
               "book": pride.digest, "title": HOSTILE, "when": "2026-12-01 10:01"}
    shown = MarkdownIt().render(render.notebook_markdown(entries_from([hostile, passage])))
    assert "<script" not in shown and "<img" not in shown and "<a " not in shown and "href" not in shown
    assert "<li>" not in shown and shown.count("<h2>") == 2, "a reply's newlines make no list or heading"
    assert shown.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 8


def test_each_iteration_has_one_colour_in_the_trace_the_chart_and_the_book_map(pride):
    trace = run(pride)
    html = render.trace_html(pride, trace.events)
    chart, book_map = render.importance_figure(pride, trace.events), render.book_map(pride, trace.events)
    for iteration in (1, 2):
        hue = colour(iteration)
        assert f"background:{hue}" in html
        assert next(b for b in chart.data if b.name == f"iteration {iteration}").marker.color == hue
        assert next(s for s in book_map.data if s.name == f"iteration {iteration}").marker.color == hue
    labels = [x for bar in chart.data for x in bar.x]
    assert all(re.fullmatch(r"ch\. \d+, \d+%( \(\d\))?", x) for x in labels) and not any("S" in x for x in labels)
    assert "<div class='legend'>Terms: " in html, "the chips' colours are explained on the page"
    ticks = book_map.layout.xaxis.ticktext
    assert ticks[0] == "ch. 1" and "preface" not in " ".join(ticks).lower()


def test_importance_below_zero_is_drawn_at_zero(pride):
    trace = run(pride)
    for event in trace.of("importance"):
        event.data.importance = -0.4
    assert min(y for bar in render.importance_figure(pride, trace.events).data for y in bar.y) == 0


def test_exports_are_named_by_hash_or_by_book_and_question(pride):
    session = Session()
    session.book, session.traces = pride, [run(pride)]
    path = export(session, "json")
    assert path.endswith(".json") and "trace-" in path and "Netherfield" not in path.rsplit("/", 1)[-1]
    readable = export(session, "md", readable=True).rsplit("/", 1)[-1]
    assert readable == f"{pride.title} - Who rents Netherfield.md"
    assert export(Session(), "md") is None


def test_the_model_note_is_honest_about_the_demo_model():
    model = Model(Config())
    assert "No model is loaded" in note(model)
    model.llm, model.choice = ScriptedLLM({}), ModelChoice("embedded")
    assert "often wrong" in note(model) and "open-model" in note(model)
    model.choice = ModelChoice("server", server="http://localhost:8080")
    assert "often wrong" not in note(model) and "its size unknown" in note(model)
    model.llm.parameters = 1.5
    assert "1.5B parameters" in note(model) and "the capable settings preset" in note(model), "issue 38: its size"


def test_hosted_mode_lets_no_visitor_change_the_model():
    model = Model(Config(hosted=True))
    for choice in (ModelChoice("gguf", path="/etc/passwd"), ModelChoice("server", server="http://elsewhere:8080"),
                   ModelChoice("embedded")):
        with pytest.raises(ModelError, match="chosen by its host"):
            model.load(choice)
    assert model.llm is None


def test_loading_a_model_releases_the_one_it_replaces(monkeypatch):
    opened = []

    class Held(ScriptedLLM):
        closed = False

        def close(self):
            self.closed = True

    monkeypatch.setattr("elite_ui.app.state.open_model", lambda choice: opened.append(Held({})) or opened[-1])
    model = Model(Config())
    for _ in range(3):
        model.load(ModelChoice("embedded"))
    assert [llm.closed for llm in opened] == [True, True, False] and model.llm is opened[-1]


def test_the_settings_panel_maps_to_settings():
    import gradio as gr

    from elite_ui.app.panels.controls import create_controls
    from elite_ui.methods.elite import PRESETS

    with gr.Blocks():
        controls = create_controls(Settings, PRESETS, "laptop", "Preset", "")
    shown = {"recall_index": 25, "neighbor_num": 2, "deep_search_index": 5, "deep_search_num": 10, "voter_num": 10,
             "iter_max": 5, "importance_samples": 3, "importance_chunks": 0, "evidence_tokens": 2000.0,
             "trim": True, "question_words": False, "name_variants": False, "model_terms": True,
             "option_words": True, "ranking": "bm25", "reach": 2.0, "judge": True, "next_terms": "judge",
             "fuse_chunks": 60.0, "grounding": False, "feedback_terms": 5.0, "rerank": True, "proximity": 0.5,
             "model_weight": 0.25, "fuse_tilings": 2.0, "passage_weight": 0.5, "best_neighbours": False,
             "evidence_order": "rank", "abstain": True, "terms_example": True, "quote_first": True,
             "passage_check": True, "imagined_passage": True, "part_extracts": 3.0, "part_recaps": True}
    assert set(shown) == set(controls.fields)
    values = {controls.preset: "laptop"} | {controls.fields[name]: value for name, value in shown.items()}
    s = SimpleNamespace(**flat(controls.settings(values)))
    assert (s.recall_index, s.iter_max, s.evidence_tokens, s.trim, s.question_words, s.name_variants) == \
        (25, 5, 2000, True, False, False)
    assert (s.ranking, s.reach, s.next_terms, s.option_words, s.fuse_chunks) == ("bm25", 2, "judge", True, 60)
    assert not s.grounding and s.feedback_terms == 5 and s.rerank and s.proximity == 0.5
    assert s.model_weight == 0.25 and s.fuse_tilings == 2 and isinstance(s.fuse_tilings, int)
    assert s.passage_weight == 0.5 and s.best_neighbours is False
    assert s.evidence_order == "rank" and s.abstain is True and s.terms_example is True and s.quote_first is True
    assert s.passage_check is True and s.passage_odds == 1.0, "the check on the page; its threshold is not"
    assert s.imagined_passage is True
    assert s.part_extracts == 3 and isinstance(s.part_extracts, int) and s.part_recaps is True


def test_the_m_rag_trace_shows_keys_budget_audit_and_paragraph_links(write_book, tmp_path):
    import json

    from elite_ui.methods.mrag import Mrag, MragSettings

    book = write_book("CHAPTER I\n\n" + "Mirek mended the lamp with copper wire. The sea rose. <i>Storm</i>.\n\n" * 12)
    reply = json.dumps([{"key": "Who mended <b>the lamp</b>?", "value": "Mirek mended the lamp with copper wire.",
                         "paragraphs": [1]}, {"key": "Who sank Rome?", "value": "Pirates sank Rome.",
                                              "paragraphs": [2]}])
    engine = Mrag(ScriptedLLM({"extract": [reply], "answer": ["Mirek [S3]."]}),
                  MragSettings(paragraph_tokens=40, window_tokens=200, budget_tokens=120), embed=trigram_embed,
                  cache_dir=tmp_path)
    list(engine.build(book))
    trace = engine.run(book, "Who mended the lamp?")
    html = render.trace_html(book, trace.events)
    assembly = trace.of("assembly")[0].data
    assert html.count("class='seg ") == len(assembly.placed) > 0
    assert "Who mended &lt;b&gt;the lamp&lt;/b&gt;?" in html and "<b>the lamp" not in html
    assert "flagged" in html and "supported" in html and ">[P1]</a>" in html
    assert "M-RAG index" in html and "coverage" in html
    figure = render.importance_figure(book, trace.events)
    assert len(figure.data[0].y) == len(assembly.matches)
    assert "M-RAG placed" in render.markdown_export(book, trace)


def test_the_status_line_says_in_words_what_the_method_is_doing():
    from types import SimpleNamespace as Event

    from elite_ui.app.answering import status_line
    from elite_ui.methods.trace import Notice

    assert status_line(Event(kind=Kind.JUDGE, iteration=2)) == "Iteration 2: the model judged the evidence…"
    warned = status_line(Event(kind=Kind.WARNING, iteration=1, data=Notice("no new search terms were found.")))
    assert warned == "Iteration 1: no new search terms were found."
    assert status_line(Event(kind=Kind.RETRIEVAL, iteration=0)) == "Passages ranked…"


def test_the_model_used_last_loads_at_start_and_a_gone_one_falls_back(tmp_path):
    from elite_ui.models import ModelChoice

    config = Config(cache_dir=str(tmp_path))
    model = Model(config)
    model.remember(ModelChoice("gguf", path=str(tmp_path / "gone.gguf")))
    assert model.configured() == model.remembered() == ModelChoice("gguf", path=str(tmp_path / "gone.gguf"))
    model.start()
    assert model.choice.kind == "embedded" and "the model used last could not be opened" in model.status
    model.llm.close()
    assert Model(Config(cache_dir=str(tmp_path), model="x.gguf")).configured().kind == "gguf", "flags come first"


def test_quotes_clipped_text_notebook_labels_and_lists_read_as_they_should():
    from elite_ui.app.render.common import clipped, quoted
    from elite_ui.app.render.notebook import cited_answer
    from elite_ui.methods.parsing import whole_sentences

    assert quoted("“And you really live by the river?”") == "“And you really live by the river?”"
    assert quoted("Let us _talk_ of <it>.") == "“Let us <em>talk</em> of &lt;it&gt;.”"
    assert clipped("a cousin of mine came", 6) == "a…" and clipped("a cousin of mine came", 9) == "a cousin…"
    assert clipped("short", 9) == "short"
    entry = Entry("answer", "ab" * 32, "", "", answer="She walks S102: and rows [S495].",
                  quotes=[Quote(102, "ch. 3, S102", "", ""), Quote(495, "ch. 9, S495", "", "")])
    shown = cited_answer(entry)
    assert shown.count("class='cite'") == 2 and "[ch. 3, S102]" in shown and "S495]." not in shown
    assert whole_sentences("The Rat rows. Who rows: 1. the Rat; 2. the Mole; 4.") == "The Rat rows."


def test_a_readers_server_must_answer_and_offer_the_model_before_it_is_loaded(tmp_path):
    from elite_ui.errors import ModelError
    from elite_ui.models import ModelChoice
    from elite_ui.testing.browser import free_port
    from elite_ui.testing.server import BatchingServer

    model = Model(Config(cache_dir=str(tmp_path)))
    with pytest.raises(ModelError, match="did not list its models"):
        model.load(ModelChoice("server", server=f"http://127.0.0.1:{free_port()}", name="default"))
    assert model.llm is None and "ready" not in model.status
    with BatchingServer(latency=0.0) as server:
        with pytest.raises(ModelError, match="does not offer 'llama3'; it offers stub"):
            model.load(ModelChoice("server", server=server.url, name="llama3"))
        assert model.load(ModelChoice("server", server=server.url, name="stub")).startswith("ready: stub")


def test_what_the_book_says_shows_before_the_answer_is_written(pride):
    from elite_ui.methods.trace import Kind

    engine = Elite(ScriptedLLM({"terms": ["Netherfield"], "answer": ["Mr. Bingley takes it [S600]."]}),
                   PRESETS["laptop"], embed=trigram_embed)
    kinds = [e.kind for e in engine.ask(pride, "Who takes Netherfield?")]
    assert kinds.index(Kind.QUOTES) < kinds.index(Kind.ANSWER_DELTA) < kinds.index(Kind.ANSWER)
    quotes = next(e.data.quotes for e in engine.ask(pride, "Who takes Netherfield?") if e.kind == Kind.QUOTES)
    turn = Turn("Who takes Netherfield?", quotes=quotes)
    page = render.chat(pride, [turn])
    assert "What the book says" in page and "being written" in page and page.count("<blockquote>") == len(quotes)
    assert Elite(ScriptedLLM({"terms": ["Netherfield"]}), PRESETS["laptop"], embed=trigram_embed).run(
        pride, "Who takes Netherfield?").answer.quotes == quotes, "the answer keeps the quotes shown before it"


def test_a_turn_kept_by_the_browser_keeps_what_the_grounding_check_did():
    from elite_ui.methods.trace import Answer

    turn = Turn("Who?", answer=Answer("Darcy. Wickham.", checked=2, unsupported=["Wickham."]))
    again = Turn.from_record(turn.record())
    assert (again.answer.checked, again.answer.unsupported) == (2, ["Wickham."])
    hostile = turn.record() | {"answer": turn.record()["answer"] | {"unsupported": "x", "checked": True}}
    assert Turn.from_record(hostile).answer.unsupported == [] and Turn.from_record(hostile).answer.checked == 0


def test_each_iteration_opens_with_one_plain_sentence(pride):
    trace = run(pride)
    said = re.findall(r"<p class='plain'>(.*?)</p>", render.trace_html(pride, trace.events))
    assert len(said) == trace.totals().iterations == 2
    assert said[0].startswith("Searched for Netherfield, Bingley: ") and "sentences matched" in said[0]
    assert said[0].endswith("the judge found them not enough.") and said[1].endswith("found them enough.")


def test_a_books_underscored_italics_show_as_italics_in_the_trace_and_the_reader(pride):
    """Issue 38: Project Gutenberg's "_My_ overhearings" showed its underscores."""
    sid = next(i for i in range(len(pride)) if "_My_ overhearings" in pride.sentence(i).text)
    hit = render.highlight(pride, pride.sentence(sid).text, ["overhearings"])
    assert "<em>My</em> <mark>overhearings</mark>" in hit and "_My_" not in hit
    assert "<em>My</em> overhearings" in render.reader(pride, sid)


def test_a_quote_has_one_pair_of_quotation_marks():
    """Issue 38: mismatched quote marks around quotes (a sentence that ends a line of dialogue got two closing)."""
    from elite_ui.app.render.common import quoted

    assert quoted("He said no more.”") == "“He said no more.”"
    assert quoted("“Is he married?”") == "“Is he married?”" and quoted("It rained.") == "“It rained.”"


PIECES = ["a", "Bb", "S1", "12", " ", "\n", "\n\n", "    ", "\t", "http", "https", "www", "mailto", "@", ".", ",", ":",
          "/", "//", "(", ")", "[", "]", "!", "#", "*", "_", "~", "|", "$", "&", "amp;", "#39;", "<", ">", "=", "-",
          "+", "`", "\\", "'", '"', "x.com", "1.", "2)", "{", "}", "[S12]", "[S3, ch. 2]", "ch. 4"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
@example(",@x.com")  # an e-mail address whose local part is a comma, found by a run of the suite
def test_text_made_inert_renders_as_itself_in_a_gfm_viewer(text):
    """Whatever a book, a model or a reader wrote: escaped for Markdown, a GFM viewer (tables, strikethrough, web
    and e-mail addresses linked) shows it as its own words, no markup; a citation label, "(" and ":" stay bare."""
    viewer = MarkdownIt("gfm-like")
    viewer.linkify.set({"fuzzy_link": False})  # GFM links "www." and "http://" addresses, not a bare "x.com"
    shown = viewer.render(render.inert_markdown(text))
    assert set(re.findall(r"</?(\w+)", shown)) <= {"p", "br"}, shown
    assert html.unescape(re.sub(r"<[^>]+>", " ", shown)).split() == text.split()


def test_text_made_inert_escapes_only_what_would_be_markup():
    said = "He said (twice): 'Come at 3:30' [S600, ch. 3] and paid $5 at www.inn.com [x](y)"
    assert render.inert_markdown(said) == ("He said (twice): 'Come at 3:30' [S600, ch. 3] and paid \\$5 at "
                                           "www\\.inn.com \\[x\\](y)")
