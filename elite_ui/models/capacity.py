"""The model's capacity, shared fairly between readers: how many calls it takes at once (one for an in-process
model, the server's slots for a batching server) and one line for the calls that wait.

A run is one reader's question or build (a :class:`Share`). Each of its model calls takes a place in the line.
A short run keeps its slot from one call to the next, so questions are answered whole in the order they were asked
(an in-process model answers one question at a time, reusing its KV cache between a question's calls); past
:data:`SHORT_CALLS` calls a run holds its slot for one call at a time, so long work (an index build, the paper
preset's many calls) lets other readers' calls in between. When a slot frees, it goes to the waiting call whose
visitor (a network address, however many sessions it has open) holds the fewest slots, then whose reader (a
session) does; then to a short run before a long one; short runs in the order they began, long
ones to the one served longest ago (round robin). A reader with many calls to make cannot push ahead of one with a
short question. And when a short question waits and every slot is held by long work, the long work's call is
preempted: it stops at its next token (the backend looks at its stop flag), gives its slot up, and runs again once
the question is answered, so a question waits for no build.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from ..errors import Cancelled

T = TypeVar("T")

POLL_SECONDS = 0.5
"""How often a waiting call looks at its stop flag (and says where it stands)."""
SHORT_CALLS = 8
"""A run keeps its slot between its first calls and goes in the order runs began; past this many (the default
preset asks 2-4, the paper preset and index builds hundreds) it waits behind shorter runs, call by call."""
REMEMBERED = 4096
"""Readers whose last turn is remembered (the oldest are forgotten past that)."""
STOPPED_CALLS = 1
"""A visitor's stopped calls that may still run on a server while their next call does: with more, their next
call waits until one ends (a reader pressing Ask then Stop again and again leaves no pile of calls on the
server)."""


class Capacity:
    """``slots`` calls at once; the others wait in one fair line."""

    def __init__(self, slots: int = 1):
        self.slots = max(1, slots)
        self._changed = threading.Condition()
        self._line: list[Place] = []
        self._running: list[Place] = []
        self._held: dict[Hashable, int] = {}
        """Slots held by each reader (a session) and by each visitor (an address)."""
        self._stopped: dict[Hashable, int] = {}
        """Each visitor's (address's) stopped calls still running on the server (:meth:`Place.outlived`)."""
        self._served: dict[Hashable, int] = {}
        """When each reader and each address was last granted a slot (a count of grants)."""
        self._grants = 0
        self._closed = False
        self.busy = 0
        """Calls running now."""
        self.peak = 0
        """The most calls that ever ran at once."""

    def line_up(self, run: Share) -> Place:
        """A place in line for one call of ``run`` (granted at once when a slot is free)."""
        place = Place(self, run)
        with self._changed:
            self._line.append(place)
            self._grant()
        return place

    @contextmanager
    def held(self, run: Share, cancel: threading.Event | None = None) -> Iterator[Place]:
        """A slot for one call of ``run``, waited for (raising :class:`Cancelled` if ``cancel`` is set
        meanwhile)."""
        place = self.line_up(run)
        try:
            while not place.wait(POLL_SECONDS):
                if cancel is not None and cancel.is_set():
                    raise Cancelled("stopped.")
            yield place
        finally:
            place.leave()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Every slot, once the calls running now end (for swapping the model); no call starts meanwhile."""
        with self._changed:
            self._changed.wait_for(lambda: not self._closed)
            self._closed = True
            self._changed.wait_for(lambda: self.busy == 0)
        try:
            yield
        finally:
            with self._changed:
                self._closed = False
                self._grant()

    def resize(self, slots: int) -> None:
        with self._changed:
            self.slots = max(1, slots)
            self._grant()

    def waiting(self) -> int:
        with self._changed:
            return len(self._line)

    def _order(self, place: Place) -> tuple:
        """Who goes first: the fewest slots held by the visitor's address, then by the reader; a short run before
        a long one; the address served longest ago (round robin between addresses); short runs in the order they
        began, long ones served longest ago first; then the call that arrived first."""
        run = place.run
        after = self._served.get(run.visitor, -1) if run.long else run.started
        return (self._held.get(run.at, 0), self._held.get(run.visitor, 0), run.long, self._served.get(run.at, -1),
                after, place.arrived)

    def _preempt(self) -> None:
        """When short runs wait and no slot is free, stop as many of long work's running calls."""
        waiting = sum(1 for p in self._line if not p.run.long)
        if self._closed or not waiting or self.busy < self.slots:
            return
        for place in self._running:
            if waiting and place.run.long and not place.preempted.is_set():
                place.preempted.set()
                waiting -= 1

    def _grant(self) -> None:
        """Give free slots to the waiting calls first in :meth:`_order` (not to a visitor with more than
        :data:`STOPPED_CALLS` stopped calls still running)."""
        while not self._closed and self.busy < self.slots:
            ready = [p for p in self._line if self._stopped.get(p.run.at, 0) <= STOPPED_CALLS]
            if not ready:
                break
            place = min(ready, key=self._order)
            self._line.remove(place)
            self._running.append(place)
            place.granted = True
            self.busy += 1
            self.peak = max(self.peak, self.busy)
            for holder in {place.visitor, place.run.at}:
                self._held[holder] = self._held.get(holder, 0) + 1
            self._grants += 1
            for holder in {place.visitor, place.run.at}:
                self._served.pop(holder, None)
                self._served[holder] = self._grants
            while len(self._served) > REMEMBERED:
                del self._served[next(iter(self._served))]
        self._preempt()
        self._changed.notify_all()

    def _leave(self, place: Place) -> None:
        with self._changed:
            if place.outliving:
                return
            if place.granted:
                self._running.remove(place)
                self.busy -= 1
                for holder in {place.visitor, place.run.at}:
                    left = self._held[holder] - 1
                    if left:
                        self._held[holder] = left
                    else:
                        del self._held[holder]
            elif place in self._line:
                self._line.remove(place)
            self._grant()

    def _ahead(self, place: Place) -> int:
        """Other visitors' calls that will be served before ``place``."""
        with self._changed:
            if place.granted or place not in self._line:
                return 0
            mine = self._order(place)
            return sum(1 for p in self._line if p.visitor != place.visitor and self._order(p) < mine)


class Place:
    """One call's place in line; leave it (or use it as a context manager) when the call is done."""

    def __init__(self, capacity: Capacity, run: Share):
        self.capacity, self.run, self.visitor = capacity, run, run.visitor
        self.arrived = time.monotonic()
        self.granted = False
        self.left = False
        self.outliving = False
        """Its call was stopped and still runs on the server: the slot stays counted until it ends."""
        self.waited = 0.0
        """Seconds it waited for its slot."""
        self.preempted = threading.Event()
        """Set when a short question needs the slot of this long work's call (which then stops and runs again)."""

    def wait(self, timeout: float) -> bool:
        """Whether the slot is this call's, waiting up to ``timeout`` seconds for it."""
        with self.capacity._changed:
            granted = self.capacity._changed.wait_for(lambda: self.granted, timeout)
        self.waited = time.monotonic() - self.arrived
        return granted

    @property
    def ahead(self) -> int:
        return self.capacity._ahead(self)

    def leave(self) -> None:
        if not self.left:
            self.left = True
            self.capacity._leave(self)

    def outlived(self) -> Callable[[], None]:
        """The call was stopped and its caller let go while the server still runs it: the slot (and the visitor's
        count of stopped calls) stays taken until the returned function is called, when the server is done."""
        capacity = self.capacity
        with capacity._changed:
            if not self.granted or self.outliving:
                return lambda: None
            self.outliving = True
            capacity._stopped[self.run.at] = capacity._stopped.get(self.run.at, 0) + 1

        def over() -> None:
            with capacity._changed:
                self.outliving = False
                left = capacity._stopped[self.run.at] - 1
                if left:
                    capacity._stopped[self.run.at] = left
                else:
                    del capacity._stopped[self.run.at]
                if self.left:
                    capacity._leave(self)
                else:
                    capacity._grant()
        return over

    def stop_flag(self, cancel: threading.Event | None) -> Either:
        """What the call's backend looks at to stop: the reader's Stop, or this place preempted."""
        return Either(cancel, self.preempted)

    def gave_way(self, cancel: threading.Event | None) -> bool:
        """Whether the call stopped because it was preempted (not because the reader stopped)."""
        return self.preempted.is_set() and not (cancel is not None and cancel.is_set())

    def done(self) -> None:
        """The call is over: a short run keeps the slot for its next call (:meth:`Share.finish` frees it), a long
        one (or a preempted call) leaves."""
        self.run.calls += 1
        if self.granted and not self.left and not self.run.long and not self.preempted.is_set():
            self.run.kept = self
        else:
            self.leave()

    def __enter__(self) -> Place:
        return self

    def __exit__(self, kind, *exc) -> None:
        if kind is None:
            self.done()
        else:
            self.leave()


class Either:
    """Set when either of two flags is (for a backend that looks at one stop flag)."""

    def __init__(self, *flags: threading.Event | None):
        self.flags = [f for f in flags if f is not None]

    def is_set(self) -> bool:
        return any(f.is_set() for f in self.flags)


@dataclass(eq=False)
class Share:
    """One run's share of the model's capacity (a reader's question or build): what an engine lines its calls
    up with."""

    capacity: Capacity
    visitor: Hashable
    """The reader (a session's key)."""
    background: bool = False
    """Long work from the start (an index build, written recaps): it never keeps a slot and is preempted."""
    started: float = field(default_factory=time.monotonic)
    calls: int = 0
    """Calls done so far."""
    kept: Place | None = None
    """The slot kept from the run's last call for its next (or the place it took in line when it was asked)."""
    address: str = ""
    """The visitor's network address, shared by their sessions ("" when there is none: the reader alone)."""

    @property
    def at(self) -> Hashable:
        """Whose slots count together: the address, else the reader."""
        return ("address", self.address) if self.address else self.visitor

    @property
    def long(self) -> bool:
        """Long work: background, or a run past :data:`SHORT_CALLS` calls."""
        return self.background or self.calls >= SHORT_CALLS

    def line_up(self) -> Place:
        """A place for the run's next call: the one it kept (its slot, or a place taken in line before its first
        call), else a new place in line."""
        if self.kept is None or self.kept.left:
            return self.capacity.line_up(self)
        place, self.kept = self.kept, None
        if place.granted:
            place.arrived = time.monotonic()
        return place

    def finish(self) -> None:
        """The run is over: free the slot it kept."""
        if self.kept is not None:
            self.kept.leave()
            self.kept = None

    def held(self, cancel: threading.Event | None = None):
        return self.capacity.held(self, cancel)

    def call(self, work: Callable[[Either, Callable], T], cancel: threading.Event | None = None) -> T:
        """``work(stop_flag, outlived)`` with a slot held (:meth:`Place.outlived`); when it stops because it was
        preempted, it waits its turn and runs again."""
        while True:
            with self.held(cancel) as place:
                try:
                    return work(place.stop_flag(cancel), place.outlived)
                except Cancelled:
                    if not place.gave_way(cancel):
                        raise
