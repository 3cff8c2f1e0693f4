"""The book as a model (issue 37): the app's OpenAI-compatible endpoint, driven by the `openai` SDK and by the
request bodies the reading apps send (tests/data/reading-apps/), over a Calibre library whose viewer left the
reader a fifth of the way into Pride and Prejudice. The scripted model answers; what is checked is the endpoint:
the book chosen, the ceiling (never beyond where the reader is), the highlighted passage asked about, the shapes
the SDK reads, the citations as lines, the record beside them, and every mistake in OpenAI's error shape."""

from __future__ import annotations

import json
import shutil
from types import SimpleNamespace

import httpx
import pytest

from elite_ui.app.reading_apps import chaptered, cited_line
from elite_ui.book import load_book, reading_ceiling
from elite_ui.methods.grounding import LABELS
from elite_ui.methods.parsing import quotation
from elite_ui.testing.browser import ROOT, app_log, start_app, stop_app
from elite_ui.testing.reading_apps import calibre_library

from .conftest import BOOKS

openai = pytest.importorskip("openai")

SCRIPT = str(ROOT / "tests" / "data" / "scripted.json")
BODIES = ROOT / "tests" / "data" / "reading-apps"
KEY = "reading-app-key-0123456789"
PRIDE = "pride-and-prejudice-jane-austen"


def body(name: str) -> dict:
    """A recorded request body as its app sends it (the note on where it comes from left out)."""
    sent = json.loads((BODIES / name).read_text(encoding="utf-8"))
    sent.pop("_source")
    return sent


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("library")
    calibre_library(folder / "Calibre", [
        {"title": "Pride and Prejudice", "author": "Jane Austen", "files": [BOOKS["pride-and-prejudice.txt"]],
         "position": ("", 0.2, 1_700_000_000)},
        {"title": "The Wind in the Willows", "author": "Kenneth Grahame",
         "files": [BOOKS["the-wind-in-the-willows.txt"]]},
    ])
    process, url = start_app("--scripted", SCRIPT, "--library", str(folder / "Calibre"), "--api-key", KEY,
                             cache=tmp_path_factory.mktemp("cache"))
    yield process, url
    stop_app(process)
    assert "Traceback" not in app_log(process)


def client(url: str, key: str = KEY):
    return openai.OpenAI(base_url=f"{url}v1", api_key=key, max_retries=0, timeout=120)


def test_the_library_is_listed_as_models(served):
    listed = {m.id: m for m in client(served[1]).models.list()}
    assert {"library", PRIDE, "the-wind-in-the-willows-kenneth-grahame"} <= set(listed)
    assert listed[PRIDE].model_dump()["name"] == "Pride and Prejudice (Jane Austen)"


def test_askgpt_is_answered_from_the_book_it_names_under_the_lower_ceiling(served):
    """AskGPT sends its configured model ("gpt-4o-mini"), the title and author, the highlight and "35% through":
    the book is found by its title, read up to where Calibre's viewer left the reader (20%, lower than 35%), and
    the highlighted sentence is asked about."""
    reply = httpx.post(f"{served[1]}v1/chat/completions", json=body("askgpt.json"),
                       headers={"Authorization": f"Bearer {KEY}"}, timeout=120)
    assert reply.status_code == 200, reply.text
    answer = reply.json()
    text, record = answer["choices"][0]["message"]["content"], answer["elite_reader"]
    assert answer["model"] == PRIDE and answer["object"] == "chat.completion"
    assert "where your reading apps say you are" in text and chaptered(record) in text
    assert record["question"] == "Who is the single man everyone is talking about?", "how far is no question"
    assert any("universally acknowledged" in quote["text"] for quote in record["quotes"]), "the passage asked about"
    shown = record["citations"] or record["quotes"]  # "does not say" quotes the sentences closest to the question
    assert all(f": {quotation(c['text'])}" in text for c in shown) and "““" not in text
    book = load_book(BOOKS["pride-and-prejudice.txt"])
    ceiling = int(record["up_to"].split(",")[0].removeprefix("S"))
    assert abs(ceiling - reading_ceiling(book, "20%")[0]) < 50, "where Calibre's viewer left the reader, not 35%"
    assert max(c["sentence"] for c in record["quotes"] + record["citations"]) <= ceiling


@pytest.mark.parametrize("name", ["calibre.json", "assistant.json"])
def test_streamed_requests_read_by_the_sdk(served, name):
    """Calibre's viewer and KOReader's assistant plugin stream: the SDK reads the chunks, the answer with its
    citation lines, and the last chunk carries the usage and the answer record."""
    sent = body(name)
    sent.pop("stream")
    chunks = list(client(served[1]).chat.completions.create(stream=True, **sent))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    last = chunks[-1].model_dump()
    assert chunks[-1].choices[0].finish_reason == "stop" and last["usage"]["total_tokens"] > 0
    assert chaptered(last["elite_reader"]) in text and "nothing after it" in text
    assert not LABELS.search(text.split("\n\n")[0]), "chapters, not sentence labels, in a reading app"
    if last["elite_reader"]["citations"]:
        assert "From the book:" in text


def test_an_answers_labels_are_chapters_in_a_reading_app():
    """A reading app's reader has no sentence numbers to follow (Readest asks for chapters): each label becomes the
    chapters of the sentences it cites, the full stop kept once."""
    cited = [{"sentence": 360, "chapter": "ch. 4", "label": "S360, ch. 4"}, {"sentence": 12, "chapter": None,
                                                                             "label": "S12"}]
    said = {"Mr. Bingley's friend is Mr. Darcy. [S360].": "Mr. Bingley's friend is Mr. Darcy (ch. 4).",
            "Darcy [S360] and the preface [S12, S360] agree.": "Darcy (ch. 4) and the preface (S12, ch. 4) agree.",
            "Not cited [S999].": "Not cited."}
    assert {answer: chaptered({"answer": answer, "citations": cited}) for answer in said} == said
    italic = {"chapter": "ch. 35", "label": "S7, ch. 35", "text": "“_My_ overhearings were more favourable.”"}
    assert cited_line(italic) == "ch. 35: “My overhearings were more favourable.”", "plain text shows no underscores"


def test_a_plain_question_names_its_book_by_the_model_and_its_place_in_words(served):
    answer = client(served[1]).chat.completions.create(
        model=PRIDE, messages=[{"role": "user", "content": "Who is Mr. Darcy? I'm up to chapter 3."}])
    record = answer.model_dump()["elite_reader"]
    end_of_chapter_3 = reading_ceiling(load_book(BOOKS["pride-and-prejudice.txt"]), "chapter 3")[0]
    assert "(chapter 3, as you said)" in answer.choices[0].message.content
    assert record["up_to"].startswith(f"S{end_of_chapter_3},"), "lower than where Calibre's viewer left the reader"


def test_the_library_model_asks_across_the_library_when_no_book_is_named(served):
    """The model "library" with a question that names no book: the books whose sentences hold its words are
    asked, each up to where the reader is (Pride and Prejudice to a fifth; the unopened Wind in the Willows not)."""
    answer = client(served[1]).chat.completions.create(
        model="library", messages=[{"role": "user", "content": "What did Mr. Bennet say about Netherfield?"}])
    record = answer.model_dump()["elite_reader"]
    assert answer.model == "library" and answer.choices[0].message.content == record["answer"]
    assert [b["title"] for b in record["books"]] == ["Pride and Prejudice"]
    assert record["searched"]["books"][0]["up_to"].startswith("up to S")


def test_mistakes_are_openais_error_shape_in_one_sentence(served):
    url = served[1]
    with pytest.raises(openai.AuthenticationError, match="API key"):
        client(url, "wrong").models.list()
    with pytest.raises(openai.NotFoundError, match="no book of your library matches"):
        client(url).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Who?"}])
    with pytest.raises(openai.BadRequestError, match="non-empty list"):
        client(url).chat.completions.create(model=PRIDE, messages=[])
    reply = httpx.post(f"{url}v1/chat/completions", content=b"{not json", timeout=30,
                       headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
    error = reply.json()["error"]
    assert reply.status_code == 400 and error["message"] == "The request body is not JSON." and error["type"]


def test_no_model_name_reaches_outside_the_library_and_beyond_loopback_a_key_is_required(served, tmp_path):
    from starlette.testclient import TestClient

    from elite_ui.app.config import Config
    from elite_ui.app.reading_apps import ReadingApps

    with pytest.raises(openai.NotFoundError, match="no book of your library matches"):
        client(served[1]).chat.completions.create(model="../../../etc/passwd",
                                                  messages=[{"role": "user", "content": "What does it say?"}])

    class Listening:
        config = Config(host="0.0.0.0", library=str(tmp_path))

    refused = TestClient(ReadingApps(Listening()).routes).get("/v1/models")
    assert refused.status_code == 403 and "--api-key" in refused.json()["error"]["message"]


def test_readest_asks_through_ollamas_api_under_the_pages_it_says_were_read(served):
    """Readest speaks Ollama's API: /api/tags lists the books and the embedder, /api/chat answers (streamed as
    Ollama streams, one JSON object a line) from the book its prompt names, never beyond the passages it says
    were read (chapter 5, lower than where Calibre's viewer left the reader), and /api/embed embeds."""
    url, auth = served[1], {"Authorization": f"Bearer {KEY}"}
    tags = httpx.get(f"{url}api/tags", headers=auth, timeout=30).json()["models"]
    assert {"library", PRIDE, "all-minilm"} <= {t["name"] for t in tags}
    with httpx.stream("POST", f"{url}api/chat", json=body("readest.json"), headers=auth, timeout=120) as reply:
        assert reply.status_code == 200 and reply.headers["content-type"].startswith("application/x-ndjson")
        said = [json.loads(line) for line in reply.iter_lines() if line.strip()]
    text = "".join(s["message"]["content"] for s in said)
    assert said[-1]["done"] and not any(s["done"] for s in said[:-1])
    record = said[-1]["elite_reader"]
    assert "where the passages your app sent from the pages you read end" in text and chaptered(record) in text
    book = load_book(BOOKS["pride-and-prejudice.txt"])
    ceiling = int(record["up_to"].split(",")[0].removeprefix("S"))
    assert book.sentence(ceiling).chapter_ref == "ch. 5", "up to the last passage Readest sent, in chapter 5"
    whole = httpx.post(f"{url}api/chat", json=body("readest.json") | {"stream": False}, headers=auth, timeout=120)
    assert whole.json()["done"] and whole.json()["message"]["content"]
    embedded = httpx.post(f"{url}api/embed", json={"model": "all-minilm", "input": ["Toad Hall", "Netherfield"]},
                          headers=auth, timeout=60).json()
    assert len(embedded["embeddings"]) == 2 and len(embedded["embeddings"][0]) == 384


def test_in_hosted_mode_a_request_counts_with_its_addresss_other_sessions(tmp_path):
    """Hosted mode: an address with as many sessions with a book open as ``--sessions-per-visitor`` allows (page
    tabs, API clients) is refused a reading app's request in one sentence (429), before any book is read."""
    from starlette.testclient import TestClient

    from elite_ui.app.config import Config
    from elite_ui.app.reading_apps import ReadingApps
    from elite_ui.app.state import Session
    from elite_ui.app.visitors import Visitors
    from elite_ui.models import ScriptedLLM

    shutil.copy(BOOKS["the-wind-in-the-willows.txt"], tmp_path / "willows.txt")
    config = Config(hosted=True, sessions_per_visitor=1, library=str(tmp_path))

    class Hosted:
        visitors = Visitors(config)
        model = SimpleNamespace(llm=ScriptedLLM({}))

    Hosted.config = config
    tab = Session()
    tab.visitor, tab.book = "testclient", load_book(BOOKS["the-wind-in-the-willows.txt"])
    Hosted.visitors.sessions["a tab"] = tab
    refused = TestClient(ReadingApps(Hosted()).routes).post(
        "/v1/chat/completions", json={"model": "willows", "messages": [{"role": "user", "content": "Who is Toad?"}]})
    assert refused.status_code == 429 and "1 sessions with a book open" in refused.json()["error"]["message"]
