"""Any server speaking the OpenAI chat-completions API: llama-server, Ollama, vLLM, LM Studio (httpx)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import socket
import threading
import time
from collections.abc import Callable, Generator, Iterable

from ..errors import Cancelled, ModelError
from .base import DEFAULT_CONTEXT, LLM, Completion, Request, T, finished

SERVERS = {"Ollama": "http://localhost:11434", "llama-server": "http://localhost:8080"}
"""Where common local servers listen by default (one click in the model panel)."""
CANCEL_POLL = 0.05
"""Seconds between two looks at the stop flag while a server call runs."""
DEFAULT_SLOTS = 4
"""Calls sent to a server at once when neither the host nor the server says how many it serves (Ollama's
``OLLAMA_NUM_PARALLEL`` defaults to 4 or 1; vLLM batches far more; a server queues what it cannot take)."""


def api_base(url: str) -> str:
    """A server's OpenAI API base (``.../v1``), whether or not the reader wrote the ``/v1``."""
    base = url.strip().rstrip("/")
    return base if base.endswith("/v1") else base + "/v1"


def server_models(url: str, timeout: float = 10.0) -> list[str]:
    """The models a server offers (``GET /v1/models``), or a :class:`ModelError` sentence."""
    import httpx

    base = api_base(url)
    try:
        response = httpx.get(f"{base}/models", timeout=timeout)
        response.raise_for_status()
        rows = response.json().get("data") or []
    except httpx.HTTPError as exc:
        raise ModelError(f"the server at {base} did not list its models ({type(exc).__name__}); is it running?") \
            from None
    except (ValueError, AttributeError):
        raise ModelError(f"the server at {base} sent a model list that is not OpenAI's JSON.") from None
    return sorted({str(row["id"]) for row in rows if isinstance(row, dict) and row.get("id")})


def server_slots(url: str, timeout: float = 3.0) -> int | None:
    """How many calls the server answers at once, where it says: llama-server's ``GET /props`` reports its
    ``--parallel`` slots as ``total_slots``. None when the server does not say (vLLM, Ollama)."""
    import httpx

    root = api_base(url).removesuffix("/v1")
    try:
        response = httpx.get(f"{root}/props", timeout=timeout)
        slots = int(response.json()["total_slots"]) if response.status_code == 200 else 0
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None
    return slots if slots > 0 else None


SIZE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*([bm])\b", re.I)
"""A model's size as its name writes it: "qwen2.5:7b", "Llama-3.1-8B-Instruct", "SmolLM2-135M"."""


def size_in(name: str) -> float | None:
    """The billions of parameters a model's name states, if it states them."""
    found = SIZE.search(name or "")
    if not found:
        return None
    return float(found.group(1)) / (1000 if found.group(2).lower() == "m" else 1)


class OpenAICompatibleLLM(LLM):
    """Any server speaking the OpenAI chat-completions API: llama-server, Ollama, vLLM, LM Studio."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        n_ctx: int = DEFAULT_CONTEXT,
        timeout: float = 120.0,
        retries: int = 2,
        slots: int = 0,
    ):
        import httpx

        self.base_url = api_base(base_url)
        self.name = model
        self.parameters = size_in(model)
        self.n_ctx = n_ctx
        self.slots = slots or server_slots(base_url) or DEFAULT_SLOTS
        self.retries = retries
        headers = {"Authorization": f"Bearer {api_key or os.environ.get('OPENAI_API_KEY', 'none')}"}
        # a connection a call of its own, so that a stopped call's can be shut (:func:`hung_up_by`)
        self.client = httpx.Client(timeout=httpx.Timeout(timeout, connect=10.0), headers=headers,
                                   limits=httpx.Limits(max_keepalive_connections=0))

    def placement(self) -> str:
        return f"the server at {self.base_url}, {self.slots} calls at once"

    def post(self, payload: dict) -> dict:
        """The server's JSON reply to ``payload`` (one short call, unstreamed), or a :class:`ModelError` sentence."""
        import httpx

        try:
            response = self.client.post(f"{self.base_url}/chat/completions", json=payload)
            response.raise_for_status()
            return response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise ModelError(f"the model server at {self.base_url} did not answer ({type(exc).__name__}).") from None

    def payload(self, request: Request) -> dict:
        payload = {
            "model": self.name,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        if request.stop:
            payload["stop"] = list(request.stop)
        if request.seed is not None:
            payload["seed"] = request.seed
        return payload

    def _complete(self, request: Request) -> Completion:
        return finished(self._stream(request))

    def _stream(self, request: Request) -> Generator[str, None, Completion]:
        return (yield from abandonable(lambda emit, stop: self.streamed(request, emit, stop), request.cancel,
                                       request.outlived))

    def streamed(self, request: Request, emit: Callable[[str], None], stop: Hangup) -> Completion:
        """The reply read as the server streams it (every call is streamed, so that a stopped one can be hung up
        on), each piece handed to ``emit``; a failure before the reply began is retried."""
        payload = self.payload(request) | {"stream": True, "stream_options": {"include_usage": True}}
        last = ""
        for attempt in range(self.retries + 1):
            if stop.is_set():
                raise Cancelled("stopped.")
            try:
                return self.read(payload, emit, stop)
            except Unanswered as exc:
                last = str(exc)
            if attempt < self.retries:
                time.sleep(0.5 * 2**attempt)
        raise ModelError(f"the model server at {self.base_url} is unavailable: {last}.")

    def read(self, payload: dict, emit: Callable[[str], None], stop: Hangup) -> Completion:
        """One try at ``payload``: the reply's events read as they come (a server that answers with one JSON
        reply, ignoring ``stream``, is read whole). When ``stop`` is set the call is hung up on at once, even
        while the server still reads the prompt (:func:`hang_up`), and read until the server lets go."""
        import httpx

        began = False
        try:
            with self.client.stream("POST", f"{self.base_url}/chat/completions", json=payload,
                                    extensions={"trace": hung_up_by(stop)}) as response:
                began = True
                if response.status_code >= 500:
                    raise Unanswered(f"it failed with HTTP {response.status_code}")
                if response.status_code >= 400:
                    response.read()
                    raise ModelError(f"the model server at {self.base_url} refused the request: "
                                     f"HTTP {response.status_code} {response.text[:200]}")
                if response.headers.get("content-type", "").startswith("application/json"):
                    response.read()
                    return whole(response.json(), self.base_url)
                return events(response.iter_lines(), emit, stop)
        except httpx.HTTPError as exc:
            if stop.is_set():
                raise Cancelled("stopped.") from None
            if isinstance(exc, httpx.TimeoutException):
                if began:
                    raise ModelError(f"the model server at {self.base_url} stopped answering mid-reply.") from None
                raise Unanswered("it did not answer in time") from None
            if began:
                raise ModelError(f"the model server at {self.base_url} could not be reached "
                                 f"({type(exc).__name__}).") from None
            raise Unanswered(f"it could not be reached ({type(exc).__name__})") from None
        except ValueError:
            raise ModelError(f"the model server at {self.base_url} sent a reply that is not JSON.") from None

    def choice_logprobs(self, messages: list[dict[str, str]], choices: Iterable[str]) -> dict[str, float] | None:
        request = Request("choice", messages, max_tokens=1)
        payload = self.payload(request) | {"logprobs": True, "top_logprobs": 20}
        try:
            top = self.post(payload)["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
        except (KeyError, IndexError, TypeError, ModelError):  # a server without log-probabilities cannot say
            return None
        seen = {}
        for entry in top:
            key = entry["token"].strip()
            seen.setdefault(key, entry["logprob"])
        return {c: seen.get(c, -30.0) for c in choices}


class Unanswered(Exception):
    """A try the server did not answer (unreachable, timed out, failed with HTTP 5xx): tried again."""


class Hangup(threading.Event):
    """A call's stop flag that also hangs up: what :meth:`on_set` was given runs when it is set (closing the
    socket a call is blocked on), or at once if it already is."""

    def __init__(self):
        super().__init__()
        self._hooks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def on_set(self, hook: Callable[[], None]) -> None:
        with self._lock:
            if not self.is_set():
                self._hooks.append(hook)
                return
        hook()

    def set(self) -> None:
        with self._lock:
            super().set()
            hooks, self._hooks = self._hooks, []
        for hook in hooks:
            hook()


def hung_up_by(stop: Hangup) -> Callable[[str, dict], None]:
    """An httpx ``trace`` hook that has ``stop`` hang the call's connection up (:func:`hang_up`)."""
    def trace(event: str, info: dict) -> None:
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            sock = info["return_value"].get_extra_info("socket")
            if sock is not None:
                stop.on_set(lambda: hang_up(sock))
    return trace


def hang_up(sock: socket.socket) -> None:
    """Tell the server the client is gone: its writing side shut, the server reads the end of the connection
    (llama-server and vLLM then drop the call, even while still reading the prompt, and close; the call's read
    ends there). A server that does not look sends its reply to the end, and the read ends then: the call lasts
    as long as the server works on it."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_WR)


def events(lines: Iterable[str], emit: Callable[[str], None], stop: threading.Event) -> Completion:
    """A streamed reply from its server-sent event ``lines``, each piece of text handed to ``emit``; once ``stop``
    is set, the rest is read to its end unused (the server is still writing it) and the call is :class:`Cancelled`."""
    pieces, usage, finish = [], {}, "stop"
    for line in lines:
        if stop.is_set():
            continue
        if not line.startswith("data:") or line.strip() == "data: [DONE]":
            continue
        try:
            data = json.loads(line[5:])
        except ValueError:
            continue
        usage = data.get("usage") or usage
        for choice in data.get("choices") or []:
            piece = (choice.get("delta") or {}).get("content") or ""
            finish = choice.get("finish_reason") or finish
            if piece:
                pieces.append(piece)
                emit(piece)
    if stop.is_set():
        raise Cancelled("stopped.")
    return completion("".join(pieces), usage, finish)


def whole(data: dict, base_url: str) -> Completion:
    """A reply sent whole (OpenAI's unstreamed JSON)."""
    try:
        choice = data["choices"][0]
        text = choice["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        raise ModelError(f"the model server at {base_url} sent a reply without choices.") from None
    return completion(text, data.get("usage") or {}, choice.get("finish_reason") or "stop")


def abandonable(call: Callable[[Callable[[str], None], Hangup], T], cancel,
                outlived: Callable[[], Callable[[], None]] | None = None) -> Generator[str, None, T]:
    """``call(emit, stop)`` run in a thread of its own: what it emits is yielded as it comes, what it returns is
    returned. When ``cancel`` is set (the reader's Stop, or long work giving way to a question) the caller is let
    go at once with :class:`Cancelled`, even while the server is still reading the prompt and has sent nothing;
    ``stop`` is set, which hangs the call up, and it ends on its own. If it has not ended by then, ``outlived()``
    is told, and what it returns is called once the call ends (the shared model's line counts the call's slot
    until the server is done with it)."""
    out: queue.SimpleQueue = queue.SimpleQueue()
    stop = Hangup()
    ending = threading.Lock()
    after: list[Callable[[], None]] = []
    over = False

    def work() -> None:
        nonlocal over
        try:
            out.put(("done", call(lambda piece: out.put(("piece", piece)), stop)))
        except BaseException as exc:  # handed to the caller's thread, raised there
            out.put(("error", exc))
        finally:
            with ending:
                over = True
            for hook in after:
                hook()

    threading.Thread(target=work, name="model-server-call", daemon=True).start()
    try:
        while True:
            try:
                kind, value = out.get(timeout=CANCEL_POLL)
            except queue.Empty:
                kind, value = "wait", None
            if cancel is not None and cancel.is_set():
                raise Cancelled("stopped.")
            if kind == "piece":
                yield value
            elif kind == "done":
                return value
            elif kind == "error":
                raise value
    finally:
        stop.set()
        with ending:
            if not over and outlived is not None:
                after.append(outlived())


def completion(text: str, usage: dict, finish_reason: str) -> Completion:
    """A :class:`Completion` from an OpenAI-style ``usage`` object (counts a server leaves out read as 0)."""
    details = usage.get("prompt_tokens_details") or {}
    return Completion(text, int(usage.get("prompt_tokens") or 0), int(details.get("cached_tokens") or 0),
                      int(usage.get("completion_tokens") or 0), finish_reason=finish_reason)
