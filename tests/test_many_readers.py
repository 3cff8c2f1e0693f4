"""Many readers at once against a batching model server (a loopback stand-in): questions overlap on the server,
each visitor gets their own answer, a visitor runs one question at a time, a waiting visitor is told where they
stand, and Stop ends one visitor's question only. Driven through the API as outsiders; timings are the
benchmark's (benchmarks/many_readers.py), not asserted here."""

from __future__ import annotations

import time

import pytest

from elite_ui.app.answering import BUSY
from elite_ui.testing.browser import ROOT, app_log, start_app, stop_app
from elite_ui.testing.readers import ask_at_once, ask_values, shown, visitors
from elite_ui.testing.server import BatchingServer

handle_file = pytest.importorskip("gradio_client").handle_file


@pytest.fixture
def served(request):
    """The app in hosted mode in front of the stand-in server (``latency`` s a call, ``parallel`` calls at once
    by the app's flag, else as the server's /props says; a third value true: a server deaf to hang-ups)."""
    latency, parallel, *deaf = request.param
    with BatchingServer(latency=latency, slots=64, deaf=bool(deaf and deaf[0])) as server:
        flags = ("--parallel", str(parallel)) if parallel else ()
        process, url = start_app("--hosted", "--server", server.url, "--model-name", "stub", *flags,
                                 "--sessions-per-visitor", "64", "--uploads-per-minute", "1000", "--mcp")
        try:
            yield server, url
        finally:
            stop_app(process)
            assert "Traceback" not in app_log(process)


@pytest.mark.parametrize("served", [(0.5, 0)], indirect=True)
def test_questions_of_different_readers_overlap_on_the_server(served):
    server, url = served
    readers = visitors(url, 8)
    server.reset()
    ask_at_once(readers)
    assert server.peak >= 8, "the eight readers' calls reached the server together"
    for reader in readers:
        assert reader.question in reader.said and "Toad Hall" in reader.said
        assert sum(other.question in reader.said for other in readers) == 1, "no reader sees another's question"


@pytest.mark.parametrize("served", [(1.0, 1)], indirect=True)
def test_one_question_at_a_time_per_reader_and_the_waiting_reader_is_told_where_they_stand(served):
    server, url = served
    first, second = visitors(url, 2)
    asking = first.submit()
    time.sleep(0.5)
    again = first.client.predict(*ask_values(first.client, "And who is Badger?"), api_name="/on_ask")
    assert BUSY in again, "a second question of the same reader is refused in a sentence"
    waiting = second.submit()
    asking.result()
    waiting.result()
    assert "Waiting for the model (it answers one request at a time" in shown(waiting.outputs(), "Waiting")
    assert first.question in shown(asking.outputs(), "class='chat'")
    assert "Badger" not in shown(asking.outputs(), "class='chat'")
    assert second.question in shown(waiting.outputs(), "class='chat'")
    assert server.peak == 1, "the host said one call at a time"


@pytest.mark.parametrize("served", [(1.0, 1)], indirect=True)
def test_stop_ends_one_readers_question_only_and_frees_their_place(served):
    server, url = served
    first, second = visitors(url, 2)
    asking = first.submit()
    time.sleep(0.3)
    waiting = second.submit()
    deadline = time.monotonic() + 60
    while not waiting.outputs() and time.monotonic() < deadline:  # as on the page: Stop is enabled by the run's
        time.sleep(0.05)                                            # first update, once the run has begun
    second.client.predict(api_name="/on_stop")
    asking.result()
    assert "Toad Hall" in shown(asking.outputs(), "class='chat'"), "the other reader's question went on"
    again = second.submit("Who is Badger?")
    again.result()
    assert "Toad Hall" in shown(again.outputs(), "class='chat'"), "the stopped reader asks again and is answered"
    assert waiting.done() and server.peak == 1, "the stopped question never reached the server"


@pytest.mark.parametrize("served", [(2.0, 2, True), (2.0, 2, False)], indirect=True)
def test_r4_ask_then_stop_again_and_again_leaves_the_server_no_more_calls_than_its_slots(served):
    """Issue 36 item 1: a tab pressing Ask then Stop every 0.4 s against 2 s calls, ``--parallel 2``. Each stopped
    call is hung up on (a server that listens drops it) and keeps its slot until the server is done with it, and a
    visitor leaves at most one such call behind: the server never holds more than 2 calls, and another visitor's
    question is answered."""
    server, url = served
    stopper, other = visitors(url, 2)
    server.reset()
    for _ in range(6):
        asking = stopper.submit()
        time.sleep(0.4)
        stopper.client.predict(api_name="/on_stop")
        asking.result()
    answered = other.submit()
    answered.result()
    assert "Toad Hall" in shown(answered.outputs(), "class='chat'")
    assert server.requests >= 2 and server.peak <= 2, f"{server.peak} calls held by a server of 2 slots"
    assert server.deaf or server.dropped >= 1, "a server that listens dropped the stopped calls"


@pytest.mark.parametrize("served", [(3.0, 1)], indirect=True)
def test_r4_a_callers_new_question_replaces_the_one_still_answered(served):
    """Issue 36 item 1: a caller whose question is still answered (or was cancelled, and Gradio has not let go of
    it yet) asks again of the same book: the new question is answered, not refused as "still being answered",
    and the old one ends in one sentence; a cancelled question is not waited for."""
    from gradio_client import Client
    from gradio_client.exceptions import AppError

    _, url = served
    client = Client(url, verbose=False)
    book = client.predict(file=handle_file(str(ROOT / "assets" / "the-wind-in-the-willows.txt")),
                          api_name="/open_book")["book"]
    replaced = client.submit(book=book, question="Where does Toad live?", api_name="/ask")
    time.sleep(1.0)
    answer = client.predict(book=book, question="Who is Badger?", api_name="/ask")
    assert answer["done"] and "Toad Hall" in answer["answer"]
    with pytest.raises(AppError, match="a newer question of this book replaced it"):
        replaced.result()
    cancelled = client.submit(book=book, question="Where does Toad live?", api_name="/ask")
    time.sleep(1.0)
    cancelled.cancel()
    assert client.predict(book=book, question="Who is Badger?", api_name="/ask")["done"]


@pytest.mark.parametrize("served", [(1.5, 0)], indirect=True)
def test_r4_mcp_callers_are_told_apart_and_ask_at_once(served):
    """Issue 36 item 2: three MCP clients ask the same book at the same moment (Gradio's MCP server calls the
    functions for each MCP session under a session of its own, from the caller's address): none is refused as
    another's "last question", their calls overlap on the server, and each gets its own answer."""
    import asyncio

    from gradio_client import Client
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    server, url = served
    book = Client(url, verbose=False).predict(file=handle_file(str(ROOT / "assets" / "the-wind-in-the-willows.txt")),
                                              api_name="/open_book")["book"]

    async def caller(n: int):
        async with streamable_http_client(f"{url}gradio_api/mcp/") as (read, write, _), \
                ClientSession(read, write) as mcp:
            await mcp.initialize()
            return await mcp.call_tool("ask", {"book": book, "question": f"Where does Toad live? (caller {n})"})

    async def at_once():
        return await asyncio.gather(*(caller(n) for n in range(3)))

    server.reset()
    replies = asyncio.run(at_once())
    assert not any(r.isError for r in replies), [r.content[0].text[:200] for r in replies if r.isError]
    assert all("Toad Hall" in r.content[0].text for r in replies)
    assert server.peak >= 2, "the callers' questions ran together, not one caller's after another's"


@pytest.mark.parametrize("served", [(30.0, 1)], indirect=True)
def test_r4_questions_waiting_for_the_model_hold_no_thread_of_the_quick_calls(served):
    """Issue 36 item 4: 48 questions (more than Gradio's 40 threads) wait for a one-slot server with 30 s calls;
    another caller's passage is served while they wait, not once the first of them is answered. (With 5 s calls,
    on 2 cores of a 2017 EPYC the app's own work on the 48 questions delayed the passage past the first call.)"""
    import httpx
    from gradio_client import Client

    server, url = served
    client = Client(url, verbose=False)
    book = client.predict(file=handle_file(str(ROOT / "assets" / "the-wind-in-the-willows.txt")),
                          api_name="/open_book")["book"]
    server.reset()
    with httpx.Client(base_url=url, timeout=30) as http:
        for n in range(48):
            asked = [book, f"Where does Toad live? ({n})", "", None, "elite", None]  # every parameter, in order
            sent = http.post("gradio_api/call/ask", json={"data": asked, "session_hash": f"waiting-{n}"})
            assert sent.status_code == 200, sent.text
        deadline = time.monotonic() + 120
        while server.requests == 0:
            assert time.monotonic() < deadline, "no question reached the server"
            time.sleep(0.05)
        time.sleep(1.0)
        passage = client.predict(book=book, sentence=10, api_name="/passage")
    assert len(passage) == 3 and passage[1]["sentence"] == 10, passage
    assert server.requests == 1, "the passage was served while the first question's first call still ran"
