"""What the app holds: the one shared :class:`Model` (its capacity shared fairly by every visitor's calls) and a
:class:`Session` per visitor (their book, conversation, runs and notebook; one question or build at a time)."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..book import Book, default_cache_dir, reading_ceiling
from ..book.names import NameIndex, names_for
from ..errors import EliteError, ModelError
from ..methods import Prepared, Trace
from ..methods.registry import METHODS, Tools
from ..models import BACKENDS, LLM, Embed, MiniLMEmbedder, ModelChoice, open_model
from ..models.capacity import Capacity, Share
from ..models.openai import server_models
from ..models.registry import chosen
from . import notebook
from .config import Config
from .notebook import Entry, Turn
from .receipts import Receipts

KEPT_TURNS, KEPT_NOTES = 50, 200
"""How much of a session the browser keeps for a page reload."""
SESSION_KEYS = itertools.count(1)
KEPT_PREPARED = 8
"""Books' prepared indexes kept for every visitor (the least recently used let go first)."""


class Model:
    """The shared model: which one is loaded, its capacity (calls at once, and the fair line for the others) and
    its status."""

    def __init__(self, config: Config):
        self.config = config
        self.capacity = Capacity(1)
        self.prepared: dict[Hashable, Prepared] = {}
        """What the methods prepared of the books (chunk indexes, loaded marker indexes), for every visitor."""
        self._keeping = threading.Lock()
        self.llm: LLM | None = None
        self.embed: Embed = MiniLMEmbedder()
        self.status = "no model loaded"
        self.choice: ModelChoice | None = None
        """What is loaded (None before a model is)."""

    def load(self, choice: ModelChoice, *, visitor: bool = True) -> str:
        """Open the model ``choice`` names and release the one it replaces (a hosted app's model is its host's:
        visitors cannot change it). A visitor's choice is remembered for the next start."""
        cfg = self.config
        if visitor and cfg.hosted:
            raise ModelError("this hosted app's model is chosen by its host; visitors cannot change it.")
        if visitor and choice.kind == "server":
            answering(choice)
        with self.capacity.exclusive():
            old, self.llm = self.llm, open_model(replace(choice, n_ctx=cfg.n_ctx, script=cfg.scripted or "",
                                                         slots=cfg.parallel))
            self.choice = choice
            self.capacity.resize(self.llm.slots)
            self.status = f"ready: {self.llm.name} (context {self.llm.n_ctx} tokens)"
        if old is not None:
            old.close()
        if visitor:
            self.remember(choice)
        return self.status

    def prepared_for(self, engine, book: Book) -> Prepared:
        """What ``engine`` needs of ``book`` (a chunk index, a loaded marker index), prepared once for every
        visitor and kept by the engine's key, the :data:`KEPT_PREPARED` used last."""
        key = engine.prepared_key(book)
        if key is None:
            return engine.prepare(book)
        with self._keeping:
            kept = self.prepared.pop(key, None)
            if kept is not None:
                self.prepared[key] = kept
                return kept
        made = engine.prepare(book)
        with self._keeping:
            self.prepared[key] = made
            while len(self.prepared) > KEPT_PREPARED:
                del self.prepared[next(iter(self.prepared))]
        return made

    def running(self) -> str:
        """Where the model runs and how fast it read and wrote during the last question (where it can tell)."""
        if self.llm is None or not self.llm.placement():
            return ""
        speed = self.llm.speed()
        fast = (f" · last question: read {speed[0]:,.0f} prompt tokens/s, wrote {speed[1]:,.0f} tokens/s"
                if speed else "")
        return f"Runs on {self.llm.placement()}{fast}."

    def start(self) -> None:
        """The model the host chose with flags or environment variables, else the one used last (the embedded
        one when that can no longer be opened: a deleted file, a server gone)."""
        choice = self.configured()
        try:
            self.load(choice, visitor=False)
        except ModelError as exc:
            if choice != self.remembered():
                raise
            self.load(ModelChoice("embedded"), visitor=False)
            self.status += f" (the model used last could not be opened: {exc})"

    def configured(self) -> ModelChoice:
        cfg = self.config
        if cfg.scripted:
            return ModelChoice("scripted")
        if cfg.server or cfg.model or cfg.hosted:
            return chosen(cfg.model, cfg.server, cfg.model_name)
        return self.remembered() or ModelChoice("embedded")

    @property
    def memo(self) -> Path:
        return Path(self.config.cache_dir or default_cache_dir()) / "last-model.json"

    def remember(self, choice: ModelChoice) -> None:
        try:
            self.memo.parent.mkdir(parents=True, exist_ok=True)
            self.memo.write_text(json.dumps({k: getattr(choice, k) for k in ("kind", "path", "server", "name")}))
        except OSError:
            return

    def remembered(self) -> ModelChoice | None:
        """The model loaded last from the model panel, if it can still be opened."""
        try:
            kept = json.loads(self.memo.read_text())
            choice = ModelChoice(**{k: str(kept[k]) for k in ("kind", "path", "server", "name")})
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return choice if choice.kind in BACKENDS and choice.kind != "scripted" else None


def answering(choice: ModelChoice) -> None:
    """A reader's server must answer before it replaces the model, and offer the model named (when it lists
    any): a server that is down is said so at Load, not at the first question. (A host's server may start after
    the app, so its choice is not checked.)"""
    offered = server_models(choice.server, timeout=5.0)
    if offered and choice.name.strip() and choice.name.strip() not in offered:
        raise ModelError(f"the server does not offer {choice.name.strip()!r}; it offers "
                         f"{', '.join(offered[:8])}{'…' if len(offered) > 8 else ''}.")


@dataclass
class Shelved:
    """A book's part of the visit: its conversation, runs, names and spoiler ceiling. The open book's is the
    session's own (:attr:`Session.current`); the others wait on the shelf for the book to be opened again (the
    book itself reopens from the parsed-book cache)."""

    label: str
    """How the book switcher names it: its title and format."""
    turns: list[Turn] = field(default_factory=list)
    traces: list[Trace] = field(default_factory=list)
    shown: int = -1
    names: NameIndex | None = None
    ceiling: str = ""


def shelf_label(book: Book) -> str:
    """How the book switcher names a book: one novel may be open as a txt, an epub and a pdf."""
    return f"{book.title} ({book.format})"


def kept(name: str, doc: str) -> property:
    """A field of the open book's :class:`Shelved`, read and written through the session."""
    return property(lambda self: getattr(self.current, name),
                    lambda self, value: setattr(self.current, name, value), doc=doc)


class Session:
    """One visitor: their book, their conversation (turns) and each question's trace, per book (``shelf`` keeps
    the other books of the visit). Gradio copies the initial value for every new visitor, which here means a
    fresh, empty session."""

    turns = kept("turns", "The open book's conversation.")
    traces = kept("traces", "The open book's runs, each a question's trace.")
    shown = kept("shown", "The run (index into ``traces``) the trace panel shows.")
    names = kept("names", "The character names the reader wrote for the open book (None: those found in it).")
    ceiling_text = kept("ceiling", 'The spoiler ceiling as the reader wrote it ("chapter 12"), kept for a reload.')

    def __init__(self):
        self.book: Book | None = None
        self.current = Shelved("")
        """The open book's part of the visit (its conversation, runs, names and ceiling)."""
        self.notebook: list[Entry] = []
        self.reading: tuple[Book, int] | None = None
        """The book and sentence the Reader tab shows (what "Save this passage" saves)."""
        self.shelf: dict[str, Shelved] = {}
        """The other books of this visit, by content hash."""
        self.about: list[int] = []
        """The sentences of the passage the next question is about (the open book's), if the reader chose one."""
        self.compared: list[Trace] | None = None
        """The last question's two runs side by side, until the page shows them (then None)."""
        self.story: Entry | None = None
        """The recap or X-Ray the Story tab shows, as a notebook entry ("Save to the notebook" keeps it)."""
        self.cancel = threading.Event()
        self.key = next(SESSION_KEYS)
        """Who this session is in the model's line: never reused (an ``id()`` is, once a session is freed, and a
        new session would inherit what the line still counted for the old one)."""
        self.reserved: Share | None = None
        """The place in the model's line the question being asked took (:meth:`reserve`)."""
        self.visitor = ""
        """Whose session it is: their network address (:mod:`elite_ui.app.visitors`)."""
        self.running = False
        """Whether a question or a build of this visitor runs (one at a time; Stop ends it at once)."""
        self.says_stop = False
        """Whether the run going on says itself, once stopped, how far it got (a build does; Stop's own sentence
        would race it)."""
        self._starting = threading.Lock()

    def begin(self, replace: bool = False, says_stop: bool = False) -> threading.Event | None:
        """Start a run: its fresh stop flag, or None while another run goes on (and was not stopped); with
        ``replace``, the run going on is stopped instead (``says_stop``: :attr:`says_stop`)."""
        with self._starting:
            if self.busy and not replace:
                return None
            if self.busy:
                self.cancel.set()
            self.running, self.cancel, self.says_stop = True, threading.Event(), says_stop
            return self.cancel

    def stop(self) -> bool:
        """Stop the run going on at its next step, and mark the questions without an answer as stopped; whether
        that run says itself how far it got (:attr:`says_stop`)."""
        with self._starting:
            said = self.running and self.says_stop
            self.cancel.set()
        self.stop_unfinished()
        return said

    @property
    def busy(self) -> bool:
        """A run goes on (one stopped no longer counts: it ends at its next step)."""
        return self.running and not self.cancel.is_set()

    def end(self, run: threading.Event) -> None:
        """The run whose stop flag is ``run`` is over (a later run, begun after it was stopped, goes on)."""
        with self._starting:
            if self.cancel is run:
                self.running = False

    @contextmanager
    def run(self, asked: Model | None = None, replace: bool = False,
            says_stop: bool = False) -> Iterator[threading.Event | None]:
        """One run of this visitor, begun: yields its stop flag (None, and nothing is begun, while another goes on;
        with ``replace``, that one is stopped; ``says_stop``: :attr:`says_stop`); a question (``asked`` of that
        model) takes its place in the model's line at once; both are given back however the run ends."""
        flag = self.begin(replace, says_stop)
        if flag is None:
            yield None
            return
        share = self.reserve(asked) if asked is not None else None
        try:
            yield flag
        finally:
            self.unreserve(share)
            self.end(flag)

    def tools(self, model: Model, cache_dir: Path, background: bool = False) -> Tools:
        """What this visitor's engines use besides the model (:meth:`share` says what ``background`` means): every
        engine of the app is built with these (the character names are added for the part of the book asked of,
        :func:`elite_ui.reading.reading`)."""
        return Tools(model.embed, self.cancel, cache_dir, None, self.share(model, background))

    def names_in(self, book: Book, cache_dir: Path | None) -> NameIndex:
        """The character names this visitor may see in ``book`` (the open book, cut at their spoiler ceiling or
        whole): the list they wrote, cut to what ``book`` names, else the one found in ``book`` alone."""
        return self.names.seen_in(book) if self.names else names_for(book, cache_dir)

    def named(self, part: Book, cache_dir: Path | None, *named: str) -> tuple | None:
        """The name index of ``part`` (the book cut at the reader's ceiling) and the characters ``named`` as it
        names them (None when one of them is not named there)."""
        names = self.names_in(part, cache_dir)
        found = [names.find(name) for name in named]
        return None if None in found else (names, *found)

    def share(self, model: Model, background: bool = False) -> Share:
        """A run's share of the shared model's capacity for this visitor: the question's place in line taken
        when it was asked (:meth:`reserve`), else a new one (``background``: long work, an index build or written
        recaps, which gives way to questions)."""
        if not background and self.reserved is not None:
            return self.reserved
        return Share(model.capacity, self.key, background, address=self.visitor)

    def reserve(self, model: Model) -> Share:
        """Take the question's place in the model's line as it is asked, before anything else is done, so that
        questions are answered in the order they were asked (within the run :meth:`begin` started: one at a
        time)."""
        self.reserved = Share(model.capacity, self.key, address=self.visitor)
        self.reserved.kept = self.reserved.capacity.line_up(self.reserved)
        return self.reserved

    def unreserve(self, share: Share | None = None) -> None:
        """A run is over: give back the place or slot its share (``share``, else the one reserved last) still
        holds (none, when its engine finished; the place taken when it was asked, when the question ended before
        its first model call)."""
        share = share or self.reserved
        if share is not None:
            share.finish()
        if self.reserved is share:
            self.reserved = None

    def open(self, book: Book) -> None:
        """Make ``book`` the open one. The book open before goes on the shelf with its conversation, runs and
        names; ``book``'s own come back from the shelf (a book new to the visit starts with none)."""
        if self.book is not None and self.book.digest == book.digest:
            self.book = book
            return
        if self.book is not None:
            self.shelf[self.book.digest] = self.current
        self.about = []
        self.current = self.shelf.pop(book.digest, None) or Shelved(shelf_label(book))
        self.book = book

    def ceiling_in(self, book: Book) -> int | None:
        """The last sentence of ``book`` under the spoiler ceiling kept for it (the Reader stops there); None
        when it has none, or when it no longer reads as a position."""
        text = self.ceiling_text if book is self.book else getattr(self.shelf.get(book.digest), "ceiling", "")
        try:
            read = reading_ceiling(book, text)
        except EliteError:
            return None
        return read[0] if read else None

    def books(self) -> list[tuple[str, str]]:
        """The books of this visit as (title and format, content hash), the open one first."""
        opened = [(shelf_label(self.book), self.book.digest)] if self.book else []
        return opened + [(shelved.label, digest) for digest, shelved in self.shelf.items()]

    def __deepcopy__(self, memo):
        return Session()

    def labels(self) -> list[str]:
        """One label per run: its number, question, method, and the run it edits."""
        return [run_label(n, trace) for n, trace in enumerate(self.traces, 1)]

    def saved(self, receipts: Receipts) -> dict:
        """What the browser keeps so the session survives a page reload: the open book's hash (the book itself is
        in the parsed-book cache), its conversation and spoiler ceiling, the other books' titles and
        conversations, the notebook, and a receipt for each book. Runs and traces are not kept."""
        shelf = {digest: {"label": s.label, "ceiling": s.ceiling,
                          "turns": [t.record() for t in s.turns[-KEPT_TURNS:]]}
                 for digest, s in self.shelf.items()}
        books = [digest for _, digest in self.books()]
        return {"book": self.book.digest if self.book else None, "ceiling": self.ceiling_text,
                "turns": [t.record() for t in self.turns[-KEPT_TURNS:]], "shelf": shelf,
                "notebook": [e.record() for e in self.notebook[-KEPT_NOTES:]],
                "receipts": {d: receipts.issue(d) for d in books}}

    def release(self) -> None:
        """Stop what runs and let go of the books, their indexes and runs, and of its place in the model's line
        (the session has ended)."""
        self.cancel.set()
        self.unreserve()
        self.book, self.reading, self.names, self.about = None, None, None, []
        self.traces, self.shelf = [], {}

    def stop_unfinished(self) -> None:
        """Mark every question still without an answer or an error as stopped."""
        for turn in self.turns:
            if turn.unfinished:
                turn.stopped = True

    def keep(self, trace: Trace, book: Book) -> None:
        """A finished run: kept in the session's runs and written into the notebook."""
        self.traces.append(trace)
        self.notebook.append(notebook.answer_entry(book, trace, run_label(len(self.traces), trace)))


def run_label(number: int, trace: Trace) -> str:
    start = trace.of("start")[0].data if trace.of("start") else None
    name = METHODS[start.method].label if start else "ELITE"
    edits = trace.of("edit")
    note = f", edited from run {edits[0].data.run}" if edits else ""
    question = trace.question if len(trace.question) <= 60 else trace.question[:57] + "…"
    return f"{number}. {question} ({name}{note})"


def editable(trace: Trace) -> dict[int, list[str]]:
    """The terms of each iteration of an ELITE search (none for counting, M-RAG or chunk RAG runs)."""
    out: dict[int, list[str]] = {}
    for event in trace.of("terms"):
        out.setdefault(event.iteration, []).extend(t.text for t in event.data.new)
    return out
