"""The leak harness: for a book and a spoiler ceiling, every surface a reader (or a program) is shown is scanned
for what lies beyond the ceiling: a sentence after it (cited, linked or quoted) and a character name the book
writes first after it. The model is a scripted one that knows the whole novel, as a real model may know a famous
one: its search terms and its answer name characters the reader has not met yet, beside a sentence copied from
its evidence. ``tests/test_leaks.py`` runs it on a few questions; ``benchmarks/leaks.py`` on hundreds.

Surfaces: the answer (its text, quotes and citations), the conversation, trace and charts as the page shows them,
the Markdown and JSON exports, the API's answer record, the character names list, the X-Ray of its characters and
the story so far.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from ..app import render
from ..app.notebook import Turn
from ..book import Book
from ..book.names import found_names, names_for, story_text, written_as
from ..book.story import recap, xray
from ..methods.elite import PRESETS, Settings
from ..models import Request, ScriptedLLM
from ..reading import Asked, part, reading

SENTENCE_REF = re.compile(r"data-sid=['\"](\d+)|\"sentence_id\": (\d+)|\bS(\d{1,7})\b")
"""A sentence a surface cites, links or records: a link's ``data-sid``, a JSON record's id, an [S123] label."""


SAYS = re.compile(r"\b(?!(?:chapter|book|part|volume|letter|section|stave)\b)[A-Za-z]{4,}", re.I)
"""A chapter title that says more than its number: a word of four letters or more other than a part's name."""


@dataclass
class Leaks:
    """What the scan found, per surface: how many surfaces were scanned and how many showed something beyond."""

    scanned: Counter = field(default_factory=Counter)
    beyond: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def add(self, surface: str, text: str, last: int, late: re.Pattern | None, asked: str) -> None:
        self.scanned[surface] += 1
        past = [int(next(g for g in m.groups() if g)) for m in SENTENCE_REF.finditer(text)]
        past = [sid for sid in past if sid > last]
        names = [m.group(0) for m in late.finditer(text)] if late else []
        names = [n for n in names if n.casefold() not in asked.casefold()]
        if past or names:
            self.beyond[surface] += 1
            if len(self.examples) < 20:
                self.examples.append(f"{surface}: sentences {past[:3]} names {names[:3]}")

    @property
    def total(self) -> int:
        return sum(self.beyond.values())


def late_names(book: Book, cut: Book) -> re.Pattern | None:
    """The variants of the whole book's character names that the book up to ``cut``'s ceiling never writes, and
    the titles of the chapters after it (those that say more than a number)."""
    seen = story_text(cut)
    late = {v for c in found_names(book).characters for v in c.variants if not re.search(rf"\b{written_as(v)}\b", seen)}
    late |= {c.title for c in book.chapters[len(cut.chapters):] if SAYS.search(c.title)} - {
        c.title for c in cut.chapters}
    if not late:
        return None
    return re.compile(r"\b(?:" + "|".join(map(written_as, sorted(late, key=len, reverse=True))) + r")\b")


def knowing_model(book: Book, cut: Book) -> ScriptedLLM:
    """A model that knows the whole novel: its terms and its answer name the most mentioned characters the reader
    has not met yet; its answer also copies the first sentence of its evidence, with its label."""
    seen = story_text(cut)
    later = [c.name for c in found_names(book).characters if not re.search(rf"\b{written_as(c.name)}\b", seen)][:2]
    spoiler = f"In the end {' marries '.join(later) or 'everyone'} and all is told in chapter 61."

    def reply(request: Request) -> str:
        prompt = request.messages[-1]["content"]
        if request.purpose == "terms":
            return "\n".join([*later, *re.findall(r"[A-Z][a-z]{3,}", prompt)[:3]])
        if request.purpose == "answer":
            first = re.search(r"\[S(\d+)\]\s*([^\n\[]+)", prompt)
            copied = f"{first.group(2).strip()} [S{first.group(1)}]" if first else ""
            return f"{copied} {spoiler}".strip()
        return "yes"

    return ScriptedLLM(reply)


def scan(book: Book, ceiling: str, questions: list[str], leaks: Leaks | None = None,
         settings: Settings = PRESETS["laptop"]) -> Leaks:
    """Ask ``questions`` of ``book`` under ``ceiling`` (with ELITE's default preset, or ``settings``, and the
    knowing model), and scan every surface."""
    leaks = leaks or Leaks()
    cut = part(book, ceiling).book
    last = cut.ceiling.sentence
    late = late_names(book, cut)
    names = names_for(cut, None)
    model = knowing_model(book, cut)
    for question in questions:
        ready = reading(book, Asked(question, ceiling, settings=settings), model, names=lambda read: names)
        trace = ready.answer()
        answer = trace.answer
        turn = Turn(question, {}, answer=answer)
        cited = [*(c.text for c in answer.citations), *(q.text for q in answer.quotes)]
        shown = {"answer": " ".join([answer.text, *cited]),
                 "conversation": render.chat(book, [turn]), "trace": render.trace_html(book, trace.events),
                 "markdown export": render.markdown_export(book, trace), "json export": trace.to_json(),
                 "api": json.dumps(ready.record(trace)),
                 "charts": render.book_map(book, trace.events).to_json()
                 + render.importance_figure(book, trace.events).to_json()}
        for surface, text in shown.items():
            leaks.add(surface, text, last, late, question)
    leaks.add("names", " | ".join(v for c in names.characters for v in [c.name, *c.variants]), last, late, "")
    for character in names.characters[:5]:
        found = xray(cut, names, character)
        leaks.add("x-ray", " | ".join([found.name, *found.variants, *(name for name, _, _ in found.companions),
                                     *(f"S{sid}" for sid in [found.first or 0, *found.described, *found.story])]),
                  last, late, "")
    leaks.add("story", " ".join(f"S{sid}" for chapter in recap(cut) for sid in chapter.sentences), last, late, "")
    return leaks

