"""The one seam every model is opened through (the app's model panel, the command line, the benchmark): a
registry of backends, each with the label the page shows and what it needs from the reader.

A new backend is one :func:`register` call with a function that opens it (after simonw/llm's
``register_models``); the scripted test model comes in through the same seam.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import ModelError
from .base import DEFAULT_CONTEXT, LLM
from .catalogue import catalogue, entry


@dataclass(frozen=True)
class ModelChoice:
    """What a reader chose: a backend (``kind``) and what it needs."""

    kind: str = "embedded"
    path: str = ""
    """A GGUF file (kind ``gguf``)."""
    server: str = ""
    """An OpenAI-compatible server's base URL (kind ``server``)."""
    name: str = ""
    """The model's name on that server, or in the catalogue (kind ``catalogue``)."""
    script: str = ""
    """A JSON script (kind ``scripted``)."""
    n_ctx: int = DEFAULT_CONTEXT
    n_gpu_layers: int = -1
    n_threads: int | None = None
    slots: int = 0
    """Calls a server answers at once (0: as it says, else :data:`~elite_ui.models.openai.DEFAULT_SLOTS`)."""


@dataclass(frozen=True)
class Backend:
    kind: str
    label: str
    """How the model panel names it."""
    open: Callable[[ModelChoice], LLM]


BACKENDS: dict[str, Backend] = {}


def register(backend: Backend) -> Backend:
    BACKENDS[backend.kind] = backend
    return backend


def open_model(choice: ModelChoice) -> LLM:
    """The model ``choice`` names, or a :class:`ModelError` saying in one sentence why it cannot be opened."""
    backend = BACKENDS.get(choice.kind)
    if backend is None:
        raise ModelError(f"unknown kind of model {choice.kind!r}; use one of {', '.join(BACKENDS)}.")
    return backend.open(choice)


def open_llm(model: str | None = None, *, server: str | None = None, n_ctx: int = DEFAULT_CONTEXT,
             n_gpu_layers: int = -1, n_threads: int | None = None) -> LLM:
    """The command line's choice: a server URL with a model name, a catalogue model's name, a GGUF path, or the
    embedded default."""
    return open_model(replace(chosen(model, server), n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=n_threads))


def chosen(model: str | None, server: str | None = None, name: str | None = None) -> ModelChoice:
    """What ``--model`` (with ``--server`` and ``--model-name``) names: a server's model, a catalogue model (by
    its name, unless a file of that name exists), a GGUF file, or the embedded model."""
    if server:
        return ModelChoice("server", server=server, name=name or model or "")
    if model and model.strip().lower() in catalogue() and not Path(model).is_file():
        return ModelChoice("catalogue", name=model.strip().lower())
    return ModelChoice("gguf", path=model) if model else ModelChoice("embedded")


def _llama(choice: ModelChoice) -> LLM:
    from .llama_cpp import LlamaCppLLM

    path = choice.path.strip() if choice.kind == "gguf" else ""
    if choice.kind == "gguf" and not path:
        raise ModelError("enter the path of a GGUF file.")
    return LlamaCppLLM(path or None, n_ctx=choice.n_ctx, n_gpu_layers=choice.n_gpu_layers,
                       n_threads=choice.n_threads)


def _catalogue(choice: ModelChoice) -> LLM:
    from .hub import downloaded
    from .llama_cpp import LlamaCppLLM

    model = entry(choice.name)
    path = downloaded(model)
    if path is None:
        raise ModelError(f"{model.label} is not downloaded yet: download it in the model panel, or run "
                         f"python -m elite_ui.models pull {model.name}.")
    return LlamaCppLLM(path, n_ctx=choice.n_ctx, n_gpu_layers=choice.n_gpu_layers, n_threads=choice.n_threads)


def _server(choice: ModelChoice) -> LLM:
    from .openai import OpenAICompatibleLLM

    if not choice.server.strip():
        raise ModelError("enter the server's base URL, e.g. http://localhost:8080.")
    return OpenAICompatibleLLM(choice.server.strip(), choice.name.strip() or "default", n_ctx=choice.n_ctx,
                               slots=choice.slots)


def _scripted(choice: ModelChoice) -> LLM:
    from .scripted import ScriptedLLM

    return ScriptedLLM.from_file(choice.script)


register(Backend("embedded", "embedded", _llama))
register(Backend("catalogue", "downloaded", _catalogue))
register(Backend("gguf", "GGUF file", _llama))
register(Backend("server", "server", _server))
register(Backend("scripted", "scripted", _scripted))
