"""Retrieval strategies compared by the benchmark, each filling the same token budget for the same generator.

- ``elite``: the ELITE loop up to its trimmed evidence;
- ``vanilla``: the book itself, from the start, cut to the budget;
- ``embedding``: fixed-size chunks embedded with the embedded MiniLM, best cosine first;
- ``bm25``: BM25 (bm25s) over the same chunks;
- ``mrag``: M-RAG's meta-markers (extracted once per book and model into the marker store), keys matched with
  MiniLM, values placed up to the budget.

Each reports its preparation time and the bytes it would persist (measured by saving its index to disk).
:class:`ChunkRag` answers with the embedding or BM25 ranking as a method of its own (the app's side-by-side view).
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from . import prompts
from .documents import Book
from .elite import PRESETS, Elite, Settings, with_overrides
from .engine import Engine, choose
from .importance import Embed, MiniLMEmbedder
from .llm import LLM, Request
from .mrag import PRESETS as MRAG_PRESETS
from .mrag import Mrag, MragSettings
from .parsing import clean_answer
from .trace import Event

CHUNK_WORDS = 100


@dataclass
class Prepared:
    seconds: float
    bytes: int
    state: object = None


@dataclass
class Retrieved:
    """The context a strategy hands the generator, and what finding it cost."""

    context: str
    seconds: float
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict = field(default_factory=dict)


def chunks(book: Book, words: int = CHUNK_WORDS) -> list[tuple[int, int]]:
    """Consecutive sentences grouped into chunks of about ``words`` words: (first, last) sentence IDs."""
    lengths = np.diff(book.bounds, axis=1)[:, 0] / 6.0
    out, first, total = [], 0, 0.0
    for sid, length in enumerate(lengths):
        total += length
        if total >= words:
            out.append((first, sid))
            first, total = sid + 1, 0.0
    if first < len(book):
        out.append((first, len(book) - 1))
    return out


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def fill(llm: LLM, pieces: list[tuple[int, str]], budget: int) -> str:
    """Add pieces in the given order until the token budget is spent, then put them back in book order."""
    kept, spent = [], 0
    for position, text in pieces:
        cost = llm.count_tokens(text)
        if spent + cost > budget:
            continue
        kept.append((position, text))
        spent += cost
    return "\n\n".join(text for _, text in sorted(kept))


class Strategy:
    name = ""

    def __init__(self, llm: LLM, embed: Embed | None = None, settings=None):
        self.llm = llm
        self.embed = embed or MiniLMEmbedder()
        self.settings = settings or self.defaults("laptop")

    @staticmethod
    def defaults(preset: str):
        """The settings ``--set`` overrides: ELITE's preset (strategies without settings of their own ignore it)."""
        return PRESETS[preset]

    def prepare(self, book: Book) -> Prepared:
        return Prepared(0.0, 0)

    def retrieve(self, book: Book, prepared: Prepared, question: str, options, budget: int) -> Retrieved:
        raise NotImplementedError


class Vanilla(Strategy):
    name = "vanilla"

    def retrieve(self, book, prepared, question, options, budget):
        started = time.perf_counter()
        text = book.text[: budget * 6]
        while text and self.llm.count_tokens(text) > budget:
            text = text[: int(len(text) * 0.9)]
        return Retrieved(text, time.perf_counter() - started)


class EliteStrategy(Strategy):
    name = "elite"

    def retrieve(self, book, prepared, question, options, budget):
        started = time.perf_counter()
        settings = with_overrides(self.settings, evidence_tokens=budget)
        trace = Elite(self.llm, settings, embed=self.embed).run(book, question, options, generate=False)
        kept = trace.answer.evidence
        runs: list[list[int]] = []
        for sid in kept:
            if runs and sid == runs[-1][-1] + 1:
                runs[-1].append(sid)
            else:
                runs.append([sid])
        context = fill(self.llm, [(r[0], book.span_text(r[0], r[-1])) for r in runs], budget)
        totals = trace.totals()
        return Retrieved(context, time.perf_counter() - started, totals["llm_calls"], totals["prompt_tokens"],
                         totals["completion_tokens"], {"iterations": totals["iterations"]})


class Embedding(Strategy):
    name = "embedding"

    def prepare(self, book):
        started = time.perf_counter()
        spans = chunks(book)
        vectors = np.asarray(self.embed([book.span_text(a, b) for a, b in spans]), dtype=np.float32)
        seconds = time.perf_counter() - started
        with tempfile.TemporaryDirectory() as folder:
            np.save(Path(folder) / "vectors.npy", vectors)
            (Path(folder) / "chunks.txt").write_text("\n".join(book.span_text(a, b) for a, b in spans))
            size = directory_bytes(Path(folder))
        return Prepared(seconds, size, (spans, vectors))

    def rank(self, prepared: Prepared, question: str, options) -> list[tuple[int, float]]:
        """Chunks by cosine similarity to the question, best first (at most 200), with their scores."""
        spans, vectors = prepared.state
        query = np.asarray(self.embed([question]), dtype=np.float32)[0]
        scores = vectors @ query
        return [(int(i), float(scores[i])) for i in np.argsort(-scores)[:200]]

    def retrieve(self, book, prepared, question, options, budget):
        started = time.perf_counter()
        spans = prepared.state[0]
        ranking = self.rank(prepared, question, options)
        context = fill(self.llm, [(i, book.span_text(*spans[i])) for i, _ in ranking], budget)
        return Retrieved(context, time.perf_counter() - started)


class BM25(Strategy):
    name = "bm25"

    def prepare(self, book):
        import bm25s

        started = time.perf_counter()
        spans = chunks(book)
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize([book.span_text(a, b) for a, b in spans], stopwords="en",
                                       show_progress=False), show_progress=False)
        seconds = time.perf_counter() - started
        with tempfile.TemporaryDirectory() as folder:
            retriever.save(folder, corpus=[book.span_text(a, b) for a, b in spans], show_progress=False)
            size = directory_bytes(Path(folder))
        return Prepared(seconds, size, (spans, retriever))

    def rank(self, prepared: Prepared, question: str, options) -> list[tuple[int, float]]:
        """Chunks by BM25 score for the question and its options, best first (at most 200)."""
        import bm25s

        spans, retriever = prepared.state
        query = bm25s.tokenize([question + " " + " ".join((options or {}).values())], stopwords="en",
                               show_progress=False)
        ids, scores = retriever.retrieve(query, k=min(len(spans), 200), show_progress=False)
        return [(int(i), float(score)) for i, score in zip(ids[0], scores[0])]

    def retrieve(self, book, prepared, question, options, budget):
        started = time.perf_counter()
        spans = prepared.state[0]
        ranking = self.rank(prepared, question, options)
        context = fill(self.llm, [(i, book.span_text(*spans[i])) for i, _ in ranking], budget)
        return Retrieved(context, time.perf_counter() - started)


class MragStrategy(Strategy):
    name = "mrag"

    @staticmethod
    def defaults(preset: str) -> MragSettings:
        return MRAG_PRESETS[preset]

    def prepare(self, book):
        engine = Mrag(self.llm, self.settings, embed=self.embed)
        for _ in engine.build(book):
            pass
        started = time.perf_counter()
        index = engine.index(book)
        stats = index.stats()
        return Prepared(stats["extraction_seconds"] + time.perf_counter() - started, stats["store_bytes"], index)

    def retrieve(self, book, prepared, question, options, budget):
        started = time.perf_counter()
        engine = Mrag(self.llm, with_overrides(self.settings, budget_tokens=budget), embed=self.embed)
        trace = engine.run(book, question, options, index=prepared.state, generate=False)
        assembly = trace.of("assembly")[0].data
        by_marker = {m.marker: m for m in assembly["matches"]}
        context = "\n\n".join(by_marker[n].text for n in assembly["placed"])
        totals = trace.totals()
        return Retrieved(context, time.perf_counter() - started, totals["llm_calls"], totals["prompt_tokens"],
                         totals["completion_tokens"], {"markers_placed": len(assembly["placed"])})


STRATEGIES = {s.name: s for s in (EliteStrategy, Vanilla, Embedding, BM25, MragStrategy)}


class ChunkRag(Engine):
    """Plain chunk RAG as an answering method for the app's side-by-side view: fixed-size chunks ranked by
    ``strategy`` (MiniLM cosine or BM25), placed best first up to the evidence budget, then the same answer
    step as ELITE's. Events: start, retrieval (the chunks placed, with scores), answer, done."""

    def __init__(self, llm: LLM, settings: Settings, strategy: Embedding | BM25, prepared: Prepared, *,
                 cancel: threading.Event | None = None):
        super().__init__(llm, settings, embed=strategy.embed, cancel=cancel)
        self.strategy, self.prepared = strategy, prepared

    def ask(self, book: Book, question: str, options: dict[str, str] | None = None, **kwargs) -> Iterator[Event]:
        question, options = self.normalised(question, options)
        started = time.perf_counter()
        yield Event("start", 0, {"question": question, "options": options, "settings": asdict(self.settings),
                                 "book": book.summary(), "model": self.llm.name, "strategy": self.strategy.name,
                                 "ceiling": book.stats.get("ceiling")})
        spans = self.prepared.state[0]
        placed, budget = [], self.settings.evidence_tokens
        for index, score in self.strategy.rank(self.prepared, question, options):
            first, last = spans[index]
            if last >= len(book):
                continue
            cost = self.llm.count_tokens(book.span_text(first, last))
            if cost <= budget:
                placed.append({"first": first, "last": last, "score": round(score, 4)})
                budget -= cost
        yield Event("retrieval", 1, {"chunks": placed, "method": self.strategy.name,
                                     "seconds": round(time.perf_counter() - started, 4)})
        evidence = sorted(sid for c in placed for sid in range(c["first"], c["last"] + 1))
        listing = "\n".join(f"[S{sid}] {' '.join(book.sentence(sid).text.split())}" for sid in evidence)
        answer = yield from self.answer_from(book, question, options, listing, evidence)
        yield Event("answer", 0, answer)
        yield Event("done", 0, {"seconds": round(time.perf_counter() - started, 3)})


@dataclass
class Generated:
    prediction: str
    seconds: float
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int


def generate(llm: LLM, question: str, options: dict[str, str] | None, context: str, max_tokens: int = 96) -> Generated:
    """The one generator every strategy answers through: the ELITE answer prompt, greedy; a letter for options."""
    started = time.perf_counter()
    messages = prompts.answer(question, options, context or "(nothing found)")
    result = llm.complete(Request("answer", messages, max_tokens=12 if options else max_tokens))
    if options:
        prediction = choose(llm, messages, result.text, options) or ""
    else:
        prediction = clean_answer(result.text)
    return Generated(prediction, time.perf_counter() - started, 1, result.prompt_tokens, result.completion_tokens)
