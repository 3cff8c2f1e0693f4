"""Backends: the scripted one, an OpenAI-compatible server (a stub on loopback), and the context guard."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from elite_ui.errors import Cancelled, ModelError, QuestionError
from elite_ui.models import Request, ScriptedLLM
from elite_ui.models.llama_cpp import embedded_model_path
from elite_ui.models.openai import OpenAICompatibleLLM


def ask(text="Hello"):
    return Request("answer", [{"role": "user", "content": text}], max_tokens=16)


def test_scripted_replies_follow_the_queue_and_repeat_the_last():
    llm = ScriptedLLM({"answer": ["one", "two"]}, default="?")
    assert [llm.complete(ask()).text for _ in range(3)] == ["one", "two", "two"]
    assert llm.complete(Request("judge", [{"role": "user", "content": "x"}])).text == "?"
    assert [r.purpose for r in llm.log] == ["answer", "answer", "answer", "judge"]


def test_prompts_that_do_not_fit_the_context_are_refused():
    with pytest.raises(QuestionError, match="context of 64"):
        ScriptedLLM(n_ctx=64).complete(ask("word " * 200))


class Stub(BaseHTTPRequestHandler):
    replies: ClassVar[list] = []
    seen: ClassVar[list] = []
    models: ClassVar[list] = ["m", "qwen2.5:7b"]

    def do_GET(self):
        data = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in Stub.models]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Stub.seen.append((self.path, body))
        status, payload = Stub.replies.pop(0) if len(Stub.replies) > 1 else Stub.replies[0]
        if status == "hang":
            time.sleep(payload)
            return
        if status == "drip":  # a slow stream: one SSE chunk every ``delay`` seconds
            delay, chunks = payload
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for chunk in chunks:
                    time.sleep(delay)
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting, as it should
            return
        sse = status == "sse"
        data = "".join(f"data: {json.dumps(p)}\n\n" for p in payload).encode() if sse else json.dumps(payload).encode()
        self.send_response(200 if sse else status)
        self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    Stub.seen = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


OK = (200, {"choices": [{"message": {"content": "Darcy"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 8}}})


def test_openai_compatible_server(server):
    Stub.replies = [OK]
    result = OpenAICompatibleLLM(server, "smol").complete(ask())
    assert (result.text, result.prompt_tokens, result.cached_tokens) == ("Darcy", 12, 8)
    path, body = Stub.seen[0]
    assert path == "/v1/chat/completions" and body["model"] == "smol" and body["max_tokens"] == 16


def test_a_server_streams_the_reply(server):
    deltas = [{"choices": [{"delta": {"content": piece}}]} for piece in ["Mr.", " Darcy", "."]]
    Stub.replies = [("sse", [*deltas, {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3}}])]
    stream = OpenAICompatibleLLM(server, "m").stream(ask())
    pieces = []
    while True:
        try:
            pieces.append(next(stream))
        except StopIteration as done:
            result = done.value
            break
    assert pieces == ["Mr.", " Darcy", "."] and result.text == "Mr. Darcy." and result.prompt_tokens == 9
    assert Stub.seen[0][1]["stream"] is True


@pytest.mark.parametrize("streamed", [False, True])
def test_stop_lets_go_of_a_server_still_reading_the_prompt_and_hangs_up(streamed):
    """A server sends nothing while it reads a long prompt; Stop (or long work giving way) must not wait for it,
    and the connection is shut so that the server drops the call (as llama-server and vLLM do), streamed or not."""
    from elite_ui.testing.server import BatchingServer

    with BatchingServer(latency=30, slots=1) as server:
        llm, cancel = OpenAICompatibleLLM(server.url, "stub"), threading.Event()
        request = Request("answer", [{"role": "user", "content": "Where does Toad live?"}], 16, cancel=cancel)
        threading.Timer(0.3, cancel.set).start()
        with pytest.raises(Cancelled):
            list(llm.stream(request)) if streamed else llm.complete(request)
        assert server.requests == 1
        assert waited_for(lambda: server.dropped == 1 and server.in_flight == 0), "the 30 s call was dropped"


def test_a_stopped_call_keeps_its_slot_until_a_deaf_server_ends_it():
    """A server that never notices its client gone runs a stopped call to its end: the shared model's line
    counts the slot until then, so the server never holds more calls than the slots the app was given."""
    from elite_ui.models.capacity import Capacity, Share
    from elite_ui.testing.server import BatchingServer

    with BatchingServer(latency=1.5, slots=4, deaf=True) as server:
        llm, capacity, cancel = OpenAICompatibleLLM(server.url, "stub"), Capacity(1), threading.Event()
        share = Share(capacity, "reader")
        place = share.line_up()
        assert place.wait(1)
        request = Request("answer", [{"role": "user", "content": "Toad?"}], 16, cancel=cancel,
                          outlived=place.outlived)
        threading.Timer(0.3, cancel.set).start()
        with pytest.raises(Cancelled):
            llm.complete(request)
        place.leave()
        assert capacity.busy == 1 and server.in_flight == 1, "the server still runs it: its slot is counted"
        assert waited_for(lambda: capacity.busy == 0 and server.in_flight == 0)


def waited_for(condition, seconds: float = 10.0) -> bool:
    """Whether ``condition()`` came true within ``seconds``."""
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_stopped_stream_closes_its_connection_at_the_next_piece():
    """The stream read after Stop ends at its next piece: the server sees its client go and stops writing."""
    from elite_ui.models.openai import abandonable

    cancel, read, closed = threading.Event(), [], threading.Event()

    def call(emit, stop):
        for n in range(1000):
            if stop.is_set():
                closed.set()
                return None
            read.append(n)
            emit(str(n))
            time.sleep(0.01)
        return "all"

    pieces = abandonable(call, cancel)
    assert [next(pieces) for _ in range(3)] == ["0", "1", "2"]
    cancel.set()
    with pytest.raises(Cancelled):
        list(pieces)
    assert closed.wait(5) and len(read) < 1000


def test_server_errors_are_retried_then_reported(server):
    Stub.replies = [(500, {"error": "busy"}), OK]
    assert OpenAICompatibleLLM(server, "m", retries=1).complete(ask()).text == "Darcy"
    Stub.replies = [(503, {"error": "down"})]
    with pytest.raises(ModelError, match="unavailable: it failed with HTTP 503"):
        OpenAICompatibleLLM(server, "m", retries=1).complete(ask())
    Stub.replies = [(404, {"error": "no such model"})]
    with pytest.raises(ModelError, match="refused the request: HTTP 404"):
        OpenAICompatibleLLM(server, "m").complete(ask())


def test_option_logprobs_from_a_server(server):
    top = [{"token": "B", "logprob": -0.1}, {"token": " A", "logprob": -2.5}]
    Stub.replies = [(200, {"choices": [{"message": {"content": "B"}, "logprobs": {"content": [
        {"token": "B", "logprob": -0.1, "top_logprobs": top}]}}]})]
    logprobs = OpenAICompatibleLLM(server, "m").choice_logprobs([{"role": "user", "content": "?"}], "ABC")
    assert logprobs == {"A": -2.5, "B": -0.1, "C": -30.0}
    Stub.replies = [(400, {"error": "logprobs are not supported"})]  # the passage check then keeps the sentence
    assert OpenAICompatibleLLM(server, "m").choice_logprobs([{"role": "user", "content": "?"}], "ABC") is None


def test_a_server_that_hangs_times_out(server):
    Stub.replies = [("hang", 1.5)]
    with pytest.raises(ModelError, match="did not answer in time"):
        OpenAICompatibleLLM(server, "m", timeout=0.3, retries=1).complete(ask())


def test_an_unreachable_server_is_one_sentence():
    with pytest.raises(ModelError, match="could not be reached"):
        OpenAICompatibleLLM("http://127.0.0.1:9", "m", retries=0).complete(ask())


def test_the_embedded_model_ships_with_the_package():
    path = embedded_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 90_000_000


def test_a_slow_stream_is_read_to_the_end_and_a_stalled_one_is_reported(server):
    deltas = [{"choices": [{"delta": {"content": f"w{n} "}}]} for n in range(6)]
    Stub.replies = [("drip", (0.15, deltas))]
    llm = OpenAICompatibleLLM(server, "m", timeout=0.5, retries=0)
    pieces = list(llm.stream(ask()))
    assert "".join(pieces) == "w0 w1 w2 w3 w4 w5 "
    Stub.replies = [("drip", (1.2, deltas[:2]))]
    with pytest.raises(ModelError, match="stopped answering mid-reply"):
        list(llm.stream(ask()))


def test_a_server_lists_its_models(server):
    from elite_ui.models.openai import server_models

    assert server_models(server) == ["m", "qwen2.5:7b"] == server_models(server + "/v1/")
    with pytest.raises(ModelError, match="did not list its models"):
        server_models("http://127.0.0.1:9")
