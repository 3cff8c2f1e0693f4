"""The trace: plain dataclasses for every stage of a question, emitted one :class:`Event` at a time, JSON-ready."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class LLMCall:
    purpose: str
    prompt: str
    output: str
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str = "stop"


@dataclass
class Term:
    """A search term. ``origin``: question, breadth, depth, fallback (question words when the model gave none),
    names (another name of a character a term names) or reader (added by the reader in an edited rerun)."""

    text: str
    origin: str
    words: list[str]
    new: bool = True
    in_book: bool = True
    by: str = "model"
    """model: the LLM wrote it; lexical: picked from the text when the model gave nothing usable; names: NAME:
    from the name index, for the character NAME; reader: typed by the reader."""


@dataclass
class Place:
    """Where something lies in the book: its sentence, character offsets, chapter and (for PDFs) page."""

    sentence_id: int
    start: int
    end: int
    chapter: int
    chapter_title: str
    page: int | None


@dataclass
class Hit(Place):
    """A retrieved sentence: ``score`` is the number of distinct target words in it (the paper's overlap)."""

    score: int
    matched: list[str]
    text: str
    rank: int = 0


@dataclass
class Sample:
    """One importance sample: noise level λ, cosine similarity of the two answers, and the perturbed answer."""

    noise: float
    similarity: float
    answer: str
    kl: float | None = None


@dataclass
class Chunk:
    """Hit sentences widened by their neighbours; overlapping widenings are merged into one chunk."""

    first: int
    last: int
    hits: list[int]
    score: int
    text: str
    iteration: int
    importance: float | None = None
    kl_importance: float | None = None
    base_answer: str = ""
    samples: list[Sample] = field(default_factory=list)
    seconds: float = 0.0
    pinned: bool = False
    """Pinned as evidence by the reader: ranked first and never trimmed."""

    @property
    def key(self) -> tuple[int, int]:
        return (self.first, self.last)


@dataclass
class Verdict:
    sufficient: bool
    reason: str
    parsed: bool


@dataclass
class Citation:
    sentence_id: int
    label: str
    text: str
    automatic: bool = False


@dataclass
class Occurrence(Place):
    """One match of a counted phrase, as it is written in the book."""

    matched: str


@dataclass
class Count:
    phrase: str
    forms: list[str]
    total: int
    occurrences: list[Occurrence]
    phrase_source: str


@dataclass
class Answer:
    text: str
    citations: list[Citation] = field(default_factory=list)
    choice: str | None = None
    votes: dict[str, int] | None = None
    vote_shares: dict[str, float] | None = None
    count: Count | None = None
    evidence: list[int] = field(default_factory=list)


@dataclass
class Event:
    """One step of the trace. ``kind``: start, terms, collection, chunks, importance, judge, exploration, trim,
    count, llm_call, answer_delta (a piece of a reply as it is written), warning, answer, done, and edit (what
    the reader changed, in an edited run); M-RAG adds assembly and audit to a question, and window and
    index_progress to building its index; plain chunk RAG reports retrieval."""

    kind: str
    iteration: int
    data: Any

    def to_dict(self) -> dict:
        data = asdict(self.data) if hasattr(self.data, "__dataclass_fields__") else self.data
        return {"kind": self.kind, "iteration": self.iteration, "data": jsonable(data)}


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return jsonable(asdict(value))
    if hasattr(value, "item"):
        return value.item()
    return value


@dataclass
class Trace:
    """Every event of one question, plus the final answer and totals."""

    question: str
    events: list[Event] = field(default_factory=list)

    def add(self, event: Event) -> Event:
        """Keep ``event``; ``answer_delta`` pieces are for live display only (the answer event holds the text)."""
        if event.kind != "answer_delta":
            self.events.append(event)
        return event

    @property
    def answer(self) -> Answer | None:
        found = [e.data for e in self.events if e.kind == "answer"]
        return found[-1] if found else None

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def totals(self) -> dict:
        calls = [e.data for e in self.of("llm_call")]
        by_stage: dict[str, float] = {}
        for call in calls:
            by_stage[call.purpose] = round(by_stage.get(call.purpose, 0.0) + call.seconds, 3)
        done = self.of("done")
        return {
            "llm_calls": len(calls),
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "cached_tokens": sum(c.cached_tokens for c in calls),
            "evaluated_tokens": sum(c.prompt_tokens - c.cached_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "llm_seconds": round(sum(c.seconds for c in calls), 3),
            "llm_seconds_by_purpose": by_stage,
            "iterations": max((e.iteration for e in self.events), default=0),
            **(done[-1].data if done else {}),
        }

    def to_dict(self) -> dict:
        return {"question": self.question, "events": [e.to_dict() for e in self.events], "totals": self.totals()}

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)
