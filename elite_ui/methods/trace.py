"""The trace: the one contract between an answering method and the page. A method emits :class:`Event` objects
one at a time; each has a :class:`Kind` and a typed payload (the dataclasses below; :data:`PAYLOADS` says which
kind carries which, and docs/trace.md is made from it), and the whole is JSON-ready.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from ..book.model import Ceiling


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
    waited: float = 0.0
    """Seconds the call waited for the shared model (other readers' calls ran first)."""


@dataclass
class Term:
    """A search term. ``origin``: question, breadth, depth, fallback (question words when the model gave none),
    names (another name of a character a term names), feedback (a word of the first pass's best sentences) or
    reader (added by the reader in an edited rerun)."""

    text: str
    origin: str
    words: list[str]
    new: bool = True
    in_book: bool = True
    by: str = "model"
    """model: the LLM wrote it; lexical: picked from the question's or the text's words; judge: proposed by the
    judge; names: from the name index; option: an option's own words; reader: typed by the reader."""
    of: str = ""
    """Whose: the character a ``names`` term is another name of, the letter of an ``option`` term's option."""


@dataclass(kw_only=True)
class Place:
    """Where something lies in the book: its sentence, character offsets, chapter and (for PDFs) page."""

    sentence_id: int
    start: int
    end: int
    chapter: int
    """Its chapter's place among the book's chapters, front matter counted (0: the first)."""
    chapter_title: str
    page: int | None
    chapter_ref: str = ""
    """Its chapter as the book numbers it, as citations write it ("ch. 10", "bk. 2, ch. 3")."""

    @classmethod
    def at(cls, sentence, **rest):
        """One at a book's ``sentence`` (a :class:`~elite_ui.book.model.Sentence`), with the kind's own fields."""
        return cls(sentence_id=sentence.id, start=sentence.start, end=sentence.end, chapter=sentence.chapter,
                   chapter_title=sentence.chapter_title, chapter_ref=sentence.chapter_ref, page=sentence.page,
                   **rest)


@dataclass(kw_only=True)
class Hit(Place):
    """A retrieved sentence: ``score`` is the number of distinct target words in it (the paper's overlap),
    ``weight`` what it was ranked by (the ``ranking`` formula, smoothed over its neighbours), ``supports`` the
    options whose words it holds (multiple choice)."""

    score: int
    matched: list[str]
    text: str
    rank: int = 0
    weight: float = 0.0
    supports: list[str] = field(default_factory=list)


@dataclass
class Sample:
    """One importance sample: noise level λ, cosine similarity of the two answers, and the perturbed answer."""

    noise: float
    similarity: float
    answer: str
    kl: float | None = None


@dataclass(kw_only=True)
class Chunk:
    """Hit sentences widened by their neighbours; overlapping widenings are merged into one chunk."""

    first: int
    last: int
    hits: list[int]
    score: int
    text: str
    iteration: int
    weight: float = 0.0
    """What it was placed by: a window's best sentence's rank (its hits' weights; with ``passage_weight``, that and
    its fixed chunk's score, each scaled to the question's best), a fixed chunk's BM25 score."""
    importance: float | None = None
    kl_importance: float | None = None
    base_answer: str = ""
    samples: list[Sample] = field(default_factory=list)
    seconds: float = 0.0
    pinned: bool = False
    """Pinned as evidence by the reader: ranked first and never trimmed."""
    fixed: bool = False
    """A fixed chunk ranked by BM25 (chunk fusion), not hits widened."""

    @property
    def key(self) -> tuple[int, int]:
        return (self.first, self.last)

    doing: ClassVar[str] = "weighing how much each passage matters"

    def said(self) -> str:
        return f"chunk S{self.first}-S{self.last} importance {self.importance:.2f}"


@dataclass
class Verdict:
    sufficient: bool
    reason: str
    parsed: bool

    doing: ClassVar[str] = "the model judged the evidence"

    def said(self) -> str:
        return f"judge says {'sufficient' if self.sufficient else 'not sufficient'}: {self.reason[:100]}"


@dataclass
class Citation:
    sentence_id: int
    label: str
    text: str
    automatic: bool = False


@dataclass(kw_only=True)
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

    doing: ClassVar[str] = "mentions counted"

    def said(self) -> str:
        return f"counting \"{self.phrase}\" in the forms {', '.join(self.forms)}: {self.total}"


@dataclass
class Answer:
    """The model's answer with its citations; ``quotes``: the best evidence sentences, shown first as what the book
    says; ``caveat``: said when the search was judged insufficient."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    choice: str | None = None
    votes: dict[str, int] | None = None
    vote_shares: dict[str, float] | None = None
    count: Count | None = None
    evidence: list[int] = field(default_factory=list)
    quotes: list[Citation] = field(default_factory=list)
    caveat: str = ""
    checked: int = 0
    """Sentences of a written answer the grounding check read (0: not checked)."""
    left_out: int = 0
    """Of those, how many were left out under a spoiler ceiling: the sentences they cite do not support them (their
    words are not kept anywhere, since a model's memory of a later chapter is what the ceiling keeps out)."""
    unsupported: list[str] = field(default_factory=list)
    """Without a ceiling, the answer's sentences the sentences they cite do not support (shown marked)."""
    recited: int = 0
    """Sentences whose label the check moved to the evidence sentence that supports them."""

    @property
    def heading(self) -> str:
        """What the answer is called after the quotes: a count is the book's, not the model's."""
        return "The count" if self.count else "The model's answer"

    @property
    def grounding_note(self) -> str:
        """What the grounding check did, in a sentence (empty when it found every sentence supported)."""
        some = len(self.unsupported) or self.left_out
        sentences = f"{some} sentence{'s' * (some != 1)} of the model's answer"
        moved = (f"{self.recited} citation{'s' * (self.recited != 1)} moved to the evidence sentence that says it. "
                 if self.recited else "")
        if self.left_out:
            said = (f"{sentences} left out: the sentences {'they cite do' if some > 1 else 'it cites do'} not "
                    f"support {'them' if some > 1 else 'it'}. A model may know a famous book beyond your ceiling; "
                    "answers are checked against the book up to it.")
        else:
            said = f"{sentences} marked: the sentences cited do not support {'them' if some > 1 else 'it'}." if some \
                else ""
        return (moved + said).strip()

    doing: ClassVar[str] = "answer written"


@dataclass(kw_only=True)
class Start:
    """What a question was asked of: the method, its settings, the book, the model, and the
    reader's spoiler ceiling; M-RAG adds its index card."""

    question: str
    options: dict[str, str] | None
    settings: dict
    book: dict
    model: str
    method: str
    ceiling: Ceiling | None = None
    index: dict | None = None
    about: list[int] = field(default_factory=list)
    """The passage the reader asked about (its sentences, pinned as evidence), if any."""


@dataclass
class Terms:
    """An iteration's search terms: the new ones and every one tried so far."""

    new: list[Term]
    all: list[Term]

    doing: ClassVar[str] = "search terms chosen"

    def said(self) -> str:
        return "terms " + ", ".join(f"{t.text} ({t.origin})" for t in self.new)


@dataclass
class Collection:
    hits: list[Hit]

    doing: ClassVar[str] = "matching sentences collected"

    def said(self) -> str:
        return f"{len(self.hits)} sentences retrieved"


@dataclass
class Chunks:
    chunks: list[Chunk]

    doing: ClassVar[str] = "widened into passages"


@dataclass
class Exploration:
    """The next iteration's terms: breadth-wise (related) and depth-wise (from the best chunks)."""

    breadth: list[Term]
    depth: list[Term]

    doing: ClassVar[str] = "searching further"


@dataclass
class Trim:
    """The organising step: the sentences kept for the answer and dropped, and whether the model chose."""

    kept: list[int]
    dropped: list[int]
    by_model: bool
    enabled: bool

    doing: ClassVar[str] = "evidence trimmed"


@dataclass
class EditMade:
    """What the reader changed in an edited run: the run and iteration it searches again from, the terms added
    and removed, and the sentences pinned."""

    run: int
    iteration: int
    added: list[str]
    removed: list[str]
    pinned: list[int]


@dataclass
class Placed:
    """A fixed-size chunk placed in the context by plain chunk RAG: its sentences and its score."""

    first: int
    last: int
    score: float


@dataclass
class Retrieval:
    chunks: list[Placed]
    method: str
    seconds: float

    doing: ClassVar[str] = "passages ranked"

    def said(self) -> str:
        return (f"{self.method}: {len(self.chunks)} chunks placed: "
                + ", ".join(f"S{c.first}-S{c.last} ({c.score:.2f})" for c in self.chunks[:6]))


@dataclass
class Assembly:
    """M-RAG's context: every key matched (``KeyMatch``), the markers placed, and the budget spent."""

    matches: list
    placed: list[int]
    budget: int
    spent: int
    order: str
    seconds: float

    doing: ClassVar[str] = "evidence placed"

    def said(self) -> str:
        by = {m.marker: m for m in self.matches}
        return (f"M-RAG placed {len(self.placed)} values ({self.spent} of {self.budget} tokens): "
                + "; ".join(f"{by[n].key[:60]} ({by[n].similarity:.2f})" for n in self.placed[:5]))


@dataclass
class Audit:
    """The model's verdict on each statement of a placed M-RAG value."""

    marker: int
    statements: list[dict]
    supported_share: float

    doing: ClassVar[str] = "markers checked"


@dataclass
class Progress:
    """M-RAG extraction: windows done and left, and the time left at this run's pace (None before the first)."""

    done: int
    total: int
    left: int
    resumed: int
    seconds: float
    eta_seconds: float | None

    def said(self) -> str:
        eta = f", about {self.eta_seconds / 60:.1f} min left" if self.eta_seconds is not None else ""
        return f"M-RAG index: {self.done} of {self.total} windows{eta}"


@dataclass
class Quoted:
    """What the book says, its best evidence sentences, known before the answer is written (for live display, so
    the reader reads them meanwhile; the answer holds them in the trace)."""

    quotes: list[Citation]

    doing: ClassVar[str] = "what the book says found; the answer is being written"


@dataclass
class Delta:
    """A piece of a reply as it is written (for live display; not kept in the trace)."""

    text: str


@dataclass
class Notice:
    """Something the reader should know about how a question went ("no new search terms were found")."""

    message: str

    def said(self) -> str:
        return f"warning: {self.message}"


@dataclass
class Queue:
    """A call waiting for the shared model: other readers' calls to be served first, and the calls running now
    out of the model's ``slots``."""

    ahead: int
    busy: int
    slots: int

    def said(self) -> str:
        ahead = ("yours is next" if self.ahead == 0 else
                 f"{self.ahead} request{'s' if self.ahead > 1 else ''} ahead of yours")
        at_once = "one request at a time" if self.slots == 1 else f"{self.slots} requests at a time"
        return f"Waiting for the model (it answers {at_once}, and all are taken): {ahead}."


@dataclass
class Calls:
    """How far a long stage is through its model calls (importance: a call per passage and noise level)."""

    stage: str
    done: int
    total: int

    def said(self) -> str:
        return f"{self.stage}, {self.done} of {self.total} calls"


@dataclass
class Done:
    seconds: float


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
    Kind.CALLS: Calls,
}
"""The payload type of each kind (``window`` carries M-RAG's ``Window``, registered by that module). A payload
describes itself once: ``doing``, what the status line says after its kind ("search terms chosen"), and
``said()``, the line the command line prints of it."""


LIVE = {Kind.QUOTES, Kind.ANSWER_DELTA, Kind.QUEUE, Kind.CALLS}
"""Kinds shown while a question runs and not kept in its trace."""


@dataclass
class Event:
    """One step of the trace: its kind, the iteration it belongs to (0: before or after the loop) and its payload,
    checked against :data:`PAYLOADS`."""

    kind: Kind
    iteration: int
    data: Any

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
