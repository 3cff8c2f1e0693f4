"""M-RAG with a scripted model: paragraphs and windows, extraction with coverage, retries and fallback, the
resumable store, assembly under the budget in both orders, and the fidelity audit."""

import contextlib
import io
import itertools
import json
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from elite_ui.errors import Cancelled, EliteError
from elite_ui.methods.mrag import Marker, Mrag, MragSettings, audit, parse_markers
from elite_ui.methods.mrag.index import windows
from elite_ui.models import ScriptedLLM

from .conftest import trigram_embed

CHAPTERS = {
    "I": "Anna rows the green boat across the lake at dawn. The boat leaks near the stern. She bails with a tin cup. "
         "Her brother Tomas waits on the pier with seven fish.",
    "II": "The lighthouse keeper, Old Mirek, counts ships every night. He wrote forty names in his ledger. "
          "A storm broke the lamp in March. Mirek mended it with copper wire.",
    "III": "At the harvest fair Tomas sold the fish for three coins. Anna bought a red scarf. "
           "They walked home by the mill as the bells rang.",
}


@pytest.fixture
def lake(write_book):
    text = "\n\n".join(f"CHAPTER {n}\n\n" + "\n\n".join([body] * 3) for n, body in CHAPTERS.items())
    return write_book("The Lake\n\nby Nobody\n\n" + text)


def listed(request) -> list[str]:
    """The numbered paragraphs of an extraction prompt, in order."""
    prompt = request.messages[-1]["content"].split("Paragraphs:\n", 1)[-1]
    prompt = prompt.split("\n\nExample", 1)[0].rsplit("\n\nMarkers:", 1)[0]
    return re.findall(r"^\[\d+\] (.*)$", prompt, re.M)


def faithful(request):
    """One marker per listed paragraph: its first sentence as the value, citing it."""
    if request.purpose != "extract":
        return "Anna rows the boat [S1]."
    return json.dumps([{"key": f"What happens: {text[:40]}?", "value": text.split(". ")[0] + ".", "paragraphs": [n]}
                       for n, text in enumerate(listed(request), 1)])


def mrag(replies, tmp_path, **settings):
    defaults = dict(paragraph_tokens=30, window_tokens=90, marker_tokens=200)
    return Mrag(ScriptedLLM(replies), MragSettings(**(defaults | settings)), embed=trigram_embed, cache_dir=tmp_path)


def build(engine, book):
    return list(engine.build(book))


def test_windows_pack_paragraphs_up_to_the_budget_and_never_leave_one_out():
    assert windows([50, 50, 50, 200, 10], 100) == [(0, 1), (2, 2), (3, 3), (4, 4)]
    assert windows([10] * 5, 1000) == [(0, 4)]
    assert windows([], 100) == []


def test_paragraphs_cover_every_sentence_once_and_never_cross_a_chapter(lake, tmp_path):
    engine = mrag(faithful, tmp_path)
    paras, planned = engine.plan(lake)
    assert paras[0][0] == 0 and paras[-1][1] == len(lake) - 1
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(paras))
    assert all(lake.chapter_of[first] == lake.chapter_of[last] for first, last in paras)
    assert planned[0][0] == 0 and planned[-1][1] == len(paras) - 1


def test_a_faithful_extraction_covers_every_paragraph_and_passes_the_audit(lake, tmp_path):
    engine = mrag(faithful, tmp_path)
    events = build(engine, lake)
    progress = [e.data for e in events if e.kind == "index_progress"]
    assert progress[0].done == 0 and progress[-1].left == 0 and progress[-1].eta_seconds == 0
    index = engine.index(lake)
    stats = index.stats()
    assert stats["coverage"] == 1.0 and stats["fallback_rate"] == 0 and stats["chunk_markers"] == 0
    assert stats["support_rate"] == 1.0 and stats["flagged_share"] == 0
    assert stats["llm_calls"] == len(index.windows) and stats["store_bytes"] > 0
    assert index.vectors.shape[0] == len(index.markers)


def test_a_window_under_the_threshold_is_retried_for_its_uncovered_paragraphs_then_falls_back(lake, tmp_path):
    def first_only(request):
        texts = listed(request)
        return json.dumps([{"key": "What does the first paragraph say?", "value": texts[0], "paragraphs": [1]}])

    engine = mrag(first_only, tmp_path, retries=1, window_tokens=200)
    window = next(e.data for e in build(engine, lake) if e.kind == "window")
    size = window.last - window.first + 1
    assert size >= 3 and window.attempts == 2
    assert window.coverage_first == pytest.approx(1 / size) and window.coverage == pytest.approx(2 / size)
    assert window.fallback == size - 2
    chunks = [m for m in window.markers if m.source == "chunk"]
    assert len(chunks) == size - 2 and all(m.key == m.value for m in chunks)
    retry_prompt = engine.llm.log[1].messages[-1]["content"]
    assert "[1]" in retry_prompt and len(listed(engine.llm.log[1])) == size - 1


def test_unreadable_replies_make_every_paragraph_a_chunk_marker(lake, tmp_path):
    engine = mrag({"extract": ["I am a helpful assistant! " * 20]}, tmp_path, retries=2)
    build(engine, lake)
    stats = engine.index(lake).stats()
    assert stats["model_markers"] == 0 and stats["fallback_rate"] == 1.0 and stats["coverage"] == 0.0
    assert stats["llm_calls"] == 3 * stats["windows"]


def test_replies_are_read_defensively():
    reply = ('Sure! Here they are: [{"key": "Who rows?", "value": "Anna rows.", "paragraphs": ["P2", 9]},'
             ' {"key": "Who rows?", "value": "Anna rows.", "paragraphs": [2]},'
             ' {"key": "Why did the Hale family move to Milton?", "value": "copied", "paragraphs": [1]},'
             ' {"key": "", "value": "no key"}, "junk", {"question": "What leaks?", "answer": "The boat", "indices": 1'
             ' ')
    found, dropped = parse_markers(reply, 3)
    assert found == [("Who rows?", "Anna rows.", [2]), ("What leaks?", "The boat", [1])]
    assert dropped == 4
    assert parse_markers("no json at all", 3) == ([], 0)
    wrapped = '{"markers": [{"key": "Who keeps the light?", "value": "Mirek.", "paragraphs": [3]}]}'
    assert parse_markers(wrapped, 3)[0] == [("Who keeps the light?", "Mirek.", [3])]


def test_the_audit_tells_a_faithful_value_from_an_invented_one(lake):
    source = "Old Mirek, the lighthouse keeper, wrote forty names in his ledger. A storm broke the lamp in March."
    kept = audit(lake, Marker("Who keeps the ledger?", "The keeper Mirek writes names in a ledger; storms broke lamps.",
                        [0]), source, 0.6)
    assert kept.support == 1.0 and not kept.flagged and kept.name_support == 1.0
    invented = audit(lake, Marker("Who sails?", "Captain Haddock sailed 300 miles to Marseille with twelve sailors.",
                                  [0]), source, 0.6)
    assert invented.flagged and invented.support < 0.2 and invented.name_support == 0.0
    assert invented.number_support == 0.0 and {"haddock", "marseille", "300"} <= set(invented.missing)


def test_a_marker_citing_nothing_takes_the_paragraph_it_matches_or_is_dropped(lake, tmp_path):
    def uncited(request):
        texts = listed(request)
        return json.dumps([{"key": "Which paragraph says this?", "value": texts[-1]},
                           {"key": "Pirates?", "value": "Pirates sank Rome."}])

    engine = mrag(uncited, tmp_path, retries=0)
    window = next(e.data for e in build(engine, lake) if e.kind == "window")
    model = [m for m in window.markers if m.source == "model"]
    assert len(model) == 1 and model[0].cited_by == "overlap" and model[0].paragraphs == [window.last]
    assert window.dropped == 1


def test_a_stopped_extraction_resumes_without_redoing_a_finished_window(lake, tmp_path):
    cancel = threading.Event()
    calls = []

    def stopping(request):
        calls.append(request)
        if len(calls) == 2:
            cancel.set()
        return faithful(request)

    engine = mrag(stopping, tmp_path)
    engine.cancel = cancel
    with pytest.raises(Cancelled):
        build(engine, lake)
    planned = len(engine.plan(lake)[1])
    assert planned > 3
    partial = engine.index(lake)  # stopped while the second window's reply was streaming
    assert len(partial.windows) == 1 and partial.reach < len(lake)
    with pytest.raises(EliteError, match="1 of"):
        engine.run(lake, "Who counts ships?")
    engine.cancel = threading.Event()
    calls.clear()
    events = build(engine, lake)
    assert len(calls) == planned - 1
    assert next(e.data for e in events if e.kind == "index_progress").resumed == 1
    store = engine.folder(lake) / "windows.jsonl"
    lines = store.read_text().splitlines(keepends=True)
    store.write_text("".join(lines[:-1]) + lines[-1][:40])  # the last window torn by a crash mid-write
    events = build(engine, lake)
    assert [e.iteration for e in events if e.kind == "window"] == [planned - 1], "only the torn window is redone"
    store.open("a").write('{"index": 99, "torn')
    assert len(engine.index(lake).windows) == planned


def test_the_store_survives_torn_characters_truncated_vectors_and_an_unwritable_cache(lake, tmp_path):
    engine = mrag(faithful, tmp_path)
    build(engine, lake)
    planned = len(engine.plan(lake)[1])
    store = engine.folder(lake) / "windows.jsonl"
    lines = store.read_bytes().splitlines(keepends=True)
    last = "Ärger — ein Fluß".encode()
    store.write_bytes(b"".join(lines[:-1]) + lines[-1][:-3] + last[:2])  # torn inside a two-byte character
    assert [e.iteration for e in build(engine, lake) if e.kind == "window"] == [planned - 1]
    engine.index(lake)
    keys = engine.folder(lake) / "keys.npy"
    keys.write_bytes(keys.read_bytes()[:100])  # a crash while the vectors were written in place
    assert len(engine.index(lake).vectors) == len(engine.index(lake).markers)
    assert not list(engine.folder(lake).glob("*.partial.npy"))
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    with pytest.raises(EliteError, match="cache folder cannot be written"):
        build(mrag(faithful, blocked), lake)


def test_a_second_build_of_the_same_index_waits_and_resumes_instead_of_redoing_it(lake, tmp_path):
    started, calls = threading.Event(), []

    def slow(request):
        started.set()
        time.sleep(0.3)
        return faithful(request)

    first = threading.Thread(target=build, args=(mrag(slow, tmp_path), lake))
    first.start()
    assert started.wait(10)
    events = build(mrag(lambda request: calls.append(request) or faithful(request), tmp_path), lake)
    first.join()
    assert calls == [] and not [e for e in events if e.kind == "window"], "nothing is extracted twice"
    assert events[-1].data.done == events[-1].data.total


def test_the_store_is_named_by_content_model_prompt_and_extraction_settings(lake, tmp_path):
    base = mrag(faithful, tmp_path)
    assert base.folder(lake) == mrag(faithful, tmp_path, budget_tokens=50, order="similarity").folder(lake)
    assert base.folder(lake) != mrag(faithful, tmp_path, few_shot=False).folder(lake)
    assert base.folder(lake).name.isalnum()


def placed(trace):
    assembly = trace.of("assembly")[0].data
    by = {m.marker: m for m in assembly.matches}
    return assembly, [by[n] for n in assembly.placed]


@pytest.mark.parametrize("order", ["position", "similarity"])
def test_values_fill_the_budget_in_either_order(lake, tmp_path, order):
    engine = mrag(faithful, tmp_path, budget_tokens=60, order=order)
    build(engine, lake)
    trace = engine.run(lake, "Who mended the lamp with copper wire?")
    assembly, chosen = placed(trace)
    assert chosen and assembly.spent <= 60 and assembly.spent == sum(m.tokens for m in chosen)
    matches = assembly.matches
    assert [m.rank for m in matches] == sorted(m.rank for m in matches)
    assert all(a.similarity >= b.similarity for a, b in itertools.pairwise(matches))
    index = engine.index(lake)
    if order == "position":
        firsts = [min(index.markers[m.marker].paragraphs) for m in chosen]
        assert firsts == sorted(firsts)
    else:
        assert [m.rank for m in chosen] == sorted(m.rank for m in chosen)
    answer = trace.answer
    assert answer.text and answer.citations and set(answer.evidence) <= set(range(len(lake)))
    assert trace.of("start")[0].data.method == "mrag"


def test_flagged_values_can_be_replaced_by_their_paragraphs_and_audited_by_the_model(lake, tmp_path):
    def invented(request):
        if request.purpose == "extract":
            return json.dumps([{"key": f"What about {t[:30]}?", "value": "Captain Haddock sailed to Marseille.",
                                "paragraphs": [n]} for n, t in enumerate(listed(request), 1)])
        return "no, Haddock is not in the passage" if request.purpose == "audit" else "Nobody knows."

    engine = mrag(invented, tmp_path, budget_tokens=200, audit_llm=True)
    build(engine, lake)
    assert engine.index(lake).stats()["flagged_share"] == 1.0
    trace = engine.run(lake, "Who sailed to Marseille?")
    audits = trace.of("audit")
    assert audits and all(a.data.supported_share == 0.0 for a in audits)
    engine.settings = MragSettings(**{**engine.settings.__dict__, "replace_flagged": True, "audit_llm": False})
    _, chosen = placed(engine.run(lake, "Who sailed to Marseille?"))
    assert chosen and all(m.replaced and "Haddock" not in m.text for m in chosen)


def test_multiple_choice_and_a_missing_index(lake, tmp_path):
    engine = mrag(lambda r: faithful(r) if r.purpose == "extract" else "(B)", tmp_path)
    with pytest.raises(EliteError, match="not built yet"):
        engine.run(lake, "Who counts ships?")
    build(engine, lake)
    trace = engine.run(lake, "Who counts ships?", {"A": "Anna", "B": "Mirek"})
    assert trace.answer.choice == "B"
    with pytest.raises(EliteError, match="order"):
        MragSettings(order="random")


def test_a_book_of_one_giant_sentence_still_fits_each_extraction_call(write_book, tmp_path):
    book = write_book(" ".join(["word", "mirek", "lamp", "storm"] * 4000))
    engine = Mrag(ScriptedLLM({"extract": ["[]"]}, n_ctx=2048), MragSettings(window_tokens=1024, marker_tokens=256),
                  embed=trigram_embed, cache_dir=tmp_path)
    build(engine, book)
    assert all(engine.llm.count_messages(r.messages) + 256 <= 2048 for r in engine.llm.log)
    assert engine.index(book).stats()["chunk_markers"] >= 1
    with pytest.raises(EliteError, match="no room"):
        Mrag(ScriptedLLM({}, n_ctx=600), MragSettings(marker_tokens=512), cache_dir=tmp_path).plan(book)


def test_under_a_spoiler_ceiling_no_marker_from_later_paragraphs_is_placed(lake, tmp_path):
    from elite_ui.book import reading_ceiling

    engine = mrag(faithful, tmp_path, budget_tokens=2000)
    build(engine, lake)
    prepared = engine.prepare(lake)
    index = prepared.state
    read = lake.up_to(*reading_ceiling(lake, "chapter 2"))
    _, chosen = placed(engine.run(read, "Who mended the lamp?", prepared=prepared))
    assert chosen and all(index.paragraphs[p][1] < len(read) for m in chosen for p in m.paragraphs)
    _, everything = placed(engine.run(lake, "Who mended the lamp?", prepared=prepared))
    assert len(everything) > len(chosen)
    second = next(c for c in lake.chapters if c.number == 2).first_sentence
    named = lake.up_to(len(read) - 1, "", first=second, within="chapter 2")
    _, within = placed(engine.run(named, "Who mended the lamp?", prepared=prepared))
    assert within and all(index.paragraphs[p][0] >= second for m in within for p in m.paragraphs), \
        "nor, for a question that names a chapter, from paragraphs before it"
    assert len(within) < len(chosen)


def test_under_a_ceiling_the_index_is_built_and_asked_up_to_it_first(lake, tmp_path):
    """A build up to a reader's ceiling extracts the windows that reach it (in the book's order) and its questions
    are answered at once; a question of the whole book says how far the index reaches; building on finishes it."""
    from elite_ui.book import reading_ceiling

    engine = mrag(faithful, tmp_path, budget_tokens=2000)
    read = lake.up_to(*reading_ceiling(lake, "chapter 1"))
    events = build_through(engine, lake, len(read))
    windows_built = [e.iteration for e in events if e.kind == "window"]
    planned = engine.plan(lake)[1]
    assert windows_built == list(range(len(windows_built))) and 0 < len(windows_built) < len(planned)
    last = [e.data for e in events if e.kind == "index_progress"][-1]
    assert (last.done, last.total, last.left) == (len(windows_built), len(windows_built), 0), "this build's windows"
    trace = engine.run(read, "Who bails with a tin cup?")
    assert trace.answer.text
    with pytest.raises(EliteError, match=f"reaches chapter 1 so far \\({len(windows_built)} of {len(planned)} "):
        engine.run(lake, "Who counts ships?")
    second = lake.up_to(*reading_ceiling(lake, "chapter 2"))
    with pytest.raises(EliteError, match="build it on to your ceiling"):
        engine.run(second, "Who counts ships?")
    events = build(engine, lake)
    assert [e.iteration for e in events if e.kind == "window"] == list(range(len(windows_built), len(planned)))
    first = next(e.data for e in events if e.kind == "index_progress")
    assert (first.done, first.total, first.resumed) == (len(windows_built), len(planned), len(windows_built))
    assert engine.run(lake, "Who counts ships?").answer.text


def build_through(engine, book, through):
    return list(engine.build(book, through=through))


def test_the_command_line_builds_the_index_up_to_the_ceiling_and_answers(write_book, tmp_path, monkeypatch, capsys):
    from elite_ui import ask

    lake = write_book("The Lake\n\nby Nobody\n\n" + "\n\n".join(
        f"CHAPTER {n}\n\n" + "\n\n".join([body] * 40) for n, body in zip(range(1, 13), itertools.cycle(
            CHAPTERS.values()))))
    monkeypatch.setattr(ask, "open_llm", lambda *a, **k: ScriptedLLM(faithful))
    monkeypatch.setattr(ask, "default_cache_dir", lambda: tmp_path / "cache")
    assert ask.main([str(tmp_path / "book.txt"), "--method", "mrag", "--up-to", "chapter 1", "Who bails?"]) == 0
    said = capsys.readouterr()
    assert '"She bails with a tin cup." [S' in said.out and "ch. 2]" not in said.out
    store, = (tmp_path / "cache" / "mrag").glob("*/windows.jsonl")
    engine = Mrag(ScriptedLLM(faithful), ask.preset("mrag", "capable"), embed=trigram_embed, cache_dir=tmp_path)
    assert 0 < len(store.read_text().splitlines()) < len(engine.plan(lake)[1])


def test_an_answer_is_checked_against_every_sentence_of_the_paragraphs_its_values_come_from(lake, tmp_path):
    """A value says a whole paragraph; the answer citing its label (the paragraph's first sentence) rests on what
    the paragraph says further on, and its citation moves to the sentence that says it."""
    def replies(request):
        if request.purpose == "extract":
            return faithful(request)
        label = re.search(r"\[S(\d+)\] The lighthouse keeper", request.messages[-1]["content"]).group(1)
        return f"Mirek mended the lamp with copper wire [S{label}]."

    engine = mrag(replies, tmp_path, budget_tokens=2000)
    build(engine, lake)
    answer = engine.run(lake, "What did Mirek mend the lamp with?").answer
    assert not answer.unsupported and "copper wire" in lake.sentence(answer.citations[0].sentence_id).text


def test_readers_who_store_the_key_vectors_at_once_leave_one_whole(tmp_path, monkeypatch):
    """Two readers of a hosted app asking of a built index at once each embed its keys and store them: each writes a
    file of its own, so the one stored is one reader's whole, never half of each."""
    from elite_ui.methods.mrag import store as stored

    save, both = np.save, threading.Barrier(2)

    def halting(file, array):
        data = io.BytesIO()
        save(data, array)
        with open(file, "wb") if isinstance(file, str | Path) else contextlib.nullcontext(file) as out:
            out.write(data.getvalue()[:200])
            out.flush()
            both.wait(5)
            out.write(data.getvalue()[200:])

    monkeypatch.setattr(stored.np, "save", halting)
    store = stored.Store(tmp_path)
    arrays = [np.full((20, 8), n, dtype=np.float32) for n in (1, 2)]
    writers = [threading.Thread(target=store.save_vectors, args=(a,)) for a in arrays]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(10)
    kept = store.vectors(20)
    assert kept is not None and any(np.array_equal(kept, a) for a in arrays)
    assert not list(tmp_path.glob("*.partial.npy"))
