"""A book's marker index: its numbered paragraphs, the extraction windows over them, its markers with their key
vectors, the keys matched against a question (:class:`KeyMatch`), and the index's figures."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...book import Book
from ...models import LLM
from ..trace import Marker, Window

SHOWN_MATCHES = 20
"""Keys listed in the trace beyond those placed."""


def paragraphs(book: Book, llm: LLM, tokens: int) -> np.ndarray:
    """Consecutive sentences packed into paragraphs of about ``tokens`` tokens, never across a chapter:
    an (n, 2) array of first and last sentence IDs."""
    out, first, total = [], 0, 0
    for sid in range(len(book)):
        if sid > first and book.chapter_of[sid] != book.chapter_of[sid - 1]:
            out.append((first, sid - 1))
            first, total = sid, 0
        start, end = book.bounds[sid]
        total += llm.count_tokens(book.text[start:end])
        if total >= tokens:
            out.append((first, sid))
            first, total = sid + 1, 0
    if first < len(book):
        out.append((first, len(book) - 1))
    return np.asarray(out, dtype=np.int64).reshape(-1, 2)


def windows(costs: list[int], budget: int) -> list[tuple[int, int]]:
    """Consecutive paragraphs whose token ``costs`` fit ``budget`` together (at least one each):
    (first, last) paragraph numbers."""
    out, first, total = [], 0, 0
    for n, cost in enumerate(costs):
        if n > first and total + cost > budget:
            out.append((first, n - 1))
            first, total = n, 0
        total += cost
    if first < len(costs):
        out.append((first, len(costs) - 1))
    return out


@dataclass
class KeyMatch:
    """A key matched against the question, and whether its value made it into the context."""

    rank: int
    marker: int
    key: str
    similarity: float
    paragraphs: list[int]
    source: str
    support: float
    flagged: bool
    placed: bool = False
    tokens: int = 0
    replaced: bool = False
    """The marker was flagged and ``replace_flagged`` put its cited paragraphs in place of its value."""
    text: str = ""
    anchors: list[int] = field(default_factory=list)
    """The first sentence of each cited paragraph (where a citation link opens the reader)."""


@dataclass
class MarkerIndex:
    """A book's markers with their paragraphs (first, last sentence of each), windows and key vectors."""

    paragraphs: np.ndarray
    windows: list[Window]
    folder: Path
    book_bytes: int
    reach: int = 0
    """The first sentence its windows do not reach (the book's length once every window is done)."""
    planned: int = 0
    """The windows of the whole book."""
    vectors: np.ndarray | None = None
    markers: list[Marker] = field(default_factory=list)

    def __post_init__(self):
        self.markers = [m for w in self.windows for m in w.markers]
        for n, marker in enumerate(self.markers):
            marker.id = n

    def stats(self) -> dict:
        """Coverage, fallback rate, audit figures, extraction cost and storage of the index, over the paragraphs
        of its windows (all of the book's, or a measured sample of them)."""
        model = [m for m in self.markers if m.source == "model"]
        extracted = sum(w.last - w.first + 1 for w in self.windows)
        paragraphs = max(extracted, 1)
        cited = {p for m in model for p in m.paragraphs}
        fallback = sum(w.fallback for w in self.windows)
        names = [m.name_support for m in model if m.name_support is not None]
        numbers = [m.number_support for m in model if m.number_support is not None]
        stored = sum(p.stat().st_size for p in self.folder.glob("*") if p.is_file())
        return {
            "paragraphs": extracted, "windows": len(self.windows), "windows_in_book": self.planned,
            "markers": len(self.markers),
            "model_markers": len(model), "chunk_markers": len(self.markers) - len(model),
            "cited_by_overlap": sum(m.cited_by == "overlap" for m in model),
            "dropped": sum(w.dropped for w in self.windows),
            "coverage_first": round(float(np.mean([w.coverage_first for w in self.windows])), 4) if self.windows else 0,
            "coverage": round(len(cited) / paragraphs, 4),
            "fallback_rate": round(fallback / paragraphs, 4),
            "support_rate": round(float(np.mean([m.support for m in model])), 4) if model else None,
            "name_support": round(float(np.mean(names)), 4) if names else None,
            "number_support": round(float(np.mean(numbers)), 4) if numbers else None,
            "flagged_share": round(sum(m.flagged for m in model) / len(model), 4) if model else None,
            "extraction_seconds": round(sum(w.seconds for w in self.windows), 2),
            "prompt_tokens": sum(w.prompt_tokens for w in self.windows),
            "completion_tokens": sum(w.completion_tokens for w in self.windows),
            "llm_calls": sum(w.attempts for w in self.windows),
            "store_bytes": stored,
            "storage_expansion": round(stored / max(self.book_bytes, 1), 2),
        }
