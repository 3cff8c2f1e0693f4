"""A reader's edited search: an earlier run's iterations kept as they were, then the reader's terms and pinned
passages from the iteration they chose (the app's "Edit the search and run again")."""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field, replace

from ...book import Book
from ..trace import Chunk, EditMade, Event, Hit, Kind
from .retrieval import widen
from .search import Search


@dataclass
class Edit:
    """A reader's change to an earlier run of the same question: search again from ``iteration`` with ``terms``
    as that iteration's terms (the earlier iterations' terms and evidence are kept), with the sentences
    ``pinned`` as evidence that is ranked first and never trimmed."""

    events: list[Event]
    """The earlier run's events."""
    iteration: int
    terms: list[str]
    pinned: list[int] = field(default_factory=list)
    run: int = 1
    """Which run of the question it edits (for the trace)."""


KEPT = {Kind.TERMS, Kind.COLLECTION, Kind.CHUNKS, Kind.IMPORTANCE, Kind.JUDGE, Kind.EXPLORATION, Kind.WARNING}
"""The kinds of an earlier run's events an edited run starts from (its calls and answer are not carried over)."""


def resume(engine, search: Search, edit: Edit):
    """Bring ``search`` to an edited run's starting point: the earlier run's iterations before ``edit.iteration``
    (their events yielded again, so this run's trace is whole), then the reader's terms for that iteration and
    what changed."""
    book = search.book
    kept = deepcopy([e for e in edit.events if 0 < e.iteration < edit.iteration and e.kind in KEPT])
    yield from kept
    search.tried = [t for e in kept if e.kind == Kind.TERMS for t in e.data.new]
    search.chunks = {c.key: c for e in kept if e.kind == Kind.CHUNKS for c in e.data.chunks}
    search.retrieved = {h.sentence_id for e in kept if e.kind == Kind.COLLECTION for h in e.data.hits}
    before = {t.text.casefold(): t for e in edit.events if e.kind == Kind.TERMS and e.iteration == edit.iteration
              for t in e.data.new}
    wanted = list(dict.fromkeys(t.strip() for t in edit.terms if t.strip()))
    tried = search.seen()
    terms = [replace(before[t.casefold()], new=True) for t in wanted if t.casefold() in before]
    tried |= {t.text.casefold() for t in terms}
    added = engine.new_terms(book, [t for t in wanted if t.casefold() not in before], "reader", tried, by="reader")
    search.terms = terms + added + engine.name_variants(book, added, tried)
    search.iteration = edit.iteration
    chosen = {t.casefold() for t in wanted}
    yield Event(Kind.EDIT, edit.iteration, EditMade(
        edit.run, edit.iteration, [t.text for t in added], [t.text for key, t in before.items() if key not in chosen],
        sorted(sid for sid in set(edit.pinned) if 0 <= sid < len(book))))


def pinned_chunks(book: Book, sentence_ids: list[int], neighbor_num: int, iteration: int) -> list[Chunk]:
    """The reader's pinned sentences widened by their neighbours into chunks that are ranked first."""
    hits = []
    for sid in sorted(sid for sid in set(sentence_ids) if 0 <= sid < len(book)):
        s = book.sentence(sid)
        hits.append(Hit.at(s, score=0, matched=[], text=s.text))
    chunks = widen(book, hits, neighbor_num, iteration)
    for chunk in chunks:
        chunk.pinned = True
    return chunks
