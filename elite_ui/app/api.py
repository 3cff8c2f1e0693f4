"""The app's API for programs (scripts, notebooks, agents): eight typed functions registered with ``gr.api``, so
``gradio_client``, plain HTTP and an MCP client (``python app.py --mcp``) see the same named parameters, the same
one-line descriptions and the same JSON results (:mod:`elite_ui.records`). The page's own handlers are left out of
the API's description (``undocumented``: the page still calls them, and so may a program that insists).

The page's guarantees hold. A book is reached only by the id :func:`open_book` gave: its content hash and the
receipt this server signed for it, so a hash computed from a file opens nothing. Each ``gradio_client`` client
reading a book is a session of its own, as a browser tab is (and each MCP client's session, from its own address):
one question of a book at a time (a new one replaces the one still answered), a fair place in the model's line, the
visitor limits
of hosted mode (books opened a minute, X-Rays and recaps at once). Nothing beyond ``up_to`` is read, cited or named
(the grounding check included). No call changes the model. The host's library (``--library``) is searched and
asked whole at once (:mod:`elite_ui.across`), each book up to where the reader's reading apps left them.
"""

import inspect
import threading
from collections import OrderedDict

import gradio as gr
from gradio.data_classes import FileData

from ..across import ask_across, kept_index, library_found
from ..book import Book, load_book, load_cached
from ..book.cache import evict
from ..book.story import recap as recap_of
from ..book.story import xray as xray_of
from ..errors import Cancelled, EliteError
from ..library.index import LibraryIndex
from ..methods.elite.counting import count
from ..methods.registry import METHODS
from ..methods.trace import Kind, Trace
from ..reading import MAX_ABOUT, Asked, Part, part, preset
from ..records import (
    AnswerRecord,
    BookRecord,
    Cited,
    Found,
    LibraryAnswer,
    LibraryFound,
    RecapChapter,
    XRayRecord,
    book_record,
    cited,
    found_record,
    progress_record,
    recap_record,
    xray_record,
)
from .answering import RUN, apart, asked_of, asking_each_book, doing, status_line
from .inputs import number, text
from .state import Session
from .visitors import address

READERS_KEPT = 32
"""Callers' sessions kept, each with its book open (the least recently used is let go first)."""
FOUND_LIMIT = 200
"""Sentences :func:`search` lists at most (its total counts them all)."""


class ApiError(gr.Error):
    """What a caller did wrong, in one sentence (gradio_client raises it as ``AppError``; MCP returns it); the
    server's log keeps no traceback of it."""

    def __init__(self, message: str):
        super().__init__(message, print_exception=False)


API_NAMES = ("open_book", "ask", "search", "passage", "recap", "xray", "search_library", "ask_library")
"""The API's endpoints; every other event of the page is left out of its description."""


def option_texts(options) -> dict[str, str] | None:
    """The multiple-choice options a caller sent, by letter (anything but text left out), or None."""
    if not isinstance(options, dict):
        return None
    return {text(k): text(v) for k, v in options.items() if text(k) and text(v)} or None


def sentence_numbers(about) -> tuple[int, ...]:
    """The sentence numbers of the passage a caller asks about (anything but whole numbers left out), at most
    :data:`MAX_ABOUT`."""
    if not isinstance(about, list):
        return ()
    return tuple(sorted({n for n in about if isinstance(n, int) and not isinstance(n, bool) and n >= 0}))[:MAX_ABOUT]


def read(session: Session, up_to: str) -> Part:
    """The caller's book as read up to ``up_to`` (:func:`elite_ui.reading.part`), or a sentence saying why that
    is no place in it."""
    try:
        return part(session.book, text(up_to))
    except EliteError as exc:
        raise ApiError(str(exc)) from None


class Api:
    """The API's functions, and its sessions: one per caller and book, like a browser tab with that book open
    (the :data:`READERS_KEPT` used last are kept)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.sessions: OrderedDict[tuple[str, str], Session] = OrderedDict()
        self._lock = threading.Lock()

    def book_id(self, book: Book) -> str:
        return f"{book.digest}.{self.ctx.receipts.issue(book.digest)}"

    def session(self, request: gr.Request | None, book_id: str) -> Session:
        """The caller's session with the book ``book_id`` names open (opened again from the cache if need be)."""
        digest, _, receipt = text(book_id).partition(".")
        if not self.ctx.receipts.valid(digest, receipt):
            raise ApiError("no book has that id here: open the book with open_book and use the id it gives.")
        key = (getattr(request, "session_hash", None) or address(request, self.ctx.config.proxies), digest)
        with self._lock:
            session = self.sessions.get(key)
            if session is not None:
                self.sessions.move_to_end(key)
                return session
        book = load_cached(digest, self.ctx.cache_dir)
        if book is None:
            raise ApiError("that book is no longer in this server's cache: open it again with open_book.")
        session = Session()
        session.visitor = address(request, self.ctx.config.proxies)
        refused = self.ctx.visitors.crowded(session)
        if refused:
            raise ApiError(refused)
        session.open(book)
        self.ctx.visitors.sessions[f"api {key}"] = session  # counted with the visitor's page sessions while kept
        with self._lock:
            self.sessions[key] = session
            while len(self.sessions) > READERS_KEPT:
                self.sessions.popitem(last=False)
        return session

    def open_book(self, file: FileData, request: gr.Request) -> BookRecord:
        """Open a novel (a .txt, .epub or .pdf file) and say what it is: the id every other call takes, its title,
        author, language, sentences, chapters as the book numbers them, its front matter, and the chapter files an
        EPUB lists but lacks (read without them).

        Args:
            file: the book: a .txt, .epub or .pdf file of at most the server's upload limit.
        """
        path = file.get("path") if isinstance(file, dict) else None
        if not path:
            raise ApiError("give the book as a file (gradio_client: handle_file(path)).")
        refused = self.ctx.visitors.may_open(request, Session())
        if refused:
            raise ApiError(f"not opened: {refused}")
        try:
            book = load_book(path, max_bytes=self.ctx.config.max_upload_mb * 2**20, cache_dir=self.ctx.cache_dir)
        except EliteError as exc:
            raise ApiError(f"the book could not be opened: {exc}") from None
        evict(self.ctx.cache_dir, self.ctx.config.cache_mb * 2**20)
        return book_record(book, self.book_id(book))

    def ask(self, book: str, question: str, up_to: str = "", options: dict[str, str] | None = None,
            method: str = "elite", about: list[int] | None = None, request: gr.Request = None) -> AnswerRecord:
        """Ask a question of a book and get the answer with the book's own sentences behind it: what the book
        says (the best evidence, quoted), the answer, every citation (sentence, chapter, page, text), whether the
        evidence was judged sufficient, what the grounding check left out, and the calls, tokens and seconds. A
        long run reports what it is doing as it goes (records with done false), the answer last. A caller asks one
        question of a book at a time: a new one stops the one still being answered.

        Args:
            book: the book's id, as open_book gave it.
            question: the question, in words; one that names a part of the book ("in chapter 3", "when the story
                begins", "What happens in The Dead?") is answered from that part alone (the record's within names
                it).
            up_to: the spoiler ceiling, as the book numbers it ("chapter 12", "book 2, chapter 3", "page 80",
                "40%") or a chapter's title ("The Wild Wood"); nothing after it is read. Empty: the whole book.
            options: multiple-choice options by letter ({"A": "...", "B": "..."}); the answer is then one of them.
            method: elite (the default), mrag (once its index is built, from the page), embedding or bm25 (chunks
                ranked by MiniLM or BM25), or whole (the whole book in the model's context, when it fits).
            about: the sentence numbers of a passage the question is about ("What does this mean?"; a citation's
                numbers, or passage's), at most 20: pinned as evidence and named to the model (ELITE only); those
                after up_to are left out.
        """
        session = self.session(request, book)
        if not isinstance(method, str) or method not in METHODS:
            raise ApiError(f"the method is one of {', '.join(METHODS)}.")
        if self.ctx.model.llm is None:
            raise ApiError(f"no model: {self.ctx.model.status}")
        settings = preset(method, self.ctx.config.preset) if self.ctx.config.preset else None
        asked = Asked(text(question), text(up_to), method=method, settings=settings, options=option_texts(options),
                      about=sentence_numbers(about))
        # a caller asks one question of a book at a time: a new one replaces the one still answered (whose caller
        # may have cancelled it: Gradio lets go of a cancelled call only once its model call returns)
        with session.run(self.ctx.model, replace=True):
            try:
                ready = asked_of(self.ctx, session, session.book, asked)
                trace = Trace(asked.question)
                for event in ready.events():
                    trace.add(event)
                    if event.kind in (Kind.QUEUE, Kind.CALLS) or doing(event.kind):
                        yield progress_record(trace, status_line(event))
            except Cancelled:
                raise ApiError("stopped: a newer question of this book replaced it.") from None
            except EliteError as exc:
                raise ApiError(str(exc)) from None
        yield ready.record(trace)

    def search(self, book: str, words: str, up_to: str = "", request: gr.Request = None) -> Found:
        """Find where a book writes some words (in any form: walk, walks, walked), as the counting path does: how
        many times, and the sentences, in book order, with their chapters.

        Args:
            book: the book's id, as open_book gave it.
            words: a word or a phrase.
            up_to: the spoiler ceiling ("chapter 12"...); nothing after it is searched. Empty: the whole book.
        """
        session = self.session(request, book)
        words = text(words).strip()
        if not words:
            raise ApiError("give the words to find.")
        asked = read(session, up_to).book
        return found_record(asked, words, count(asked, words), FOUND_LIMIT)

    def passage(self, book: str, sentence: int, around: int = 1, up_to: str = "",
                request: gr.Request = None) -> list[Cited]:
        """A sentence of a book (a citation's number) with the sentences around it, each with its chapter.

        Args:
            book: the book's id, as open_book gave it.
            sentence: the sentence's number (a citation [S123] names 123).
            around: how many sentences before and after it (0 to 10).
            up_to: the spoiler ceiling ("chapter 12"...); no sentence after it is given. Empty: the whole book.
        """
        session = self.session(request, book)
        asked = read(session, up_to).book
        sentence = number(sentence)
        if sentence is None or not 0 <= sentence < len(asked):
            raise ApiError(f"the sentence is a number from 0 to {len(asked) - 1} (up to the ceiling).")
        around = max(0, min(number(around) or 0, 10))
        return [cited(asked, sid) for sid in asked.around(sentence, around)]

    def recap(self, book: str, up_to: str = "", last_chapters: int = 0,
              request: gr.Request = None) -> list[RecapChapter]:
        """The story so far: each chapter's most central sentences (the book's own, cited), up to the ceiling.

        Args:
            book: the book's id, as open_book gave it.
            up_to: the spoiler ceiling ("chapter 12"...). Empty: the whole book.
            last_chapters: only the last this many chapters (0: all), for a reader coming back.
        """
        session = self.session(request, book)
        asked = read(session, up_to).book
        chapters = number(last_chapters)
        chapters = chapters if chapters and 0 < chapters < 1000 else None
        with self.ctx.visitors.heavy(session) as refused:
            if refused:
                raise ApiError(refused)
            return recap_record(asked, recap_of(asked, last_chapters=chapters))

    def xray(self, book: str, name: str, up_to: str = "", request: gr.Request = None) -> XRayRecord:
        """A character's X-Ray up to the ceiling: their names, mentions by chapter, first appearance, the sentences
        that describe them, their story so far and the characters they appear with, each cited.

        Args:
            book: the book's id, as open_book gave it.
            name: the character, by any of their names ("Lizzy", "Mr. Darcy").
            up_to: the spoiler ceiling ("chapter 12"...). Empty: the whole book.
        """
        session = self.session(request, book)
        asked, until = read(session, up_to)
        with self.ctx.visitors.heavy(session) as refused:  # the turn first: finding the names is heavy work too
            if refused:
                raise ApiError(refused)
            cast = session.named(asked, self.ctx.cache_dir, text(name)) if text(name).strip() else None
            if cast is None:
                raise ApiError(f"no character named {text(name)[:60]!r} {until}.")
            return xray_record(asked, xray_of(asked, *cast))

    def library(self) -> LibraryIndex:
        """The index of the host's library (``--library``), current to the last minute."""
        cfg = self.ctx.config
        if not cfg.library:
            raise ApiError("this app has no library: its host starts it with --library FOLDER.")
        try:
            return kept_index(cfg.library, self.ctx.cache_dir, cfg.koreader)
        except (OSError, EliteError) as exc:
            raise ApiError(f"the library could not be read: {exc}") from None

    def search_library(self, words: str, unread: bool = False, request: gr.Request = None) -> LibraryFound:
        """Search every book of the app's library at once (which of my books mention the Marshalsea?): the books
        holding the words (in any form), the best first, each with its chapters and sentences, each searched up to
        where the reader's reading apps left them.

        Args:
            words: the words or "a phrase in quotes".
            unread: search the books no reading app has opened too (whole).
        """
        words = text(words)
        return library_found(words, self.library().search(words, unread=unread is True))

    def ask_library(self, question: str, unread: bool = False, request: gr.Request = None) -> LibraryAnswer:
        """Ask a question across the app's library: the books whose sentences hold its words best are asked, each
        up to where the reader is in it, and the answer names each book with its chapters and sentences.

        Args:
            question: the question, in words.
            unread: ask the books no reading app has opened too (whole).
        """
        index, ctx = self.library(), self.ctx
        if ctx.model.llm is None:
            raise ApiError(f"no model: {ctx.model.status}")
        with ctx.visitors.request(address(request, ctx.config.proxies)) as (session, refused):
            if refused:
                raise ApiError(refused)
            try:
                yield ask_across(index, text(question), asking_each_book(ctx, session), unread=unread is True,
                                 cache_dir=ctx.cache_dir)
            except EliteError as exc:
                raise ApiError(str(exc)) from None

    def register(self) -> None:
        """Each function as an endpoint of the page's Blocks (and an MCP tool)."""
        for name in API_NAMES:
            fn = getattr(self, name)
            if inspect.isgeneratorfunction(fn):
                gr.api(apart(fn), api_name=name, **RUN)
            else:
                gr.api(fn, api_name=name, concurrency_limit=None)
