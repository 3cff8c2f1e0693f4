"""The deterministic scripted model for tests and demos: replies queued per purpose, or a function."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Cancelled, ModelError
from .base import DEFAULT_CONTEXT, LLM, Completion, Request

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

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedLLM:
        """The model a JSON script describes: ``{"replies": {purpose: [text, ...]}, "default", "delay",
        "logprobs"}``."""
        try:
            script = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError(f"the script {path} could not be read ({exc}).") from None
        return cls(script.get("replies", {}), default=script.get("default", ""),
                   delay=float(script.get("delay", 0.0)), logprobs=script.get("logprobs"))

    def _stream(self, request: Request) -> Generator[str, None, Completion]:
        result = self._complete(request)
        yield from re.findall(r"\S+\s*", result.text)
        return result

    def _complete(self, request: Request) -> Completion:
        self.log.append(request)
        until = time.monotonic() + self.delay
        while time.monotonic() < until:  # stopped (or, long work's call, preempted) while "thinking", as a real
            if request.cancel is not None and request.cancel.is_set():  # model stops at its next token
                raise Cancelled("stopped.")
            time.sleep(min(0.02, max(0.0, until - time.monotonic())))
        if callable(self.replies):
            text = self.replies(request)
        else:
            queue = self.replies.get(request.purpose)
            text = (queue.pop(0) if len(queue) > 1 else queue[0]) if queue else self.default
        if isinstance(text, BaseException):
            raise text
        finish = "stop"
        if self.count_tokens(text) > request.max_tokens:  # as a real model would, stop at the length limit
            text, finish = text[: request.max_tokens * 3], "length"
        return Completion(text=text, prompt_tokens=self.count_messages(request.messages),
                          completion_tokens=self.count_tokens(text), finish_reason=finish)

    def choice_logprobs(self, messages: list[dict[str, str]], choices: Iterable[str]) -> dict[str, float] | None:
        if self.logprobs is None:
            return None
        return {c: self.logprobs.get(c, -30.0) for c in choices}
