"""Chapters, title and author read from the text itself: headings such as "CHAPTER IV", "Chapter Twenty-One",
"I. THE PRISON DOOR", "XIV" alone, "Chapitre 3" or "第三章", and a "by X" line near the opening, or a name under the
title."""

from __future__ import annotations

import re
from itertools import pairwise

from .structure import NUMBER_WORD, numbered, read_heading

CHAPTER_HEADING = re.compile(
    r"^(?=(?-i:[A-Z]))(?:chapter|book|part|volume|letter|stave|canto|section|prologue|epilogue|preface|introduction|"
    r"chapitre|livre|partie|kapitel|buch|teil|cap[ií]tulo|libro|parte)"
    r"(?:[\s.:\-—–]+(?:[0-9]+|[ivxlcdm]+\b|the\s+\w+|" + NUMBER_WORD + r")\b.*|\.?)$",
    re.IGNORECASE,
)


PART_WORD = re.compile(r"\b(?:CHAPTER|BOOK|PART|VOLUME|LETTER|STAVE)\b")
"""A part's name in capitals: a long line with several is a table of contents, not a heading."""


CAPS_HEADING = re.compile(r"^(?=.*[A-Z]{2})[^a-z!?]{2,60}$")


ROMAN_HEADING = re.compile(r"^[IVXLC]+\.(?:\s+[^a-z]+)?$")


NUMBER_LINE = 80
"""The longest line that may head a chapter with its number alone or before a short title ("XIV", "12", "- 3 -",
"One", "1. The Boy Who Lived", :data:`~elite_ui.book.structure.NUMBERED`), as The Great Gatsby's and Treasure
Island's chapters are headed: taken only where such numbers count up (:func:`counted`) and the book numbers no
chapters otherwise (a chapter's numbered sections are no chapters)."""
SPARSE = 10
"""The fewest paragraphs, at the median, between two numbers that head chapters (a printed page's number, kept in
a text, comes every few paragraphs)."""


def counted(numbered_lines: list[tuple[str, int]], index: dict[int, int]) -> list[tuple[str, int]]:
    """Of short lines that open with a number (each with where it starts; ``index``: each paragraph's number by its
    start), those whose numbers count up from 1 in the order written (from 1 again in a new part), when three at
    least do and :data:`SPARSE` paragraphs or more lie between them: a chapter's number, not a stray numeral or a
    page's."""
    chain, expected = [], 1
    for line, start in numbered_lines:
        value = numbered(line)
        if value == expected or (value == 1 and chain):
            chain.append((line, start))
            expected = value + 1
    gaps = sorted(index[b] - index[a] for (_, a), (_, b) in pairwise(chain))
    return chain if len(chain) >= 3 and gaps[len(gaps) // 2] >= SPARSE else []


CJK_HEADING = re.compile(r"^第[0-9一二三四五六七八九十百千零〇两]+[章回节卷部篇](?:\s.*)?$")


def headings(text: str, paragraphs: list[tuple[int, int]]) -> list[tuple[str, int]]:
    """Chapter starts: short paragraphs that read like a heading ("CHAPTER IV", "I. THE PRISON DOOR"), and long
    ones in capitals that open with a part's name, once ("CHAPTER III—THE ANKLE-CHAIN MUST HAVE UNDERGONE A CERTAIN
    PREPARATORY MANIPULATION...", not a table of contents).

    Books with fewer than three such headings (story collections) fall back to short all-capitals lines after the
    title page (:func:`title_page`); where the text sets some of them off with a blank line before, only those (a
    newspaper's headline or a card quoted inside a story is not a story's title), and of two in a row the second
    (a subtitle, a headline's second line: a heading heads some text).
    """
    short = [(" ".join(text[a:b].split()), a) for a, b in paragraphs if b - a <= 120]
    index = {start: n for n, (start, _) in enumerate(paragraphs)}
    found = [(line, a) for line, a in short
             if CHAPTER_HEADING.match(line) or ROMAN_HEADING.match(line) or CJK_HEADING.match(line)]
    chapters = [h for h in (read_heading(line) for line, _ in found) if h.kind == "chapter" and h.number]
    if len(chapters) < 3:
        known = {a for _, a in found}
        lines = ((" ".join(text[a:b].split()), a) for a, b in paragraphs if b - a <= NUMBER_LINE and a not in known)
        found += counted(listed_apart([(line, a) for line, a in lines if numbered(line)], index), index)
    found += [(line, a) for line, a in ((" ".join(text[a:b].split()), a) for a, b in paragraphs if 120 < b - a <= 400)
              if CHAPTER_HEADING.match(line) and not re.search(r"[a-z]", line) and len(PART_WORD.findall(line)) == 1]
    found = listed_apart(sorted(found, key=lambda heading: heading[1]), index)
    if len(found) < 3:
        capitals = [(line, a) for line, a in short[title_page(short):] if CAPS_HEADING.match(line)]
        set_off = [(line, a) for line, a in capitals if BLANK_BEFORE.search(text, max(0, a - 80), a)]
        capitals = set_off or capitals
        after = {a: b for (a, _), (b, _) in pairwise(paragraphs)}
        starts = {a for _, a in capitals}
        capitals = [(line, a) for line, a in capitals if after.get(a) not in starts]
        found = capitals if len(capitals) > len(found) else found
    return found


def listed_apart(found: list[tuple[str, int]], index: dict[int, int]) -> list[tuple[str, int]]:
    """Headings less a table of contents written an entry to a paragraph: of headings that follow one another with
    no text between them (``index``: each paragraph's number by its start), three or more of them chapters, only the
    last and the parts just before it ("VOLUME I", "BOOK FIRST", "CHAPTER I", which the story follows) head what
    follows; the rest list the book."""
    runs: list[list[tuple[str, int]]] = []
    for heading in found:
        if runs and index[heading[1]] == index[runs[-1][-1][1]] + 1:
            runs[-1].append(heading)
        else:
            runs.append([heading])
    kept = []
    for run in runs:
        kinds = [read_heading(line).kind for line, _ in run]
        if kinds.count("chapter") >= 3:
            last = len(run) - 1
            while last and kinds[last - 1] == "part":
                last -= 1
            run = run[last:]
        kept += run
    return kept


BY_LINE = re.compile(r"^(?:(?:by|par|von|por)(?:\s+|$)|作者[:：]?\s*)(.*?)[,.]?$", re.IGNORECASE)
"""An author's line on a title page: "by James Joyce", "BY KENNETH GRAHAME", a bare "by" before the name."""
BLANK_BEFORE = re.compile(r"\n[ \t\r]*\n[ \t\r]*\Z")
"""A blank line just before where a paragraph starts."""


def title_page(short: list[tuple[str, int]]) -> int:
    """How many of the book's first short paragraphs are its title page: the title, and through an author's line
    among the first three (and the name after a bare "by")."""
    for n, (line, _) in enumerate(short[:3]):
        if found := BY_LINE.match(line):
            return n + 1 + (not found.group(1))
    return 1


SMALL_WORDS = frozenset({"a", "an", "and", "as", "at", "but", "by", "for", "in", "nor", "of", "on", "or", "the", "to",
                         "with"})
"""Words a title keeps in lower case but first."""


def clean_title(line: str) -> str:
    """A title as a book's first line writes it, as a title is written: no stray full stop ("PRIDE. and
    PREJUDICE"), none at its end, and a title in capitals in title case ("Les Misérables")."""
    line = re.sub(r"(\w)[.,;:](\s+[a-z])", r"\1\2", line).strip().rstrip(".,;:").strip()
    letters = [c for c in line if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) < 0.7 * len(letters):
        return line
    words = line.split()
    return " ".join(w.lower() if i and w.lower() in SMALL_WORDS else w[:1].upper() + w[1:].lower()
                    for i, w in enumerate(words))


def title_and_author(text: str, paragraphs: list[tuple[int, int]], meta: dict[str, str]) -> tuple[str, str]:
    """Metadata where present, else the first short line as title, with the next where it ends in a small word
    ("The Adventures of" / "Huckleberry Finn"), and as author a "by X" line near it that writes a name (not "BY
    ORDER OF THE AUTHOR"), else the line after the title where it is a name ("George Eliot")."""
    title, author = meta.get("title", ""), meta.get("author", "")
    lines = [" ".join(text[a:b].split()) for a, b in paragraphs[:8]]
    lines = [line for line in lines if line]
    n = 1
    while n < min(len(lines), 3) and lines[n - 1].split()[-1].lower() in SMALL_WORDS:
        n += 1
    if not title and lines:
        title = clean_title(" ".join(lines[:n])[:120])
    if not author:
        named = [found.group(1) for found in map(BY_LINE.match, lines)
                 if found and 0 < len(words := found.group(1).split()) <= 5
                 and not {w.lower() for w in words} & SMALL_WORDS]
        after = lines[n] if n < len(lines) and not lines[n].isupper() and a_name(lines[n]) else ""
        author = named[0] if named else after
    return title, author


def a_name(line: str) -> bool:
    """Whether ``line`` reads as a person's name: two to five capitalised words or initials, none a small word
    or a heading's ("Mary Wollstonecraft (Godwin) Shelley"; not "Chapter One", "A Novel")."""
    words = line.rstrip(".,").split()
    return (2 <= len(words) <= 5 and not CHAPTER_HEADING.match(line)
            and all(re.fullmatch(r"\(?[A-Z][\w'’.-]*\)?", w) and w.lower() not in SMALL_WORDS for w in words))
