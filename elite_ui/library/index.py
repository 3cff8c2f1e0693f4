"""Every book of a library in one full-text index, searched at once: "which of my books mention the Marshalsea",
answered with books, chapters and sentences, ranked, each book under its own spoiler ceiling.

The engine is SQLite's FTS5 (in Python's own ``sqlite3``; docs/library.md says why, measured): one contentless
table of sentences ranked by BM25, each row's id the book's number and the sentence's (``number << 20 | sid``),
the sentences' text kept once, compressed, a chapter a row, for showing what was found and for deleting a book's
rows. The index lives beside the cache, one file a library, built once and kept current: :meth:`LibraryIndex.update`
reads again only a book added, or changed (its size or time, then its content hash), drops a book removed, and
lists an unreadable one as skipped with the reason; a restart reuses the file. Where the reading apps (Calibre's
viewer, KOReader) left the reader is read at each update, so a book is searched up to there; a book no app has
opened is searched only when asked for (``unread``)."""

from __future__ import annotations

import hashlib
import itertools
import re
import sqlite3
import zlib
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from ..book import Book, load_book
from ..book.lexicon import STOPWORDS
from ..errors import EliteError
from .located import locate
from .model import Reading, Shelved
from .shelf import open_shelf, readings

SHIFT = 20
"""A row's id is ``book << SHIFT | sentence``: up to a million sentences a book (Les Misérables has 35,058)."""
MAX_BOOKS = 20_000
MAX_WORDS = 12
"""The most words of a search that count (the rarest weigh most anyway)."""
HITS = 400
"""Sentences ranked before they are grouped by book."""
RANK_STEPS = 1_000_000
"""How much work ranking a search may take, in steps of SQLite's virtual machine (about 0.1 s: 9 million steps a
second here), counted in steps so that a busy machine ranks what an idle one does: words so common that ranking
every sentence holding them takes more ("said") take the first sentences holding them instead, in book order."""
STEPS_TOLD = 1000
"""How often SQLite tells how many steps a statement has taken."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS books (number INTEGER PRIMARY KEY, key TEXT UNIQUE, size INTEGER, mtime INTEGER,
    digest TEXT, title TEXT, authors TEXT, length INTEGER, place TEXT, ceiling INTEGER, cap INTEGER);
CREATE TABLE IF NOT EXISTS chapters (book INTEGER, number INTEGER, name TEXT, first INTEGER, last INTEGER,
    text BLOB, PRIMARY KEY (book, number));
CREATE TABLE IF NOT EXISTS skipped (key TEXT PRIMARY KEY, size INTEGER, mtime INTEGER, reason TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS sentences USING fts5(text, content='',
    tokenize='porter unicode61 remove_diacritics 2');
"""
"""``cap``: the highest row id searched in the book (its ceiling's; -1 for a book no reading app has opened)."""


@dataclass
class Updated:
    """What an update did."""

    added: int = 0
    changed: int = 0
    removed: int = 0
    kept: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """Each book that could not be read, and why."""

    def said(self) -> str:
        parts = [f"{self.kept + self.added + self.changed} books indexed ({self.added} added, {self.changed} "
                 f"changed, {self.removed} removed)"]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped: " + "; ".join(f"{k} ({why})" for k, why in self.skipped[:5]))
        return ", ".join(parts) + "."


@dataclass
class Hit:
    sentence: int
    chapter: str
    text: str
    score: float


@dataclass
class BookHits:
    """A book where the words were found: its sentences found (the best first), under its ceiling."""

    key: str
    title: str
    authors: str
    score: float
    ceiling: int | None
    """The last sentence searched (None: the whole book, which no reading app has opened)."""
    hits: list[Hit]

    @property
    def up_to(self) -> str:
        return "the whole book (no reading app has opened it)" if self.ceiling is None else f"up to S{self.ceiling}"


@dataclass
class Searched:
    books: list[BookHits]
    unread_left: int | None = 0
    """Books that hold the words but no reading app has opened: searched only when asked for (None: words so common
    that they were not counted)."""


class LibraryIndex:
    """The index of the library at ``folder``, kept in ``cache_dir``."""

    def __init__(self, folder: str | Path, cache_dir: str | Path, koreader: str | Path | None = None):
        self.folder = Path(folder).expanduser().resolve()
        self.koreader = koreader
        name = hashlib.sha256(str(self.folder).encode()).hexdigest()[:16]
        self.path = Path(cache_dir) / "library-index" / f"{name}.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.create()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError):  # locked, or the disk: not the file's fault
                raise
            self.path.unlink()  # a damaged file (a crash, a full disk): the index is a cache, read again
            self.create()

    def create(self) -> None:
        """The index's tables, where the file lacks them."""
        with closing(self.connect()) as db:
            db.executescript(SCHEMA)

    def connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def key_of(self, file: Path) -> str:
        """A book's key: its file's path within the library."""
        real = file.resolve()
        return str(real.relative_to(self.folder)) if real.is_relative_to(self.folder) else str(file)

    def update(self, told: Callable[[int, int, str], object] | None = None) -> Updated:
        """Bring the index up to the library now: read a book added or changed, drop one removed, read again where
        the reading apps left the reader in each; ``told`` (the books looked at so far, of how many, the one read
        now) before each book read into the index, which a first search does for every book."""
        shelf = open_shelf(self.folder)
        entries = [e for e in shelf.search("", limit=MAX_BOOKS) if e.file() is not None]
        done = Updated()
        with closing(self.connect()) as db:
            known = {row[0]: row for row in db.execute(
                "SELECT key, number, size, mtime, digest, place FROM books")}
            skipped = {row[0]: row for row in db.execute("SELECT key, size, mtime, reason FROM skipped")}
            seen = set()
            for number, entry in enumerate(entries):
                file = entry.file()
                key = self.key_of(file)
                seen.add(key)
                stat = file.stat()
                old = known.get(key)
                if key in skipped and skipped[key][1:3] == (stat.st_size, stat.st_mtime_ns):
                    done.skipped.append((entry.label(), skipped[key][3]))
                    continue
                if old is not None and old[2:4] == (stat.st_size, stat.st_mtime_ns):
                    self.place(db, shelf, entry, file, old)
                    done.kept += 1
                    continue
                try:
                    digest = hashlib.sha256(file.read_bytes()).hexdigest()
                    if old is not None and old[4] == digest:
                        db.execute("UPDATE books SET size = ?, mtime = ? WHERE key = ?",
                                   (stat.st_size, stat.st_mtime_ns, key))
                        self.place(db, shelf, entry, file, old)
                        done.kept += 1
                        continue
                    if told is not None:
                        told(number, len(entries), entry.label())
                    book = load_book(file)
                except (OSError, EliteError) as exc:
                    reason = str(exc)[:200]
                    db.execute("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?, ?)",
                               (key, stat.st_size, stat.st_mtime_ns, reason))
                    done.skipped.append((entry.label(), reason))
                    continue
                if old is not None:
                    self.drop(db, old[1])
                    done.changed += 1
                else:
                    done.added += 1
                db.execute("DELETE FROM skipped WHERE key = ?", (key,))
                self.add(db, key, stat, digest, entry, book, shelf, file)
                db.commit()
            for key, row in known.items():
                if key not in seen:
                    self.drop(db, row[1])
                    done.removed += 1
            db.executemany("DELETE FROM skipped WHERE key = ?", ((key,) for key in skipped if key not in seen))
            db.commit()
        return done

    def add(self, db, key: str, stat, digest: str, entry: Shelved, book: Book, shelf, file: Path) -> None:
        """``book``'s rows: its sentences indexed, its chapters' text kept, where the reader is."""
        number = (db.execute("SELECT coalesce(max(number), 0) + 1 FROM books").fetchone()[0])
        found, _ = readings(shelf, entry, file, self.koreader)
        place, ceiling = positions(found), last_read(book, file, found)
        db.execute("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (number, key, stat.st_size, stat.st_mtime_ns, digest,
                    entry.title if entry.authors else book.title or entry.title,  # a folder's: its file's name
                    entry.authors or book.author, len(book), place, ceiling, cap(number, ceiling)))
        texts = [" ".join(book.sentence(sid).text.split()) for sid in range(len(book))]
        db.executemany("INSERT INTO sentences (rowid, text) VALUES (?, ?)",
                       ((number << SHIFT | sid, indexed(text)) for sid, text in enumerate(texts)))
        for c, chapter in enumerate(book.chapters):
            last = book.chapters[c + 1].first_sentence - 1 if c + 1 < len(book.chapters) else len(book) - 1
            if last < chapter.first_sentence:
                continue
            db.execute("INSERT INTO chapters VALUES (?, ?, ?, ?, ?, ?)",
                       (number, c, chapter.name or chapter.title, chapter.first_sentence, last,
                        zlib.compress("\n".join(texts[chapter.first_sentence:last + 1]).encode(), 9)))

    def drop(self, db, number: int) -> None:
        """A book's rows gone: its sentences deleted from the contentless index with their own text (kept in its
        chapters), as FTS5 asks."""
        for first, blob in db.execute("SELECT first, text FROM chapters WHERE book = ?", (number,)).fetchall():
            db.executemany("INSERT INTO sentences (sentences, rowid, text) VALUES ('delete', ?, ?)",
                           ((number << SHIFT | first + i, indexed(text))
                            for i, text in enumerate(zlib.decompress(blob).decode().split("\n"))))
        db.execute("DELETE FROM chapters WHERE book = ?", (number,))
        db.execute("DELETE FROM books WHERE number = ?", (number,))

    def place(self, db, shelf, entry: Shelved, file: Path, old) -> None:
        """Where the reading apps now leave the reader in a book already indexed (the book read again only when
        that changed; when it cannot be, the place kept is the last one found)."""
        found, _ = readings(shelf, entry, file, self.koreader)
        said = positions(found)
        if said == old[5]:
            return
        try:
            ceiling = last_read(load_book(file), file, found)
        except (OSError, EliteError):
            return
        db.execute("UPDATE books SET place = ?, ceiling = ?, cap = ? WHERE number = ?",
                   (said, ceiling, cap(old[1], ceiling), old[1]))

    def search(self, words: str, books: int = 10, per_book: int = 3, unread: bool = False) -> Searched:
        """The books holding ``words`` (in any form: porter stems), best first, each with its best sentences, up
        to where the reader is (a book no reading app has opened only with ``unread``, then whole)."""
        query = fts_query(words)
        if not query:
            return Searched([])
        with closing(self.connect()) as db:
            limit = "books.cap" if not unread else \
                "CASE WHEN books.cap < 0 THEN (books.number << 20) + books.length ELSE books.cap END"
            matching = (f"FROM sentences JOIN books ON books.number = (sentences.rowid >> {SHIFT}) "
                        f"WHERE sentences MATCH ? AND sentences.rowid <= {limit}")
            rows = within(db, RANK_STEPS, f"SELECT sentences.rowid, -bm25(sentences) {matching} "
                                          f"ORDER BY bm25(sentences) LIMIT {HITS}", (query,))
            if rows is None:  # words so common that no sentence holding them is a better answer than another
                rows = db.execute(f"SELECT sentences.rowid, 1.0 {matching} LIMIT {HITS}", (query,)).fetchall()
            grouped: dict[int, list[tuple[int, float]]] = {}
            for rowid, score in rows:
                grouped.setdefault(rowid >> SHIFT, []).append((rowid & ((1 << SHIFT) - 1), score))
            ranked = sorted(grouped.items(), key=lambda item: -sum(s for _, s in item[1][:per_book]))[:books]
            found = [self.book_hits(db, number, hits[:per_book]) for number, hits in ranked]
            left = 0 if unread else within(
                db, RANK_STEPS, f"SELECT count(DISTINCT sentences.rowid >> {SHIFT}) FROM sentences JOIN books ON "
                f"books.number = (sentences.rowid >> {SHIFT}) WHERE sentences MATCH ? AND books.cap < 0", (query,))
            left = left if isinstance(left, int) else (left[0][0] if left else None)
        return Searched(found, left)

    def book_hits(self, db, number: int, hits: list[tuple[int, float]]) -> BookHits:
        key, title, authors, ceiling = db.execute(
            "SELECT key, title, authors, ceiling FROM books WHERE number = ?", (number,)).fetchone()
        out = []
        for sid, score in hits:
            name, first, blob = db.execute(
                "SELECT name, first, text FROM chapters WHERE book = ? AND first <= ? AND last >= ?",
                (number, sid, sid)).fetchone()
            out.append(Hit(sid, name, zlib.decompress(blob).decode().split("\n")[sid - first], round(score, 3)))
        return BookHits(key, title, authors, round(sum(h.score for h in out), 3), ceiling, out)

    def count(self) -> int:
        with closing(self.connect()) as db:
            return db.execute("SELECT count(*) FROM books").fetchone()[0]


def within(db: sqlite3.Connection, steps: int, sql: str, args: tuple) -> list | None:
    """The rows of ``sql``, or None when it takes more than ``steps`` of SQLite's virtual machine (stopped then)."""
    told = itertools.count(1)
    db.set_progress_handler(lambda: next(told) * STEPS_TOLD > steps, STEPS_TOLD)
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError as exc:
        if "interrupted" not in str(exc):
            raise
        return None
    finally:
        db.set_progress_handler(None, 0)


def cap(number: int, ceiling: int | None) -> int:
    """The highest row id searched in book ``number``: its ceiling's, or -1 (no reading app has opened it)."""
    return -1 if ceiling is None else number << SHIFT | ceiling


def positions(found) -> str:
    """What the reading apps say of where the reader is, as one string (to tell when it changes)."""
    return repr(sorted((r.source, r.position.place, r.position.fraction, r.position.when)
                       for r in found if r.position is not None))


def last_read(book: Book, file: Path, found: list[Reading]) -> int | None:
    """The last sentence of ``book`` read, as the reading apps' ``found`` place it (None: no app has a place for
    it)."""
    return locate(book, file, [Reading(r.source, r.position) for r in found if r.position is not None]).sentence


def indexed(sentence: str) -> str:
    """What of a sentence is indexed: its words but the stop words, which half of a novel's words are and no search
    needs (a search of stop words alone finds nothing)."""
    return " ".join(w for w in re.findall(r"\w+", sentence) if w.lower() not in STOPWORDS)


PHRASES = re.compile(r"\"([^\"]+)\"|([^\"]+)")


def fts_query(words: str) -> str:
    """A search as FTS5 reads it: any of its words but the stop words (:func:`indexed`; BM25 ranks the sentences
    holding more, and rarer, of them first), a "quoted phrase" as its words in a row (stop words between them
    allowed)."""
    kept = []
    for phrase, loose in PHRASES.findall(words[:500]):
        inner = [w for w in re.findall(r"\w+", phrase or loose) if w.lower() not in STOPWORDS]
        kept += ['"' + " ".join(inner[:MAX_WORDS]) + '"'] if phrase and inner else [f'"{w}"' for w in inner]
    return " OR ".join(kept[:MAX_WORDS])

