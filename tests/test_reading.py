"""One way to ask a book (elite_ui/reading.py): what an empty ceiling means, said once, and the same question
asked through each front door (the page's handler, the API, the command line, the service the benchmarks and the
leak harness call) gives the same answer record."""

from __future__ import annotations

import json
import re

import pytest

from elite_ui import ask as cli
from elite_ui.app.api import Api
from elite_ui.app.config import Config
from elite_ui.app.page import compose
from elite_ui.app.panels.chat import on_ask
from elite_ui.app.render.common import ceiling_note
from elite_ui.app.render.export import markdown_export
from elite_ui.app.state import Model, Session
from elite_ui.book import load_book, reading_ceiling
from elite_ui.book.scope import asks_what_happens, named_part
from elite_ui.book.story import central
from elite_ui.errors import BookError, QuestionError
from elite_ui.methods import Tools
from elite_ui.methods.base import not_said
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.methods.lexical import targets, tilings
from elite_ui.methods.prompts import ASK, EXAMPLE_RECAP
from elite_ui.models import Request, ScriptedLLM
from elite_ui.reading import WHOLE_BOOK, Asked, part, reading
from elite_ui.records import answer_record
from elite_ui.settings import with_overrides

from .conftest import BOOKS, ROOT, trigram_embed

QUESTION, CEILING = "Where does Toad live?", "chapter 6"


def reply(request: Request) -> str:
    """The same reply to the same prompt, whoever asks: terms from the question, an answer that cites the first
    sentence of its evidence."""
    prompt = request.messages[-1]["content"]
    if request.purpose == "terms":
        return "Toad Hall\nriver"
    if request.purpose == "answer":
        first = re.search(r"\[S(\d+)\]\s*([^\n\[]+)", prompt)
        return f"{first.group(2).strip()} [S{first.group(1)}]" if first else "Nothing."
    return "yes"


def same(record: dict) -> dict:
    """An answer record without its seconds (the one field that differs between two runs)."""
    return {**record, "costs": {k: v for k, v in record["costs"].items() if k != "seconds"}}


def test_an_empty_ceiling_is_the_whole_book_and_a_ceiling_leaves_the_front_matter_out(pride):
    whole = part(pride, "")
    assert whole.book is pride and whole.where == WHOLE_BOOK and whole.book.ceiling is None
    last, label = reading_ceiling(pride, "chapter 10")
    cut = part(pride, "chapter 10")
    assert cut.where == f"up to {label}" and cut.book.ceiling.sentence == last and len(cut.book) == last + 1
    assert cut.book.searched_from == pride.first_read > 0, "the front matter is not searched under a ceiling"
    assert part(pride, "chapter 10", front=True).book.searched_from == 0
    again = part(pride, cut.book.ceiling)
    assert again.book.ceiling == cut.book.ceiling and again.where == cut.where, "a recorded ceiling cuts alike"
    with pytest.raises(BookError, match="chapter 900 is not in this book"):
        part(pride, "chapter 900")


def test_a_method_that_is_not_registered_is_one_sentence(pride):
    for method in ("nope", ["elite"], {"a": 1}):
        with pytest.raises(QuestionError, match="the method is one of elite"):
            reading(pride, Asked("Who?", method=method), ScriptedLLM(reply))


def test_the_page_the_api_the_command_line_and_the_service_give_the_same_answer_record(tmp_path, monkeypatch,
                                                                                     capsys, willows):
    """The same question under the same ceiling, on the same deterministic model, through every front door."""
    asked = Asked(QUESTION, CEILING)
    service = reading(willows, asked, ScriptedLLM(reply), Tools(embed=trigram_embed))
    expected = same(service.record(service.answer()))
    assert expected["up_to"].startswith("chapter 6") and expected["citations"], "the record says something"

    config = Config(scripted=str(ROOT / "tests" / "data" / "scripted.json"), cache_dir=str(tmp_path))
    model = Model(config)
    model.start()
    model.llm, model.embed = ScriptedLLM(reply), trigram_embed
    page, ctx = compose(config, model)

    session = Session()
    session.open(willows)
    values = {page.session.state: session, page.chat.question: QUESTION, page.chat.ceiling: CEILING,
              page.chat.front: False, page.method.method: "elite", page.method.compare: "none",
              **dict.fromkeys(page.options.boxes.values(), "")}
    list(on_ask(page, ctx, values))
    assert len(session.traces) == 1, "the page's handler answered"
    read = part(willows, CEILING).book
    assert same(answer_record(read, session.traces[-1])) == expected, "the page"

    api = Api(ctx)
    book_id = api.open_book({"path": str(BOOKS["the-wind-in-the-willows.txt"])}, None)["book"]
    *_, last = api.ask(book_id, QUESTION, CEILING)
    assert same(last) == expected, "the API"

    monkeypatch.setattr(cli, "open_llm", lambda *args, **kwargs: ScriptedLLM(reply))
    out = tmp_path / "answer.json"
    assert cli.main([str(BOOKS["the-wind-in-the-willows.txt"]), QUESTION, "--up-to", CEILING, "--json", str(out),
                     "--quiet"]) == 0
    assert same(json.loads(out.read_text(encoding="utf-8"))) == expected, "the command line"


def test_the_service_cuts_no_further_than_the_ceiling_and_names_from_the_part_read(willows):
    seen = []
    ready = reading(willows, Asked(QUESTION, CEILING), ScriptedLLM(reply), Tools(embed=trigram_embed),
                    names=lambda read: seen.append(len(read)) or None)
    assert seen == [len(ready.part.book)] and ready.part.book.ceiling is not None
    trace = ready.answer()
    assert all(c.sentence_id <= ready.part.book.ceiling.sentence for c in trace.answer.citations)
    assert load_book(BOOKS["the-wind-in-the-willows.txt"]).digest == willows.digest


def test_the_preset_follows_the_models_size_and_says_why():
    """A real model (a billion parameters or more, from its GGUF's own count or its server name) answers with the
    capable preset; the demo model, and a model of unknown size, with laptop."""
    from elite_ui.models.openai import size_in
    from elite_ui.reading import preset_for

    assert [size_in(n) for n in ("qwen2.5:7b", "Llama-3.1-8B-Instruct", "SmolLM2-135M-Instruct", "gpt-4o")] == [
        7.0, 8.0, 0.135, None]
    sized = ScriptedLLM(reply)
    for size, expected in ((1.5, ("capable", "the model has 1.5B parameters")),
                           (0.135, ("laptop", "the model has 135M parameters, a demo model")),
                           (None, ("laptop", "the model's size is unknown (choose 'capable' for a real model)"))):
        sized.parameters = size
        assert preset_for(sized) == expected
    sized.parameters = 7.0
    ready = reading(load_book(BOOKS["the-wind-in-the-willows.txt"]), Asked(QUESTION), sized,
                    Tools(embed=trigram_embed))
    assert ready.engine.settings == PRESETS["capable"], "no settings given: the model's preset"


def test_the_reader_turns_pages_and_opens_chapters_never_past_the_ceiling(tmp_path, willows):
    """Issue 38: the Reader pages through the book and opens any chapter up to the spoiler ceiling, not beyond; a
    page turned is shown, not highlighted as a citation."""
    from elite_ui.app.panels import reader as reader_panel

    config = Config(scripted=str(ROOT / "tests" / "data" / "scripted.json"), cache_dir=str(tmp_path))
    page, ctx = compose(config, Model(config))
    session = Session()
    session.open(willows)
    ceiling = reading_ceiling(willows, "chapter 2")[0]
    listed = reader_panel.on_chapters(page, ctx, "chapter 2", session)[page.reader.chapter].constructor_args[
        "choices"]
    assert [label.split(":")[0] for label, _ in listed] == ["front matter", "ch. 1", "ch. 2"]
    start = listed[2][1]
    shown = reader_panel.on_chapter(page, ctx, str(start), "chapter 2", session)[page.reader.view]
    assert f"data-sid='{start}'" in shown and "<mark" not in shown and session.reading[1] == start
    seen = [start]
    for _ in range(200):
        update = reader_panel.on_later(page, ctx, "chapter 2", session)
        if page.reader.view not in update:
            assert "as far as your spoiler ceiling" in update[page.chat.status]
            break
        seen.append(session.reading[1])
        assert max(map(int, re.findall(r"data-sid='(\d+)'", update[page.reader.view]))) <= ceiling
    assert seen == sorted(seen) and seen[-1] <= ceiling and len(seen) > 2, "pages turned on, up to the ceiling"
    reader_panel.on_earlier(page, ctx, "chapter 2", session)
    assert session.reading[1] < seen[-1], "and back"
    session.ceiling_text = "chapter 1"
    assert reader_panel.on_later(page, ctx, "no such place", session)[page.chat.status].startswith("This is as far"), \
        "a ceiling box that reads as no place: the ceiling kept for the book"


def test_a_question_that_names_a_part_of_the_book_is_answered_from_it_alone(willows):
    """No sentence says "chapter 2" or "begins": a question that names a chapter, or the book's opening, is
    answered from that part alone, and the trace, the record and a "does not say" answer name it; a part the book
    (up to the ceiling) does not have once names nothing."""
    chapter_2 = next(c for c in willows.chapters if c.number == 2)
    first, last, name = named_part(willows, "In chapter two, what does Toad show his friends?")
    assert first == chapter_2.first_sentence and name.startswith("chapter 2 (II. THE OPEN ROAD")
    assert willows.chapter_of[last] == willows.chapter_of[first] != willows.chapter_of[last + 1]
    for same_chapter in ("What does Toad buy in chapter 2?", "In the second chapter, who is there?",
                         "in chapter II, who is there", "What happens in Chapter 2?", "What happens in chap. 2?"):
        assert named_part(willows, same_chapter)[0] == first, same_chapter
    opening = named_part(willows, "What is Mole doing when the book begins?")
    assert opening[0] == willows.first_read and opening[1] >= next(c for c in willows.chapters
                                                                    if c.number == 2).first_sentence - 1
    assert opening[1] - opening[0] >= (len(willows) - willows.first_read) // 10, "at least a tenth of the story"
    for nothing in ("Where does Toad live?", "Is this the book I read?", "Which four wolves were left?",
                    "What happens in chapter 99?", "What happens between chapter 3 and chapter 5?",
                    "Who wrote the letter one morning?"):
        assert named_part(willows, nothing) is None, nothing

    ready = reading(willows, Asked("In chapter 2, what does Toad show his friends?"), ScriptedLLM(reply),
                    Tools(embed=trigram_embed))
    assert ready.part.where == f"in {name}"
    assert not ready.part.book.guarded, "no spoiler ceiling: an answer is checked as for the whole book"
    trace = ready.answer()
    assert trace.answer.evidence and all(first <= sid <= last for sid in trace.answer.evidence)
    record = ready.record(trace)
    assert record["within"] == name and record["up_to"] is None
    assert "The question names a part of the book" in ceiling_note(trace.events) and f"S{first} to S{last}" in \
        ceiling_note(trace.events)
    assert "Asked of chapter 2 (II. THE OPEN ROAD)" in markdown_export(willows, trace)
    assert not_said(ready.part.book.ceiling).startswith(f"Not found: {name} does not say")
    unscoped = reading(willows, Asked("In chapter 2, what does Toad show his friends?", named_part=False),
                       ScriptedLLM(reply), Tools(embed=trigram_embed))
    assert unscoped.part.book is willows

    under = reading(willows, Asked("In chapter 2, what does Toad show his friends?", "chapter 4"),
                    ScriptedLLM(reply), Tools(embed=trigram_embed))
    assert under.part.book.ceiling.within == name and under.part.book.ceiling.label.startswith("chapter 4")
    assert under.part.book.guarded
    beyond = reading(willows, Asked("In chapter 8, how does Toad escape?", "chapter 4"), ScriptedLLM(reply),
                     Tools(embed=trigram_embed))
    assert not beyond.part.book.ceiling.within and beyond.part.where.startswith("up to chapter 4"), \
        "a chapter past the ceiling names nothing: the book up to it is searched as it would have been"
    edited = reading(willows, Asked("In chapter 2, what does Toad show his friends?", ready.part.book.ceiling),
                     ScriptedLLM(reply), Tools(embed=trigram_embed))
    assert edited.part.book.ceiling == ready.part.book.ceiling, "a recorded run's part is cut again alike"
    last = reading(willows, Asked("What happened in the last chapter?", "chapter 4"), ScriptedLLM(reply),
                   Tools(embed=trigram_embed))
    assert last.part.book.ceiling.within.startswith("chapter 4"), "under a ceiling, the chapter read last"
    assert named_part(willows, "Who is there in the final chapter?")[1] == len(willows) - 1
    assert asks_what_happens("What happened in the last chapter?")


def test_a_question_that_asks_what_happens_in_a_part_may_name_it_by_its_title(willows):
    """A story collection's stories, and many chapters, are known by title: a question that asks only what happens
    there names that part, the title written as one (capitalised or quoted); a title that is also a character's
    name names no part in any other question."""
    wild_wood = next(c for c in willows.chapters if c.number == 3)
    for asked in ("What happens in The Wild Wood?", "Summarise 'the wild wood'.", "What is The Wild Wood about?"):
        first, _, name = named_part(willows, asked)
        assert first == wild_wood.first_sentence and name == "chapter 3 (III. THE WILD WOOD)", asked
    assert named_part(willows, "What happens in Mr. Badger?")[2].startswith("chapter 4")
    for other in ("What does Mr. Badger eat?", "Who gets lost in the Wild Wood?", "What happens to the Mole?",
                  "What happens in the wild wood?"):
        assert named_part(willows, other) is None, other
    assert asks_what_happens("What happens in The Wild Wood?", willows)
    assert not asks_what_happens("What happens in The Wild Wood?"), "a title is known only from the book"
    asked = []
    both = with_overrides(PRESETS["laptop"], part_extracts=5, part_recaps=True)
    trace = reading(willows, Asked("What happens in The Wild Wood?", settings=both),
                    ScriptedLLM(lambda request: asked.append(request) or reply(request)),
                    Tools(embed=trigram_embed)).answer()
    assert sum(c.pinned for e in trace.of("chunks") for c in e.data.chunks) and \
        any(m["content"] == EXAMPLE_RECAP for r in asked if r.purpose == "answer" for m in r.messages), \
        "read as a part named by its number is"


def test_a_chapter_number_of_several_volumes_names_the_one_the_reader_is_in(write_book):
    """Emma numbers its chapters afresh in each volume: "chapter 2" names the last chapter 2 up to the ceiling, the
    volume the reader is in, or without a ceiling the first; a volume named with it names that volume's."""
    text = "Volume I\n\n" + "".join(f"CHAPTER {r}\n\nThe ship sailed on day {r}.\n\n" for r in ("I", "II"))
    text += "Volume II\n\n" + "".join(f"CHAPTER {r}\n\nThe storm came on night {r}.\n\n" for r in ("I", "II"))
    book = write_book("A Voyage\n\n" + text)
    question = "What happens in chapter 2?"
    first, last, name = named_part(book, question)
    assert name.startswith("volume 1, chapter 2") and "day II" in book.span_text(first, last)
    for ceiling, volume in (("volume 2, chapter 2", "volume 2"), ("volume 2, chapter 1", "volume 1")):
        cut = part(book, ceiling).book
        first, last, name = named_part(cut, question)
        assert name.startswith(f"{volume}, chapter 2"), ceiling
    assert named_part(book, "What happens in chapter 2 of volume 2?")[2].startswith("volume 2, chapter 2")
    assert named_part(part(book, "volume 2, chapter 1").book, "In volume 2, chapter 2, what comes?") is None, \
        "a part past the ceiling names nothing"


def test_a_question_that_asks_what_happens_in_a_part_reads_its_central_sentences_first(willows):
    """"What happens in chapter 3?" has no word to search for: with ``part_extracts`` the part's most central
    sentences (LexRank, the Story tab's extracts) are pinned as evidence first, said in the trace, and with
    ``part_recaps`` it is answered as the Story tab's recap is written; a question about something in the part, a
    choice, or the presets (both off: within the noise, docs/benchmark.md) search and answer as before."""
    for summary in ("What happens in chapter 3?", "Summarise chapter 3.", "What is chapter three about?",
                    "Can you summarize the third chapter?", "Give me a short summary of chapter III",
                    "What happened in chapter 3?", "How does the novel open?", "What happens when the story begins?",
                    "Tell me what happens in chapter 3", "recap chapter 3"):
        assert asks_what_happens(summary), summary
    for specific in ("What happens to Toad in chapter 3?", "What does Mole see in chapter 3?", "What happens next?",
                     "Summarise the Wild Wood.", "How does Mole feel when the story begins?",
                     "What is the Wild Wood about in chapter 3?"):
        assert not asks_what_happens(specific), specific
    chapter_3 = next(c for c in willows.chapters if c.number == 3)
    asked = []
    both = with_overrides(PRESETS["laptop"], part_extracts=5, part_recaps=True)
    ready = reading(willows, Asked("What happens in chapter 3?", settings=both),
                    ScriptedLLM(lambda request: asked.append(request) or reply(request)), Tools(embed=trigram_embed))
    trace = ready.answer()
    book = ready.part.book
    assert all(book.story_from <= sid < len(book) for sid in trace.answer.evidence), "chapter 3's alone"
    answering = next(r for r in asked if r.purpose == "answer").messages
    assert answering[2]["content"] == EXAMPLE_RECAP and ASK in answering[-1]["content"], \
        "answered as the Story tab's recap is written (part_recaps)"
    extracts = central(book, list(range(book.story_from, len(book))), 5)
    assert len(extracts) == 5 and book.story_from == chapter_3.first_sentence
    pinned = [c for c in trace.of("chunks")[0].data.chunks if c.pinned]
    assert all(any(c.first <= sid <= c.last for c in pinned) for sid in extracts)
    assert set(extracts) <= set(trace.answer.evidence), "pinned evidence is placed first"
    note = next(e.data.message for e in trace.events if e.kind == "warning")
    assert note.startswith("the question asks what happens in chapter 3 (III. THE WILD WOOD")
    for same_search in (Asked("What does Mole see in chapter 3?", settings=both),
                        Asked("What happens in chapter 3?"),
                        Asked("What happens in chapter 3?", options={"A": "Mole is lost", "B": "Toad sings"},
                              settings=both)):
        asked.clear()
        again = reading(willows, same_search, ScriptedLLM(lambda request: asked.append(request) or reply(request)),
                        Tools(embed=trigram_embed)).answer()
        assert not any(c.pinned for e in again.of("chunks") for c in e.data.chunks), same_search
        assert not any(m["content"] == EXAMPLE_RECAP for r in asked for m in r.messages), same_search


def test_elite_s_fixed_chunks_begin_where_the_search_does(pride):
    """Chunk fusion's fixed chunks tile the whole book: one that straddles where the search begins (the front
    matter under a ceiling, a part a question named) begins there, so that ELITE places none of what lies before (it
    had placed Jane Eyre's "Note to the third edition" for "What happens in chapter 1?")."""
    book = part(pride, "chapter 10").book
    settings = PRESETS["laptop"]
    assert any(a < book.searched_from <= b for spans in tilings(book, settings.fusion.fuse_chunks, 2)
               for a, b in spans), "a chunk of the tilings straddles the front matter's end"
    tiled = Elite(ScriptedLLM(reply), settings).tiled(book, targets(book, ["Bennet", "Netherfield", "preface"]))
    assert len(tiled) == 2 and all(a >= book.searched_from for spans, _ in tiled for a, _ in spans)
    assert tiled[0][0][0][0] == book.searched_from


@pytest.mark.parametrize(("method", "question"), [("bm25", "In chapter 3, what does Mr. Darcy say of Elizabeth?"),
                                                   ("bm25", "What is Pemberley?"),
                                                   ("whole", "In chapter 3, what does Mr. Darcy say of Elizabeth?")])
def test_every_method_reads_only_the_part_searched(method, question, pride, tmp_path):
    """Under a ceiling the front matter, and for a question that names a chapter everything outside it, is left
    out by the chunk methods and whole-book mode too (the book up to chapter 10 is too long for whole-book mode),
    not only by ELITE's word index (M-RAG: tests/test_mrag.py)."""
    ready = reading(pride, Asked(question, "chapter 10", method=method),
                    ScriptedLLM(lambda request: "[]" if request.purpose != "answer" else "Tolerable."),
                    Tools(embed=trigram_embed, cache_dir=str(tmp_path)))
    book = ready.part.book
    assert ready.engine.names.find("Darcy"), "every method's grounding check reads the character names"
    assert book.ceiling.within.startswith("chapter 3") if "chapter 3" in question else not book.ceiling.within
    assert book.searched_from >= pride.first_read > 0
    answer = next(e.data for e in ready.events() if e.kind.value == "answer")
    assert answer.evidence and all(book.searched_from <= sid <= book.ceiling.sentence for sid in answer.evidence)
