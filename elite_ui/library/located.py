"""A reading app's position and highlights found in the open book: the position as the last sentence read (the
spoiler ceiling), each highlight as the sentences it covers. An EPUB's place is followed through its structure
(:mod:`.places`); a fraction (all a text file or a PDF has, and what is left when a place cannot be followed) is a
share of the book's characters. A highlight is matched to the book's text exactly, else fuzzily (RapidFuzz), the
typography of quotes, dashes and ligatures set aside."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..book import Book
from ..book.formats import SpineItem, epub_spine
from ..book.lexicon import WORD
from ..book.text import compatible
from .model import Marked, Position, Reading
from .places import cfi_place, xpointer_place

PLAIN = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"',
         "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u00a0": " ", "\u2026": "."}
"""Typography a reading app and the book's file may write differently, each as one plain character (so that
offsets stay the book's)."""
TYPOGRAPHY = re.compile("[" + "".join(PLAIN) + "]")


def plain_typography(text: str) -> str:
    """``text`` with its typography plain (:data:`PLAIN`; a pattern, where ``str.translate`` took ten times as long
    on a book)."""
    return TYPOGRAPHY.sub(lambda m: PLAIN[m.group()], text)


HEADING = re.compile(r"^\s*(?:(?:chapter|letter|stave|book|part|volume)\s+(?:\d+|[ivxlcdm]+)\b[.:]?|"
                     r"(?:\d+|[ivxlcdm]+)[.:])", re.I)
"""A chapter title's heading word and number ("CHAPTER XLIX."), left out where the title is said."""

FUZZY = 85.0
"""The least RapidFuzz partial-ratio score (0-100) at which a highlight is taken to be a passage of the book."""
MAX_HIGHLIGHTS = 1000
"""Highlights of a book looked for at most; more are left out, and the count says so."""
FUZZY_CHARS = 2000
"""The longest highlight matched fuzzily (the work grows with its length times the passages compared); a longer
one is looked for by its exact text only."""
FUZZY_PASSAGES = 3000
"""Passages compared fuzzily for all of a book's highlights together; once spent, highlights are looked for by
their exact text only."""


@dataclass
class Found:
    """A highlight found in the book: its sentences, and how (``exact`` text, ``fuzzy``, or not found)."""

    marked: Marked
    sentences: list[int] = field(default_factory=list)
    how: str = "not found"


@dataclass
class Located:
    """What the reading apps say of the open book, in its sentences: the last sentence read (None: no position),
    how it was found (``exact`` place or ``fraction``), from which app and when, and the highlights."""

    sentence: int | None = None
    how: str = ""
    source: str = ""
    when: float | None = None
    found: list[Found] = field(default_factory=list)
    left_out: int = 0
    """Highlights beyond :data:`MAX_HIGHLIGHTS`, not looked for."""
    exact_only: int = 0
    """Highlights looked for by their exact text only (too long to match fuzzily, or the fuzzy share spent)."""
    fuzzy_left: int = FUZZY_PASSAGES
    """Passages that may still be compared fuzzily."""

    def said(self, book: Book, now: float | None = None) -> str:
        """"You are at chapter 14, 'The Letter' (from KOReader, 2 days ago)", and how many highlights."""
        parts = []
        if self.sentence is not None:
            chapter = book.chapters[int(book.chapter_of[self.sentence])]
            named = HEADING.sub("", chapter.title).strip(" .:-")
            title = f", “{named}”" if named else ""
            how = "" if self.how == "exact" else ", by the share of the book read"
            parts.append(f"You are at {chapter.name}{title} (from {self.source}{how}{ago(self.when, now)}).")
        matched = sum(bool(f.sentences) for f in self.found)
        if self.found:
            parts.append(f"{matched} of {len(self.found)} highlight{'s' * (len(self.found) != 1)} found in the book.")
        if self.exact_only:
            parts.append(f"{self.exact_only} of them were looked for by their exact text only (longer than "
                         f"{FUZZY_CHARS:,} characters, or past the {FUZZY_PASSAGES:,} passages compared loosely).")
        if self.left_out:
            parts.append(f"{self.left_out:,} more were not looked for: at most {MAX_HIGHLIGHTS:,} a book.")
        return " ".join(parts)


def ago(when: float | None, now: float | None = None) -> str:
    """", 2 days ago" (nothing when the time is unknown)."""
    if when is None:
        return ""
    left = max(0.0, (now or time.time()) - when)
    for size, unit in ((86400 * 365, "year"), (86400 * 30, "month"), (86400, "day"), (3600, "hour"), (60, "minute")):
        if left >= size:
            n = int(left // size)
            return f", {n} {unit}{'s' * (n != 1)} ago"
    return ", just now"


def locate(book: Book, file: str | Path, readings: list[Reading]) -> Located:
    """The latest position among ``readings`` (of ``file``, the book read as ``book``) and all their highlights,
    in ``book``'s sentences."""
    positions = [r.position for r in readings if r.position is not None]
    marked = [m for r in readings for m in r.marked]
    items = spine_of(file) if any(p.place for p in positions) or any(m.place for m in marked) else None
    located = Located()
    if positions:
        latest = max(positions, key=lambda p: p.when or 0.0)
        sentence, how = position_sentence(book, items, latest)
        if sentence is not None:
            located.sentence, located.how, located.source, located.when = sentence, how, latest.source, latest.when
    plain = Plain(book.text) if marked else None
    located.found = [find(book, plain, items, m, located) for m in marked[:MAX_HIGHLIGHTS]]
    located.left_out = max(0, len(marked) - MAX_HIGHLIGHTS)
    return located


def spine_of(file: str | Path) -> list[SpineItem] | None:
    """An EPUB's spine items (what its places name), else None."""
    file = Path(file)
    if file.suffix.lower() != ".epub":
        return None
    return epub_spine(file.read_bytes(), file.name).items


def offset_of(items: list[SpineItem] | None, place: str | None) -> int | None:
    """Where an app's place (a CFI or a KOReader xpointer) is in the book's text, if it can be followed."""
    if not items or not place:
        return None
    return cfi_place(items, place) if place.startswith("epubcfi(") else xpointer_place(items, place)


def position_sentence(book: Book, items: list[SpineItem] | None, position: Position) -> tuple[int | None, str]:
    """The sentence a position names, and how: its place followed (``exact``), else its fraction (``fraction``)."""
    offset = offset_of(items, position.place)
    if offset is not None:
        return book.sentence_at(offset), "exact"
    if position.fraction is not None:
        return book.sentence_at(int(position.fraction * len(book.text))), "fraction"
    return None, ""


RUN = re.compile(r"( |-)\1+")
"""A run of spaces or of dashes (in a text whose white space is all spaces)."""


class Plain:
    """A book's text as highlights are looked for in it: its typography plain (:data:`PLAIN`), and a copy with
    each run of white space one space and each run of dashes one dash (so that one search of that copy finds a
    highlight however its spacing differs, in time that grows with the text alone), mapped to the text through its
    runs alone (memory that grows with them, not with each character)."""

    def __init__(self, text: str):
        self.text = plain_typography(text)
        spaced = re.sub(r"[^\S ]", " ", self.text)
        self.squeezed = RUN.sub(r"\1", spaced)
        self.runs = np.fromiter((i for m in RUN.finditer(spaced) for i in m.span()), dtype=np.int64).reshape(-1, 2)
        """Each run's span in :attr:`text`."""
        self.removed = np.cumsum(self.runs[:, 1] - self.runs[:, 0] - 1)
        """The characters squeezed out up to the end of each run."""
        self.at = self.runs[:, 0] - np.concatenate([[0], self.removed[:-1]])
        """Where each run's one character lies in :attr:`squeezed`."""

    def in_text(self, at: int) -> int:
        """Where character ``at`` of :attr:`squeezed` lies in :attr:`text` (a run's, where its first one does)."""
        runs = int(np.searchsorted(self.at, at))
        return at + (int(self.removed[runs - 1]) if runs else 0)

    def in_squeezed(self, at: int) -> int:
        """The first character of :attr:`squeezed` that lies at or after ``at`` in :attr:`text`."""
        runs = int(np.searchsorted(self.runs[:, 0], at))
        if runs and at < self.runs[runs - 1, 1]:
            return int(self.at[runs - 1]) + 1
        return at - (int(self.removed[runs - 1]) if runs else 0)

    def find(self, wanted: str, start: int, end: int) -> tuple[int, int] | None:
        """Where ``wanted`` (its words one space apart) is in ``text[start:end]``, white space of any kind and
        length between its words and a dash of any length for a dash."""
        wanted = re.sub(r"-+", "-", wanted)
        end = min(end, len(self.text))
        at = self.squeezed.find(wanted, self.in_squeezed(start), self.in_squeezed(end))
        if at < 0:
            return None
        last = at + len(wanted)
        return self.in_text(at), min(end, self.in_text(last) if last < len(self.squeezed) else len(self.text))


def find(book: Book, plain: Plain, items: list[SpineItem] | None, marked: Marked, located: Located) -> Found:
    """A highlight's sentences: its text at its place (if the app gave one), else in the chapter the app named
    (a line the book says twice is taken there), else anywhere in the book, exactly; else the best fuzzy match
    near its place or around the sentences holding its rarest words (those in the named chapter first), within
    ``located``'s fuzzy share."""
    from rapidfuzz import fuzz

    wanted = " ".join(plain_typography(compatible(marked.text)).split())
    if not wanted:
        return Found(marked)
    near = offset_of(items, marked.place)
    windows = [(near, near + len(wanted) * 2 + 40), (max(0, near - 400), near + len(wanted) * 2 + 400)] \
        if near is not None else []
    named = chapter_spans(book, marked.chapter)
    for start, end in [*windows, *named, (0, len(plain.text))]:
        at = plain.find(wanted, start, end)
        if at is not None:
            return Found(marked, covered(book, *at), "exact")
    if len(wanted) > FUZZY_CHARS or located.fuzzy_left <= 0:
        located.exact_only += 1
        return Found(marked)
    best = (0.0, 0, 0)
    around = sorted(candidates(book, wanted), key=lambda c: not any(a <= c[0] < b for a, b in named))
    compared = (windows + around)[: located.fuzzy_left]
    located.fuzzy_left -= len(compared)
    for start, end in compared:
        match = fuzz.partial_ratio_alignment(wanted, plain.text[start:end], score_cutoff=FUZZY)
        if match is not None and match.score > best[0]:
            best = (match.score, start + match.dest_start, start + match.dest_end)
    if best[0]:
        return Found(marked, covered(book, best[1], best[2]), "fuzzy")
    return Found(marked)


def chapter_spans(book: Book, title: str) -> list[tuple[int, int]]:
    """Where the chapters titled ``title`` (as a reading app writes a highlight's chapter: its table of contents'
    entry) lie in the book's text; their case, punctuation and spacing aside."""
    def key(text: str) -> str:
        return " ".join(re.sub(r"\W+", " ", compatible(text).lower()).split())

    wanted = key(title)
    return [(c.start, c.end) for c in book.chapters if wanted and key(c.title) == wanted]


def candidates(book: Book, wanted: str, most: int = 60) -> list[tuple[int, int]]:
    """Stretches of the book around the sentences that hold the highlight's rarest word."""
    words = [w for w in dict.fromkeys(WORD.findall(wanted.lower())) if w in book.index.vocabulary]
    if not words:
        return []
    rarest = min(words, key=lambda w: book.index.document_frequency[book.index.vocabulary[w]])
    spans = []
    for sid in book.index.postings(rarest)[:most].tolist():
        start, end = int(book.bounds[max(sid - 3, 0), 0]), int(book.bounds[min(sid + 3, len(book) - 1), 1])
        spans.append((start, end + len(wanted)))
    return spans


def covered(book: Book, start: int, end: int) -> list[int]:
    """The sentences the text from ``start`` to ``end`` touches."""
    return list(range(book.sentence_at(start), book.sentence_at(max(start, end - 1)) + 1))
