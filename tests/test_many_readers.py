"""Many readers at once against a batching model server (a loopback stand-in): questions overlap on the server,
each visitor gets their own answer, a visitor runs one question at a time, a waiting visitor is told where they
stand, and Stop ends one visitor's question only. Driven through the API as outsiders; timings are the
benchmark's (benchmarks/many_readers.py), not asserted here."""

from __future__ import annotations

import time

import pytest

from elite_ui.app.answering import BUSY
from elite_ui.testing.browser import app_log, start_app, stop_app
from elite_ui.testing.readers import ask_at_once, ask_values, shown, visitors
from elite_ui.testing.server import BatchingServer

pytest.importorskip("gradio_client")


@pytest.fixture
def served(request):
    """The app in hosted mode in front of the stand-in server (``latency`` s a call, ``parallel`` calls at once
    by the app's flag, else as the server's /props says)."""
    latency, parallel = request.param
    with BatchingServer(latency=latency, slots=64) as server:
        flags = ("--parallel", str(parallel)) if parallel else ()
        process, url = start_app("--hosted", "--server", server.url, "--model-name", "stub", *flags,
                                 "--sessions-per-visitor", "64", "--uploads-per-minute", "1000")
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
    time.sleep(0.6)
    second.client.predict(api_name="/on_stop")
    asking.result()
    assert "Toad Hall" in shown(asking.outputs(), "class='chat'"), "the other reader's question went on"
    again = second.submit("Who is Badger?")
    again.result()
    assert "Toad Hall" in shown(again.outputs(), "class='chat'"), "the stopped reader asks again and is answered"
    assert waiting.done() and server.peak == 1, "the stopped question never reached the server"
