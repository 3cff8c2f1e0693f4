"""The app's public API, driven directly (every page handler is also an endpoint anyone can POST to): a hosted
app on the scripted model, called through gradio_client as an outsider would."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from elite_ui.testing.browser import ROOT, app_log, start_app, stop_app
from elite_ui.testing.readers import every_endpoint

from .conftest import BOOKS

client_module = pytest.importorskip("gradio_client")
Client, handle_file, AppError = client_module.Client, client_module.handle_file, client_module.exceptions.AppError

EXAMPLES = int(os.environ.get("ELITE_FUZZ_EXAMPLES", "12"))
"""Calls per endpoint (a third of that for the slow ones); raise it for a deeper run."""

UNHANDLED = "has not enabled verbose error reporting"
"""What gradio_client says when a handler raised something other than a sentence meant for the user."""


@pytest.fixture(scope="module")
def hosted(tmp_path_factory):
    process, url = start_app("--hosted", "--scripted", str(ROOT / "tests" / "data" / "scripted.json"),
                             cache=tmp_path_factory.mktemp("cache"))
    yield process, url
    stop_app(process)


def outcome(client, *args, api_name: str, process=None) -> str:
    """What an endpoint gave: "ok", or the one sentence it refused with. An unhandled error fails the test,
    unless the app's log shows Gradio refused the value before any handler of ours saw it (a slider sent None)."""
    seen = len(app_log(process)) if process else 0
    try:
        client.predict(*args, api_name=api_name)
    except AppError as exc:
        said = str(exc)
    else:
        return "ok"
    if UNHANDLED in said and process is not None and not ours(app_log(process)[seen:]):
        return "refused by Gradio's own check of the value"
    assert UNHANDLED not in said, f"{api_name}{args!r:.300} raised an unhandled error"
    assert "Traceback" not in said
    return said


def ours(log: str) -> list[str]:
    """The tracebacks in ``log`` that come from the app's code (Gradio's refusals of a malformed value excepted)."""
    chunks = log.split("Traceback (most recent call last)")[1:]
    return [t for t in chunks if "/elite_ui/" in t] or ([] if "ComponentProcessingError" in log else chunks)


def test_a_book_hash_opens_nothing_without_this_browsers_receipt(hosted):
    """Knowing a book's content hash (anyone holding the file can compute it) reopens nothing: not the restore,
    not a citation, not the book switcher; and uploading the same file does not say someone uploaded it before."""
    _, url = hosted
    path = BOOKS["jane-eyre-excerpt.txt"]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    owner, visitor = Client(url, verbose=False), Client(url, verbose=False)
    assert "Ask a question" in owner.predict(handle_file(str(path)), api_name="/on_upload")[-1]
    forged = {"book": digest, "shelf": {digest: {"label": "x", "turns": []}}, "receipts": {digest: "0" * 64}}
    restored = visitor.predict(forged, api_name="/on_page_load")
    assert "could not be reopened" in restored[-1] and "JANE" not in str(restored)
    cited = visitor.predict(f"{digest[:16]}:3", api_name="/on_cite")
    assert "not opened in this visit" in str(cited) and "Thornfield" not in str(cited)
    assert outcome(visitor, digest, api_name="/on_switch") != "ok"
    again = visitor.predict(handle_file(str(path)), api_name="/on_upload")
    card = again[0]
    assert "Jane Eyre" in str(card) and "cache" not in str(card) and "ready" in str(card)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                max_size=4), max_leaves=12)
HOSTILE = st.sampled_from(["", " ", "<script>alert(1)</script>", "![p](http://127.0.0.1:9/x.png)", "../../etc/passwd",
                           "ffffffff:999999999", "0:0", "chapter 99999", "-1", "1e308", "\u202e\x00", "x" * 20_000])
TEXT = st.none() | HOSTILE | st.text(max_size=200)


def strategy(parameter: dict, folder: Path):
    """Values for one parameter: the component's own and anything else a raw POST could carry."""
    kind, schema = parameter["component"], parameter.get("type") or {}
    choices = st.sampled_from(schema["enum"]) if schema.get("enum") else st.nothing()
    if kind == "File" or "gradio.FileData" in str(schema):
        return st.none() | st.binary(max_size=3000).map(lambda data: upload_file(folder, data))
    if kind == "Browserstate":
        book = st.sampled_from(["0" * 64, "../x"]) | TEXT
        return JSON | st.fixed_dictionaries({"book": book, "turns": JSON, "shelf": JSON, "notebook": JSON,
                                             "receipts": JSON, "ceiling": TEXT})
    if kind == "Slider":
        return st.none() | st.integers(-10**12, 10**12) | st.floats(-1e12, 1e12) | HOSTILE
    if kind == "Checkbox":
        return st.none() | st.booleans() | st.integers(-2, 2) | HOSTILE
    return choices | TEXT | st.integers(-10**6, 10**6) | JSON


def upload_file(folder: Path, data: bytes):
    path = Path(tempfile.mkstemp(dir=folder, suffix=".txt")[1])
    path.write_bytes(data)
    return handle_file(str(path))


def fuzz(client, process, name: str, parameters: list[dict], folder: Path):
    """A Hypothesis test that calls endpoint ``name`` with values for its ``parameters``."""
    slow = name.startswith("/on_ask") or name in ("/on_build", "/on_download", "/ask")

    @settings(max_examples=max(1, EXAMPLES // 3) if slow else EXAMPLES, deadline=None, database=None,
              phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(st.tuples(*(strategy(p, folder) for p in parameters)))
    def call(args):
        said = outcome(client, *args, api_name=name, process=process)
        assert said == "ok" or said.strip(), f"{name}: an empty refusal"

    return call


def test_every_endpoint_answers_any_input_with_a_result_or_one_sentence(hosted, tmp_path):
    """Hypothesis sends every named endpoint values of the wrong type, out of range, hostile or huge, in a
    session with a book open; each call returns or refuses with one sentence, never an unhandled error, and the
    server logs no traceback from the app's code."""
    process, url = hosted
    client = Client(url, verbose=False)
    assert outcome(client, api_name="/on_sample") == "ok"
    # the API's functions and the page's own handlers (left out of the API's description, still callable); not
    # Gradio's own handler of the example questions
    endpoints = {name: endpoint for name, endpoint in every_endpoint(url).items()
                 if not name.startswith("/load_example")}
    assert {"/ask", "/open_book", "/on_ask", "/on_upload"} <= set(endpoints)
    failed = {}
    for name, endpoint in endpoints.items():
        try:
            if endpoint["parameters"]:
                fuzz(client, process, name, endpoint["parameters"], tmp_path)()
            else:
                outcome(client, api_name=name, process=process)
        except Exception as exc:  # every endpoint is tried; the failures are reported together
            failed[name] = str(exc).splitlines()[0][:300]
    assert not failed, "\n".join(f"{name}: {why}" for name, why in failed.items())
    assert outcome(client, "Where does Toad live?", api_name="/on_cite") == "ok", "still serving"
    assert process.poll() is None and not ours(app_log(process))


def test_a_closed_session_lets_go_of_its_book(monkeypatch, tmp_path):
    """When a visitor's tab or API client closes, the server frees its session's book at the next heartbeat."""
    import gc
    import time

    from elite_ui.app.config import Config
    from elite_ui.app.page import build
    from elite_ui.app.state import Model, Session
    from elite_ui.testing.browser import free_port

    monkeypatch.setenv("GRADIO_HEARTBEAT_INTERVAL", "0.5")
    config = Config(scripted=str(ROOT / "tests" / "data" / "scripted.json"), hosted=True, cache_dir=str(tmp_path))
    model = Model(config)
    model.start()
    port = free_port()
    demo = build(config, model)
    demo.queue().launch(server_port=port, prevent_thread_lock=True, quiet=True)

    def reading() -> int:
        gc.collect()
        return sum(isinstance(o, Session) and o.book is not None and "Willows" in o.book.title
                   for o in gc.get_objects())

    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        client.predict(api_name="/on_sample")
        assert reading() == 1
        client.close()
        deadline = time.monotonic() + 30
        while reading() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert reading() == 0
    finally:
        demo.close()


def test_the_page_handlers_are_named_functions_gradio_reads_whole(tmp_path):
    """Each page handler is a module-level function bound to the page (a grep finds it, a test calls it); bound,
    it keeps its name, its streaming and the parameters Gradio fills itself: a ``request`` is the visitor's
    ``gr.Request`` (were it not, hosted mode's per-visitor limits would see no visitor)."""
    import inspect

    import gradio as gr
    from gradio.utils import get_type_hints

    from elite_ui.app.config import Config
    from elite_ui.app.page import compose
    from elite_ui.app.state import Model

    config = Config(scripted=str(ROOT / "tests" / "data" / "scripted.json"), cache_dir=str(tmp_path))
    model = Model(config)
    model.start()
    page, _ = compose(config, model)
    handlers = {fn.api_name: fn.fn for fn in page.demo.fns.values() if fn.fn is not None}
    asking = [name for name, fn in handlers.items() if "request" in inspect.signature(fn).parameters]
    assert {"on_sample", "on_upload", "on_page_load", "on_unload", "on_open"} <= set(asking)
    assert all(get_type_hints(handlers[name]).get("request") is gr.Request for name in asking)
    # runs stream their updates from threads of their own (answering.apart): async generators Gradio awaits
    assert inspect.isasyncgenfunction(handlers["on_ask"]) and inspect.isasyncgenfunction(handlers["on_recap"])
    assert handlers["on_ask"].__module__ == "elite_ui.app.panels.chat"


def test_a_step_that_follows_an_event_runs_again_after_the_last_of_several(tmp_path):
    """Every step the page chains after an event (the names and examples after a book opens, the run's views, the
    browser's copy of the session) runs once more for the last of events that come while it runs: Gradio's default
    ("once") dropped it, and a book opened while the one before was still being listed kept that book's examples
    (CI, under load)."""
    from elite_ui.app.config import Config
    from elite_ui.app.page import compose
    from elite_ui.app.state import Model

    config = Config(scripted=str(ROOT / "tests" / "data" / "scripted.json"), cache_dir=str(tmp_path))
    page, _ = compose(config, Model(config))
    chained = [fn for fn in page.demo.fns.values() if fn.trigger_after is not None and fn.fn is not None]
    assert {"on_named", "after_run", "spent", "on_ceiling"} <= {fn.name for fn in chained}
    assert [fn.name for fn in chained if fn.trigger_mode != "always_last"] == []
