"""What a program reads: a book, an answer, a citation, the words found, a passage, the story so far and an X-Ray as
plain data (JSON), the same for the app's API, its MCP tools and ``python -m elite_ui.ask --json``. Each record is a
``TypedDict``, so the API's schema (and an MCP client's tool description) comes from these definitions;
:data:`ANSWER_SCHEMA` is the answer's, as JSON Schema."""

from __future__ import annotations

import re

from pydantic import ConfigDict, TypeAdapter, with_config
from typing_extensions import TypedDict

from .book import Book, Ceiling
from .book.story import ChapterRecap, XRay
from .methods.grounding import LABELS
from .methods.parsing import EMPHASIS, parse_sentence_ids, quotation
from .methods.trace import Count, Kind, Trace

DOCUMENTED = ConfigDict(use_attribute_docstrings=True)
"""Each field's docstring is its description in the schema."""


@with_config(DOCUMENTED)
class Cited(TypedDict):
    """One sentence of the book, where it lies."""

    sentence: int
    """The sentence's number in the book (what a citation [S123] names)."""
    label: str
    """How a citation names it: its chapter (and page, in a PDF) and number."""
    chapter: str
    """The chapter as the book numbers it ("ch. 12", "book 2, ch. 3")."""
    chapter_title: str
    page: int | None
    """The page, for a PDF."""
    text: str


@with_config(DOCUMENTED)
class Chapter(TypedDict):
    number: str
    title: str
    kind: str
    """chapter, or front (title page, contents, preface...)."""
    first_sentence: int


@with_config(DOCUMENTED)
class BookRecord(TypedDict):
    book: str
    """The book's id: give it to every other call."""
    title: str
    author: str
    language: str
    sentences: int
    chapters: list[Chapter]
    front_matter: list[str]
    missing: list[str]
    """Chapter files the book's file lists but does not hold (an EPUB's), read as empty; usually none."""


@with_config(DOCUMENTED)
class Costs(TypedDict):
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float


@with_config(DOCUMENTED)
class AnswerRecord(TypedDict):
    done: bool
    """False while the run goes on (a long one reports what it is doing), True for the answer."""
    progress: str
    """What the run is doing ("Iteration 1: terms written…", "2 questions ahead of yours"); empty once done."""
    question: str
    method: str
    up_to: str | None
    """The spoiler ceiling the question was asked under (None: the whole book)."""
    within: str | None
    """The part of the book the question named and was answered from alone ("chapter 3 (...)"), if it named one."""
    answer: str
    """The answer (under a ceiling, only what the cited sentences support)."""
    choice: str | None
    """The option chosen, for a multiple-choice question."""
    count: int | None
    """The book's own count, for a "how many times" question."""
    quotes: list[Cited]
    """What the book says: the best evidence sentences, best first."""
    citations: list[Cited]
    """The sentences the answer cites."""
    evidence_judged_sufficient: bool | None
    """The model's last judgement of the evidence (None: no judge ran)."""
    caveat: str
    """Said when the search fell short or the votes tied."""
    sentences_checked: int
    """Answer sentences the grounding check read."""
    sentences_left_out: int
    """Of those, left out under the ceiling: what they cite does not support them."""
    citations_moved: int
    """Of those, how many cited a sentence that does not support them and now cite the evidence sentence that does."""
    sentences_quoted: int
    """Of those, how many only pointed at the sentences they cite ("The answer is [S12].") and are those, quoted."""
    unsupported: list[str]
    """Without a ceiling, the answer's sentences what they cite does not support (kept in ``answer``)."""
    sentences_unanswered: int
    """Of those left out or marked, the ones whose cited passage the model judged does not answer the question."""
    costs: Costs


@with_config(DOCUMENTED)
class Found(TypedDict):
    words: str
    forms: list[str]
    """The forms searched for (walk, walks, walked...)."""
    total: int
    """How many times the book (up to the ceiling) writes them."""
    occurrences: list[Cited]
    """The sentences they are in, in book order (a sentence once, at most ``limit``)."""


@with_config(DOCUMENTED)
class ShelfSentence(TypedDict):
    sentence: int
    """The sentence's number in its book (S123)."""
    chapter: str
    text: str


@with_config(DOCUMENTED)
class ShelfBook(TypedDict):
    """A book of the library where the words were found."""

    book: str
    """The book's file within the library."""
    title: str
    authors: str
    up_to: str
    """How far it was searched: up to where the reading apps left the reader, or the whole book (unread)."""
    score: float
    """BM25, summed over its best sentences (higher: more, and rarer, of the words)."""
    sentences: list[ShelfSentence]


@with_config(DOCUMENTED)
class LibraryFound(TypedDict):
    words: str
    books: list[ShelfBook]
    """The best first."""
    unread_left: int | None
    """Books no reading app has opened that hold the words too: searched only when asked for (``unread``; None:
    words so common that they were not counted)."""


@with_config(DOCUMENTED)
class BookAnswer(TypedDict):
    title: str
    authors: str
    answer: AnswerRecord
    """The question answered from this book alone, under its own ceiling."""


@with_config(DOCUMENTED)
class LibraryAnswer(TypedDict):
    question: str
    answer: str
    """One answer: each book's that its sentences support, the book named, each citation with its book and chapter."""
    books: list[BookAnswer]
    """The books asked, the best match first (those that do not say too)."""
    searched: LibraryFound


@with_config(DOCUMENTED)
class RecapChapter(TypedDict):
    chapter: str
    title: str
    extracts: list[Cited]


@with_config(DOCUMENTED)
class Companion(TypedDict):
    name: str
    shared_paragraphs: int
    sentences: list[Cited]


@with_config(DOCUMENTED)
class XRayRecord(TypedDict):
    name: str
    variants: list[str]
    mentions: int
    """Sentences naming them (up to the ceiling)."""
    first: Cited | None
    mentions_by_chapter: dict[str, int]
    described: list[Cited]
    story: list[Cited]
    """Their story so far: in each chapter, the most central sentence naming them."""
    companions: list[Companion]


ANSWER_SCHEMA = TypeAdapter(AnswerRecord).json_schema()
"""The answer record as JSON Schema."""


def cited(book: Book, sid: int) -> Cited:
    s = book.sentence(sid)
    return Cited(sentence=sid, label=s.citation, chapter=s.chapter_ref, chapter_title=s.chapter_title, page=s.page,
                 text=" ".join(s.text.split()))


def book_record(book: Book, book_id: str) -> BookRecord:
    return BookRecord(book=book_id, title=book.title, author=book.author, language=book.language,
                      sentences=len(book), front_matter=[c.title for c in book.chapters if c.kind == "front"],
                      chapters=[Chapter(number=c.ref, title=c.title, kind=c.kind, first_sentence=c.first_sentence)
                                for c in book.chapters], missing=list(book.stats.get("missing", [])))


def read_where(ceiling: Ceiling | None) -> dict[str, str | None]:
    """A record's ``up_to`` and ``within``: the reader's spoiler ceiling and the part the question named."""
    return {"up_to": ceiling.label or None if ceiling else None, "within": ceiling.within or None if ceiling else None}


def answer_record(book: Book, trace: Trace) -> AnswerRecord:
    """A run's answer as data: its text, quotes and citations, what the judge and the grounding check said, its
    costs."""
    answer, totals = trace.answer, trace.totals()
    start = trace.of(Kind.START)[0].data
    verdicts = [e.data.sufficient for e in trace.of(Kind.JUDGE)]
    return AnswerRecord(
        done=True, progress="", question=trace.question, method=start.method,
        **read_where(start.ceiling), answer=answer.text, choice=answer.choice,
        count=answer.count.total if answer.count else None,
        quotes=[cited(book, q.sentence_id) for q in answer.quotes],
        citations=[cited(book, c.sentence_id) for c in answer.citations],
        evidence_judged_sufficient=verdicts[-1] if verdicts else None, caveat=answer.caveat,
        sentences_checked=answer.checked, sentences_left_out=answer.left_out, unsupported=answer.unsupported,
        sentences_unanswered=answer.unanswered, citations_moved=answer.recited, sentences_quoted=answer.pointed,
        costs=Costs(llm_calls=totals.llm_calls, prompt_tokens=totals.prompt_tokens,
                    completion_tokens=totals.completion_tokens, seconds=totals.seconds))


def progress_record(trace: Trace, said: str) -> AnswerRecord:
    """What a long run reports before its answer: the question, where it is asked, and what it is doing."""
    start = trace.of(Kind.START)
    ceiling = start[0].data.ceiling if start else None
    return AnswerRecord(
        done=False, progress=said, question=trace.question, method=start[0].data.method if start else "",
        **read_where(ceiling), answer="", choice=None, count=None, quotes=[], citations=[],
        evidence_judged_sufficient=None, caveat="", sentences_checked=0, sentences_left_out=0, unsupported=[],
        sentences_unanswered=0, citations_moved=0, sentences_quoted=0,
        costs=Costs(llm_calls=0, prompt_tokens=0, completion_tokens=0, seconds=0.0))


def found_record(book: Book, words: str, count: Count, limit: int) -> Found:
    sentences = list(dict.fromkeys(o.sentence_id for o in count.occurrences))[:limit]
    return Found(words=words, forms=count.forms, total=count.total, occurrences=[cited(book, s) for s in sentences])


def recap_record(book: Book, chapters: list[ChapterRecap]) -> list[RecapChapter]:
    return [RecapChapter(chapter=c.ref, title=c.title, extracts=[cited(book, s) for s in c.sentences])
            for c in chapters]


def xray_record(book: Book, x: XRay) -> XRayRecord:
    return XRayRecord(name=x.name, variants=x.variants, mentions=x.mentions,
                      first=cited(book, x.first) if x.first is not None else None,
                      mentions_by_chapter={ref: n for ref, n in x.by_chapter if n},
                      described=[cited(book, s) for s in x.described], story=[cited(book, s) for s in x.story],
                      companions=[Companion(name=name, shared_paragraphs=n, sentences=[cited(book, s) for s in ids])
                                  for name, n, ids in x.companions])


LABELLED = re.compile(rf"(?P<stop>[.!?])?(?P<label>{LABELS.pattern})(?P<after>[.!?])?")
"""A citation label in an answer, with the full stop before or after it."""


def cited_line(citation: Cited) -> str:
    """A citation as plain text shows it (a reading app's reply, an answer across books): its chapter and the
    sentence as a quotation, the book's ``_italics_`` marks dropped ("ch. 3: “My overhearings were…”")."""
    sentence = EMPHASIS.sub(r"\1", quotation(citation["text"]))
    return f"{citation['chapter'] or citation['label']}: {sentence}"


def chaptered(record: AnswerRecord) -> str:
    """The answer with each citation label ("[S360]") as the chapters of the sentences it cites ("(ch. 4)"): a
    reading app's reader has no sentence numbers to follow (Readest asks for chapters), nor has an answer put
    together from several books' (whose numbers name no book)."""
    where = {c["sentence"]: c["chapter"] or c["label"] for c in record["citations"]}

    def said(m: re.Match) -> str:
        places = list(dict.fromkeys(where[sid] for sid in parse_sentence_ids(m["label"]) if sid in where))
        return (f" ({', '.join(places)})" if places else "") + (m["stop"] or m["after"] or "")

    return LABELLED.sub(said, record["answer"]).strip()
