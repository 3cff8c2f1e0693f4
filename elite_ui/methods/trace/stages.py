"""The payloads of the trace's stages: what each event says of a question's run (its start, terms, collections,
passages, exploration, trim, placement, M-RAG's assembly and audit, model calls, progress and the end)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from .evidence import Chunk, Citation, Hit, Term

if TYPE_CHECKING:
    from ...book.model import Ceiling


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
        return "terms " + ", ".join(f"{t.text} ({t.whence})" for t in self.new)


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
