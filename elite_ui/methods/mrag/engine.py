"""M-RAG (meta-marker RAG): the book becomes LLM-written markers, each a question-like key, a richer value and the
numbered ~128-token paragraphs it came from. Only keys are embedded and matched against a question; the values of
the best keys fill the context up to a token budget, in book order or best first.

Extraction runs window by window. A window whose markers cite under ``coverage_threshold`` of its paragraphs is
retried for the uncovered ones; whatever stays uncovered becomes a chunk marker (the paragraph is its own key and
value). Each finished window is appended to an on-disk store named by a hash of the book's content, the model,
the prompt version and the extraction settings, so a stopped extraction resumes where it stopped.

Every marker is audited (the reviewers' doubt): the share of its value's content words, names and numbers that
occur in the paragraphs it cites; optionally the model judges each statement of a placed value against them.

The stages, one method each: :meth:`Mrag.build` and :meth:`Mrag.extract` (extraction, window by window, with
retries and the chunk fallback), :meth:`Mrag.cited` (each marker audited), :meth:`Mrag.prepare` (the finished
index with its key vectors), :meth:`Mrag.match` and :meth:`Mrag.assemble` (keys matched, values placed),
:meth:`Mrag.check_statements` (the model's audit), and the answer.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Hashable, Iterator
from pathlib import Path

import blingfire
import numpy as np

from ...book import Book, default_cache_dir
from ...errors import Cancelled, EliteError
from ...models import LLM, Embed
from .. import prompts
from ..base import Engine, Prepared, tapped
from ..parsing import parse_verdict
from ..trace import Answer, Assembly, Audit, Event, Kind, Marker, Trace, Window
from .index import SHOWN_MATCHES, KeyMatch, MarkerIndex, paragraphs, windows
from .markers import audit, parse_markers
from .settings import EXTRACTION_FIELDS, MragSettings
from .store import Store, progress

PROMPT_VERSION = 1
"""Bumped whenever the extraction prompt changes, so stored markers of an older prompt are not reused."""
AUDITED_STATEMENTS = 3

class Mrag(Engine):
    """Builds a book's marker index (resumable, cancellable) and answers questions from it."""

    name = "mrag"

    def __init__(self, llm: LLM, settings: MragSettings | None = None, *, embed: Embed | None = None,
                 cancel: threading.Event | None = None, cache_dir: Path | str | None = None):
        super().__init__(llm, settings or MragSettings(), embed=embed, cancel=cancel)
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.plans: dict[tuple, tuple[np.ndarray, list[tuple[int, int]]]] = {}

    def folder(self, book: Book) -> Path:
        """The store's folder: a hash of the book's content, the model, the prompt version and the extraction
        settings (names never come from user input)."""
        extraction = {name: getattr(self.settings, name) for name in EXTRACTION_FIELDS}
        extraction["window_tokens"] = self.window_budget()
        key = json.dumps([book.digest, self.llm.name, PROMPT_VERSION, extraction], sort_keys=True)
        return self.cache_dir / "mrag" / hashlib.sha256(key.encode()).hexdigest()[:24]

    def window_budget(self) -> int:
        """Paragraph tokens per extraction call: ``window_tokens``, less if the prompt and the reply would not
        fit the model's context."""
        s = self.settings
        room = self.llm.n_ctx - s.marker_tokens - self.llm.count_messages(prompts.markers("", s.few_shot)) - 16
        if room < s.paragraph_tokens:
            raise EliteError(f"the model's context of {self.llm.n_ctx} tokens leaves no room for paragraphs after "
                             f"a reply of {s.marker_tokens} tokens; lower marker_tokens or raise the context.")
        return min(s.window_tokens, room)

    def plan(self, book: Book) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """The book's paragraphs and the extraction windows over them, worked out once per book and settings
        (every sentence is tokenized: 4.5 s for Les Misérables, which building and then loading would pay twice)."""
        key = (book.digest, len(book), self.settings.paragraph_tokens, self.window_budget())
        if key not in self.plans:
            paras = paragraphs(book, self.llm, self.settings.paragraph_tokens)
            costs = [self.llm.count_tokens(self.paragraph_text(book, paras, p)) + 4 for p in range(len(paras))]
            self.plans[key] = paras, windows(costs, self.window_budget())
        return self.plans[key]

    @staticmethod
    def paragraph_text(book: Book, paras: np.ndarray, number: int) -> str:
        return " ".join(book.span_text(*paras[number]).split())

    def listing(self, book: Book, paras: np.ndarray, todo: list[int]) -> str:
        """The window's paragraphs numbered from 1, each cut to the window budget (a giant sentence still fits)."""
        budget = self.window_budget() // len(todo)
        return "\n\n".join(f"[{n}] {self.fit(self.paragraph_text(book, paras, p), budget)}"
                            for n, p in enumerate(todo, 1))

    def build(self, book: Book, only: set[int] | None = None, through: int | None = None) -> Iterator[Event]:
        """Extract every window not yet in the store (or ``only`` those, a measured sample; or, ``through`` a
        sentence, those that reach the book up to it, a reader's spoiler ceiling: the windows go in the book's
        order, so its questions are answered before the rest is built), yielding ``llm_call``, ``answer_delta``
        (replies as they are written), ``window`` and ``index_progress`` events (the windows of this build: done,
        left and the time left); stop at any time (the cancel flag, checked between tokens) and call again to
        resume."""
        paras, planned = self.plan(book)
        if through is not None:
            only = {n for n, (first, _) in enumerate(planned) if paras[first][0] < through}
        wanted = set(range(len(planned))) if only is None else only & set(range(len(planned)))
        store = Store(self.folder(book))
        while not store.take():
            theirs = len(wanted & store.load().keys())  # another process builds this index: its progress, then resume
            yield Event(Kind.INDEX_PROGRESS, 0, progress(theirs, len(wanted), theirs, 0.0))
            if self.cancel.is_set():
                raise Cancelled("stopped.")
        try:
            done = store.load()
            resumed, started = len(wanted & done.keys()), time.perf_counter()
            store.write_meta({
                "title": book.title, "digest": book.digest, "model": self.llm.name, "prompt_version": PROMPT_VERSION,
                "settings": {n: getattr(self.settings, n) for n in EXTRACTION_FIELDS}, "paragraphs": len(paras),
                "windows": len(planned)})
            yield Event(Kind.INDEX_PROGRESS, 0, progress(resumed, len(wanted), resumed, 0.0))
            for number, (first, last) in enumerate(planned):
                if number in done or number not in wanted:
                    continue
                window = yield from self.extract(book, paras, number, first, last)
                store.append(window)
                done[number] = window
                spent = time.perf_counter() - started
                yield Event(Kind.WINDOW, number, window)
                yield Event(Kind.INDEX_PROGRESS, 0, progress(len(wanted & done.keys()), len(wanted), resumed, spent))
        finally:
            store.release()

    def extract(self, book: Book, paras: np.ndarray, number: int, first: int, last: int):
        """One window: ask for markers, retry for uncovered paragraphs, fall back to chunk markers."""
        s = self.settings
        span = list(range(first, last + 1))
        todo, kept, calls, attempts, dropped = span, [], [], 0, 0
        coverage_first = None
        started = time.perf_counter()

        def record(event: Event) -> bool:
            calls.append(event.data)
            return True

        while todo and attempts <= s.retries:
            attempts += 1
            listing = self.listing(book, paras, todo)
            reply = yield from tapped(self.call("extract", prompts.markers(listing, s.few_shot), number,
                                                max_tokens=s.marker_tokens, stream=True), record)
            found, bad = parse_markers(reply, len(todo))
            dropped += bad
            for key, value, local in found:
                marker = self.cited(book, paras, Marker(key, value, [todo[n - 1] for n in local], window=number),
                                    todo)
                if marker is None:
                    dropped += 1
                else:
                    kept.append(marker)
            covered = {p for m in kept for p in m.paragraphs}
            todo = [p for p in span if p not in covered]
            coverage = 1 - len(todo) / len(span)
            coverage_first = coverage if coverage_first is None else coverage_first
            if coverage >= s.coverage_threshold:
                break
        for p in todo:
            text = self.paragraph_text(book, paras, p)
            kept.append(Marker(text, text, [p], source="chunk", cited_by="chunk", window=number))
        return Window(number, first, last, kept, attempts, coverage_first or 0.0, 1 - len(todo) / len(span),
                      len(todo), dropped, sum(c.prompt_tokens for c in calls),
                      sum(c.completion_tokens for c in calls), round(time.perf_counter() - started, 3))

    def cited(self, book: Book, paras: np.ndarray, marker: Marker, todo: list[int]) -> Marker | None:
        """The marker audited against its cited paragraphs. Citing none, it is given the paragraph of the window
        that holds most of its words, if that paragraph would pass the audit; otherwise it is dropped."""
        threshold = self.settings.audit_threshold
        if marker.paragraphs:
            return audit(book, marker, self.source_text(book, paras, marker), threshold)
        best = max((audit(book, Marker(marker.key, marker.value, [p]), self.paragraph_text(book, paras, p), threshold)
                    for p in todo), key=lambda m: m.support)
        if best.flagged:
            return None
        best.cited_by, best.window = "overlap", marker.window
        return best

    def source_text(self, book: Book, paras: np.ndarray, marker: Marker) -> str:
        return "\n\n".join(self.paragraph_text(book, paras, p) for p in marker.paragraphs)

    def index(self, book: Book) -> MarkerIndex:
        """The index of ``book`` from the store, as far as its windows are done from the book's start (all of
        them, or those a build up to a spoiler ceiling did: :attr:`MarkerIndex.reach`), with its key vectors
        (embedded once, then stored)."""
        paras, planned = self.plan(book)
        store = Store(self.folder(book))
        done = store.load()
        ready = next((n for n in range(len(planned)) if n not in done), len(planned))
        if not ready:
            raise EliteError(f"the M-RAG index of this book is not built yet ({len(done)} of {len(planned)} "
                             "windows done); build it first.")
        reach = len(book) if ready == len(planned) else int(paras[planned[ready][0]][0])
        index = MarkerIndex(paras, [done[n] for n in range(ready)], store.folder, len(book.text.encode("utf-8")),
                            reach=reach, planned=len(planned))
        index.vectors = store.vectors(len(index.markers))
        if index.vectors is None:
            index.vectors = np.asarray(self.embed([m.key for m in index.markers]), dtype=np.float32)
            store.save_vectors(index.vectors)
        return index

    def match(self, index: MarkerIndex, question: str, options: dict[str, str] | None) -> np.ndarray:
        """Cosine similarity of every key to the question (and its options)."""
        query = question + "".join(f" {v}" for v in (options or {}).values())
        vector = np.asarray(self.embed([query]), dtype=np.float32)[0]
        return index.vectors @ vector

    def assemble(self, book: Book, index: MarkerIndex, similarities: np.ndarray) -> list[KeyMatch]:
        """Best keys first, each value placed while it fits the budget (a flagged one replaced by its paragraphs
        when asked); the placed ones then ordered by position or kept by similarity."""
        s = self.settings
        budget, matches = s.budget_tokens, []
        # the part of the book searched: a spoiler ceiling (the book passed in ends early; the front matter left
        # out), or the part a question named
        read = (index.paragraphs[:, 0] >= book.searched_from) & (index.paragraphs[:, 1] < len(book))
        for rank, n in enumerate(np.argsort(-similarities, kind="stable"), 1):
            marker = index.markers[int(n)]
            if not all(read[p] for p in marker.paragraphs):
                continue
            replaced = s.replace_flagged and marker.flagged
            text = self.source_text(book, index.paragraphs, marker) if replaced else marker.value
            cost = self.llm.count_tokens(text) + 6
            match = KeyMatch(rank, marker.id, marker.key, round(float(similarities[n]), 4), marker.paragraphs,
                             marker.source, marker.support, marker.flagged, replaced=replaced, tokens=cost,
                             anchors=[int(index.paragraphs[p][0]) for p in marker.paragraphs])
            if cost <= budget:
                match.placed, match.text, budget = True, text, budget - cost
            if match.placed or rank <= SHOWN_MATCHES:
                matches.append(match)
            if budget < 16 and rank >= SHOWN_MATCHES:
                break
        return matches

    def placed(self, index: MarkerIndex, matches: list[KeyMatch]) -> list[KeyMatch]:
        chosen = [m for m in matches if m.placed]
        if self.settings.order == "position":
            chosen.sort(key=lambda m: (min(index.markers[m.marker].paragraphs), m.rank))
        return chosen

    def prepared_key(self, book: Book) -> Hashable:
        """The store's folder and how much of it is written (a build since goes further)."""
        store = Store(self.folder(book))
        return str(store.folder), store.path.stat().st_size if store.path.exists() else 0

    def prepare(self, book: Book) -> Prepared:
        """The index as far as it is built (:meth:`index`), loaded from the marker store (extraction time included
        in ``seconds``)."""
        started = time.perf_counter()
        index = self.index(book)
        stats = index.stats()
        return Prepared(stats["extraction_seconds"] + time.perf_counter() - started, stats["store_bytes"], index)

    def index_card(self, prepared: Prepared) -> dict:
        return prepared.state.stats()

    def steps(self, book: Book, question: str, options: dict[str, str] | None, *, prepared: Prepared,
              generate: bool = True):
        """Match keys, place values, (optionally) audit them with the model, answer."""
        index: MarkerIndex = prepared.state
        if index.reach < len(book):
            reached = book.sentence(index.reach - 1)
            raise EliteError(f"the M-RAG index of this book reaches {reached.chapter_name or reached.label} so far "
                             f"({len(index.windows)} of {index.planned} windows done); build it on to "
                             + ("your ceiling." if book.ceiling else "the end of the book, or set a ceiling."))
        matched = time.perf_counter()
        matches = self.assemble(book, index, self.match(index, question, options))
        chosen = self.placed(index, matches)
        yield Event(Kind.ASSEMBLY, 1, Assembly(matches, [m.marker for m in chosen], self.settings.budget_tokens,
                                               sum(m.tokens for m in chosen), self.settings.order,
                                               round(time.perf_counter() - matched, 4)))
        if self.settings.audit_llm:
            for match in chosen:
                if match.source == "model" and not match.replaced:
                    yield from self.check_statements(book, index, index.markers[match.marker])
        anchors = [m.anchors[0] for m in chosen]
        if not generate:
            return Answer("", evidence=sorted(set(anchors)))
        context = "\n".join(f"[S{sid}] {m.text}" for sid, m in zip(anchors, chosen, strict=True))
        # the evidence is every sentence of the paragraphs the values come from: a value says a whole paragraph in
        # the model's words, and the grounding check reads what the book says, then cites the sentence that holds it
        read = {sid for m in chosen for p in index.markers[m.marker].paragraphs
                for sid in range(int(index.paragraphs[p][0]), int(index.paragraphs[p][1]) + 1)}
        return (yield from self.answer_from(book, question, options, context, sorted(read | set(anchors))))

    def passages(self, book: Book, trace: Trace) -> list[tuple[int, str]]:
        """The values placed, in their order."""
        assembly = trace.of(Kind.ASSEMBLY)[0].data
        by_marker = {m.marker: m for m in assembly.matches}
        return [(n, by_marker[marker].text) for n, marker in enumerate(assembly.placed)]

    def check_statements(self, book: Book, index: MarkerIndex, marker: Marker):
        """The model's verdict on each of the value's first statements against the cited paragraphs."""
        source = self.source_text(book, index.paragraphs, marker)
        verdicts = []
        for statement in blingfire.text_to_sentences(marker.value).split("\n")[:AUDITED_STATEMENTS]:
            reply = yield from self.call("audit", prompts.supported(source, statement), 1, max_tokens=24)
            verdicts.append({"statement": statement, "supported": parse_verdict(reply)[0] is True})
        share = sum(v["supported"] for v in verdicts) / len(verdicts) if verdicts else math.nan
        yield Event(Kind.AUDIT, 1, Audit(marker.id, verdicts, share))


