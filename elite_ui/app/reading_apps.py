"""The book as a model: an OpenAI-compatible (and Ollama-compatible) endpoint for the "Ask AI" of the reading
apps readers already use (KOReader's AskGPT and assistant plugins, Calibre's viewer, Readest, any OpenAI client).
``GET /v1/models`` (Ollama: ``/api/tags``) lists the books of the reader's library (``--library``) as models, and
:data:`ANY_BOOK`; ``POST /v1/chat/completions`` (Ollama: ``/api/chat``) answers the last user message from the
book the model names (else the one whose title and author the request mentions, else across the whole library),
under the spoiler ceiling of where the reader is: the place their reading apps saved, the share the request
states ("I am 35% through"), or where the passages the app says were read end, the lowest. A highlighted passage
the request carries is found in the book and asked about. The answer ends with its citations as plain lines, and
the API's whole answer record rides along (``elite_reader``); streamed when asked (server-sent events; Ollama's
JSON lines). Every mistake is OpenAI's error shape with one sentence. What to type into each app:
docs/reading-apps.md."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections import deque
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from ..across import ask_across, kept_index
from ..book import Book, load_book, reading_ceiling
from ..errors import Cancelled, EliteError
from ..library import Marked, Reading, Shelved, locate, located_in, open_shelf
from ..library.app_request import AppAsked, RequestError, read_request
from ..methods.trace import Trace
from ..reading import Asked
from ..records import AnswerRecord, chaptered, cited_line
from .answering import asked_of, asking_each_book, run_threads
from .config import LOOPBACK
from .state import Session
from .visitors import address

ANY_BOOK = "library"
"""The model that is the whole library: the book the request mentions by title and author, else the question is
asked across the library (:mod:`elite_ui.across`)."""
UNOPENED = "choose one of them as the model, or name it in your question, to ask it"
"""How a reading app's reader asks a book no reading app has opened (it is then read whole)."""
MAX_BOOKS = 20_000
"""The most books of a library listed as models."""
MAX_BODY = 1 << 20
"""The largest request body read (a reading app's is a few kilobytes)."""
MATCH = 85.0
"""How alike (rapidfuzz's token-set ratio, 0-100) a mentioned title and author must be to a book's."""
MAX_EMBEDDED = 256
"""The most texts embedded in one request."""
EMBEDDER = "all-minilm"
"""The app's embedder as Ollama's model list names it (all-MiniLM-L6-v2, 384 dimensions)."""
KEEP_ALIVE = 10.0
"""Seconds between two comment lines while a streamed answer is being found (proxies close a silent stream)."""


class Refused(Exception):
    """A request answered with OpenAI's error shape: the HTTP status, the sentence, the error's type."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.kind = status, kind

    def response(self) -> JSONResponse:
        return error(self.status, str(self), self.kind)


def error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    """OpenAI's error shape."""
    message = message[:1].upper() + message[1:]
    return JSONResponse({"error": {"message": message, "type": kind, "param": None, "code": None}}, status)


@dataclass(frozen=True)
class ShelfModel:
    """A library's book as a model."""

    id: str
    entry: Shelved


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80]


@lru_cache(maxsize=4)
def catalogue(folder: str, changed: float, minute: int) -> dict[str, ShelfModel]:
    """The books of the library at ``folder`` (as it was at ``changed``, in that ``minute``) by model id: the
    title's and author's slug ("pride-and-prejudice-jane-austen"), a second book of the same slug told apart by its
    number."""
    shelf = open_shelf(folder)
    books: dict[str, ShelfModel] = {}
    for entry in shelf.search("", limit=MAX_BOOKS):
        if entry.file() is None:
            continue
        name = slug(f"{entry.title} {entry.authors}") or "book"
        name = name if name not in books and name != ANY_BOOK else f"{name}-{entry.id}"
        books[name] = ShelfModel(name, entry)
    return books


def library_books(folder: str) -> dict[str, ShelfModel]:
    """The library's books now (read again when its database changes, and at least every minute: a book added to
    a subfolder changes no time the library's folder shows)."""
    root = Path(folder).expanduser()
    db = root / "metadata.db"
    return catalogue(str(root), (db if db.exists() else root).stat().st_mtime, int(time.time() // 60))


def chosen(books: dict[str, ShelfModel], asked: AppAsked) -> ShelfModel | None:
    """The book a request asks: the one its model names, else the one it mentions by title and author (the model
    name read as a title when the request mentions none); None for the whole library (:data:`ANY_BOOK`, no book
    mentioned)."""
    from rapidfuzz import fuzz, process, utils

    if asked.model in books:
        return books[asked.model]
    mention = asked.mentions() or ("" if asked.model == ANY_BOOK else asked.model.replace("-", " "))
    if not mention and asked.model == ANY_BOOK:
        return None
    if mention:
        labels = {key: f"{book.entry.title} {book.entry.authors}" if asked.author else book.entry.title
                  for key, book in books.items()}
        found = process.extractOne(mention, labels, scorer=fuzz.token_set_ratio, processor=utils.default_process,
                                   score_cutoff=MATCH)
        if found is not None:
            return books[found[2]]
    named = f"“{mention[:80]}”" if mention else "no book"
    raise Refused(404, f"the request names {named}, and no book of your library matches it: name one of "
                       "GET /v1/models as the model, or mention the title and author.", "model_not_found")


def ceiling_for(book: Book, apps_say: int | None, share: str, passages_end: int | None = None) -> tuple[str, str]:
    """The spoiler ceiling for ``book`` (a sentence label, or "" for the whole book) and a sentence saying why: the
    lowest of where the reading apps say the reader is (``apps_say``), the ``share`` the request states, and where
    the passages the app says were read end (``passages_end``: the reader is at least there)."""
    places = []
    if apps_say is not None:
        places.append((apps_say, "where your reading apps say you are"))
    if share and (read := reading_ceiling(book, share)):
        places.append((read[0], f"{share}, as you said"))
    if passages_end is not None:
        places.append((passages_end, "where the passages your app sent from the pages you read end"))
    if not places:
        return "", ("Your reading apps keep no place for this book and the question states none: the whole book "
                    "was read.")
    sentence, why = min(places)
    return f"S{sentence}", f"Read up to {book.sentence(sentence).citation} ({why}); nothing after it."


def found_in(book: Book, file: Path, passages: list[str]) -> list[tuple[int, ...]]:
    """The sentences of ``book`` each of ``passages`` is (found as the reading apps' highlights are; none for a
    passage not found)."""
    if not passages:
        return []
    marked = [Marked("request", passage) for passage in passages]
    return [tuple(found.sentences) for found in locate(book, file, [Reading("request", marked=marked)]).found]


def reply_text(record: AnswerRecord, note: str) -> str:
    """The answer as a reading app shows it: the answer (its labels as chapters, :func:`chaptered`), its citations
    as plain lines (chapter and sentence; an answer that cites none, "does not say" among them, the sentences
    closest to the question, what the book says), and where the book was read up to."""
    lines = [chaptered(record)]
    shown = record["citations"] or record["quotes"]
    if shown:
        lines += ["", "From the book:" if record["citations"] else "What the book says:"]
        lines += [f"- {cited_line(c)}" for c in shown]
    lines += ["", note]
    return "\n".join(lines)


class ReadingApps:
    """The endpoint's two routes, over the app's context (its model, cache, visitors and library)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.routes = Starlette(routes=[Route("/v1/models", self.models, methods=["GET"]),
                                        Route("/v1/chat/completions", self.completions, methods=["POST"]),
                                        Route("/api/tags", self.tags, methods=["GET"]),
                                        Route("/api/chat", self.chat, methods=["POST"]),
                                        Route("/api/embed", self.embed, methods=["POST"])])

    def allowed(self, request: Request) -> None:
        """The bearer key, when the app has one; a library to read."""
        key = self.ctx.config.api_key
        if key and request.headers.get("authorization", "") != f"Bearer {key}":
            raise Refused(401, "the API key is wrong or missing (Authorization: Bearer <the app's --api-key>).",
                          "authentication_error")
        if not key and self.ctx.config.host not in LOOPBACK:
            raise Refused(403, "this app listens beyond this computer, so its reading-app endpoint needs a key: "
                               "start it with --api-key.", "permission_error")
        if not self.ctx.config.library:
            raise Refused(404, "this app has no library to answer from: start it with --library FOLDER.")

    def books(self) -> dict[str, ShelfModel]:
        try:
            return library_books(self.ctx.config.library)
        except (OSError, EliteError) as exc:
            raise Refused(500, f"the library could not be read: {exc}", "server_error") from None

    async def models(self, request: Request):
        try:
            self.allowed(request)
            books = self.books()
        except Refused as refused:
            return refused.response()
        rows = [{"id": ANY_BOOK, "object": "model", "created": 0, "owned_by": "elite-reader",
                 "name": "Your library (the book the request mentions)"}]
        rows += [{"id": key, "object": "model", "created": 0, "owned_by": "elite-reader",
                  "name": book.entry.label()} for key, book in books.items()]
        return JSONResponse({"object": "list", "data": rows})

    async def body(self, request: Request) -> object:
        """The request's JSON, allowed (:meth:`allowed`) and bounded."""
        self.allowed(request)
        body = await request.body()
        if len(body) > MAX_BODY:
            raise Refused(413, f"the request is larger than {MAX_BODY // 1024} KB.")
        try:
            return json.loads(body)
        except ValueError:
            raise Refused(400, "the request body is not JSON.") from None

    async def completions(self, request: Request):
        """OpenAI's chat completions."""
        return await self.answer(request, ollama=False)

    async def chat(self, request: Request):
        """Ollama's chat (Readest's AI speaks it), streamed unless the request says not."""
        return await self.answer(request, ollama=True)

    async def answer(self, request: Request, ollama: bool):
        try:
            try:
                asked = read_request(await self.body(request), stream=ollama)
            except RequestError as exc:
                raise Refused(400, str(exc)) from None
            if self.ctx.model.llm is None:
                raise Refused(503, f"no model: {self.ctx.model.status}", "server_error")
            book = chosen(self.books(), asked)
            who = address(request, self.ctx.config.proxies)
            answering = self.answering(book, asked, who) if book else self.across(asked, who)
            # the book opened and placed, the question in line: a refusal is said before a stream begins
            await anyio.to_thread.run_sync(next, answering, limiter=run_threads())
        except Refused as refused:
            return refused.response()
        name = book.id if book else ANY_BOOK
        if asked.stream:
            return StreamingResponse(lines(answering, name) if ollama else streamed(answering, name),
                                     media_type="application/x-ndjson" if ollama else "text/event-stream")
        record = await anyio.to_thread.run_sync(last, answering, limiter=run_threads())
        if not isinstance(record, dict):
            return error(500, str(record or "stopped."), "server_error")
        return JSONResponse(said(record, name, True) if ollama else completion(record, name))

    async def tags(self, request: Request):
        """Ollama's model list: the books, :data:`ANY_BOOK`, and the embedder (:data:`EMBEDDER`)."""
        try:
            self.allowed(request)
            names = [ANY_BOOK, *self.books(), EMBEDDER]
        except Refused as refused:
            return refused.response()
        return JSONResponse({"models": [{"name": n, "model": n, "modified_at": "1970-01-01T00:00:00Z", "size": 0,
                                         "digest": "", "details": {}} for n in names]})

    async def embed(self, request: Request):
        """Ollama's embeddings, by the app's own embedder (MiniLM), for an app that ranks passages itself."""
        try:
            body = await self.body(request)
            given = body.get("input") if isinstance(body, dict) else None
            texts = [given] if isinstance(given, str) else given
            if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
                raise Refused(400, "'input' must be a string or a list of strings.")
            if len(texts) > MAX_EMBEDDED or sum(map(len, texts)) > MAX_BODY:
                raise Refused(400, f"at most {MAX_EMBEDDED} texts are embedded at once.")
            vectors = await anyio.to_thread.run_sync(self.ctx.model.embed, texts, limiter=run_threads())
        except Refused as refused:
            return refused.response()
        return JSONResponse({"model": EMBEDDER, "embeddings": [list(map(float, v)) for v in vectors]})

    @contextmanager
    def visitor(self, who: str) -> Iterator[Session]:
        """A session for one request of the address ``who`` (:meth:`~elite_ui.app.visitors.Visitors.request`);
        refused with 429 beyond hosted mode's ``--sessions-per-visitor``."""
        with self.ctx.visitors.request(who) as (session, refused):
            if refused:
                raise Refused(429, refused, "rate_limit_error")
            yield session

    def answering(self, model: ShelfModel, asked: AppAsked, who: str) -> Iterator:
        """The request answered from one book: first None (ready, in line), then None now and then while the
        answer is being found, last the answer record with its text (or the :class:`Refused` it ended in)."""
        entry, ctx = model.entry, self.ctx
        with self.visitor(who) as session:
            try:
                file = entry.file()
                book = load_book(str(file), cache_dir=ctx.cache_dir)
                shelf = open_shelf(ctx.config.library)
                located, _ = located_in(book, shelf, entry, ctx.config.koreader)
                about, *read = found_in(book, file, [asked.passage, *asked.read])
                ends = [max(sentences) for sentences in read if sentences]
                ceiling, note = ceiling_for(book, located.sentence, asked.share, max(ends) if ends else None)
            except EliteError as exc:
                raise Refused(400, str(exc)) from None
            session.open(book)
            with session.run(ctx.model):
                yield None
                try:
                    ready = asked_of(ctx, session, book, Asked(asked.question, ceiling, about=about))
                    trace = Trace(asked.question)
                    last = time.monotonic()
                    for event in ready.events():
                        trace.add(event)
                        if time.monotonic() - last > 1.0:
                            last = time.monotonic()
                            yield None
                    record = ready.record(trace)
                except Cancelled:
                    return
                except EliteError as exc:
                    yield Refused(500, str(exc), "server_error")
                    return
            yield record | {"text": reply_text(record, note)}

    def across(self, asked: AppAsked, who: str) -> Iterator:
        """The request answered across the library (the model :data:`ANY_BOOK`, no book mentioned): as
        :meth:`answering` yields, the last the library's answer (:func:`elite_ui.across.ask_across`)."""
        ctx = self.ctx
        with self.visitor(who) as session:
            try:
                index = kept_index(ctx.config.library, ctx.cache_dir, ctx.config.koreader)
            except (OSError, EliteError) as exc:
                raise Refused(500, f"the library could not be read: {exc}", "server_error") from None
            yield None
            try:
                record = ask_across(index, asked.question, asking_each_book(ctx, session), cache_dir=ctx.cache_dir,
                                    include=UNOPENED)
            except Cancelled:
                return
            except EliteError as exc:
                yield Refused(500, str(exc), "server_error")
                return
            yield record | {"text": record["answer"]}


def completion(record: dict, model: str) -> dict:
    """OpenAI's chat completion, unstreamed, with the answer record beside it."""
    text = record.pop("text")
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                         "finish_reason": "stop"}],
            "usage": usage(record), "elite_reader": record}


def usage(record: dict) -> dict:
    """OpenAI's usage of an answer (a library's: its books' together)."""
    every = [record["costs"]] if "costs" in record else [one["answer"]["costs"] for one in record["books"]]
    costs = {k: sum(c[k] for c in every) for k in ("prompt_tokens", "completion_tokens")}
    return {"prompt_tokens": costs["prompt_tokens"], "completion_tokens": costs["completion_tokens"],
            "total_tokens": costs["prompt_tokens"] + costs["completion_tokens"]}


def last(steps: Iterator):
    """The last of ``steps``."""
    return next(iter(deque(steps, maxlen=1)), None)


def said(record: dict, model: str, done: bool) -> dict:
    """Ollama's chat reply: the whole answer (``done``) with the answer record beside it, or one piece of it."""
    out = {"model": model, "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "message": {"role": "assistant", "content": record.pop("text", "")}, "done": done}
    if done:
        costs = usage(record)
        out |= {"done_reason": "stop", "prompt_eval_count": costs["prompt_tokens"],
                "eval_count": costs["completion_tokens"], "elite_reader": record}
    return out


def kept_alive(answering: Iterator, alive: str) -> Generator[str, None, object]:
    """``answering`` run to its end, ``alive`` yielded at most every :data:`KEEP_ALIVE` seconds meanwhile (a
    proxy closes a silent stream); returns its last step."""
    at, record = time.monotonic(), None
    try:
        for step in answering:
            record = step
            if step is None and time.monotonic() - at > KEEP_ALIVE:
                at = time.monotonic()
                yield alive
    finally:
        answering.close()
    return record


def lines(answering: Iterator, model: str) -> Iterator[str]:
    """Ollama's streamed chat (one JSON object a line): the answer's text, then the last line with ``done`` and
    the answer record; an empty piece now and then while the answer is found."""
    record = yield from kept_alive(answering, json.dumps(said({}, model, False)) + "\n")
    if not isinstance(record, dict):
        yield json.dumps({"error": str(record or "stopped.")}) + "\n"
        return
    yield json.dumps(said({"text": record.pop("text")}, model, False)) + "\n"
    yield json.dumps(said(record, model, True)) + "\n"


def streamed(answering: Iterator, model: str) -> Iterator[str]:
    """OpenAI's server-sent events: the role, a comment line now and then while the answer is found, the answer's
    text, the last chunk with the finish reason, the usage and the answer record, then ``[DONE]``."""
    name, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())

    def chunk(delta: dict, finish: str | None = None, **extra) -> str:
        data = {"id": name, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(data)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    record = yield from kept_alive(answering, ": finding the answer\n\n")
    if not isinstance(record, dict):
        message = str(record or "stopped.")
        yield f"data: {json.dumps({'error': {'message': message, 'type': 'server_error'}})}\n\n"
        return
    text = record.pop("text")
    yield chunk({"content": text})
    yield chunk({}, "stop", usage=usage(record), elite_reader=record)
    yield "data: [DONE]\n\n"


OLLAMA_PATHS = ("/api/tags", "/api/chat", "/api/embed")


class ReadingAppsMiddleware:
    """Serves ``/v1/...`` and Ollama's ``/api/tags``, ``/api/chat`` and ``/api/embed`` (:class:`ReadingApps`)
    before the rest of the app; everything else passes through."""

    def __init__(self, app, ctx):
        self.app = app
        self.endpoint = ReadingApps(ctx)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and (scope["path"].startswith("/v1/") or scope["path"] in OLLAMA_PATHS):
            await self.endpoint.routes(scope, receive, send)
        else:
            await self.app(scope, receive, send)
