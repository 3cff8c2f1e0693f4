"""The book's own structure, read from its headings: each chapter's number as the book gives it ("CHAPTER X" is
chapter 10, "Chapter the Tenth" too, "Chapter Twenty-One" 21, "I. THE RIVER BANK" and "I" alone chapter 1), the
parts that hold chapters ("BOOK FIRST", "VOLUME II", "PART ONE"), and the front matter before the story (the title
page, a table of contents, an editor's preface or introduction, a list of illustrations).

Each chapter gets a ``ref`` for citations ("ch. 10", "book 2, ch. 10" when chapter numbers start again in each
part, "preface") and a ``name`` for prose ("chapter 10", "the preface").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
         "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
UNIT_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                 "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                 "eighteenth", "nineteenth")
TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def number_words() -> dict[str, int]:
    """1 to 99 in words, cardinal and ordinal ("twenty-one", "twenty-first", "thirtieth"), each with its value."""
    words = {w: n for units in (UNITS, UNIT_ORDINALS) for n, w in enumerate(units, 1)}
    for tens, word in enumerate(TENS, 2):
        words[word], words[f"{word[:-1]}ieth"] = tens * 10, tens * 10
        for unit in range(1, 10):
            words[f"{word}-{UNITS[unit - 1]}"] = words[f"{word}-{UNIT_ORDINALS[unit - 1]}"] = tens * 10 + unit
    return words


NUMBER_WORDS = number_words()
NUMBER_WORD = "|".join(w.replace("-", r"[\s-]+") for w in sorted(NUMBER_WORDS, key=len, reverse=True))
"""A number in words as a pattern ("Twenty-One", "twenty one"), the longest first."""
ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
PARTS = {"book", "part", "volume", "livre", "partie", "buch", "teil", "libro", "parte", "tome"}
"""Heading words of the divisions that hold chapters."""
WORDED = re.compile(
    r"^(?P<word>chapter|letter|stave|canto|section|chapitre|kapitel|cap[ií]tulo|book|part|volume|livre|partie|"
    r"buch|teil|libro|parte|tome)\b[\s.:\-—–]*(?:the\s+)?(?P<number>[0-9]+|[ivxlcdm]+|" + NUMBER_WORD + r"|[a-z]+)?\b",
    re.I)
NUMBERED = re.compile(r"^[\[(*\-–—\s]*(?:(?P<number>[0-9]+|[IVXLC]+|(?i:" + NUMBER_WORD + r"))[\])*\-–—\s]*"
                      r"(?:[.:](?:\s|$)|$)|(?P<digits>[0-9]+)\s+[A-Z])")
"""A heading that is a number, alone or before a title ("I. THE RIVER BANK", "12. The Storm", "XIV", "- 3 -",
"Fourteen", "14 The Boy")."""
FRONT = re.compile(r"^(?:the\s+)?(?:preface|prefatory note|introduction|contents|table of contents|illustrations|"
                   r"list of illustrations|foreword|dedication|transcriber.?s note|editor.?s note|note on the text|"
                   r"acknowledg(?:e)?ments|epigraph|author.?s note|préface|avant-propos|vorwort|prólogo del editor)\b",
                   re.I)
HEADING_WORDS = re.compile(r"\b(?:chapter|part|book|volume|letter)\s+(?:[0-9]+|[ivxlc]+|"
                           + NUMBER_WORD + r")\b", re.I)
"""A numbered heading inside a line: three or more make the line a table of contents."""
SHORT = {"chapter": "ch.", "volume": "vol.", "book": "bk.", "part": "pt."}
"""How citations abbreviate the heading words."""


@dataclass(frozen=True)
class Heading:
    """What a chapter heading says: ``kind`` (front, part or chapter), its word ("chapter", "letter", "book"; ""
    for a numbered title) and its number, if any."""

    kind: str
    word: str = ""
    number: int | None = None


def roman(text: str) -> int | None:
    """A Roman numeral's value (XIV: 14), or None when ``text`` is not one."""
    text = text.lower()
    if not text or any(c not in ROMAN for c in text):
        return None
    values = [ROMAN[c] for c in text]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def number(token: str | None) -> int | None:
    """A number written in digits, Roman numerals or words ("10", "X", "ten", "tenth"), or None."""
    if not token:
        return None
    token = "-".join(token.lower().replace("-", " ").split())
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token) or roman(token)


def read_heading(title: str) -> Heading:
    """The kind, word and number of one chapter heading."""
    found = WORDED.match(title)
    if found:
        word = found.group("word").lower()
        kind = "part" if word in PARTS else "chapter"
        token = found.group("number")
        if token and token.lower() == "last":
            return Heading(kind, word, -1)
        return Heading(kind, word, number(token))
    value = numbered(title)
    return Heading("chapter", "", value) if value else Heading("chapter")


def numbered(title: str) -> int | None:
    """The number a heading that opens with one gives (:data:`NUMBERED`: "XIV. THE STORM" is 14), or None."""
    found = NUMBERED.match(title)
    return number(found.group("number") or found.group("digits")) if found else None


def structure(titles: list[str], opening: bool) -> list[Heading]:
    """Every chapter's heading read in order. ``opening``: the first chapter is the text before the first heading
    (a title page, contents), which is front matter when headings follow. A heading that lists three others
    (a table of contents) and a preface, introduction or the like before the first chapter are front matter; a
    chapter "the last" takes the number after the one before it."""
    out: list[Heading] = []
    story_started = False
    for n, title in enumerate(titles):
        heading = read_heading(title)
        title_page = n == 0 and opening and len(titles) > 1
        contents = len(HEADING_WORDS.findall(title)) >= 3
        if title_page or contents or (not story_started and FRONT.match(title)):
            heading = Heading("front")
        elif heading.number == -1:
            previous = next((h.number for h in reversed(out) if h.kind == "chapter" and h.word == heading.word
                             and h.number), 0)
            heading = Heading(heading.kind, heading.word, previous + 1)
        story_started |= heading.kind == "chapter"
        out.append(heading)
    if not any(h.number for h in out if h.kind == "chapter"):
        position = iter(range(1, len(out) + 1))
        out = [Heading("chapter", "", next(position)) if h.kind == "chapter" else h for h in out]
    return out


def labels(titles: list[str], headings: list[Heading]) -> list[tuple[str, str]]:
    """Each chapter's ``ref`` (for citations) and ``name`` (for prose). When chapter numbers start again in each
    part, every chapter is given with its parts ("vol. 1, bk. 2, ch. 3")."""
    numbered = [(h.word, h.number) for h in headings if h.kind == "chapter" and h.number]
    restarts = len(numbered) != len(set(numbered))
    parts: dict[str, int | None] = {}
    out = []
    for title, h in zip(titles, headings, strict=True):
        if h.kind == "front":
            word = FRONT.match(title)
            name = re.sub(r"^the\s+", "", word.group(0), flags=re.I).lower() if word else "front matter"
            out.append((name, f"the {name}"))
        elif h.kind == "part":
            levels = list(parts)
            if h.word in parts:  # a new part of this level: the levels below it start again
                for lower in levels[levels.index(h.word) + 1:]:
                    del parts[lower]
            parts[h.word] = h.number
            out.append((within(parts, short=True), within(parts, short=False)))
        elif not h.number:
            short = " ".join(title.split()[:4]).lower() or "untitled"
            out.append((short, short))
        else:
            word = h.word or "chapter"
            place = (dict(parts) if restarts else {}) | {word: h.number}
            out.append((within(place, short=True), within(place, short=False)))
    return out


def within(levels: dict[str, int | None], short: bool) -> str:
    """Nested divisions written out, outermost first ("vol. 1, bk. 2, ch. 3" or "volume 1, book 2, chapter 3")."""
    return ", ".join(f"{SHORT.get(w, w) if short else w} {n}" if n else w for w, n in levels.items())
