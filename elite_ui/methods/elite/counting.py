"""The counting path for "how many times" questions (and "when is X first/last mentioned"): one phrase, its
inflected forms, whole-word counts with where each lies; nothing else of the loop runs."""

from __future__ import annotations

import itertools
import re

import numpy as np

from ...book import Book
from ...book.lexicon import CAPITAL
from .. import prompts
from ..parsing import parse_terms
from ..trace import Answer, Citation, Count, Event, Kind, Notice, Occurrence

COUNTING_QUESTION = re.compile(r"\bhow\s+(?:many\s+times|often)\b|\bnumber\s+of\s+times\b|\bcount\s+(?:of|the)\b|"
                               r"\bcombien\s+de\s+fois\b|\bwie\s+oft\b|\bcu[aá]ntas\s+veces\b|多少次|几次", re.I)
QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{2,60})[\"”'’]")
NAMED = re.compile(rf"(?<=\s)(?:(?:Mr|Mrs|Miss|Dr|St)\.?\s+)?{CAPITAL}[\w’']+(?:\s+{CAPITAL}[\w’']+)+")
"""A name of several capitalised words inside a question ("Toad Hall", "Mr. Darcy"), not its first word."""
MAX_FORMS = 64
GENERIC = {"times", "time", "novel", "book", "story", "chapter", "text", "word", "words", "phrase", "mentioned",
           "mention", "mentions", "appear", "appears", "appeared", "occur", "occurs", "name", "named", "used"}
ASKING = {"how", "many", "often", "does", "do", "did", "is", "are", "was", "were", "the", "a", "an", "in", "of",
          "this", "that", "it", "be", "been", "written", "said", "say", "there", "and", "or", "to", "whole"}
"""Words of a counting question that are never what is counted, even where the stopword lists allow it."""
ASK_WHAT = ('Which word or phrase should be counted? Put it in quotes, for example: How many times is "first" '
            "mentioned?")


MENTION_QUESTION = re.compile(r"\b(first|last)\b(?:\s+\w+){0,3}?\s+(?:mention\w*|appear\w*|occur\w*|named|seen|"
                              r"heard)\b|\b(first|last)\s+(?:mention|appearance)\b", re.I)
"""ask for the first or last mention ("When is Wickham first mentioned?", "Where does Toad last appear?")."""


def is_counting(question: str) -> bool:
    """Counting questions, and questions about a first or last mention (answered from the same occurrences)."""
    return bool(COUNTING_QUESTION.search(question)) or mention_order(question) is not None


def mention_order(question: str) -> str | None:
    """"first" or "last" when the question asks where something is first or last mentioned (not how many times:
    "How many times is the word first mentioned?" counts "first")."""
    found = None if COUNTING_QUESTION.search(question) else MENTION_QUESTION.search(question)
    return (found.group(1) or found.group(2)).lower() if found else None


def phrase_forms(book: Book, phrase: str) -> list[str]:
    """Every combination of the inflected forms of the phrase's words (at most 64), the phrase itself first."""
    lex = book.lexicon
    tokens = lex.words(phrase)
    choices = [book.forms(t) if t not in lex.stopwords else (t,) for t in tokens]
    combos = itertools.islice(itertools.product(*choices), MAX_FORMS)
    return list(dict.fromkeys([" ".join(tokens), *(" ".join(c) for c in combos)]))


def fallback_phrase(question: str, book: Book) -> str:
    """A quoted phrase in the question, else its last content word that occurs in the book, else its last word
    that asks nothing (the word counted may be a common one: "first"); "" when there is none."""
    quoted = QUOTED.search(question)
    if quoted:
        return quoted.group(1)
    asked = COUNTING_QUESTION.sub(" ", question)
    candidates = [w for w in book.lexicon.content_words(asked) if w not in GENERIC] or [
        w for w in book.lexicon.words(asked) if w not in GENERIC | ASKING and len(w) > 1]
    in_book = [w for w in candidates if any(f in book.index.vocabulary for f in book.forms(w))]
    return (in_book or candidates or [""])[-1]


def count(book: Book, phrase: str, source: str = "model") -> Count:
    """Whole-word, case-insensitive occurrences of ``phrase`` in any inflected form, with where each lies
    (in Chinese, written without spaces, every occurrence of its characters).

    The words of a phrase may be separated by any punctuation and spacing ("Mr. Darcy", "Mr.\\nDarcy")."""
    variants = phrase_forms(book, phrase)
    if not variants or not variants[0]:
        return Count(phrase, [], 0, [], source)
    pattern = book.lexicon.matcher(variants)
    matches = list(pattern.finditer(book.text, int(book.bounds[book.searched_from, 0])))
    starts = np.array([m.start() for m in matches], dtype=np.int64)
    sentence_of = np.searchsorted(book.bounds[:, 0], starts, side="right") - 1
    occurrences = []
    for m, sid in zip(matches, sentence_of.tolist(), strict=True):
        sid = max(sid, 0)
        chapter = int(book.chapter_of[sid])
        occurrences.append(Occurrence(sentence_id=sid, start=m.start(), end=m.end(), chapter=chapter,
                                      chapter_title=book.chapters[chapter].title, page=book.page_of(m.start()),
                                      chapter_ref=book.chapters[chapter].ref, matched=m.group(0)))
    return Count(phrase, variants, len(matches), occurrences, source)


def answer_by_counting(engine, book: Book, question: str, options: dict[str, str] | None):
    """The counting answer: the model names the phrase (kept only if it comes from the question), every
    occurrence is counted and cited, the first ones quoted; a first or last mention is answered with that
    occurrence in the story (a preface's mention comes before the story, and is said to), quoted."""
    reply = yield from engine.call("count_phrase", prompts.count_phrase(question), 1, max_tokens=16)
    phrase, source = counting_phrase(question, parse_terms(reply, 1), book)
    if not book.lexicon.words(phrase):
        yield Event(Kind.WARNING, 1, Notice("no word or phrase to count was found in the question."))
        return Answer(ASK_WHAT)
    result = count(book, phrase, source)
    yield Event(Kind.COUNT, 1, result)
    where = list(dict.fromkeys(o.sentence_id for o in result.occurrences))
    order = mention_order(question)
    if order and where:
        story = [s for s in where if s >= book.first_read] or where
        sid = story[0] if order == "first" else story[-1]
        place = book.sentence(sid)
        first_in_front = order == "first" and sid != where[0]
        earlier = " The front matter mentions it before the story starts." if first_in_front else ""
        text = (f'"{result.phrase}" is {order} mentioned in {place.chapter_name} ({place.chapter_title}), '
                f'[S{sid}]: "{" ".join(place.text.split())}" ({result.total} mentions in all).{earlier}')
        cited = [Citation(sid, place.citation, place.text)]
        return Answer(text, cited, count=result, evidence=[sid], quotes=cited)
    shown = ", ".join(f"[S{sid}]" for sid in where[:20])
    more = f" and {len(where) - 20} more sentences" if len(where) > 20 else ""
    text = (f'"{result.phrase}" (counting the forms {", ".join(result.forms)}) occurs {result.total} times'
            + (f": {shown}{more}." if result.total else "."))
    choice = closest_number_option(result.total, options) if options else None
    citations = [Citation(sid, book.sentence(sid).citation, book.sentence(sid).text) for sid in where[:20]]
    return Answer(text, citations, choice=choice, count=result, evidence=where,
                  quotes=citations[: engine.settings.quotes])


def counting_phrase(question: str, proposed: list[str], book: Book) -> tuple[str, str]:
    """What to count: a phrase quoted in the question; else the model's phrase if all its words come from the
    question; else the question's last content word found in the book. A word of a name of several words the
    question writes ("hall" of "Toad Hall") counts the whole name, when the book writes it."""
    if QUOTED.search(question):
        return fallback_phrase(question, book), "question"
    said = book.lexicon.words
    asked = {f for w in said(question) for f in book.forms(w)}
    if proposed and len(said(proposed[0])) <= 4 and set(said(proposed[0])) <= asked:
        phrase, source = proposed[0], "model"
    else:
        phrase, source = fallback_phrase(question, book), "question"
    whole = next((name for name in NAMED.findall(question) if set(said(phrase)) <= set(said(name))
                  and book.lexicon.matcher([" ".join(said(name))]).search(book.text)), None)
    return (whole, source) if whole else (phrase, source)


def closest_number_option(total: int, options: dict[str, str]) -> str | None:
    """The option whose number is nearest to ``total`` (options such as "12 times")."""
    numbered = {}
    for key, text in options.items():
        found = re.search(r"\d+", text.replace(",", ""))
        if found:
            numbered[key] = abs(int(found.group()) - total)
    return min(numbered, key=numbered.get) if numbered else None
