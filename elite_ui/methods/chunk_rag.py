"""Plain chunk RAG, the baselines ELITE is measured against (and the app's side-by-side view offers): the book cut
into chunks of about ``chunk_words`` words, ranked for a question by MiniLM cosine (``embedding``) or by BM25
(``bm25``, bm25s over the question and its options), placed best first up to the evidence budget, then the same
answer step as the other methods. Events: start, retrieval (the chunks placed, with scores), answer, done.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..book import Book
from ..errors import Cancelled
from ..models import LLM, Embed
from ..settings import setting
from . import prompts
from .base import AnswerSettings, Engine, Prepared
from .lexical import overlaps_half, tilings
from .trace import Answer, Event, Kind, Placed, Retrieval, Trace


@dataclass(frozen=True)
class ChunkSettings(AnswerSettings):
    """Chunk RAG's settings. In the app, chunk RAG takes the preset and the evidence budget of the ELITE settings
    panel, so that side by side both read as much."""

    chunk_words: int = setting(100, "words per chunk, about (whole sentences)", low=10, high=2000)
    tilings: int = setting(1, "tilings of the book into chunks, each offset by a share of a chunk: 2 adds chunks "
                              "straddling every boundary (half-overlapping passages)", low=1, high=4)
    evidence_tokens: int = setting(2000, "token budget of the chunks placed before the answer (0: as much as the "
                                         "model's context holds beside the prompt and the answer)", low=0,
                                   high=32000)


PRESETS = {"paper": ChunkSettings(), "laptop": ChunkSettings(evidence_tokens=800, answer_tokens=96)}
"""The evidence and answer budgets of ELITE's presets of the same names, so side by side both read as much."""

RANKED = 200
"""Chunks ranked for a question, best first; the budget is filled from these."""


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


EMBED_BATCH = 256
"""Chunks embedded per call while an index is built (Stop is looked at between calls)."""


class MiniLMChunks:
    """Chunks embedded with MiniLM; a question ranks them by cosine similarity."""

    def index(self, texts: list[str], embed: Embed, cancel: threading.Event) -> np.ndarray:
        vectors = []
        for start in range(0, len(texts), EMBED_BATCH):
            if cancel.is_set():
                raise Cancelled("stopped while the chunk index was built; it is built again next time.")
            vectors.append(np.asarray(embed(texts[start:start + EMBED_BATCH]), dtype=np.float32))
        return np.concatenate(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)

    def stored_bytes(self, vectors: np.ndarray, texts: list[str]) -> int:
        """What the vectors and the chunk texts take saved to disk."""
        with tempfile.TemporaryDirectory() as folder:
            np.save(Path(folder) / "vectors.npy", vectors)
            (Path(folder) / "chunks.txt").write_text("\n".join(texts))
            return directory_bytes(Path(folder))

    def rank(self, vectors, question: str, options: dict[str, str] | None, embed: Embed) -> list[tuple[int, float]]:
        query = np.asarray(embed([question]), dtype=np.float32)[0]
        scores = vectors @ query
        return [(int(i), float(scores[i])) for i in np.argsort(-scores)[:RANKED]]


class BM25Chunks:
    """Chunks indexed by BM25 (bm25s, English stopwords); a question and its options rank them."""

    def index(self, texts: list[str], embed: Embed, cancel: threading.Event) -> tuple[object, int]:
        """The BM25 index and the number of chunks (built in moments: no stop is looked at)."""
        import bm25s

        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        return retriever, len(texts)

    def stored_bytes(self, state, texts: list[str]) -> int:
        """What the BM25 matrices and the chunk texts take saved to disk."""
        with tempfile.TemporaryDirectory() as folder:
            state[0].save(folder, corpus=texts, show_progress=False)
            return directory_bytes(Path(folder))

    def rank(self, state, question: str, options: dict[str, str] | None, embed: Embed) -> list[tuple[int, float]]:
        import bm25s

        retriever, count = state
        query = bm25s.tokenize([question + " " + " ".join((options or {}).values())], stopwords="en",
                               show_progress=False)
        ids, scores = retriever.retrieve(query, k=min(count, RANKED), show_progress=False)
        return [(int(i), float(score)) for i, score in zip(ids[0], scores[0], strict=True)]


RANKERS = {"embedding": MiniLMChunks(), "bm25": BM25Chunks()}


class ChunkRag(Engine):
    """Answers from the best fixed-size chunks of the book, as ranked by ``ranker`` (a name in :data:`RANKERS`)."""

    def __init__(self, llm: LLM, settings: ChunkSettings | None = None, *, ranker: str = "bm25",
                 embed: Embed | None = None, cancel: threading.Event | None = None):
        super().__init__(llm, settings or ChunkSettings(), embed=embed, cancel=cancel)
        self.name, self.ranker = ranker, RANKERS[ranker]

    def prepared_key(self, book: Book) -> Hashable:
        return (self.name, book.digest, self.settings.chunk_words, self.settings.tilings)

    def prepare(self, book: Book) -> Prepared:
        """The book's chunks and their index (MiniLM vectors or BM25), with the time it took and its size."""
        started = time.perf_counter()
        spans = [span for tiling in tilings(book, self.settings.chunk_words, self.settings.tilings) for span in tiling]
        texts = [book.span_text(a, b) for a, b in spans]
        state = self.ranker.index(texts, self.embed, self.cancel)
        seconds = time.perf_counter() - started
        return Prepared(seconds, self.ranker.stored_bytes(state, texts), (spans, state))

    def steps(self, book: Book, question: str, options: dict[str, str] | None, *, prepared: Prepared,
              generate: bool = True):
        """Rank the chunks, place the best that fit the budget (none outside the part of the book searched: past a
        spoiler ceiling, in the front matter under one, or outside the part a question named; none more than half
        inside a chunk placed already), answer."""
        started = time.perf_counter()
        spans, state = prepared.state
        placed, budget = [], self.room(self.settings.evidence_tokens)
        for index, score in self.ranker.rank(state, question, options, self.embed):
            first, last = spans[index]
            outside = first < book.searched_from or last >= len(book)
            if outside or overlaps_half((first, last), [(p.first, p.last) for p in placed]):
                continue
            cost = sum(self.cost(book, sid) for sid in range(first, last + 1))
            if cost <= budget:
                placed.append(Placed(first, last, round(score, 4)))
                budget -= cost
        yield Event(Kind.RETRIEVAL, 1, Retrieval(placed, self.name, round(time.perf_counter() - started, 4)))
        evidence = sorted(sid for c in placed for sid in range(c.first, c.last + 1))
        if not generate:
            return Answer("", evidence=evidence)
        listing = "\n".join(prompts.labelled(book, sid) for sid in evidence)
        return (yield from self.answer_from(book, question, options, listing, evidence))

    def passages(self, book: Book, trace: Trace) -> list[tuple[int, str]]:
        """The chunks placed, best first."""
        return [(c.first, book.span_text(c.first, c.last)) for c in trace.of(Kind.RETRIEVAL)[0].data.chunks]
