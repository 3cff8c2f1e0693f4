"""A loopback stand-in for a batching model server (vLLM, llama-server ``--parallel N``): every chat completion
takes ``latency`` seconds, ``slots`` of them run at once and the rest wait inside the server, as a real engine's
do. It counts the requests in flight, so a test or a benchmark can see how many the app sent at once. It answers
like llama-server: ``GET /v1/models``, ``POST /v1/chat/completions`` (streamed or not) and, unless told not to,
``GET /props`` with its ``total_slots``. Like llama-server and vLLM it drops a call whose client hung up (unless
``deaf``: then it runs every call to its end, as a server that never looks)."""


from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def toad(messages: list[dict]) -> str:
    """Replies about the sample book: search terms when asked for them, else an answer."""
    asked = messages[-1]["content"] if messages else ""
    return "Toad\nToad Hall\nlive" if "search terms" in asked else "Toad lives at Toad Hall, by the river."


class BatchingServer:
    """The stand-in server, on a free loopback port while used as a context manager (``url`` names it)."""

    def __init__(self, latency: float = 1.0, slots: int = 64, *, props: bool = True,
                 reply: Callable[[list[dict]], str] = toad, name: str = "stub", deaf: bool = False):
        self.latency, self.props, self.reply, self.name, self.deaf = latency, props, reply, name, deaf
        self.total_slots = slots
        self.slots = threading.BoundedSemaphore(slots)
        self.counting = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        """The most requests the server held at once (running or waiting for a slot)."""
        self.requests = 0
        self.dropped = 0
        """Calls dropped because their client hung up."""
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.httpd.daemon_threads = True
        self.httpd.request_queue_size = 256

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> BatchingServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def reset(self) -> None:
        with self.counting:
            self.peak, self.requests = self.in_flight, 0

    def complete(self, messages: list[dict], client: socket.socket) -> str | None:
        """One completion: wait for a slot, take ``latency`` seconds, reply (None when the client hung up
        meanwhile)."""
        with self.counting:
            self.in_flight += 1
            self.requests += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            with self.slots:
                ends = time.monotonic() + self.latency
                while (left := ends - time.monotonic()) > 0:
                    if not self.deaf and hung_up(client, min(left, 0.02)):
                        with self.counting:
                            self.dropped += 1
                        return None
                    if self.deaf:
                        time.sleep(left)
                return self.reply(messages)
        finally:
            with self.counting:
                self.in_flight -= 1

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def send(self, status: int, payload: dict | str, kind: str = "application/json") -> None:
                data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the app went away mid-call (it was stopped), as a real server's client may

            def do_GET(self):
                if self.path == "/v1/models":
                    self.send(200, {"object": "list", "data": [{"id": server.name, "object": "model"}]})
                elif self.path == "/props" and server.props:
                    self.send(200, {"total_slots": server.total_slots})
                else:
                    self.send(404, {"error": "not found"})

            def do_POST(self):
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                    messages = list(body["messages"])
                except (ValueError, KeyError, TypeError):
                    self.send(400, {"error": "bad request"})
                    return
                text = server.complete(messages, self.connection)
                if text is None:
                    return
                usage = {"prompt_tokens": sum(len(str(m.get("content", ""))) // 4 for m in messages),
                         "completion_tokens": len(text) // 4}
                if body.get("stream"):
                    pieces = [{"choices": [{"delta": {"content": word}}]} for word in text.split(" ")[:1]]
                    pieces += [{"choices": [{"delta": {"content": " " + word}}]} for word in text.split(" ")[1:]]
                    pieces.append({"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": usage})
                    self.send(200, "".join(f"data: {json.dumps(p)}\n\n" for p in pieces) + "data: [DONE]\n\n",
                              "text/event-stream")
                else:
                    self.send(200, {"choices": [{"message": {"content": text}, "finish_reason": "stop"}],
                                    "usage": usage})

            def log_message(self, *args):
                pass

        return Handler


def hung_up(client: socket.socket, wait: float) -> bool:
    """Whether the client closed its end of the connection (looked at for up to ``wait`` seconds)."""
    readable, _, _ = select.select([client], [], [], wait)
    if not readable:
        return False
    try:
        return client.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True
