"""The reader's spoiler ceiling: "I have read up to chapter 12 / book 2, chapter 10 / page 80 / 40%" as the last
sentence read, said as a reader says it ("I've read the first twelve chapters", "I'm on chapter 13"). Chapters are
the book's own (CHAPTER X is chapter 10), as :mod:`elite_ui.book.structure` reads them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from ..errors import BookError
from .model import Book
from .structure import NUMBER_WORD, PARTS, number

WORDS = {"chapter": "chapter", "chap": "chapter", "ch": "chapter", "letter": "letter", "stave": "stave",
         "book": "book", "bk": "book", "part": "part", "pt": "part", "volume": "volume", "vol": "volume"}
DIVISION = rf"({'|'.join(WORDS)})"
"""A division's word as a reader writes it, a pattern's group ("chapter", "chap", "ch", "book"...)."""
CHAPTER_WORD = "|".join(w for w, division in WORDS.items() if division == "chapter")
"""The ways of writing "chapter" ("chapter", "chap", "ch")."""
STEP = re.compile(DIVISION + r"\.?\s*(?:the\s+)?([0-9]+|" + NUMBER_WORD + r"|[a-z]+)\b", re.I)
OUTER = ("volume", "book", "part")
"""Divisions that hold chapters, outermost first."""
SAID = re.compile(r"^(?:i\s*['’]?\s*(?:ve|m)\s+|i\s+(?:have|am)\s+|i\s+)?(?:just\s+)?(?:(?P<now>at|on|in|reading)\s+|"
                  r"(?:read|finished|reached|done)\s+)?(?:(?:up\s+)?to\s+|until\s+|till\s+|through\s+|thru\s+|"
                  r"as\s+far\s+as\s+)?(?:and\s+including\s+)?(?:(?:the\s+)?end\s+of\s+)?"
                  r"(?:(?:the\s+)?(?P<start>start|beginning)\s+of\s+)?(?P<rest>.*?)(?:(?:[\s,]+|(?<!\S))(?:the\s+)?"
                  r"(?:very\s+)?end)?[\s.!]*$",
                  re.I | re.S)
"""How a reader may say where they are, around the position itself: "I've read up to the end of chapter 5.",
"through chapter 4", "chapter 12 end"; "the start of chapter 5" and "I'm on chapter 5" (reading it) are where it
begins: read up to the chapter before it."""
COUNTED = re.compile(rf"^(?:the\s+)?(?:first\s+)?([0-9]+|{NUMBER_WORD})\s+{DIVISION}s$", re.I)
"""A count of chapters read: "the first 3 chapters", "ten chapters" (the book's first 3, 10: :func:`counted`)."""
ORDINAL = re.compile(rf"^(?:the\s+)?([0-9]+(?:st|nd|rd|th)|{NUMBER_WORD})\s+{DIVISION}$", re.I)
"""A chapter by its ordinal: "the fifth chapter", "the 12th chapter" (the book's fifth, twelfth)."""
BARE = re.compile(rf"^(?:[0-9]+|{NUMBER_WORD})$", re.I)
"""A number alone, as a reader types it in "I have read up to": a chapter's."""
LAST = re.compile(rf"^(?:the\s+)?(?:last|final)\s+{DIVISION}$", re.I)
"""The book's last chapter (or part): "the last chapter", "the final letter"."""
BOOK = r"the\s+(?:book|novel|story)"
THROUGH = rf"(?:\s+(?:(?:of\s+)?the\s+way|way|(?:of\s+)?it|(?:of\s+)?{BOOK}|through(?:\s+(?:it|{BOOK}))?))*"
SHARES = {"half": 50, "halfway": 50, "a third": 100 / 3, "one third": 100 / 3, "two thirds": 200 / 3,
          "a quarter": 25, "one quarter": 25, "three quarters": 75}
SHARE = re.compile(r"^(?:about\s+)?(" + "|".join(w.replace(" ", r"\s+") for w in SHARES) + ")" + THROUGH + "$",
                   re.I)
"""A share of the book said in words: "halfway through", "half the book", "two thirds of it"."""
WHOLE = re.compile(r"^(?:(?:the\s+)?(?:whole|entire)\s+(?:book|novel|story|thing)|the\s+(?:book|novel|story)|"
                   r"it\s+all|all(?:\s+of\s+it)?|everything|)$", re.I)
"""The whole book read ("I've finished the book", "all of it", "I'm at the end": :data:`SAID` leaves nothing of
it): no ceiling."""
PAGE = re.compile(r"^\s*(?:page|p\.?)\s*(\d+)\s*$", re.I)
PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")
SENTENCE = re.compile(r"^\s*(?:sentence\s*|s)(\d{1,9})\s*$", re.I)
HELP = 'write "chapter 12", "book 2, chapter 10", a chapter\'s title, "page 80", "40%" or a sentence, "S5210"'
TITLE_WORD = re.compile(r"[^\W_]+")
"""A word of a chapter's title ("She-Wolf" is two)."""
HEADING_WORD = re.compile(rf"(?:the|{'|'.join(WORDS)}|{'|'.join(PARTS)}|[0-9]+|[ivxlcdm]+|{NUMBER_WORD})", re.I)
"""A word of a heading's division and number ("CHAPTER II", "Book the First", "VOLUME I"), not of its title."""


def reading_ceiling(book: Book, spec: str) -> tuple[int, str] | None:
    """The last sentence a reader has read and how to name it, from "chapter 12", "book 2, chapter 10", "page 80",
    "40%" or a sentence's label, "S5210" (where a reading app left the reader; None when ``spec`` is empty or says
    the whole book is read, :data:`WHOLE`), as written or as a reader says it (:func:`said_plainly`)."""
    if not spec.strip():
        return None
    if len(spec) > 100:
        raise BookError(f"that is not a reading position; {HELP}.")
    found = position(book, spec)
    if not found:
        plain, start = said_plainly(spec)
        if WHOLE.match(plain) and re.search(r"[^\W\d_]", spec):  # words that say so, not "." alone
            return None
        found = counted(book, plain, start) or position(book, plain, start)
    if not found:
        raise BookError(f'"{spec.strip()[:60]}" is not a reading position; {HELP}.')
    return found


def position(book: Book, spec: str, start: bool = False) -> tuple[int, str] | None:
    """The position ``spec`` writes (with ``start``, a chapter's start: :func:`read_to`), or None when it writes
    none; raises :class:`~elite_ui.errors.BookError` for one the book does not have."""
    if found := PERCENT.match(spec):
        return share_ceiling(book, min(float(found.group(1)), 100.0), found.group(1))
    if found := SHARE.match(spec):
        percent = SHARES[" ".join(found.group(1).lower().split())]
        return share_ceiling(book, percent, f"{percent:.0f}")
    if found := PAGE.match(spec):
        return page_ceiling(book, int(found.group(1)))
    if found := SENTENCE.match(spec):
        sid = int(found.group(1))
        if sid >= len(book):
            raise BookError(f"S{sid} is not in this book, which has {len(book):,} sentences (S0 to S{len(book) - 1}).")
        return sid, book.sentence(sid).citation
    return division_ceiling(book, spec, start) or title_ceiling(book, spec, start)


def said_plainly(spec: str) -> tuple[str, bool]:
    """``spec`` without the words a reader says around a position (:data:`SAID`; a number alone is a chapter's),
    and whether it is where that position starts."""
    said = SAID.match(spec.strip())
    rest = said.group("rest")
    return f"chapter {rest}" if BARE.match(rest) else rest, bool(said.group("now") or said.group("start"))


def counted(book: Book, spec: str, start: bool = False) -> tuple[int, str] | None:
    """The end of the chapter (or part) that ``spec`` counts or orders in the book ("the first 10 chapters", "the
    tenth chapter": in a book of volumes, the tenth of them all, whatever its number within its volume), or with
    ``start`` the sentence before it (:func:`read_to`); None when ``spec`` counts none."""
    if last := LAST.match(spec):
        found = in_order(book, WORDS[last.group(1).lower()], -1)
        return read_to(*found, start) if found else None
    found = COUNTED.match(spec) or ORDINAL.match(spec)
    if not found:
        return None
    n, word = number(re.sub(r"(?<=[0-9])(?:st|nd|rd|th)$", "", found.group(1))), WORDS[found.group(2).lower()]
    if not n or not (nth := in_order(book, word, n - 1)):
        count = len(ordinal_order(book, word))
        raise BookError(f"this book has {count} {word}s, not {n}." if count else f"this book has no {word}s.")
    return read_to(*nth, start)


def ordinal_order(book: Book, word: str) -> list[int]:
    """The book's chapters (or parts...) that ``word`` names, in the book's order, its front matter left out."""
    return [k for k, chapter in enumerate(book.chapters) if chapter.kind != "front" and chapter.word == word]


def in_order(book: Book, word: str, n: int) -> tuple[int, int, str] | None:
    """The first and last sentences and the name (:func:`span`) of the book's ``n``-th chapter (or part...) that
    ``word`` names, counted from 0 in the book's order (-1: the last); None when it has no such one."""
    ordered = ordinal_order(book, word)
    return span(book, places(book), ordered[n]) if -len(ordered) <= n < len(ordered) else None


def division_ceiling(book: Book, spec: str, start: bool = False) -> tuple[int, str] | None:
    """The end of the chapter or part ``spec`` numbers ("book 2, chapter 10", "chapter 5 of part 2"), or with
    ``start`` the sentence before it (:func:`read_to`); None when ``spec`` numbers none."""
    steps = STEP.findall(spec)
    if not steps or re.sub(r"\b(?:of|in)\b", "", STEP.sub("", spec)).strip(" ,;") or any(
            number(n) is None for _, n in steps):
        return None
    return read_to(*chapter_span(book, outer_first((WORDS[w.lower()], number(n)) for w, n in steps)), start)


def outer_first(steps: Iterable[tuple[str, int | None]]) -> dict[str, int | None]:
    """Divisions and their numbers, the outermost first (:data:`OUTER`): "chapter 5 of part 2" is part 2, chapter
    5."""
    return dict(sorted(steps, key=lambda step: OUTER.index(step[0]) if step[0] in OUTER else len(OUTER)))


def title_ceiling(book: Book, spec: str, start: bool = False) -> tuple[int, str] | None:
    """The end of the chapter (or part) whose title ``spec`` is, its division, number and case aside ("Araby", "the
    Wild Wood" for "III. THE WILD WOOD", "Recalled to Life" for "Book the First--Recalled to Life"), or with
    ``start`` the sentence before it (:func:`read_to`); None when no heading has that title. Raises
    :class:`~elite_ui.errors.BookError` when several have."""
    wanted = [w.lower() for w in TITLE_WORD.findall(spec)]
    if not wanted or all(HEADING_WORD.fullmatch(w) for w in wanted):
        return None
    found = [n for n, chapter in enumerate(book.chapters) if chapter.kind != "front" and titled(chapter.title, wanted)]
    if len(found) > 1:
        raise several_parts(book, found, f'"{spec.strip()[:60]}" is the title of')
    if not found:
        return None
    return read_to(*span(book, places(book), found[0]), start)


def read_to(first: int, last: int, name: str, start: bool) -> tuple[int, str]:
    """The last sentence read of a chapter that runs from ``first`` to ``last``, and its name: the chapter's end, or
    with ``start`` the sentence before it ("the start of chapter 11")."""
    return (max(first - 1, 0), f"the start of {name}") if start else (last, name)


def titled(title: str, wanted: list[str]) -> bool:
    """Whether a heading's ``title`` is the words ``wanted`` (perhaps after a "the" it lacks: "the storm" for
    "CHAPTER TWO STORM"), its division and number aside."""
    told, wanted = title_words(title), tuple(wanted)
    return wanted in told or (wanted[0] == "the" and wanted[1:] in told)


@lru_cache(maxsize=4096)
def title_words(title: str) -> tuple[tuple[str, ...], ...]:
    """The ways a heading's own words may be told, lower-cased, the longest first: its words after its division and
    number, and perhaps a "the" ("III. THE WILD WOOD": the wild wood, wild wood; "CHAPTER I—M. MYRIEL": m myriel,
    myriel, "M" being a Roman numeral too)."""
    words = tuple(w.lower() for w in TITLE_WORD.findall(title))
    return tuple(words[n:] for n in range(len(words)) if all(HEADING_WORD.fullmatch(w) for w in words[:n])
                 and not all(HEADING_WORD.fullmatch(w) for w in words[n:]))


def share_ceiling(book: Book, percent: float, said: str) -> tuple[int, str]:
    """The last sentence within the book's first ``percent`` of text, named by the percentage as ``said``."""
    last = int(np.searchsorted(book.bounds[:, 1], int(len(book.text) * percent / 100), side="right")) - 1
    return max(last, 0), f"{said}% of the book"


def page_ceiling(book: Book, n: int) -> tuple[int, str]:
    if book.page_starts is None:
        raise BookError("this book has no pages (it is not a PDF); give a chapter or a percentage.")
    if not 1 <= n <= len(book.page_starts):
        raise BookError(f"page {n} is not in this book, which has {len(book.page_starts)} pages.")
    end = int(book.page_starts[n]) if n < len(book.page_starts) else len(book.text)
    return max(int(np.searchsorted(book.bounds[:, 1], end, side="right")) - 1, 0), f"page {n}"


def chapter_span(book: Book, wanted: dict[str, int], several: int | None = None) -> tuple[int, int, str]:
    """The first and last sentences of the chapter (or part) whose own numbers are ``wanted``, and its name.
    Raises :class:`~elite_ui.errors.BookError` when the book has no such chapter, or several and ``several`` (which
    of them to take: 0 the first, -1 the last) is None."""
    word = list(wanted)[-1]
    paths = places(book)
    found = [n for n, place in enumerate(paths) if book.chapters[n].kind != "front" and place
             and place[-1][0] == word and set(wanted.items()) <= set(place)]
    asked = ", ".join(f"{w} {n}" for w, n in wanted.items())
    if not found:
        numbers = [c.number for c in book.chapters if c.number and c.word == word]
        known = f"{word}s {min(numbers)} to {max(numbers)}" if numbers else f"no {word}s"
        raise BookError(f"{asked} is not in this book, which has {known}.")
    if len(found) > 1 and several is None:
        raise several_parts(book, found, f"{asked} is in")
    return span(book, paths, found[several or 0])


def several_parts(book: Book, found: list[int], said: str) -> BookError:
    """The error for a chapter number or title (``said``: "chapter 2 is in") that names the parts ``found``."""
    where = "; ".join(book.chapters[n].name for n in found[:4])
    return BookError(f'{said} several parts of this book ({where}); say which, e.g. "{book.chapters[found[1]].name}".')


def span(book: Book, paths: list[list[tuple[str, int | None]]], n: int) -> tuple[int, int, str]:
    """The first and last sentences of chapter (or part) ``n`` and its name, with its heading where that says more
    ("chapter 10 (CHAPTER X.)"; "chapter 5" for "Chapter 5"); a part runs to the next part of its level or above."""
    chapter, depth = book.chapters[n], len(paths[n])
    end = next((c.first_sentence for m, c in enumerate(book.chapters[n + 1:], n + 1)
                if chapter.kind != "part" or (c.kind == "part" and len(paths[m]) <= depth)), len(book))
    plain = chapter.title.lower().strip(" .") == f"{chapter.word} {chapter.number}"
    said = chapter.name if plain else f"{chapter.name} ({chapter.title})"
    return chapter.first_sentence, end - 1, said


def places(book: Book) -> list[list[tuple[str, int | None]]]:
    """Each chapter's place: the parts around it, outermost first, then its own word and number (a part's place
    ends with itself)."""
    levels: dict[str, int | None] = {}
    out = []
    for chapter in book.chapters:
        if chapter.kind == "part":
            names = list(levels)
            if chapter.word in levels:
                for lower in names[names.index(chapter.word) + 1:]:
                    del levels[lower]
            levels[chapter.word] = chapter.number
            out.append(list(levels.items()))
        else:
            out.append([*levels.items(), (chapter.word, chapter.number)])
    return out
