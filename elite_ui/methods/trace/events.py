"""The trace itself: the kinds of event, the payload each carries (:data:`PAYLOADS`), the event, and a question's
whole trace with what it cost (:class:`Totals`), JSON-ready."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from .evidence import Answer, Chunk, Count, Verdict, Window
from .stages import (
    Assembly,
    Audit,
    Calls,
    Chunks,
    Collection,
    Delta,
    Done,
    EditMade,
    Exploration,
    LLMCall,
    Notice,
    Progress,
    Queue,
    Quoted,
    Retrieval,
    Start,
    Terms,
    Trim,
)


@dataclass
class Totals:
    """What a run cost: its model calls, their tokens (evaluated: read, not reused from the KV cache), the model's
    seconds in all and by stage, the seconds its calls waited for a shared model, its iterations, and the whole
    run's seconds (0 until it is done)."""

    llm_calls: int
    prompt_tokens: int
    cached_tokens: int
    evaluated_tokens: int
    completion_tokens: int
    llm_seconds: float
    llm_seconds_by_purpose: dict[str, float]
    waited_seconds: float
    iterations: int
    seconds: float


class Kind(StrEnum):
    """Every kind of trace event, in the order a question meets them."""

    START = "start"
    TERMS = "terms"
    COLLECTION = "collection"
    CHUNKS = "chunks"
    IMPORTANCE = "importance"
    JUDGE = "judge"
    EXPLORATION = "exploration"
    TRIM = "trim"
    COUNT = "count"
    EDIT = "edit"
    RETRIEVAL = "retrieval"
    ASSEMBLY = "assembly"
    AUDIT = "audit"
    LLM_CALL = "llm_call"
    QUOTES = "quotes"
    ANSWER_DELTA = "answer_delta"
    WARNING = "warning"
    ANSWER = "answer"
    DONE = "done"
    WINDOW = "window"
    INDEX_PROGRESS = "index_progress"
    QUEUE = "queue"
    CALLS = "calls"


PAYLOADS: dict[Kind, type] = {
    Kind.START: Start, Kind.TERMS: Terms, Kind.COLLECTION: Collection, Kind.CHUNKS: Chunks,
    Kind.IMPORTANCE: Chunk, Kind.JUDGE: Verdict, Kind.EXPLORATION: Exploration, Kind.TRIM: Trim,
    Kind.COUNT: Count, Kind.EDIT: EditMade, Kind.RETRIEVAL: Retrieval, Kind.ASSEMBLY: Assembly,
    Kind.AUDIT: Audit, Kind.LLM_CALL: LLMCall, Kind.QUOTES: Quoted, Kind.ANSWER_DELTA: Delta, Kind.WARNING: Notice,
    Kind.ANSWER: Answer, Kind.DONE: Done, Kind.INDEX_PROGRESS: Progress, Kind.QUEUE: Queue,
    Kind.CALLS: Calls, Kind.WINDOW: Window,
}
"""The payload type of each kind. A payload describes itself once: ``doing``, what the status line says after its
kind ("search terms chosen"), and ``said()``, the line the command line prints of it."""


Payload = (Start | Terms | Collection | Chunks | Chunk | Verdict | Exploration | Trim | Count | EditMade | Retrieval
           | Assembly | Audit | LLMCall | Quoted | Delta | Notice | Answer | Done | Progress | Queue | Calls | Window)
"""What an event carries: one of :data:`PAYLOADS`' types."""

LIVE = {Kind.QUOTES, Kind.ANSWER_DELTA, Kind.QUEUE, Kind.CALLS}
"""Kinds shown while a question runs and not kept in its trace."""


@dataclass
class Event:
    """One step of the trace: its kind, the iteration it belongs to (0: before or after the loop) and its payload,
    checked against :data:`PAYLOADS`."""

    kind: Kind
    iteration: int
    data: Payload

    def __post_init__(self):
        self.kind = Kind(self.kind)
        expected = PAYLOADS.get(self.kind)
        if expected is not None and not isinstance(self.data, expected):
            raise TypeError(f"a {self.kind} event carries {expected.__name__}, not {type(self.data).__name__}")

    def to_dict(self) -> dict:
        data = asdict(self.data) if hasattr(self.data, "__dataclass_fields__") else self.data
        return {"kind": str(self.kind), "iteration": self.iteration, "data": jsonable(data)}


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
        """Keep ``event``; ``answer_delta`` pieces and ``queue`` places are for live display only (the answer event
        holds the text, each call the seconds it waited)."""
        if event.kind not in LIVE:
            self.events.append(event)
        return event

    @property
    def answer(self) -> Answer | None:
        found = [e.data for e in self.events if e.kind == Kind.ANSWER]
        return found[-1] if found else None

    def of(self, kind: Kind | str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def totals(self) -> Totals:
        calls = [e.data for e in self.of(Kind.LLM_CALL)]
        by_stage: dict[str, float] = {}
        for call in calls:
            by_stage[call.purpose] = round(by_stage.get(call.purpose, 0.0) + call.seconds, 3)
        done = self.of(Kind.DONE)
        return Totals(len(calls), sum(c.prompt_tokens for c in calls), sum(c.cached_tokens for c in calls),
                      sum(c.prompt_tokens - c.cached_tokens for c in calls), sum(c.completion_tokens for c in calls),
                      round(sum(c.seconds for c in calls), 3), by_stage, round(sum(c.waited for c in calls), 3),
                      max((e.iteration for e in self.events), default=0), done[-1].data.seconds if done else 0.0)

    def to_dict(self) -> dict:
        return {"question": self.question, "events": [e.to_dict() for e in self.events],
                "totals": asdict(self.totals())}

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

