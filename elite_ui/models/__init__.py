"""Models: language-model backends behind one interface (``base``), opened through one registry (``registry``),
and the MiniLM sentence embedding (``embedder``)."""

from .base import DEFAULT_CONTEXT, LLM, Completion, Request
from .embedder import Embed, MiniLMEmbedder
from .registry import BACKENDS, ModelChoice, open_llm, open_model
from .scripted import ScriptedLLM

__all__ = ["BACKENDS", "DEFAULT_CONTEXT", "LLM", "Completion", "Embed", "MiniLMEmbedder", "ModelChoice", "Request",
           "ScriptedLLM", "open_llm", "open_model"]
