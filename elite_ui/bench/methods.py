"""The methods the benchmark compares, each filling the same token budget for the same generator: every
answering method of the registry (run up to its chosen evidence, ``generate=False``), and ``vanilla``, the book
itself from its start, cut to the budget. Each reports its preparation time and the bytes it would persist.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..book import Book
from ..errors import EliteError
from ..methods import METHODS, Method, Prepared, Tools
from ..methods.base import choose
from ..methods.parsing import clean_answer
from ..methods.prompts import answer as answer_prompt
from ..models import LLM, Embed, MiniLMEmbedder, Request
from ..reading import Asked, reading
from ..settings import with_overrides


@dataclass
class Retrieved:
    """The context a method hands the generator, and what finding it cost."""

    context: str
    seconds: float
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    evaluated_tokens: int = 0
    """Prompt tokens the model read (not reused from its KV cache)."""
    quotes: list[str] | None = None
    """The sentences the method quotes first as what the book says (None: one that quotes nothing)."""
    extra: dict = field(default_factory=dict)


@dataclass
class Generated:
    prediction: str
    seconds: float
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    evaluated_tokens: int = 0


def fill(llm: LLM, pieces: list[tuple[int, str]], budget: int) -> str:
    """Add pieces in the given order until the token budget is spent, then put them back in book order."""
    kept, spent = [], 0
    for position, text in pieces:
        cost = llm.count_tokens(text)
        if spent + cost > budget:
            continue
        kept.append((position, text))
        spent += cost
    return "\n\n".join(text for _, text in sorted(kept))


class Benched:
    """A registered method as the benchmark runs it: prepared once per book, then asked with ``generate=False``
    and its evidence filled into the budget."""

    def __init__(self, method: Method, llm: LLM, embed: Embed | None = None, settings=None):
        self.method, self.llm = method, llm
        self.embed = embed or MiniLMEmbedder()
        self.settings = settings if settings is not None else method.presets["laptop"]
        self.name = method.name

    def asked(self, question: str, options, budget: int | None = None, ceiling: str = "") -> Asked:
        """``question`` asked with this method's settings, its evidence budget set to ``budget``."""
        limit = self.method.budget
        settings = with_overrides(self.settings, **{limit: budget}) if budget and limit else self.settings
        return Asked(question, ceiling, method=self.method.name, settings=settings, options=options)

    def prepare(self, book: Book) -> Prepared:
        engine = reading(book, self.asked("", None), self.llm, Tools(self.embed)).engine
        for _ in engine.build(book):
            pass
        return engine.prepare(book)

    def retrieve(self, book: Book, prepared: Prepared, question: str, options, budget: int) -> Retrieved:
        return self.run(book, prepared, question, options, budget, generate=False)[0]

    def answer(self, book: Book, prepared: Prepared, question: str, options, budget: int) -> tuple[Retrieved, str]:
        """The method's own answer (a letter for multiple choice), with what finding and writing it cost."""
        return self.run(book, prepared, question, options, budget, generate=True)

    def run(self, book: Book, prepared: Prepared, question: str, options, budget: int,
            generate: bool) -> tuple[Retrieved, str]:
        started = time.perf_counter()
        ready = reading(book, self.asked(question, options, budget), self.llm, Tools(self.embed),
                        prepare=lambda engine, opened: prepared)
        trace = ready.answer(generate=generate)
        context = fill(self.llm, ready.engine.passages(book, trace), budget)
        totals = trace.totals()
        found = Retrieved(context, time.perf_counter() - started, totals.llm_calls, totals.prompt_tokens,
                          totals.completion_tokens, totals.evaluated_tokens,
                          [q.text for q in trace.answer.quotes], self.method.figures(trace))
        return found, (trace.answer.choice or "") if options else trace.answer.text


class Vanilla:
    """The book itself, from its start, cut to the budget (no retrieval at all)."""

    name = "vanilla"

    def __init__(self, llm: LLM, embed: Embed | None = None, settings=None):
        self.llm = llm

    def prepare(self, book: Book) -> Prepared:
        return Prepared()

    def answer(self, book, prepared, question, options, budget) -> tuple[Retrieved, str]:
        raise EliteError("vanilla has no answer of its own; leave out --own-answer.")

    def retrieve(self, book, prepared, question, options, budget) -> Retrieved:
        started = time.perf_counter()
        text = book.text[: budget * 6]
        while text and self.llm.count_tokens(text) > budget:
            text = text[: int(len(text) * 0.9)]
        return Retrieved(text, time.perf_counter() - started)


def benched(name: str, llm: LLM, embed: Embed | None = None, settings=None):
    """The method ``name`` as the benchmark runs it: a registered method, or ``vanilla``."""
    if name == Vanilla.name:
        return Vanilla(llm, embed, settings)
    return Benched(METHODS[name], llm, embed, settings)


def defaults(name: str, preset: str):
    """The settings ``--set`` overrides for method ``name`` (vanilla has none: ELITE's are shown)."""
    return METHODS.get(name, METHODS["elite"]).presets[preset]


NAMES = sorted([*METHODS, Vanilla.name])


def generate(llm: LLM, question: str, options: dict[str, str] | None, context: str, max_tokens: int = 96) -> Generated:
    """The one generator every method answers through: the ELITE answer prompt, greedy; a letter for options."""
    started = time.perf_counter()
    messages = answer_prompt(question, options, context or "(nothing found)")
    result = llm.complete(Request("answer", messages, max_tokens=12 if options else max_tokens))
    prediction = (choose(llm, messages, result.text, options) or "") if options else clean_answer(result.text)
    return Generated(prediction, time.perf_counter() - started, 1, result.prompt_tokens, result.completion_tokens,
                     result.prompt_tokens - result.cached_tokens)
