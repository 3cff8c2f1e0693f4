"""A Calibre library, read from a copy of its ``metadata.db`` (Calibre expects the database to itself): its books
and their files, where Calibre's viewer last left each (``last_read_positions``), and the highlights and notes made
in it (``annotations``, their ``annot_data`` JSON). Every value is checked: a row of the wrong type, a huge value
or a file path outside the library is left out; a file that is not such a database is one sentence."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path

from .model import PREFERRED, LibraryError, Marked, Position, Reading, Shelved, cut, fraction, seconds

MAX_DB_BYTES = 2 * 2**30
MAX_ROWS = 5000
MAX_ANNOTATION = 100_000
"""The most characters of one annotation's JSON that are read."""
BOOKS = ("SELECT books.id, books.title, books.path, (SELECT group_concat(authors.name, ' & ') FROM books_authors_link "
         "JOIN authors ON authors.id = books_authors_link.author WHERE books_authors_link.book = books.id) AS names "
         "FROM books")


class CalibreLibrary:
    """The Calibre library in ``folder`` (the one that holds ``metadata.db``)."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).expanduser()
        db = self.folder / "metadata.db"
        if not db.is_file():
            raise LibraryError(f"{self.folder} is not a Calibre library: it holds no metadata.db.")
        if db.stat().st_size > MAX_DB_BYTES:
            raise LibraryError(f"{db} is larger than any Calibre library's database; it was not read.")
        self.kept = tempfile.TemporaryDirectory(prefix="elite-calibre-")  # removed with this object
        self.copy = Path(self.kept.name) / "metadata.db"
        try:
            shutil.copyfile(db, self.copy)
        except OSError as exc:
            raise LibraryError(f"{db} could not be read ({exc.strerror or type(exc).__name__}).") from None
        try:
            self.db = sqlite3.connect(f"file:{self.copy}?mode=ro", uri=True, check_same_thread=False)
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError:
            raise LibraryError(f"{db} is not a Calibre library's database (not an SQLite file).") from None
        missing = {"books", "data", "authors", "books_authors_link"} - tables
        if missing:
            raise LibraryError(f"{db} is not a Calibre library's database: it has no {', '.join(sorted(missing))} "
                               "table.")
        self.tables = tables
        self.lock = threading.Lock()

    def query(self, sql: str, *args) -> list[tuple]:
        try:
            with self.lock:  # one connection, shared by the visitors' threads
                return self.db.execute(sql, args).fetchmany(MAX_ROWS)
        except sqlite3.DatabaseError as exc:
            raise LibraryError(f"The Calibre library's database could not be read ({exc}).") from None

    def search(self, words: str = "", limit: int = 50) -> list[Shelved]:
        """The books whose title or authors hold ``words`` (every book when empty), by title, each with the files
        of the formats we read that are inside the library folder."""
        like = f"%{cut(words, 200).strip()}%"
        return self.shelved(self.query(
            f"{BOOKS} WHERE books.title LIKE ? OR names LIKE ? ORDER BY books.sort, books.title LIMIT ?", like, like,
            max(1, min(limit, MAX_ROWS))))

    def book(self, book_id: int) -> Shelved | None:
        """The book with Calibre's id ``book_id``, if it has a file we read."""
        found = self.shelved(self.query(f"{BOOKS} WHERE books.id = ?", book_id))
        return found[0] if found else None

    def shelved(self, rows: list[tuple]) -> list[Shelved]:
        found = []
        for book_id, title, path, names in rows:
            if not isinstance(book_id, int) or not isinstance(path, str):
                continue
            files = self.files(book_id, path)
            if files:
                found.append(Shelved(book_id, cut(title, 500) or "Untitled", cut(names, 500), files))
        return found

    def files(self, book_id: int, path: str) -> dict[str, Path]:
        """The book's files we can read, by format; a path that leads outside the library is left out."""
        root = self.folder.resolve()
        files = {}
        for fmt, name in self.query("SELECT format, name FROM data WHERE book = ?", book_id):
            fmt = fmt.lower() if isinstance(fmt, str) else ""
            if fmt not in PREFERRED or not isinstance(name, str):
                continue
            file = (root / path / f"{name}.{fmt}").resolve()
            if file.is_relative_to(root) and file.is_file():
                files[fmt] = file
        return files

    def reading(self, book: Shelved, fmt: str) -> Reading:
        """Where Calibre's viewer left ``book``'s file of format ``fmt`` (the latest of its users and devices),
        and the highlights made in it, oldest first."""
        reading = Reading("Calibre")
        if "last_read_positions" in self.tables:
            rows = self.query("SELECT cfi, pos_frac, epoch FROM last_read_positions WHERE book = ? AND format = ? "
                              "ORDER BY epoch DESC", book.id, fmt.upper())
            for cfi, frac, epoch in rows[:1]:
                reading.position = Position("Calibre", cut(cfi, 2000) or None, fraction(frac), seconds(epoch))
        if "annotations" in self.tables:
            rows = self.query("SELECT annot_data, timestamp FROM annotations WHERE book = ? AND format = ? AND "
                              "annot_type = 'highlight' AND length(annot_data) <= ? ORDER BY timestamp",
                              book.id, fmt.upper(), MAX_ANNOTATION)
            for data, when in rows:
                marked = highlight(data, when)
                if marked is not None:
                    reading.marked.append(marked)
        return reading


def highlight(data, when) -> Marked | None:
    """A Calibre highlight from its ``annot_data`` JSON, or None (removed, malformed or empty)."""
    try:
        annot = json.loads(data) if isinstance(data, str) else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(annot, dict) or annot.get("removed") or not cut(annot.get("highlighted_text")).strip():
        return None
    index = annot.get("spine_index")
    start = annot.get("start_cfi")
    place = (f"epubcfi(/{2 * (index + 1)}{start})" if isinstance(index, int) and 0 <= index < 100_000
             and isinstance(start, str) and len(start) < 2000 else None)
    titles = annot.get("toc_family_titles")
    chapter = cut(titles[-1], 300) if isinstance(titles, list) and titles and isinstance(titles[-1], str) else ""
    return Marked("Calibre", cut(annot["highlighted_text"]), cut(annot.get("notes")), place, chapter, seconds(when))
