"""Where a reader's books are: a Calibre library (a folder with ``metadata.db``) or any folder of book files (a
KOReader user's, say), searched by title or author, each book's file with what its reading apps know of it
(Calibre's viewer for a Calibre library, KOReader's sidecar beside the file for either)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from ..book import Book
from .calibre import CalibreLibrary
from .koreader import read_sidecar, sidecar_for
from .located import Located, locate
from .model import PREFERRED, LibraryError, Reading, Shelved

MAX_FILES = 20_000
"""The most files of a folder of books that are looked at."""


class BookFolder:
    """A folder of book files (and its subfolders), each found by its file name; a link to a file outside the
    folder is no book of it."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).expanduser()
        if not self.folder.is_dir():
            raise LibraryError(f"{self.folder} is not a folder.")
        self.root = self.folder.resolve()

    def search(self, words: str = "", limit: int = 50) -> list[Shelved]:
        """The book files whose names hold ``words``, each numbered by its place among all the folder's book
        files (so that a book keeps its number whatever was searched)."""
        wanted = words.strip().lower()[:200]
        found, seen, number = [], 0, 0
        for parent, folders, names in os.walk(self.folder):
            folders[:] = sorted(f for f in folders if not f.endswith(".sdr") and not f.startswith("."))
            for name in sorted(names):
                seen += 1
                path = Path(parent) / name
                fmt = path.suffix.lower()[1:]
                if fmt not in PREFERRED or (path.is_symlink() and not path.resolve().is_relative_to(self.root)):
                    continue
                if wanted in path.stem.lower():
                    found.append(Shelved(number, path.stem, "", {fmt: path}))
                number += 1
                if len(found) >= limit or seen >= MAX_FILES:
                    return found
        return found

    def book(self, number: int) -> Shelved | None:
        """The book file numbered ``number`` (as :meth:`search` numbers them)."""
        found = self.search("", limit=number + 1) if 0 <= number < MAX_FILES else []
        return found[number] if len(found) > number else None

    def reading(self, book: Shelved, fmt: str) -> Reading:
        return Reading("folder")


def open_shelf(folder: str | Path) -> CalibreLibrary | BookFolder:
    """The Calibre library at ``folder`` if it is one (its database copied once while it is unchanged), else the
    folder of books."""
    folder = Path(str(folder).strip()).expanduser()
    if not str(folder).strip() or str(folder) == ".":
        raise LibraryError("Give the folder of your Calibre library, or of your books.")
    db = folder / "metadata.db"
    if not db.exists():
        return BookFolder(folder)
    stat = db.stat()
    return calibre_library(str(folder.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def calibre_library(folder: str, modified: int, size: int) -> CalibreLibrary:
    """The library at ``folder`` as its database was at ``modified`` (a change makes a fresh copy)."""
    return CalibreLibrary(folder)


def readings(shelf: CalibreLibrary | BookFolder, book: Shelved, file: Path,
             koreader: str | Path | None = None) -> tuple[list[Reading], list[str]]:
    """What the reading apps know of ``book``'s ``file`` (KOReader's sidecar beside it or in its settings folder
    ``koreader``), and a sentence for each app file that could not be read (the others still count)."""
    found, problems = [shelf.reading(book, file.suffix.lower()[1:])], []
    sidecar = sidecar_for(file, koreader)
    if sidecar is not None:
        try:
            found.append(read_sidecar(sidecar))
        except LibraryError as exc:
            problems.append(str(exc))
    return found, problems


def located_in(book: Book, shelf: CalibreLibrary | BookFolder, entry: Shelved,
               koreader: str | Path | None = None) -> tuple[Located, list[str]]:
    """Where the reader is in ``book`` (``entry``'s file, opened) and what they highlighted, by every app."""
    file = entry.file()
    found, problems = readings(shelf, entry, file, koreader)
    return locate(book, file, found), problems
