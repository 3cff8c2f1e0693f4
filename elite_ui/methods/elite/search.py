"""Where an ELITE search stands: the state the loop advances one iteration at a time (``loop.Elite.explore``), and
that an edited search rebuilds from an earlier run (``edit.resume``), in the manner of an agent's step memory."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...book import Book
from .. import prompts
from ..trace import Chunk, Hit, Term, Verdict


@dataclass
class Search:
    """What is searched (the book as read, the question, its options) and how far the search got: the iteration,
    its new terms, every term tried, the passages found (by their span), the sentences retrieved (all, and this
    iteration's hits), and the judge's last verdict."""

    book: Book
    question: str
    options: dict[str, str] | None
    iteration: int = 1
    terms: list[Term] = field(default_factory=list)
    """The iteration's new terms."""
    tried: list[Term] = field(default_factory=list)
    """Every term of the iterations so far."""
    chunks: dict[tuple[int, int], Chunk] = field(default_factory=dict)
    retrieved: set[int] = field(default_factory=set)
    hits: list[Hit] = field(default_factory=list)
    """The iteration's retrieved sentences."""
    verdict: Verdict | None = None
    about: list[int] = field(default_factory=list)
    """The sentences of the passage the reader asked the question about (none: the question is about the book)."""

    @property
    def asked(self) -> str:
        """The question as the model reads it and the search ranks by: with the passage it is about, quoted."""
        return prompts.about(self.question, self.book, self.about)

    @property
    def said(self) -> str:
        """The words of :attr:`asked` without its mention's own ("question", "passage", the labels): what the search
        looks for beside the model's terms, and what a model's term may repeat of its prompt."""
        return " ".join([self.question, prompts.about_text(self.book, self.about)]) if self.about else self.question

    def seen(self) -> set[str]:
        """The terms tried so far and this iteration's, as case-folded text."""
        return {t.text.casefold() for t in self.tried + self.terms}

    def evidence(self) -> list[int]:
        """Every sentence of the passages found, in book order."""
        return sorted({sid for c in self.chunks.values() for sid in range(c.first, c.last + 1)})
