"""Any server speaking the OpenAI chat-completions API: llama-server, Ollama, vLLM, LM Studio (httpx)."""

from __future__ import annotations

import json
import os
import queue
import re
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
        self.client = httpx.Client(timeout=httpx.Timeout(timeout, connect=10.0), headers=headers)

    def placement(self) -> str:
        return f"the server at {self.base_url}, {self.slots} calls at once"

    def post(self, payload: dict, stop: threading.Event | None = None) -> dict:
        """The server's JSON reply to ``payload``, a failure retried (no more once ``stop`` is set)."""
        import httpx

        last = ""
        for attempt in range(self.retries + 1):
            if stop is not None and stop.is_set():
                raise Cancelled("stopped.")
            try:
                response = self.client.post(f"{self.base_url}/chat/completions", json=payload)
            except httpx.TimeoutException:
                last = "it did not answer in time"
            except httpx.HTTPError as exc:
                last = f"it could not be reached ({type(exc).__name__})"
            else:
                if response.status_code < 500:
                    if response.status_code >= 400:
                        raise ModelError(f"the model server at {self.base_url} refused the request: "
                                         f"HTTP {response.status_code} {response.text[:200]}")
                    try:
                        return response.json()
                    except ValueError:
                        raise ModelError(f"the model server at {self.base_url} sent a reply that is not JSON.") \
                            from None
                last = f"it failed with HTTP {response.status_code}"
            if attempt < self.retries:
                time.sleep(0.5 * 2**attempt)
        raise ModelError(f"the model server at {self.base_url} is unavailable: {last}.")

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
        data = finished(abandonable(lambda emit, stop: self.post(self.payload(request), stop), request.cancel))
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise ModelError(f"the model server at {self.base_url} sent a reply without choices.") from None
        return completion(text, data.get("usage") or {}, choice.get("finish_reason") or "stop")

    def _stream(self, request: Request) -> Generator[str, None, Completion]:
        return (yield from abandonable(lambda emit, stop: self.streamed(request, emit, stop), request.cancel))

    def streamed(self, request: Request, emit: Callable[[str], None], stop: threading.Event) -> Completion:
        """The reply read as the server streams it, each piece handed to ``emit``; the connection is closed at
        the first piece after ``stop`` is set (a server stops writing for a client gone)."""
        import httpx

        payload = self.payload(request) | {"stream": True, "stream_options": {"include_usage": True}}
        pieces, usage, finish = [], {}, "stop"
        try:
            with self.client.stream("POST", f"{self.base_url}/chat/completions", json=payload) as response:
                if response.status_code >= 400:
                    response.read()
                    raise ModelError(f"the model server at {self.base_url} refused the request: "
                                     f"HTTP {response.status_code} {response.text[:200]}")
                for line in response.iter_lines():
                    if stop.is_set():
                        break
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
        except httpx.TimeoutException:
            raise ModelError(f"the model server at {self.base_url} stopped answering mid-reply.") from None
        except httpx.HTTPError as exc:
            raise ModelError(f"the model server at {self.base_url} could not be reached ({type(exc).__name__}).") \
                from None
        return completion("".join(pieces), usage, finish)

    def choice_logprobs(self, messages: list[dict[str, str]], choices: Iterable[str]) -> dict[str, float] | None:
        request = Request("choice", messages, max_tokens=1)
        payload = self.payload(request) | {"logprobs": True, "top_logprobs": 20}
        try:
            top = self.post(payload)["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
        except (KeyError, IndexError, TypeError):
            return None
        seen = {}
        for entry in top:
            key = entry["token"].strip()
            seen.setdefault(key, entry["logprob"])
        return {c: seen.get(c, -30.0) for c in choices}


def abandonable(call: Callable[[Callable[[str], None], threading.Event], T], cancel) -> Generator[str, None, T]:
    """``call(emit, stop)`` run in a thread of its own: what it emits is yielded as it comes, what it returns is
    returned. When ``cancel`` is set (the reader's Stop, or long work giving way to a question) the caller is let
    go at once with :class:`Cancelled`, even while the server is still reading the prompt and has sent nothing;
    ``stop`` tells the call to close its connection when it next can, and it ends on its own."""
    out: queue.SimpleQueue = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        try:
            out.put(("done", call(lambda piece: out.put(("piece", piece)), stop)))
        except BaseException as exc:  # handed to the caller's thread, raised there
            out.put(("error", exc))

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


def completion(text: str, usage: dict, finish_reason: str) -> Completion:
    """A :class:`Completion` from an OpenAI-style ``usage`` object (counts a server leaves out read as 0)."""
    details = usage.get("prompt_tokens_details") or {}
    return Completion(text, int(usage.get("prompt_tokens") or 0), int(details.get("cached_tokens") or 0),
                      int(usage.get("completion_tokens") or 0), finish_reason=finish_reason)
