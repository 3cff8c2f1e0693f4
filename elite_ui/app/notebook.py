"""The reading notebook: every question and answer of a session, and the passages the reader saved, each with its
location in the book; kept as plain JSON-able dicts (the page stores them in the browser) and exported as Markdown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..book import Book
from ..methods.trace import Answer, Citation, Trace
from .inputs import number


def answer_entry(book: Book, trace: Trace, label: str) -> dict:
    """A question, its answer and the passages it cites, with their chapters (and pages)."""
    answer = trace.answer or Answer("")
    return {"kind": "answer", "question": trace.question, "answer": answer.text, "run": label,
            "book": book.digest, "title": book.title,
            "quotes": [quote(book, c.sentence_id) for c in answer.citations[:8] if c.sentence_id < len(book)],
            "when": time.strftime("%Y-%m-%d %H:%M")}


def story_entry(book: Book, heading: str, summary: str, sentence_ids: list[int]) -> dict:
    """The story so far or an X-Ray as the Story tab showed it: a heading, a line, and its cited extracts (kept as
    a question and its answer, so the notebook and its export show it the same way)."""
    return {"kind": "answer", "question": heading, "answer": summary, "run": "Story tab", "book": book.digest,
            "title": book.title, "quotes": [quote(book, sid) for sid in sentence_ids[:40] if sid < len(book)],
            "when": time.strftime("%Y-%m-%d %H:%M")}


def highlight_entry(book: Book, source: str, chapter: str, note: str, sentence_ids: list[int]) -> dict:
    """A highlight made in a reading app (Calibre, KOReader), found in the book: its sentences as quotes, the
    reader's note as the answer, and the sentences a question about it is asked of (``about``)."""
    heading = f"Your highlight in {source}" + (f" ({chapter})" if chapter else "")
    return story_entry(book, heading, note, sentence_ids[:8]) | {"run": source, "about": sentence_ids[:20]}


def quote_entry(book: Book, sid: int) -> dict:
    """A passage the reader saved from the Reader tab."""
    return {"kind": "quote", **quote(book, sid), "book": book.digest, "title": book.title,
            "when": time.strftime("%Y-%m-%d %H:%M")}


def quote(book: Book, sid: int) -> dict:
    s = book.sentence(sid)
    where = f"{s.chapter_name} ({s.chapter_title})" + (f", page {s.page}" if s.page is not None else "")
    return {"sentence": sid, "label": s.citation, "where": where, "text": " ".join(s.text.split())}


def entries_from(saved: object) -> list[dict]:
    """The notebook entries a browser sent back, each checked field by field (anything malformed is dropped)."""
    def quote_ok(q) -> bool:
        return isinstance(q, dict) and isinstance(q.get("sentence"), int) and all(
            isinstance(q.get(k), str) for k in ("label", "where", "text"))

    def answer_ok(entry: dict) -> bool:
        return all(isinstance(entry.get(k), str) for k in ("question", "answer", "run")) \
            and isinstance(entry.get("quotes"), list) and all(map(quote_ok, entry["quotes"]))

    def about_ok(entry: dict) -> bool:
        about = entry.get("about", [])
        return isinstance(about, list) and len(about) <= 20 and all(type(sid) is int and sid >= 0 for sid in about)

    checks = {"answer": answer_ok, "quote": quote_ok}
    return [entry for entry in (saved if isinstance(saved, list) else [])
            if isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in ("book", "title", "when"))
            and entry.get("kind") in checks and checks[entry["kind"]](entry) and about_ok(entry)]


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
