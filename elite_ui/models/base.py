"""The interface every language model backend implements: a :class:`Request` in, a :class:`Completion` out.

A completion says how many prompt tokens were evaluated, how many were reused from the KV cache, and how long it
took. Backends: ``llama_cpp`` (in-process GGUF), ``openai`` (a server), ``scripted`` (tests); ``registry`` opens
the one a reader chose.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ..errors import QuestionError

if TYPE_CHECKING:
    from .capacity import Either

DEFAULT_CONTEXT = 8192


@dataclass
class Request:
    """One call: chat ``messages`` and what it is ``purpose`` (terms, judge, answer...), used by traces and scripts."""

    purpose: str
    messages: list[dict[str, str]]
    max_tokens: int = 128
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    seed: int | None = None
    cancel: threading.Event | Either | None = None
    """Set by the user to stop (or by the shared model's line, to preempt long work): a backend that can checks
    it (``is_set()``) while reading the prompt and between tokens."""
    outlived: Callable[[], Callable[[], None]] | None = None
    """Told when the caller is let go while the call still runs on a server: it returns what the backend calls once
    the server is done with it (:meth:`elite_ui.models.capacity.Place.outlived`)."""


@dataclass
class Completion:
    """What a call produced and what it cost."""

    text: str
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    finish_reason: str = "stop"


T = TypeVar("T")


def finished(pieces: Generator[str, None, T]) -> T:
    """What a generator returns, its yields read and dropped (a streamed reply read to its end)."""
    while True:
        try:
            next(pieces)
        except StopIteration as done:
            return done.value


CAPABLE_BILLIONS = 1.0
"""From this many billion parameters a model is a real one, not a demo: the settings preset and llama.cpp's repeat
penalty follow it."""


class LLM:
    """The interface. Subclasses implement :meth:`_complete`; :meth:`complete` guards the context and times it."""

    name = "llm"
    n_ctx = DEFAULT_CONTEXT
    slots = 1
    """Calls it answers at once: one for an in-process model (one context), a server's parallel slots."""
    parameters: float | None = None
    """Its size in billions of parameters, where the backend can tell (a GGUF file's own count, a size in a
    server model's name: "qwen2.5:7b"); the settings preset follows it (:func:`elite_ui.reading.preset_for`)."""

    def complete(self, request: Request) -> Completion:
        self.check_fits(request)
        started = time.perf_counter()
        result = self._complete(request)
        result.seconds = time.perf_counter() - started
        return result

    def _complete(self, request: Request) -> Completion:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the model holds (its weights, for an in-process model)."""

    def placement(self) -> str:
        """Where the model runs, in words ("the server at ...", "CPU, 8 threads", "GPU, 32 of 32 layers
        offloaded"); "" when there is nothing to say (the scripted test model)."""
        return ""

    def speed(self) -> tuple[float, float] | None:
        """Prompt tokens read and tokens written per second since :meth:`reset_speed`, where the backend can tell."""
        return None

    def reset_speed(self) -> None:
        """Start measuring :meth:`speed` afresh (at each question)."""

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
                f"more than the model's context of {self.n_ctx}; shorten the question or its options."
            )

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text``. The default over-estimates (a token per 3 characters) so budgets stay safe."""
        return math.ceil(len(text) / 3)

    def count_messages(self, messages: list[dict[str, str]]) -> int:
        return sum(self.count_tokens(m["content"]) + 4 for m in messages) + 2

    def choice_logprobs(self, messages: list[dict[str, str]], choices: Iterable[str]) -> dict[str, float] | None:
        """Log-probabilities of each single-token ``choice`` as the next token, or None if the backend can't say."""
        return None
