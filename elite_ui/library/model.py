"""What a reading app says about a book: where the reader is (:class:`Position`), what they marked
(:class:`Marked`), both together (:class:`Reading`); a library's book (:class:`Shelved`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import EliteError

PREFERRED = ("epub", "txt", "pdf")
"""The formats we read, best first: an EPUB's places are exact, a text file's and a PDF's only fractions."""


class LibraryError(EliteError):
    """A library or a reading app's file that cannot be read as one: said in one sentence; nothing changes."""


@dataclass
class Shelved:
    """A book of a Calibre library: its id, title, authors and its files by format (lower case)."""

    id: int
    title: str
    authors: str
    files: dict[str, Path]

    def file(self) -> Path | None:
        """The file to open: an EPUB if there is one, else another format we read."""
        return next((self.files[f] for f in PREFERRED if f in self.files), None)

    def label(self) -> str:
        return f"{self.title} ({self.authors})" if self.authors else self.title


@dataclass
class Position:
    """Where a reading app last left the reader: a place (a CFI or an xpointer, exact in an EPUB) and the
    fraction of the book read, either may be missing; when (seconds since 1970) and which app."""

    source: str
    place: str | None = None
    fraction: float | None = None
    when: float | None = None


@dataclass
class Marked:
    """A highlight (and the reader's note on it) as the app keeps it: its text, its place when the app says it."""

    source: str
    text: str
    note: str = ""
    place: str | None = None
    chapter: str = ""
    when: float | None = None


@dataclass
class Reading:
    """What one app knows of one book file."""

    source: str
    position: Position | None = None
    marked: list[Marked] = field(default_factory=list)


def number_in(value, low: float, high: float) -> float | None:
    """A number from untrusted data, if it is one, finite and within [``low``, ``high``]; else None."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and low <= number <= high else None


def fraction(value) -> float | None:
    """A read fraction from untrusted data: a number in [0, 1], else None."""
    return number_in(value, 0.0, 1.0)


def seconds(value) -> float | None:
    """Seconds since 1970 from untrusted data (within the years 1990-2200), else None."""
    return number_in(value, 631152000, 7258118400)


def cut(value, limit: int = 10_000) -> str:
    """Untrusted text kept as text, at most ``limit`` characters."""
    return value[:limit] if isinstance(value, str) else ""
