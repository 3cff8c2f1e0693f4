"""M-RAG (meta-marker RAG): the book becomes LLM-written markers, each a question-like key, a richer value and the
numbered ~128-token paragraphs it came from. Only keys are embedded and matched against a question; the values of
the best keys fill the context up to a token budget, in book order or best first.

Extraction runs window by window. A window whose markers cite under ``coverage_threshold`` of its paragraphs is
retried for the uncovered ones; whatever stays uncovered becomes a chunk marker (the paragraph is its own key and
value). Each finished window is appended to an on-disk store named by a hash of the book's content, the model,
the prompt version and the extraction settings, so a stopped extraction resumes where it stopped.

Every marker is audited (the reviewers' doubt): the share of its value's content words, names and numbers that
occur in the paragraphs it cites; optionally the model judges each statement of a placed value against them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import blingfire
import json_repair
import numpy as np

from . import prompts
from .documents import Book, default_cache_dir
from .engine import Engine
from .errors import EliteError
from .importance import Embed
from .lexicon import NAME, NUMBER, content_words
from .llm import LLM
from .parsing import parse_verdict
from .trace import Answer, Event

PROMPT_VERSION = 1
"""Bumped whenever the extraction prompt changes, so stored markers of an older prompt are not reused."""
EXTRACTION_FIELDS = ("paragraph_tokens", "window_tokens", "marker_tokens", "few_shot", "coverage_threshold", "retries")
ORDERS = ("position", "similarity")
DIGITS = re.compile(r"\d+")
SHOWN_MATCHES = 20
AUDITED_STATEMENTS = 3


@dataclass(frozen=True)
class MragSettings:
    """M-RAG's settings: extraction (the first six, part of the store's name), then retrieval and audit."""

    paragraph_tokens: int = 128
    """Size of the numbered paragraphs markers cite, in tokens."""
    window_tokens: int = 4096
    """Paragraph text the model reads per extraction call (the whole book when it fits)."""
    marker_tokens: int = 2048
    """Longest reply per extraction call, in tokens."""
    few_shot: bool = True
    """Show the model a worked example of markers (off: zero-shot)."""
    coverage_threshold: float = 0.95
    """Share of a window's paragraphs its markers must cite; below it the uncovered ones are asked for again."""
    retries: int = 1
    """Extra extraction calls per window before uncovered paragraphs fall back to chunk markers."""
    budget_tokens: int = 800
    """Tokens of values placed in the answer's context."""
    order: str = "position"
    """Order of the placed values: position (book order) or similarity (best key first)."""
    audit_threshold: float = 0.6
    """A marker is flagged when less than this share of its value's words occur in its cited paragraphs."""
    audit_llm: bool = False
    """Also ask the model whether each statement of a placed value is supported by its cited paragraphs."""
    replace_flagged: bool = False
    """Place a flagged marker's cited paragraphs instead of its value."""
    answer_tokens: int = 96
    """Longest free-form answer, in tokens."""
    max_question_chars: int = 2000
    seed: int = 0

    def __post_init__(self):
        if self.order not in ORDERS:
            raise EliteError(f"order must be one of {', '.join(ORDERS)}, not {self.order!r}.")


PRESETS = {"paper": MragSettings(), "laptop": MragSettings(window_tokens=1024, marker_tokens=512)}
"""``paper``: windows of up to 4,096 tokens and long replies, room for values of 200-300 words. ``laptop``:
windows of about eight paragraphs and replies of 512 tokens (about 20 s per window with the embedded model)."""


@dataclass
class Marker:
    """One meta-marker. ``source``: model, or chunk (the fallback: an uncovered paragraph as key and value).
    ``cited_by``: model (its own paragraph numbers), or overlap (it gave none; the paragraph sharing most of its
    words was taken)."""

    key: str
    value: str
    paragraphs: list[int]
    source: str = "model"
    cited_by: str = "model"
    window: int = 0
    support: float = 1.0
    """Share of the value's content words found (in some inflected form) in the cited paragraphs."""
    name_support: float | None = None
    number_support: float | None = None
    missing: list[str] = field(default_factory=list)
    flagged: bool = False
    id: int = -1


@dataclass
class Window:
    """One extraction window and what it cost."""

    index: int
    first: int
    last: int
    markers: list[Marker]
    attempts: int
    coverage_first: float
    """Share of the window's paragraphs cited after the first call."""
    coverage: float
    """Share cited after the retries, before the fallback."""
    fallback: int
    """Paragraphs that became chunk markers."""
    dropped: int
    """Markers discarded: unreadable, copied from the prompt's example, repeated, or citing nothing they share."""
    prompt_tokens: int
    completion_tokens: int
    seconds: float


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
            "paragraphs": extracted, "windows": len(self.windows), "markers": len(self.markers),
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


def parse_markers(text: str, size: int) -> tuple[list[tuple[str, str, list[int]]], int]:
    """(key, value, cited local numbers 1..size) of each readable marker in a reply, and how many were dropped:
    no key or value, copied from the prompt's example, or repeated."""
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    found = json_repair.loads(text[start:]) if start >= 0 else []
    if isinstance(found, dict):
        found = found.get("markers", [found])
    if not isinstance(found, list):
        return [], 0
    example = {s.casefold() for m in prompts.MARKER_EXAMPLE for s in (m["key"], m["value"])}
    out, seen, dropped = [], set(), 0
    for item in found:
        item = item if isinstance(item, dict) else {}
        key = " ".join(str(item.get("key") or item.get("question") or "").split())
        value = " ".join(str(item.get("value") or item.get("answer") or item.get("passage") or "").split())
        cited = item.get("paragraphs") or item.get("paragraph_indices") or item.get("indices") or []
        numbers = [int(n) for x in (cited if isinstance(cited, list) else [cited]) for n in DIGITS.findall(str(x))]
        if not content_words(key) or not content_words(value) or key.casefold() in example \
                or value.casefold() in example or (key.casefold(), value.casefold()) in seen:
            dropped += 1
            continue
        seen.add((key.casefold(), value.casefold()))
        out.append((key, value, sorted({n for n in numbers if 1 <= n <= size})))
    return out, dropped


def audit(book: Book, marker: Marker, source: str, threshold: float) -> Marker:
    """Fill in the marker's support: the share of its value's content words (names and numbers included, and
    also reported apart) that occur in ``source``, its cited paragraphs, in some inflected form."""
    present = set(book.lexicon.words(source))

    def found(word: str) -> bool:
        return any(f in present for f in book.forms(word))

    wanted = book.lexicon.content_words(marker.value)
    missing = [w for w in wanted if not found(w)]
    marker.support = round(1 - len(missing) / len(wanted), 4) if wanted else 0.0
    marker.missing = missing
    names = {w.lower() for w in NAME.findall(marker.value)}
    numbers = {w.lower() for w in NUMBER.findall(marker.value)}
    marker.name_support = round(sum(found(w) for w in names) / len(names), 4) if names else None
    marker.number_support = round(sum(n in present for n in numbers) / len(numbers), 4) if numbers else None
    marker.flagged = marker.support < threshold
    return marker


class Store:
    """The finished windows of one extraction, one JSON line each, appended and flushed as each finishes."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.path = folder / "windows.jsonl"

    def load(self) -> dict[int, Window]:
        done: dict[int, Window] = {}
        if not self.path.exists():
            return done
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                raw = json.loads(line)
            except ValueError:
                continue  # a line torn by a crash mid-write; its window is redone
            raw["markers"] = [Marker(**({"value": m["key"]} | m)) for m in raw["markers"]]
            done[raw["index"]] = Window(**raw)
        return done

    @staticmethod
    def line(window: Window) -> str:
        raw = asdict(window)
        for marker in raw["markers"]:
            if marker["source"] == "chunk":
                del marker["value"]  # the paragraph is both key and value: stored once
        return json.dumps(raw, ensure_ascii=False) + "\n"

    def append(self, window: Window) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with self.path.open("a+b") as out:
            if out.tell() and (out.seek(-1, os.SEEK_END), out.read(1))[1] != b"\n":
                out.write(b"\n")  # end a line torn by a crash, so this window is not lost with it
            out.write(self.line(window).encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())


class Mrag(Engine):
    """Builds a book's marker index (resumable, cancellable) and answers questions from it."""

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

    def build(self, book: Book, only: set[int] | None = None) -> Iterator[Event]:
        """Extract every window not yet in the store (or ``only`` those, a measured sample), yielding
        ``llm_call``, ``answer_delta`` (replies as they are written), ``window`` and ``index_progress`` events;
        stop at any time (the cancel flag, checked between tokens) and call again to resume."""
        paras, planned = self.plan(book)
        store = Store(self.folder(book))
        done = store.load()
        resumed, started = len(done), time.perf_counter()
        store.folder.mkdir(parents=True, exist_ok=True)
        (store.folder / "meta.json").write_text(json.dumps({
            "title": book.title, "digest": book.digest, "model": self.llm.name, "prompt_version": PROMPT_VERSION,
            "settings": {n: getattr(self.settings, n) for n in EXTRACTION_FIELDS}, "paragraphs": len(paras),
            "windows": len(planned)}, ensure_ascii=False, indent=1), encoding="utf-8")
        yield Event("index_progress", 0, progress(len(done), len(planned), resumed, 0.0))
        for number, (first, last) in enumerate(planned):
            if number in done or (only is not None and number not in only):
                continue
            window = yield from self.extract(book, paras, number, first, last)
            store.append(window)
            done[number] = window
            spent = time.perf_counter() - started
            yield Event("window", number, window)
            yield Event("index_progress", 0, progress(len(done), len(planned), resumed, spent))

    def extract(self, book: Book, paras: np.ndarray, number: int, first: int, last: int):
        """One window: ask for markers, retry for uncovered paragraphs, fall back to chunk markers."""
        s = self.settings
        span = list(range(first, last + 1))
        todo, kept, calls, attempts, dropped = span, [], [], 0, 0
        coverage_first = None
        started = time.perf_counter()
        while todo and attempts <= s.retries:
            attempts += 1
            listing = self.listing(book, paras, todo)
            reply = yield from recorded(self.call("extract", prompts.markers(listing, s.few_shot), number,
                                                  max_tokens=s.marker_tokens, stream=True), calls)
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
        """The finished index of ``book`` from the store, with its key vectors (embedded once, then stored)."""
        paras, planned = self.plan(book)
        store = Store(self.folder(book))
        done = store.load()
        if len(done) < len(planned):
            raise EliteError(f"the M-RAG index of this book is not built yet ({len(done)} of {len(planned)} "
                             "windows done); build it first.")
        index = MarkerIndex(paras, [done[n] for n in range(len(planned))], store.folder,
                            len(book.text.encode("utf-8")))
        vectors_path = store.folder / "keys.npy"
        if vectors_path.exists():
            index.vectors = np.load(vectors_path)
        if index.vectors is None or len(index.vectors) != len(index.markers):
            index.vectors = np.asarray(self.embed([m.key for m in index.markers]), dtype=np.float32)
            np.save(vectors_path, index.vectors)
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
        read = index.paragraphs[:, 1] < len(book)  # a spoiler ceiling: the book passed in ends early
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

    def ask(self, book: Book, question: str, options: dict[str, str] | None = None, *,
            index: MarkerIndex | None = None, generate: bool = True) -> Iterator[Event]:
        """Match keys, place values, (optionally) audit them with the model, answer. ``generate=False`` stops
        once the context is assembled (the benchmark's shared generator answers from it)."""
        question, options = self.normalised(question, options)
        started = time.perf_counter()
        index = index or self.index(book)
        yield Event("start", 0, {"question": question, "options": options, "settings": asdict(self.settings),
                                 "book": book.summary(), "model": self.llm.name, "strategy": "mrag",
                                 "index": index.stats(), "ceiling": book.stats.get("ceiling")})
        matched = time.perf_counter()
        matches = self.assemble(book, index, self.match(index, question, options))
        chosen = self.placed(index, matches)
        yield Event("assembly", 1, {"matches": matches, "placed": [m.marker for m in chosen],
                                    "budget": self.settings.budget_tokens, "spent": sum(m.tokens for m in chosen),
                                    "order": self.settings.order,
                                    "seconds": round(time.perf_counter() - matched, 4)})
        if self.settings.audit_llm:
            for match in chosen:
                if match.source == "model" and not match.replaced:
                    yield from self.check_statements(book, index, index.markers[match.marker])
        anchors = [m.anchors[0] for m in chosen]
        context = "\n".join(f"[S{sid}] {m.text}" for sid, m in zip(anchors, chosen))
        if generate:
            answer = yield from self.answer_from(book, question, options, context, sorted(set(anchors)))
        else:
            answer = Answer("", evidence=sorted(set(anchors)))
        yield Event("answer", 0, answer)
        yield Event("done", 0, {"seconds": round(time.perf_counter() - started, 3)})

    def check_statements(self, book: Book, index: MarkerIndex, marker: Marker):
        """The model's verdict on each of the value's first statements against the cited paragraphs."""
        source = self.source_text(book, index.paragraphs, marker)
        verdicts = []
        for statement in blingfire.text_to_sentences(marker.value).split("\n")[:AUDITED_STATEMENTS]:
            reply = yield from self.call("audit", prompts.supported(source, statement), 1, max_tokens=24)
            verdicts.append({"statement": statement, "supported": parse_verdict(reply)[0] is True})
        share = sum(v["supported"] for v in verdicts) / len(verdicts) if verdicts else math.nan
        yield Event("audit", 1, {"marker": marker.id, "statements": verdicts, "supported_share": share})



def progress(done: int, total: int, resumed: int, seconds: float) -> dict:
    """Windows done and left, and the time left at this run's pace (None before the first window)."""
    fresh = done - resumed
    eta = round(seconds / fresh * (total - done), 1) if fresh else None
    return {"done": done, "total": total, "left": total - done, "resumed": resumed, "seconds": round(seconds, 1),
            "eta_seconds": eta}


def recorded(calls_gen, calls: list):
    """``yield from`` a model call, also keeping its ``llm_call`` data in ``calls``."""
    while True:
        try:
            event = next(calls_gen)
        except StopIteration as finished:
            return finished.value
        if event.kind == "llm_call":
            calls.append(event.data)
        yield event
