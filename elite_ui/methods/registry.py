"""The one list of answering methods. The app's method and side-by-side choices and settings panels, the command
line's ``--method`` and flags, the benchmark's methods, budgets and figures, and the docs' settings tables are
all made from it; a new method is one entry here (its engine, settings class and presets, its evidence budget and
its figures), and the app binds it to the settings panel that sets it and the trace view that shows it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..book.names import NameIndex
from ..models import LLM, Embed, MiniLMEmbedder
from ..models.capacity import Share
from .base import Engine
from .chunk_rag import PRESETS as CHUNK_PRESETS
from .chunk_rag import ChunkRag, ChunkSettings
from .elite import PRESETS as ELITE_PRESETS
from .elite import Elite, Settings
from .mrag import PRESETS as MRAG_PRESETS
from .mrag import Mrag, MragSettings
from .trace import Kind, Trace
from .whole import PRESETS as WHOLE_PRESETS
from .whole import WholeBook, WholeSettings


@dataclass
class Tools:
    """What an engine may use besides the model: the embedder, the reader's stop flag, the cache folder (M-RAG's marker
    store), the book's character names (ELITE's term expansion, every method's grounding check) and the reader's share
    of a model that serves many readers."""

    embed: Embed = field(default_factory=MiniLMEmbedder)
    cancel: threading.Event = field(default_factory=threading.Event)
    cache_dir: Path | str | None = None
    names: NameIndex | None = None
    share: Share | None = None


@dataclass(frozen=True)
class Method:
    name: str
    """As the trace, the command line and the benchmark name it."""
    label: str
    """As the page shows it."""
    summary: str
    settings: type
    presets: dict
    create: Callable[[LLM, object, Tools], Engine]
    main: bool = False
    """Offered as the app's method (every method is offered side by side)."""
    builds: str = ""
    """What :meth:`Engine.prepare` builds on a book's first question, said while it is built ("its chunk index")."""
    budget: str = ""
    """Its setting the benchmark's ``--budget`` sets (none: it reads everything)."""
    figures: Callable[[Trace], dict] = lambda trace: {}
    """What the benchmark's results add for it (ELITE's iterations, M-RAG's markers placed)."""

    def engine(self, llm: LLM, settings=None, tools: Tools | None = None) -> Engine:
        tools = tools or Tools()
        engine = self.create(llm, settings if settings is not None else self.presets["laptop"], tools)
        engine.share, engine.names = tools.share, tools.names
        return engine


METHODS = {m.name: m for m in (
    Method("elite", "ELITE", "term search with the model's terms, judged and explored; no index", Settings,
           ELITE_PRESETS, lambda llm, s, t: Elite(llm, s, embed=t.embed, cancel=t.cancel),
           main=True, budget="evidence_tokens",
           figures=lambda trace: {"iterations": trace.totals().iterations}),
    Method("mrag", "M-RAG", "LLM-written meta-markers, built once per book and model", MragSettings, MRAG_PRESETS,
           lambda llm, s, t: Mrag(llm, s, embed=t.embed, cancel=t.cancel, cache_dir=t.cache_dir), main=True,
           budget="budget_tokens",
           figures=lambda trace: {"markers_placed": len(trace.of(Kind.ASSEMBLY)[0].data.placed)}),
    Method("embedding", "Chunk embedding (MiniLM)", "100-word chunks ranked by MiniLM cosine", ChunkSettings,
           CHUNK_PRESETS, lambda llm, s, t: ChunkRag(llm, s, ranker="embedding", embed=t.embed, cancel=t.cancel),
           builds="its chunk index", budget="evidence_tokens"),
    Method("bm25", "BM25 chunks", "100-word chunks ranked by BM25 over the question and options", ChunkSettings,
           CHUNK_PRESETS, lambda llm, s, t: ChunkRag(llm, s, ranker="bm25", embed=t.embed, cancel=t.cancel),
           builds="its chunk index", budget="evidence_tokens"),
    Method("whole", "Whole book", "the whole book (up to the ceiling) in the model's context, when it fits",
           WholeSettings, WHOLE_PRESETS, lambda llm, s, t: WholeBook(llm, s, embed=t.embed, cancel=t.cancel),
           main=True),
)}
