"""The reading notebook: every question and answer of a session, and the passages the reader saved, each with its
location in the book (:class:`Entry`); kept in the browser as JSON (:meth:`Entry.record`) and exported as Markdown.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace

from ..book import Book
from ..methods.trace import Answer, Citation, Trace
from ..reading import MAX_ABOUT
from .inputs import number


@dataclass
class Quote:
    """A sentence of the book as the notebook keeps it: its number, its label, where it is, its text."""

    sentence: int
    label: str
    where: str
    text: str


@dataclass
class Entry:
    """A notebook entry: a question (or a story view, or a highlight) with its answer and the passages it cites
    (``kind`` answer), or a passage the reader saved (``kind`` quote, its one quote); each in its book."""

    kind: str
    book: str
    """The book's content hash."""
    title: str
    when: str
    question: str = ""
    answer: str = ""
    run: str = ""
    """Which run it came from ("1. What is Pemberley? (ELITE)", "Story tab", a reading app's name)."""
    quotes: list[Quote] = field(default_factory=list)
    about: list[int] = field(default_factory=list)
    """A highlight's sentences, which a question about it is asked of."""

    @property
    def heading(self) -> str:
        """What the notebook calls it: its question, or the saved passage's label."""
        return self.question or self.quotes[0].label

    def record(self) -> dict:
        """The entry as JSON, as the browser keeps it (a passage's one quote flat in its record)."""
        where = {"book": self.book, "title": self.title, "when": self.when}
        if self.kind == "quote":
            return {"kind": "quote", **asdict(self.quotes[0]), **where}
        record = {"kind": "answer", "question": self.question, "answer": self.answer, "run": self.run, **where,
                  "quotes": [asdict(q) for q in self.quotes]}
        return record | ({"about": self.about} if self.about else {})

    @classmethod
    def from_record(cls, saved) -> Entry | None:
        """The entry :meth:`record` wrote, checked field by field (None when anything is malformed: a browser's
        copy is anyone's to edit)."""
        if not (isinstance(saved, dict) and all(isinstance(saved.get(k), str) for k in ("book", "title", "when"))):
            return None
        about = saved.get("about", [])
        if not (isinstance(about, list) and len(about) <= 20 and all(type(s) is int and s >= 0 for s in about)):
            return None
        where = {"book": saved["book"], "title": saved["title"], "when": saved["when"], "about": about}
        if saved.get("kind") == "quote":
            quote = quote_from(saved)
            return cls("quote", quotes=[quote], **where) if quote else None
        quotes = [quote_from(q) for q in saved.get("quotes", [])] if isinstance(saved.get("quotes"), list) else [None]
        if saved.get("kind") != "answer" or None in quotes or not all(
                isinstance(saved.get(k), str) for k in ("question", "answer", "run")):
            return None
        return cls("answer", question=saved["question"], answer=saved["answer"], run=saved["run"], quotes=quotes,
                   **where)


def quote_from(saved) -> Quote | None:
    """A quote a browser sent back, checked (None when malformed)."""
    if isinstance(saved, dict) and type(saved.get("sentence")) is int and all(
            isinstance(saved.get(k), str) for k in ("label", "where", "text")):
        return Quote(saved["sentence"], saved["label"], saved["where"], saved["text"])
    return None


def answer_entry(book: Book, trace: Trace, label: str) -> Entry:
    """A question, its answer and the passages it cites, with their chapters (and pages)."""
    answer = trace.answer or Answer("")
    return Entry("answer", book.digest, book.title, time.strftime("%Y-%m-%d %H:%M"), trace.question, answer.text,
                 label, [quote(book, c.sentence_id) for c in answer.citations[:8] if c.sentence_id < len(book)])


def story_entry(book: Book, heading: str, summary: str, sentence_ids: list[int]) -> Entry:
    """The story so far or an X-Ray as the Story tab showed it: a heading, a line, and its cited extracts (kept as
    a question and its answer, so the notebook and its export show it the same way)."""
    return Entry("answer", book.digest, book.title, time.strftime("%Y-%m-%d %H:%M"), heading, summary, "Story tab",
                 [quote(book, sid) for sid in sentence_ids[:40] if sid < len(book)])


def highlight_entry(book: Book, source: str, chapter: str, note: str, sentence_ids: list[int]) -> Entry:
    """A highlight made in a reading app (Calibre, KOReader), found in the book: its sentences as quotes, the
    reader's note as the answer, and the sentences a question about it is asked of (``about``)."""
    heading = f"Your highlight in {source}" + (f" ({chapter})" if chapter else "")
    return replace(story_entry(book, heading, note, sentence_ids[:8]), run=source, about=sentence_ids[:MAX_ABOUT])


def quote_entry(book: Book, sid: int) -> Entry:
    """A passage the reader saved from the Reader tab."""
    return Entry("quote", book.digest, book.title, time.strftime("%Y-%m-%d %H:%M"), quotes=[quote(book, sid)])


def quote(book: Book, sid: int) -> Quote:
    s = book.sentence(sid)
    where = f"{s.chapter_name} ({s.chapter_title})" + (f", page {s.page}" if s.page is not None else "")
    return Quote(sid, s.citation, where, " ".join(s.text.split()))


def entries_from(saved: object) -> list[Entry]:
    """The notebook entries a browser sent back, each checked field by field (anything malformed is dropped)."""
    return [entry for entry in map(Entry.from_record, saved if isinstance(saved, list) else []) if entry]


@dataclass
class Turn:
    """One question of the conversation and what came of it: its answer, the answer so far while it is written,
    its error, or that it was stopped."""

    question: str
    options: dict[str, str] = field(default_factory=dict)
    partial: str = ""
    quotes: list[Citation] = field(default_factory=list)
    """What the book says, shown while the answer is being written."""
    answer: Answer | None = None
    error: str = ""
    stopped: bool = False

    @property
    def unfinished(self) -> bool:
        return self.answer is None and not self.error

    def record(self) -> dict:
        """The turn as JSON (to survive a page reload): the question with its options, and its answer, its error
        or that it was stopped."""
        record = {"question": self.question, "options": self.options, "error": self.error or None}
        if self.answer is not None:
            a = self.answer
            record["answer"] = {"text": a.text, "evidence": a.evidence, "caveat": a.caveat,
                                "citations": [[c.sentence_id, c.label, c.text, c.automatic] for c in a.citations],
                                "quotes": [[c.sentence_id, c.label, c.text, c.automatic] for c in a.quotes],
                                "checked": a.checked, "left_out": a.left_out, "unsupported": a.unsupported}
        return record

    @classmethod
    def from_record(cls, record: dict) -> Turn:
        """The turn :meth:`record` wrote."""
        options = record.get("options") if isinstance(record.get("options"), dict) else {}
        turn = cls(str(record.get("question", "")), {str(k)[:1]: str(v) for k, v in options.items()})
        if record.get("error"):
            turn.error = str(record["error"])
        elif record.get("answer"):
            saved = record["answer"]
            turn.answer = Answer(str(saved.get("text", "")), citations(saved.get("citations", [])),
                                 evidence=[int(s) for s in saved.get("evidence", [])],
                                 quotes=citations(saved.get("quotes", [])), caveat=str(saved.get("caveat", "")),
                                 checked=count(saved.get("checked")), left_out=count(saved.get("left_out")),
                                 unsupported=[s for s in listed(saved.get("unsupported")) if isinstance(s, str)])
        else:
            turn.stopped = True
        return turn


def listed(value) -> list:
    """A list a browser sent back (anything else is empty)."""
    return value if isinstance(value, list) else []


def count(value) -> int:
    """A count a browser sent back (anything else is 0)."""
    n = number(value)
    return n if n is not None and 0 <= n < 10_000 else 0


def citations(saved: list) -> list[Citation]:
    """Citations as :meth:`Turn.record` wrote them: [sentence, label, text, automatic]."""
    return [Citation(int(c[0]), str(c[1]), str(c[2]), bool(c[3])) for c in saved]
