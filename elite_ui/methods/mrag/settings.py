"""M-RAG's settings, each described once (help, range), and its presets. The extraction settings
(``EXTRACTION_FIELDS``) are part of the marker store's name."""

from __future__ import annotations

from dataclasses import dataclass

from ...settings import setting
from ..base import AnswerSettings

EXTRACTION_FIELDS = ("paragraph_tokens", "window_tokens", "marker_tokens", "few_shot", "coverage_threshold", "retries")
ORDERS = ("position", "similarity")


@dataclass(frozen=True)
class MragSettings(AnswerSettings):
    """M-RAG's settings: extraction (the first six, part of the marker store's name: a change builds a new
    index), then retrieval and audit, then its answer step's."""

    paragraph_tokens: int = setting(128, "size of the numbered paragraphs markers cite, in tokens", low=16, high=2048)
    window_tokens: int = setting(4096, "paragraph text the model reads per extraction call (cut to fit its context)",
                                 low=128, high=131072)
    marker_tokens: int = setting(2048, "longest reply per extraction call, in tokens", low=64, high=32768)
    few_shot: bool = setting(True, "show the model a worked example of markers (no: zero-shot)", panel=True)
    coverage_threshold: float = setting(0.95, "share of a window's paragraphs its markers must cite; below it the "
                                              "uncovered ones are asked for again", low=0.0, high=1.0)
    retries: int = setting(1, "extra extraction calls per window before uncovered paragraphs fall back to chunk "
                              "markers", low=0, high=10)
    budget_tokens: int = setting(800, "tokens of values placed in the answer's context", low=128, high=8000,
                                 panel=True, step=32)
    order: str = setting("position", "order of the placed values: position (book order) or similarity (best key "
                                     "first)", choices=ORDERS, panel=True)
    audit_threshold: float = setting(0.6, "a marker is flagged when less than this share of its value's words occur "
                                          "in its cited paragraphs", low=0.0, high=1.0)
    audit_llm: bool = setting(False, "also ask the model whether each statement of a placed value is supported by "
                                     "its cited paragraphs", panel=True)
    replace_flagged: bool = setting(False, "place a flagged marker's cited paragraphs instead of its value",
                                    panel=True)


PRESETS = {"paper": MragSettings(answer_tokens=96),
           "laptop": MragSettings(window_tokens=1024, marker_tokens=512, answer_tokens=96)}
"""``paper``: windows of up to 4,096 tokens and long replies, room for values of 200-300 words. ``laptop``:
windows of about eight paragraphs and replies of 512 tokens (about 20 s per window with the embedded model)."""
