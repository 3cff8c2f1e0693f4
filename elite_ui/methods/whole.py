"""Whole-book mode: when the book (up to the reader's ceiling, the front matter left out) fits the model's context
with room for the answer, the model reads all of it. The book comes first in the prompt, so questions on the same
book reuse it from the model's KV cache. Events: start, retrieval (the whole story as one passage), answer, done.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..book import Book
from ..errors import QuestionError
from ..models import LLM
from . import prompts
from .base import AnswerSettings, Engine, Prepared
from .trace import Answer, Event, Kind, Placed, Retrieval


@dataclass(frozen=True)
class WholeSettings(AnswerSettings):
    """Whole-book mode's settings: its answer step's (it reads everything, so it has no budget)."""


PRESETS = {"paper": WholeSettings(), "laptop": WholeSettings(answer_tokens=96)}

OVERHEAD = 120
"""Tokens of instructions, question and options the prompt adds to the book, about."""


def listing(book: Book) -> tuple[list[int], str]:
    """The story's sentences (the front matter left out; only the part a question named, if it did) and the book
    as the model reads it, one labelled sentence a line."""
    ids = list(range(book.story_from, len(book)))
    return ids, "\n".join(prompts.labelled(book, sid) for sid in ids)


def room(llm: LLM, answer_tokens: int) -> int:
    """Tokens of book the model's context holds beside the question and the answer."""
    return llm.n_ctx - answer_tokens - OVERHEAD


def fits(book: Book, llm: LLM, answer_tokens: int = PRESETS["laptop"].answer_tokens) -> int | None:
    """The book's size in tokens when it fits the model's context whole, else None (a cheap estimate first, so a
    novel is not tokenized to find out)."""
    if len(book.text) // 6 > room(llm, answer_tokens):
        return None
    tokens = llm.count_tokens(listing(book)[1])
    return tokens if tokens <= room(llm, answer_tokens) else None


class WholeBook(Engine):
    """Answers from the whole book, when it fits."""

    name = "whole"

    def prepare(self, book: Book) -> Prepared:
        return Prepared(0.0, 0, None)

    def steps(self, book: Book, question: str, options: dict[str, str] | None, *, prepared: Prepared,
              generate: bool = True):
        started = time.perf_counter()
        ids, text = listing(book)
        tokens = self.llm.count_tokens(text)
        if tokens > room(self.llm, self.settings.answer_tokens):
            raise QuestionError(f"the book (up to here) is about {tokens:,} tokens, more than the model's context of "
                                f"{self.llm.n_ctx:,} leaves for it; ask with ELITE instead.")
        placed = [Placed(ids[0], ids[-1], 1.0)] if ids else []
        yield Event(Kind.RETRIEVAL, 1, Retrieval(placed, self.name, round(time.perf_counter() - started, 4)))
        if not generate:
            return Answer("", evidence=ids)
        return (yield from self.answer_from(book, question, options, text, ids, prompt=prompts.reading))
