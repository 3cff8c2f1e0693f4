"""The part of the book a question names ("What does Toad buy in chapter 2?", "What is Mole doing when the book
begins?"): no sentence says "chapter 2" or "begins", so a search by the question's words cannot find the place;
the question is answered from that part alone (:func:`scoped`, at the front door, :mod:`elite_ui.reading`).

Named: a chapter, letter, stave, book, part or volume by its number ("chapter 3", "chapter three", "the third
chapter", "book 2, chapter 10", "part two, chapter five", "chapter X."), as the book's own headings number them
(:func:`~elite_ui.book.ceiling.chapter_span`); or its last ("the last chapter": under a ceiling, the one the reader
read last); or the book's opening ("when the story begins", "at the start of the
novel", "the opening pages"): its first chapter, at most a quarter of the story and at least a tenth; or, in a
question that asks only what happens there, by its title ("What happens in The Dead?", :func:`titled_part`). Only
English questions, and only a part within what the reader has read: a chapter the book (up to the ceiling) does not
have names nothing, and the question searches the book as it would have. A number the book gives several parts
(Emma's "chapter 3", one in each of its volumes) names the one the reader is in, the last of them up to the ceiling,
or without one the first; the part's name says which volume."""

from __future__ import annotations

import re

from ..errors import BookError
from .ceiling import CHAPTER_WORD, DIVISION, WORDS, chapter_span, in_order, outer_first, places, span, title_words
from .model import Book
from .structure import NUMBER_WORD, number

ROMAN = r"c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})(?<=[ivxlc])\b"
"""A Roman numeral up to 399, well formed ("civil" and "ill" are none)."""
STEP = re.compile(rf"\b(?:({CHAPTER_WORD})\.?\s+(?:the\s+)?(" + NUMBER_WORD + r")\b|" + DIVISION
                  + r"\.?\s+([0-9]+\b|(?!i\b)" + ROMAN + r"|i\b(?!\s+\w)))", re.I)
"""A division and its number ("chapter 3", "book 2", "chapter XII"; in words only a chapter's, "chapter three",
since "the letter one morning" names no letter; a lone "I" only at the end of a clause, since "the book I read"
names no book)."""
STEPS = re.compile(STEP.pattern + r"(?:(?:\s*,\s*|\s+of\s+(?:the\s+)?|\s+)" + STEP.pattern + r")?", re.I)
"""One division, or two in a row ("book 2, chapter 10", "chapter 10 of book 2")."""
OUTER_WORDS = re.compile(r"\b(book|part|volume)\s+(?:the\s+)?(" + NUMBER_WORD + r")\b", re.I)
"""A book, part or volume numbered in words ("part two"), read as one only beside a chapter (:func:`in_digits`)."""
ORDINAL = re.compile(r"\bthe\s+(" + NUMBER_WORD + r"|opening)\s+chapter\b", re.I)
"""A chapter by its ordinal ("the third chapter", "the opening chapter")."""
LATEST = re.compile(r"\bthe\s+(?:last|final|latest|most\s+recent)\s+" + DIVISION + r"\b(?!\s+(?:of|in)\b)", re.I)
"""The last chapter (or part...) of the book as far as the reader has read ("What happened in the last chapter?":
under a ceiling, the one they read last; not "the last chapter of book 2")."""
OPENING = re.compile(
    r"\b(?:when|as|where)\s+the\s+(?:book|novel|story)\s+(?:begins|opens|starts)\b"
    r"|\b(?:does|did)\s+the\s+(?:book|novel|story)\s+(?:begin|open|start)\b"
    r"|\b(?:at|near|in|from)\s+the\s+(?:very\s+)?(?:beginning|start|opening)\s+of\s+the\s+(?:book|novel|story)\b"
    r"|\bthe\s+(?:book|novel|story)(?:'|’)s\s+(?:beginning|opening|start)\b"
    r"|\bthe\s+opening\s+(?:pages?|scenes?|lines?|paragraphs?)\b"
    r"|\bthe\s+first\s+(?:pages?|scenes?|lines?|paragraphs?)\s+of\s+the\s+(?:book|novel|story)\b", re.I)
"""The book's opening ("when the story begins", "how does the novel open", "at the start of the novel", "the opening
pages", "the first scene of the book"; not "the first page of her letter")."""
WHAT_HAPPENS = re.compile(
    r"\W*(?:(?:please|so|and|now|tell\s+me|remind\s+me|can\s+you\s+tell\s+me)\W+)*"
    r"(?:what(?:'s|’s|\s+is|\s+was)?\s+(?:happens|happened|going\s+on|goes\s+on|went\s+on|takes\s+place|"
    r"took\s+place|occurs|occurred)(?:\s+(?:in|during|at|near|from))?"
    r"|(?:(?:can|could|would)\s+you\s+)?(?:summari[sz]e|sum\s+up|recap|outline)(?:\s+(?:for\s+me|what\s+happens"
    r"\s+in))?"
    r"|(?:give\s+me\s+|write\s+|i\s+want\s+)?(?:an?\s+|the\s+)?(?:short\s+|brief\s+)?(?:summary|recap|synopsis|"
    r"outline|gist)\s+of"
    r"|what(?:'s|’s|\s+is|\s+was)\s+about|how)\W*", re.I)
"""What is left of a question that asks only what happens in the part it names, once the part's name is taken out
("What happens in chapter 3?", "Summarise chapter 5.", "What is chapter 7 about?", "How does the novel open?"; not
"What happens to Toad in chapter 2?")."""
OPENING_SHARE = 0.1
"""The least share of the story (from its first sentence) the book's opening covers."""
OPENING_MOST = 0.25
"""The most share of the story a long first chapter gives the book's opening."""


def named_part(book: Book, question: str) -> tuple[int, int, str] | None:
    """The first and last sentences of the part of ``book`` that ``question`` names, and the part's name (of several
    numbered alike, the last read under a ceiling, else the first); None when it names none that ``book`` has."""
    if book.language != "en" or not len(book):
        return None
    wanted = [divisions(found.groups()) for found in STEPS.finditer(in_digits(question))]
    wanted += [{"chapter": 1 if o.group(1).lower() == "opening" else number(o.group(1))}
               for o in ORDINAL.finditer(question)]
    if len(wanted) == 1 and None not in wanted[0].values():
        try:
            return chapter_span(book, wanted[0], several=meant(book))
        except BookError:
            return None
    if not wanted and (latest := LATEST.search(question)):
        return in_order(book, WORDS[latest.group(1).lower()], -1)
    if not wanted and OPENING.search(question):
        return opening(book)
    return None if wanted else titled_part(book, question)


def in_digits(question: str) -> str:
    """``question`` with a book, part or volume numbered in words written in digits where it names a chapter too
    ("part two, chapter five", "chapter 5 of part two"): :data:`STEP` reads outer divisions in digits only, since
    "the letter one morning" names no letter."""
    if not re.search(rf"\b(?:{CHAPTER_WORD})\b", question, re.I):
        return question
    return OUTER_WORDS.sub(lambda m: f"{m.group(1)} {number(m.group(2))}", question)


def titled_part(book: Book, question: str) -> tuple[int, int, str] | None:
    """The part a question that asks only what happens there names by its title ("What happens in The Dead?",
    "Summarise 'Araby'.", "What is The Wild Wood about?"; :func:`~elite_ui.book.ceiling.title_words`), as
    :func:`named_part` gives it; None for any other question (a title may be a character's name: "Mr. Badger"). The
    title is written as one, capitalised or in quotation marks: "What happens in the end?" names no chapter "END"."""
    asked = {w.lower() for w in re.findall(r"\w+", question)}
    found = [n for n, chapter in enumerate(book.chapters) if chapter.kind != "front"
             and any(asked.issuperset(words) and asks_of(question, words) for words in title_words(chapter.title))]
    return span(book, places(book), found[meant(book)]) if found else None


def meant(book: Book) -> int:
    """Which of several parts numbered or titled alike a reader means: the last up to their ceiling (the volume they
    are in), or without one the first."""
    return -1 if book.ceiling else 0


def asks_of(question: str, words: tuple[str, ...]) -> bool:
    """Whether ``question`` asks only what happens in the part titled ``words``, written as a title."""
    told = re.search(r"(['‘\"“]?)\b(?:the\W+)?" + r"\W+".join(words) + r"\b", question, flags=re.I)
    return bool(told and (told.group(1) or any(w[0].isupper() for w in re.findall(r"\w+", told.group(0))))
                and WHAT_HAPPENS.fullmatch(question[:told.start()] + " " + question[told.end():]))


def asks_what_happens(question: str, book: Book | None = None) -> bool:
    """Whether ``question`` asks only what happens in the part of the book it names (:data:`WHAT_HAPPENS`): by its
    number or the opening, or (with the ``book``) by its title."""
    rest, named = re.subn(f"{STEPS.pattern}|{ORDINAL.pattern}|{LATEST.pattern}|{OPENING.pattern}", " ",
                          in_digits(question), flags=re.I)
    return bool(named and WHAT_HAPPENS.fullmatch(rest)) or (book is not None and not named
                                                             and titled_part(book, question) is not None)


def divisions(groups: tuple[str | None, ...]) -> dict[str, int | None]:
    """The divisions of a :data:`STEPS` match's ``groups`` (a :data:`STEP`'s four, twice), the outer first
    ("chapter 10 of book 2" is book 2, chapter 10)."""
    return outer_first((WORDS[(a or b).lower()], number(m or n)) for a, m, b, n in (groups[:4], groups[4:]) if a or b)


def opening(book: Book) -> tuple[int, int, str]:
    """The story's opening: its first chapter, as far as :data:`OPENING_MOST` of it, and at least
    :data:`OPENING_SHARE`."""
    first = book.story_from
    story = len(book) - first
    later = [c.first_sentence for c in book.chapters if c.kind == "chapter" and c.first_sentence > first]
    chapter_end = later[0] - 1 if later else first
    last = min(max(min(chapter_end, first + int(story * OPENING_MOST)), first + int(story * OPENING_SHARE)),
               len(book) - 1)
    return first, last, f"the opening of the book, to {book.sentence(last).citation}"


def scoped(book: Book, question: str) -> Book:
    """``book`` (perhaps cut at the reader's ceiling) cut to the part ``question`` names, if it names one."""
    found = named_part(book, question)
    if found is None:
        return book
    first, last, name = found
    return book.up_to(last, book.ceiling.label if book.ceiling else "", first=max(first, book.searched_from),
                      within=name)
