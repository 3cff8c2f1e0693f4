"""One way to ask a book. What a reader asks is an :class:`Asked` (the question, where they have read up to, the
method and its settings, the options, the passage it is about); :func:`part` is the part of the book that is read
for it, and :func:`reading` the engine that answers it, ready to run. The page, the API, the command line, the
leak harness and the benchmarks all ask through here.

What the spoiler ceiling means, said once: empty, the whole book as its file has it (the front matter too) and
no ceiling at all (an answer's sentences its evidence does not support are marked, not left out); else the book
up to that place (:func:`~elite_ui.book.reading_ceiling`: "chapter 12", "page 80", "40%", "S5210"), with the
front matter before the story left out of the search unless ``front`` (an editor's preface may tell the whole
plot), and everything a reader is shown held to it. A question that names a part of the book ("in chapter 3",
"when the story begins") is answered from that part alone (:func:`within`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from .book import Book, reading_ceiling
from .book.model import Ceiling
from .book.names import NameIndex, names_for
from .book.scope import scoped
from .errors import QuestionError
from .methods import METHODS, Prepared, Tools, Trace
from .methods.base import Engine
from .methods.elite.edit import Edit
from .methods.trace import Event
from .models import LLM
from .models.base import CAPABLE_BILLIONS
from .records import AnswerRecord, answer_record

DEFAULT_PRESET = "laptop"
"""The preset for a model of unknown size, and for the small demo model."""
CAPABLE_PRESET = "capable"
"""The preset for a real model: one of at least :data:`~elite_ui.models.base.CAPABLE_BILLIONS` parameters."""
WHOLE_BOOK = "in the whole book"


class Part(NamedTuple):
    """The part of a book read for a question: the book cut at the reader's ceiling (or whole), and where that is
    in words ("up to chapter 10 (...)", or :data:`WHOLE_BOOK`)."""

    book: Book
    where: str


def part(book: Book, ceiling: str | Ceiling = "", front: bool = False) -> Part:
    """``book`` as far as the reader has read, at ``ceiling`` as they wrote it (see the module's docstring for
    what an empty one means) or as an earlier run recorded it. Raises :class:`~elite_ui.errors.BookError` on a
    ceiling that is no place in it."""
    if isinstance(ceiling, Ceiling):
        return Part(book.cut(ceiling), f"up to {ceiling.label}")
    read = reading_ceiling(book, ceiling)
    if read is None:
        return Part(book, WHOLE_BOOK)
    return Part(book.up_to(*read, front=front), f"up to {read[1]}")


def within(seen: Part, question: str) -> Part:
    """``seen`` cut to the part of the book ``question`` names (:mod:`elite_ui.book.scope`), if it names one."""
    book = scoped(seen.book, question)
    return seen if book is seen.book else Part(book, f"in {book.ceiling.within}" + (
        f", read {seen.where}" if seen.where != WHOLE_BOOK else ""))


def preset_for(llm: LLM | None) -> tuple[str, str]:
    """The settings preset ``llm`` answers with, and why, in words for the status line."""
    size = getattr(llm, "parameters", None)
    if size is None:
        return DEFAULT_PRESET, "the model's size is unknown (choose 'capable' for a real model)"
    said = f"{size:.1f}B" if size >= 1 else f"{size * 1000:.0f}M"
    if size >= CAPABLE_BILLIONS:
        return CAPABLE_PRESET, f"the model has {said} parameters"
    return DEFAULT_PRESET, f"the model has {said} parameters, a demo model"


def preset(method: str, name: str):
    """Method ``method``'s preset called ``name`` (its :data:`DEFAULT_PRESET` where it has none of that name)."""
    presets = METHODS[method].presets
    return presets.get(name, presets[DEFAULT_PRESET])


MAX_ABOUT = 20
"""The most sentences a question may be asked about (a highlight, the Reader's selection, the API's ``about``)."""


@dataclass(frozen=True)
class Asked:
    """What is asked of a book, whoever asks it."""

    question: str
    ceiling: str | Ceiling = ""
    """The spoiler ceiling as the reader wrote it ("chapter 12"; empty: the whole book), or as the run an edited
    search starts from recorded it."""
    front: bool = False
    """Under a ceiling, search the front matter before the story too."""
    method: str = "elite"
    """The answering method's name in the registry."""
    settings: object = None
    """The method's settings (None: the preset of the model that answers, :func:`preset_for`)."""
    options: dict[str, str] | None = None
    """Multiple-choice options by letter."""
    about: tuple[int, ...] = field(default=())
    """The sentences of a passage the question is about, pinned as evidence (ELITE)."""
    edit: Edit | None = None
    """The reader's edit of an earlier run's search (ELITE's "Edit the search and run again")."""
    named_part: bool = True
    """A question that names a part of the book ("in chapter 3", "when the story begins") is answered from that
    part alone (:func:`within`)."""

    def chosen(self, llm: LLM | None = None) -> object:
        """The settings the method answers with on ``llm``."""
        return self.settings if self.settings is not None else preset(self.method, preset_for(llm)[0])


@dataclass
class Reading:
    """A question ready to be answered: the part of the book read for it, and the engine that answers."""

    book: Book
    """The book as opened (what a method prepares its index of)."""
    part: Part
    asked: Asked
    engine: Engine
    prepare: Callable[[Engine, Book], Prepared]

    def events(self, generate: bool = True) -> Iterator[Event]:
        """The question answered, as trace events (``generate=False``: up to the chosen evidence)."""
        asked = self.asked
        extra = {"about": list(asked.about)} if asked.about else {}
        if asked.edit is not None:
            extra["edit"] = asked.edit
        return self.engine.ask(self.part.book, asked.question, asked.options,
                               prepared=self.prepare(self.engine, self.book), generate=generate, **extra)

    def answer(self, on_event: Callable[[Event], None] | None = None, generate: bool = True) -> Trace:
        """The question answered, its events collected into a trace (each passed to ``on_event`` too)."""
        trace = Trace(self.asked.question)
        for event in self.events(generate):
            trace.add(event)
            if on_event:
                on_event(event)
        return trace

    def record(self, trace: Trace) -> AnswerRecord:
        """A finished run's answer as a program reads it (:func:`~elite_ui.records.answer_record`)."""
        return answer_record(self.part.book, trace)


def reading(book: Book, asked: Asked, llm: LLM, tools: Tools | None = None,
            names: Callable[[Book], NameIndex] | None = None,
            prepare: Callable[[Engine, Book], Prepared] | None = None) -> Reading:
    """``asked`` of ``book``, ready to run on ``llm``: the part read (:func:`part`) and the method's engine with
    ``tools``, with the character names ``names`` gives of the part read (by default those found in it), which ELITE
    searches and every method's grounding check reads; ``prepare`` makes what the engine needs of the book (by
    default made afresh; the app keeps it for every visitor). Raises :class:`~elite_ui.errors.EliteError` on an
    unknown method or a ceiling that is no place in the book."""
    if not isinstance(asked.method, str) or asked.method not in METHODS:
        raise QuestionError(f"the method is one of {', '.join(METHODS)}.")
    method = METHODS[asked.method]
    seen = part(book, asked.ceiling, asked.front)
    if asked.named_part and not (isinstance(asked.ceiling, Ceiling) or asked.about):  # a recorded one holds it
        seen = within(seen, asked.question)
    tools = tools or Tools()
    tools = replace(tools, names=(names or (lambda read: names_for(read, tools.cache_dir)))(seen.book))
    engine = method.engine(llm, asked.chosen(llm), tools)
    return Reading(book, seen, asked, engine, prepare or (lambda engine, opened: engine.prepare(opened)))
