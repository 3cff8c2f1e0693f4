"""Answering methods: ``base`` (what every method shares: the frame of a question, model calls, stopping),
``trace`` (the typed events a method emits, the one contract with the page), ``registry`` (the list of methods),
``prompts`` and ``parsing`` (every prompt, and readers of what models write), and one package or module per
method: ``elite``, ``mrag``, ``chunk_rag``."""

from .base import Engine, Prepared
from .registry import METHODS, Method, Tools
from .trace import Event, Kind, Trace

__all__ = ["METHODS", "Engine", "Event", "Kind", "Method", "Prepared", "Tools", "Trace"]
