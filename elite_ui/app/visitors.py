"""What one visitor may take of a hosted app: sessions with a book open, uploads a minute, long builds and heavy
views at once. A visitor is a network address as the server sees it (a Space's proxy's ``X-Forwarded-For`` entry
when the host says there is such a proxy), never anything the client sends about itself: a session id is free to
mint, an address is not. Beyond a limit the visitor hears one sentence, and nothing else changes."""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterator
from contextlib import contextmanager
from weakref import WeakValueDictionary

import gradio as gr

from .config import Config
from .state import Session

VIEW_WAIT = 10.0
"""Seconds a heavy view waits for one of the ``--views`` turns before the visitor is told to try again."""


def address(request: gr.Request | None, proxies: int) -> str:
    """The visitor's address: the connection's, or with ``proxies`` trusted proxies in front, the entry the
    nearest of them wrote into ``X-Forwarded-For`` (every line of it joined: the entries before the proxies' are
    the client's own to forge, in a line of its own too). An IPv6 visitor is its /64, the block one host holds."""
    if request is None:
        return "local"
    if proxies:
        hops = [h.strip() for line in header_lines(request.headers, "x-forwarded-for") for h in line.split(",")]
        hops = [h for h in hops if h]
        if len(hops) >= proxies:
            return grouped(hops[-proxies])
    client = getattr(request, "client", None)
    return grouped(getattr(client, "host", None) or "unknown")


def header_lines(headers, name: str) -> list[str]:
    """Every line of header ``name`` in order (a plain dict holds one, the lines already joined)."""
    if hasattr(headers, "getlist"):
        return headers.getlist(name)
    return [value for key, value in dict(headers or {}).items() if key.lower() == name]


def grouped(host: str) -> str:
    """``host`` as a visitor: an IPv6 address as its /64 network, anything else as it is."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    return str(ipaddress.ip_network(f"{ip}/64", strict=False)) if ip.version == 6 else host


class Visitors:
    """The hosted app's per-visitor limits (outside hosted mode every check passes)."""

    def __init__(self, config: Config):
        self.config = config
        self.sessions: WeakValueDictionary[str, Session] = WeakValueDictionary()
        """The sessions that opened a book or a page, by Gradio's session hash (freed when their tab or API
        client closes, or when idle)."""
        self._uploads: dict[str, deque[float]] = defaultdict(deque)
        self._heavy: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self.builds = threading.BoundedSemaphore(max(1, config.builds))
        self.views = threading.BoundedSemaphore(config.views)

    def track(self, request: gr.Request | None, session: Session) -> None:
        """Know ``session`` by its hash, and whose it is."""
        session.visitor = address(request, self.config.proxies)
        if request is not None and request.session_hash:
            self.sessions[request.session_hash] = session

    def crowded(self, session: Session) -> str | None:
        """Why ``session``, without a book yet, may not become one more of its visitor's sessions with a book open
        (hosted mode: page tabs and API clients count alike), or None."""
        cfg, who = self.config, session.visitor
        if not cfg.hosted or session.book is not None:
            return None
        with self._lock:
            others = sum(1 for s in list(self.sessions.values())
                         if s is not session and s.visitor == who and s.book is not None)
        if others >= cfg.sessions_per_visitor:
            return (f"your address already has {others} sessions with a book open here, the limit; close a tab "
                    f"(its session is freed within a minute) or use one of them.")
        return None

    def may_open(self, request: gr.Request | None, session: Session) -> str | None:
        """Why ``session`` may not open a book now (too many sessions with a book, too many uploads this minute),
        or None. Counts the upload when allowed."""
        self.track(request, session)
        cfg, who = self.config, session.visitor
        if not cfg.hosted:
            return None
        crowded = self.crowded(session)
        if crowded:
            return crowded
        with self._lock:
            recent, now = self._uploads[who], time.monotonic()
            while recent and now - recent[0] > 60:
                recent.popleft()
            if len(recent) >= cfg.uploads_per_minute:
                return (f"your address opened {len(recent)} books in the last minute, the limit; wait "
                        f"{60 - (now - recent[0]):.0f} s.")
            recent.append(now)
        return None

    @contextmanager
    def request(self, who: str) -> Iterator[tuple[Session, str | None]]:
        """A session for one request of the address ``who`` (a reading app's question, a question across the
        library), counted with its other sessions while it runs (hosted mode's ``--sessions-per-visitor``: page
        tabs, API clients and these alike) and let go when it ends; with it, why it may not run (None: it may)."""
        session = Session()
        session.visitor = who
        refused = self.crowded(session)
        key = f"request {session.key}"
        if refused is None:
            self.sessions[key] = session
        try:
            yield session, refused
        finally:
            session.release()
            self.sessions.pop(key, None)

    @contextmanager
    def heavy(self, session: Session) -> Iterator[str | None]:
        """A turn for one heavy view of ``session``'s visitor (an X-Ray, shared passages, an extractive recap):
        yields None when it may run, else why not (the visitor already runs their limit of them, or ``--views``
        run for others and none freed within :data:`VIEW_WAIT` seconds). Nothing waits in Gradio's queue, so no
        visitor fills it."""
        who, limit = session.visitor, self.config.views_per_visitor if self.config.hosted else 0
        with self._lock:
            if limit and self._heavy[who] >= limit:
                yield "your last X-Ray or recap is still being made; wait for it."
                return
            self._heavy[who] += 1
        try:
            if not self.views.acquire(timeout=VIEW_WAIT):
                yield "other readers' X-Rays and recaps are being made; try again in a moment."
                return
            try:
                yield None
            finally:
                self.views.release()
        finally:
            with self._lock:
                self._heavy[who] -= 1
                if not self._heavy[who]:
                    del self._heavy[who]
