"""What one visitor may take of a hosted app, each limit driven through the API as an outsider would (the red
team's findings F1-F9; docs/reliability.md states the limits): long builds let questions in between, a flood of
one endpoint leaves room for others, sessions and uploads per visitor are bounded, heavy views are too, the disk and
the log do not grow without bound, secrets are never empty, and a Space is hosted by default."""

from __future__ import annotations

import os
import threading
import time

import gradio as gr
import httpx
import numpy as np
import pytest

from elite_ui.app.config import Config, from_args
from elite_ui.app.logs import CappedLines
from elite_ui.app.panels.exports import removed_old
from elite_ui.app.receipts import kept_secret
from elite_ui.app.state import Model
from elite_ui.app.visitors import address
from elite_ui.book.cache import evict
from elite_ui.errors import Cancelled
from elite_ui.methods.chunk_rag import EMBED_BATCH
from elite_ui.methods.registry import METHODS, Tools
from elite_ui.models import ScriptedLLM
from elite_ui.testing.browser import ROOT, app_log, start_app, stop_app
from elite_ui.testing.readers import ask_values, every_endpoint, finished, page_values, shown, visitors

client_module = pytest.importorskip("gradio_client")
Client, handle_file = client_module.Client, client_module.handle_file

SCRIPT = str(ROOT / "tests" / "data" / "scripted.json")


@pytest.fixture(scope="module")
def hosted(tmp_path_factory):
    process, url = start_app("--hosted", "--scripted", SCRIPT, "--sessions-per-visitor", "64",
                             "--uploads-per-minute", "1000", cache=tmp_path_factory.mktemp("cache"))
    yield process, url
    stop_app(process)


def test_f1_a_question_is_answered_while_another_visitor_builds_an_index(hosted):
    """An M-RAG build of the sample book (hundreds of model calls) holds the model one call at a time."""
    _, url = hosted
    builder, reader = visitors(url, 2)
    build = builder.build()
    time.sleep(2)
    reader.ask(ask_values(reader.client, reader.question))
    assert reader.question in reader.said and "msg bot" in reader.said
    assert not build.done(), "the build was still running while the question was answered"
    builder.client.predict(api_name="/on_stop")


def test_f2_one_visitor_flooding_an_endpoint_leaves_room_for_others(hosted):
    _, url = hosted
    flooder, other = Client(url, verbose=False), Client(url, verbose=False)
    flooder.predict(api_name="/on_sample")
    values = page_values(flooder, "/on_recap", {})

    def send():
        return flooder.submit(*values, api_name="/on_recap")

    jobs = [send() for _ in range(70)]
    said = other.predict(api_name="/on_sample")
    assert "Loaded" in str(said), "another visitor still opens a book"
    statuses = [shown(job.outputs(), "") for job in finished(jobs, send)]
    assert sum("still being made" in s for s in statuses) >= 1, "the flood was refused, not queued"
    assert not any("Queue is full" in s for s in statuses)


def test_f3_f4_sessions_and_heavy_views_per_visitor_are_bounded(tmp_path):
    process, url = start_app("--hosted", "--scripted", SCRIPT, "--sessions-per-visitor", "2", cache=tmp_path)
    try:
        program = Client(url, verbose=False)  # an API client's session counts with the page's
        book = program.predict(file=handle_file(str(ROOT / "assets" / "the-wind-in-the-willows.txt")),
                               api_name="/open_book")["book"]
        clients = [Client(url, verbose=False) for _ in range(3)]
        opened = [str(c.predict(api_name="/on_sample")) for c in clients]
        assert "Loaded" in opened[0] and "Loaded" in opened[1]
        assert "2 sessions with a book open here, the limit" in opened[2]
        with pytest.raises(client_module.exceptions.AppError, match="2 sessions with a book open here, the limit"):
            program.predict(book=book, words="Toad", api_name="/search")
        heavy = clients[0]
        values = page_values(heavy, "/on_xray", {"Character": "Toad"})

        def send():
            return heavy.submit(*values, api_name="/on_xray")

        results = [str(job.result()) for job in finished([send() for _ in range(10)], send)]
        drawn = sum("X-Ray of Toad" in r for r in results)
        refused = sum("still being made" in r for r in results)
        assert drawn >= 1 and drawn + refused == 10
    finally:
        stop_app(process)


def opened_with_forwarded_lines(url: str, lines: list[str]) -> str:
    """``/on_sample`` called over HTTP with one ``X-Forwarded-For`` header line for each of ``lines``, as a client
    adds its own line before the proxy adds one; the status line it ends with."""
    headers = [("x-forwarded-for", line) for line in lines]
    with httpx.Client(base_url=url, timeout=60) as http:
        event = http.post("gradio_api/call/on_sample", json={"data": []}, headers=headers).json()["event_id"]
        return http.get(f"gradio_api/call/on_sample/{event}", headers=headers).text.rsplit("\n\n", 2)[-2]


def test_r4_a_forged_forwarded_line_does_not_make_a_new_visitor(tmp_path):
    """Issue 36 item 3: behind one proxy, a client that sends its own X-Forwarded-For line (a new address each
    time) while the proxy adds the real one is still one visitor: its third session with a book is refused."""
    process, url = start_app("--hosted", "--scripted", SCRIPT, "--proxies", "1", "--sessions-per-visitor", "2",
                             cache=tmp_path)
    try:
        said = [opened_with_forwarded_lines(url, [f"10.0.0.{n}", "203.0.113.7"]) for n in range(3)]
        assert "Loaded" in said[0] and "Loaded" in said[1], said
        assert "2 sessions with a book open here, the limit" in said[2], said
    finally:
        stop_app(process)


def test_r4_a_visitor_is_the_proxys_entry_of_every_line_and_an_ipv6_host_its_64():
    from starlette.requests import Request

    def request(*lines: str, host: str = "198.51.100.1"):
        raw = [(b"x-forwarded-for", line.encode()) for line in lines]
        return gr.Request(Request({"type": "http", "headers": raw, "client": (host, 1234)}))

    assert address(request("10.0.0.1", "203.0.113.7, 198.51.100.9"), 1) == "198.51.100.9"
    assert address(request("10.0.0.1", "203.0.113.7, 198.51.100.9"), 2) == "203.0.113.7"
    assert address(request("10.0.0.1"), 2) == "198.51.100.1", "fewer entries than proxies: the connection's"
    first, second = (address(request(f"2001:db8:1:2::{n:x}"), 1) for n in (1, 0xFFFF))
    assert first == second == "2001:db8:1:2::/64" and address(request("2001:db8:1:3::1"), 1) != first
    assert address(request(host="2001:db8::5"), 0) == "2001:db8::/64"


def test_r4_an_xray_takes_its_turn_before_finding_the_names_of_a_new_ceiling(tmp_path, monkeypatch):
    """Issue 36 item 5: an X-Ray refused for want of a turn finds no names first (each new ceiling's names are a
    read of the whole part), so new ceilings cannot stand in for X-Rays."""
    from elite_ui.app.api import Api, ApiError
    from elite_ui.app.page import compose
    from elite_ui.app.state import Session

    config = Config(scripted=SCRIPT, cache_dir=str(tmp_path), hosted=True, views_per_visitor=1)
    model = Model(config)
    model.start()
    api = Api(compose(config, model)[1])
    book = api.open_book({"path": str(ROOT / "assets" / "the-wind-in-the-willows.txt")}, None)["book"]
    session, named, found = api.session(None, book), Session.named, []
    monkeypatch.setattr(Session, "named", lambda self, *args: found.append(args[0]) or named(self, *args))
    with api.ctx.visitors.heavy(session) as refused:  # the visitor's one X-Ray at a time is running
        assert refused is None
        for chapter in range(2, 6):
            with pytest.raises(ApiError, match="still being made"):
                api.xray(book, "Toad", f"chapter {chapter}")
    assert not found, "no names were found for the refused X-Rays' ceilings"
    assert api.xray(book, "Toad", "chapter 3")["name"] == "Toad" and len(found) == 1


def test_f3_uploads_per_minute_are_bounded(tmp_path):
    process, url = start_app("--hosted", "--scripted", SCRIPT, "--uploads-per-minute", "3", cache=tmp_path)
    try:
        client = Client(url, verbose=False)
        said = [str(client.predict(api_name="/on_sample")) for _ in range(4)]
        assert all("Loaded" in s for s in said[:3]) and "opened 3 books in the last minute" in said[3]
    finally:
        stop_app(process)


def test_f5_the_book_cache_keeps_to_its_cap_least_recently_used_first(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    for n in range(5):
        path = books / f"{n}.npz"
        path.write_bytes(b"x" * 1000)
        os.utime(path, (1000 + n, 1000 + n))
    os.utime(books / "0.npz")  # opened just now: the most recently used
    assert evict(tmp_path, 2500) == 3
    assert sorted(p.name for p in books.iterdir()) == ["0.npz", "4.npz"]
    assert evict(tmp_path, 0) == 0, "0: no cap"


def test_f5_old_exports_are_removed(tmp_path):
    old, new = tmp_path / "a" / "old.md", tmp_path / "new.md"
    old.parent.mkdir()
    old.write_text("x")
    new.write_text("y")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    removed_old(tmp_path, 900)
    assert not old.exists() and not old.parent.exists() and new.exists()


def test_f6_a_huge_request_does_not_grow_the_log_by_its_size(hosted):
    process, url = hosted
    client = Client(url, verbose=False)
    client.predict(api_name="/on_sample")
    before = len(app_log(process))
    with pytest.raises(client_module.exceptions.AppError):
        client.predict("x" * 1_000_000, api_name="/on_switch")
    time.sleep(1)
    assert len(app_log(process)) - before < 20_000


def test_f6_capped_lines_say_what_they_left_out():
    class Sink:
        text = ""

        def write(self, text):
            self.text += text

    sink = Sink()
    capped = CappedLines(sink, limit=10)
    capped.write("short\n" + "y" * 25)
    capped.write("y" * 5 + "\nnext\n")
    assert sink.text == "short\nyyyyyyyyyy … (20 characters left out)\nnext\n"


def test_f8_an_empty_or_short_key_is_replaced_never_trusted(tmp_path):
    for bad in ("", "abc", "z" * 64):
        (tmp_path / "receipt-key").write_text(bad)
        key = kept_secret(tmp_path, "receipt-key")
        assert len(key) == 64 and key != bad and (tmp_path / "receipt-key").read_text() == key
    assert kept_secret(tmp_path, "receipt-key") == key, "a good key is kept across restarts"
    assert not list(tmp_path.glob("*.partial"))


def test_f9_a_space_or_an_open_address_is_hosted_unless_the_host_says_no():
    assert from_args([], {"SPACE_ID": "someone/reader"})[0].hosted
    assert from_args([], {"SPACE_ID": "someone/reader"})[0].proxies == 1, "the Space's proxy gives the address"
    assert from_args(["--host", "0.0.0.0"], {})[0].hosted
    config, said = from_args(["--host", "0.0.0.0", "--no-hosted"], {})
    assert not config.hosted and "--no-hosted" in said
    assert not from_args([], {})[0].hosted
    assert from_args([], {"SPACE_ID": "a/b", "ELITE_HOSTED": "0"})[0].hosted is False


def test_f9_on_a_space_no_endpoint_loads_lists_or_downloads_a_model(tmp_path):
    process, url = start_app("--scripted", SCRIPT, cache=tmp_path, env={"SPACE_ID": "someone/reader"})
    try:
        assert not {"/on_load_model", "/on_download", "/on_list"} & set(every_endpoint(url))
        assert "Hosted mode: on (running on a Space" in app_log(process)
    finally:
        stop_app(process)


def test_the_build_limit_refuses_a_second_visitors_build_in_a_sentence(hosted):
    _, url = hosted
    first, second = visitors(url, 2)
    build = first.build()
    time.sleep(1.5)
    said = second.build()
    said.result(timeout=60)
    assert "Other readers' builds are running" in shown(said.outputs(), "builds")
    first.client.predict(api_name="/on_stop")
    build.result(timeout=60)


def test_f1_what_is_built_once_per_book_is_shared_between_visitors(willows):
    model = Model(Config())
    made = [model.prepared_for(METHODS["bm25"].engine(ScriptedLLM(), None), willows) for _ in range(2)]
    assert made[0] is made[1], "the second visitor's question reuses the first one's chunk index"


def test_f1_stop_ends_an_embedding_index_build_between_batches(willows):
    cancel, batches = threading.Event(), []

    def embed(texts):
        batches.append(len(texts))
        cancel.set()
        return np.zeros((len(texts), 4))

    engine = METHODS["embedding"].engine(ScriptedLLM(), None, Tools(embed, cancel))
    with pytest.raises(Cancelled):
        engine.prepare(willows)
    assert batches == [EMBED_BATCH]
