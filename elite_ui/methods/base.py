"""What every answering method shares: the frame of a question (start, the method's steps, answer, done),
model calls reported as trace events, stopping, question checks, and what a method prepares once per book.

A method subclasses :class:`Engine` and implements :meth:`Engine.steps`, a generator of trace events that returns
the :class:`~elite_ui.methods.trace.Answer`; its settings extend :class:`AnswerSettings`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..book import Book
from ..book.lexicon import words
from ..book.names import NameIndex
from ..errors import Cancelled, EliteError, ModelError, QuestionError
from ..models import LLM, Embed, MiniLMEmbedder, Request
from ..models.capacity import POLL_SECONDS, Share
from ..settings import Checked, flat, setting
from . import prompts
from .grounding import (
    NO,
    UNANSWERED,
    YES,
    Grounding,
    answer_sentences,
    asked_names,
    cited_passage,
    grounded,
    leave_out,
    passage_odds,
    sharing,
    unread,
)
from .lexical import best_sentences, bm25_scores, idf_lucene, matching, targets
from .parsing import (
    clean_answer,
    parse_choice,
    parse_decision,
    parse_sentence_ids,
    whole_sentences,
    without_labels,
    written_after_copy,
)
from .trace import Answer, Citation, Delta, Done, Event, Kind, LLMCall, Queue, Quoted, Start, Trace


@dataclass(frozen=True)
class AnswerSettings(Checked):
    """What every method's answer step needs, the settings every method's own settings extend: its length, the
    sentences quoted first, the longest question, the seed."""

    answer_tokens: int = setting(160, "longest free-form answer, in tokens", low=16, high=2048)
    part_recaps: bool = setting(False, "a question that asks only what happens in the part of the book it names "
                                      "(\"What happens in chapter 3?\") is answered in at most four short "
                                      "sentences in the order it happens, each citing its sentence (off: in one "
                                      "short sentence, as any question)", panel=True)
    quotes: int = setting(3, "evidence sentences quoted before the answer (\"What the book says\"), best first",
                          low=0, high=10)
    max_question_chars: int = setting(2000, "longest question, in characters", low=1, high=100_000)
    grounding: bool = setting(True, "check each sentence of a written answer against the sentences it cites (its "
                                    "names, numbers and most of its words there); under a spoiler ceiling one "
                                    "they do not support is left out, else marked", panel=True)
    on_topic: float = setting(0.0, "with the grounding check, an answer sentence none of whose cited sentences "
                                   "comes this near the question (cosine, MiniLM) is left out: it was read into a "
                                   "passage on something else (0: off; 0.35 says 'does not say' more often beyond "
                                   "a ceiling and loses some right answers: docs/benchmark.md)", low=0.0, high=1.0)
    passage_check: bool = setting(False, "ask the model, of each sentence the grounding check keeps, whether the "
                                         "passage it cites (a sentence either side) answers the question, one short "
                                         "call a sentence; under a spoiler ceiling one whose yes is not passage_odds "
                                         "likelier than its no is left out, else marked (on in capable: "
                                         "docs/benchmark.md, \"The passage check\")", panel=True)
    passage_odds: float = setting(1.0, "with passage_check, the log-odds of yes over no a cited passage needs (chosen "
                                       "on the tune novels with Qwen2.5-Coder-1.5B)", low=-10.0, high=10.0)
    seed: int = setting(0, "seed of the model's sampling (and of ELITE's noise levels and perturbations)", low=0)
    abstain: bool = setting(False, "tell the model it may reply that the passages do not say (a small model then "
                                   "often says so of passages that do; the grounding check leaves out what they "
                                   "do not support either way)", panel=True)
    quoted: bool = setting(False, "ask for the answer in the passage's own words, copied from it, rather than in "
                                  "the model's own (a small model's own words often restate the question)")
    quote_first: bool = setting(False, "the answer first copies the passages' sentence that decides between the "
                                       "options, or answers the question, then gives the letter or writes the "
                                       "answer (cited by that sentence)", panel=True)
    passage_answers: int = setting(0, "a written answer first reads each of this many of the evidence's passages "
                                      "alone, those holding most of the question's rarer words first, and gives the "
                                      "first answer the grounding check keeps whole; failing that, it reads all the "
                                      "evidence (0: all the evidence at once)", low=0, high=10)

    @property
    def choice_tokens(self) -> int:
        """The longest multiple-choice reply: a letter, or with ``quote_first`` a sentence and a letter."""
        return 160 if self.quote_first else 12


PROMPT_SLACK = 32
"""Tokens left free in a full context beside the evidence (the chat template's own markers)."""
PASSAGE_TOKENS = 320
"""The most tokens of evidence one passage read alone holds (``passage_answers``): a longer run of sentences is
read in pieces."""
QUOTE_WORDS = 5
"""A sentence of fewer words is quoted after longer ones: BM25 favours it, and it rarely says what was asked."""
NO_ANSWER = "I could not find the answer in the book."
"""A written answer when the model wrote nothing usable."""
PRIVATE = ("(not shown: read up to a spoiler ceiling, the model's imagining may be its memory of the novel beyond "
           "it; its words the book up to there writes are searched)")
"""What the trace keeps of a private reply (:meth:`Engine.call`) under a spoiler ceiling."""


@dataclass
class Prepared:
    """What a method builds once per book before its questions (a chunk index, a loaded marker index), what that
    took, and the bytes it would persist."""

    seconds: float = 0.0
    bytes: int = 0
    state: object = None


class Engine:
    """An answering method: a model, settings, an embedder and a cancel flag the UI may set at any time."""

    name = ""
    """The method's name in the registry and in the trace's ``start`` event."""
    share: Share | None = None
    """The reader's share of a model that serves many (the app's): each call waits its turn. None: the model is
    this engine's alone."""
    reading: Book | None = None
    """The book the question at hand is asked of (cut at the reader's ceiling, perhaps)."""
    asked: tuple[str, dict[str, str] | None] = ("", None)
    """The question at hand and its options."""
    names: NameIndex | None = None
    """The book's character names (of the part read): the grounding check takes one character's names for one
    (an answer's "Basil Hallward" rests on a sentence's "Hallward")."""

    def __init__(self, llm: LLM, settings, *, embed: Embed | None = None, cancel: threading.Event | None = None):
        self.llm = llm
        self.settings = settings
        self.embed = embed or MiniLMEmbedder()
        self.cancel = cancel or threading.Event()

    def build(self, book: Book, through: int | None = None) -> Iterator[Event]:
        """Slow work done once per book and model before any question (M-RAG's extraction), reported as events;
        resumable; ``through`` a sentence (a reader's spoiler ceiling), what questions of the book up to it need
        first. Most methods need none."""
        return iter(())

    def prepared_key(self, book: Book) -> Hashable | None:
        """What :meth:`prepare`'s result depends on, for a caller that keeps it (None: nothing worth keeping)."""
        return None

    def prepare(self, book: Book) -> Prepared:
        """What the method needs of ``book`` before a question (its index, built or loaded)."""
        return Prepared()

    pins_passages = False
    """Whether a question may be asked about a passage (``about``): its sentences pinned as evidence."""

    def ask(self, book: Book, question: str, options: dict[str, str] | None = None, *,
            prepared: Prepared | None = None, generate: bool = True, about: list[int] | None = None,
            **kwargs) -> Iterator[Event]:
        """A question as trace events: ``start``, the method's :meth:`steps`, ``answer`` and ``done``.
        ``generate=False`` stops once the evidence is chosen (the answer then holds only the evidence: the
        benchmark gives every method's context to one shared generator). ``about``: the sentences of a passage
        the question is about, pinned as evidence by a method that can (:attr:`pins_passages`)."""
        question, options = self.normalised(question, options)
        about = sorted({sid for sid in about or [] if 0 <= sid < len(book)})
        if about and not self.pins_passages:
            raise QuestionError(f"a question about a passage is answered by ELITE, not by {self.name}.")
        if about:
            kwargs["about"] = about
        started = time.perf_counter()
        self.reading, self.asked = book, (prompts.about(question, book, about), options)
        try:
            prepared = prepared if prepared is not None else self.prepare(book)
            yield Event(Kind.START, 0, Start(question=question, options=options, settings=flat(self.settings),
                                             book=book.summary(), model=self.llm.name, method=self.name,
                                             ceiling=book.ceiling, index=self.index_card(prepared),
                                             about=about))
            answer = yield from self.steps(book, question, options, prepared=prepared, generate=generate, **kwargs)
            if not answer.quotes and answer.count is None:
                answer.quotes = self.quotes(book, question, options, answer.evidence)
        finally:
            if self.share is not None:
                self.share.finish()
        yield Event(Kind.ANSWER, 0, answer)
        yield Event(Kind.DONE, 0, Done(round(time.perf_counter() - started, 3)))

    def steps(self, book: Book, question: str, options: dict[str, str] | None, *, prepared: Prepared,
              generate: bool = True, **kwargs):
        """The method's own stages, as events; returns the answer."""
        raise NotImplementedError

    def quotes(self, book: Book, question: str, options: dict[str, str] | None, evidence: list[int]) -> list[Citation]:
        """The evidence's best sentences for the question and its options (BM25), shown first as what the book
        says: the same rule for every method, by what the reader asked, a chapter's heading never ("THE
        SISTERS" says nothing of a sister), and a sentence that holds more of the question than whom it asks
        about before one that only names them ("“Eveline!”" for "Whom does Eveline plan to run away with?") or is
        shorter than :data:`QUOTE_WORDS` ("‘Live for others!’" for "Where does Badger live?"). A count quotes its
        first occurrences instead."""
        found = targets(book, [question, *(options or {}).values()])
        scores = bm25_scores(book, found) if found else np.zeros(len(book))
        about = {f for name in asked_names(book, question) for f in book.forms(name.lower())}
        told = [sid for sid in evidence if sid not in book.headings]
        says = matching([t for t in found if not set(t.forms) & about], len(book))
        for sid in told:
            says[sid] &= len(book.sentence(sid).text.split()) >= QUOTE_WORDS
        return [Citation(sid, book.sentence(sid).citation, book.sentence(sid).text)
                for sid in best_sentences(book, told, scores, self.settings.quotes, first=says)]

    def index_card(self, prepared: Prepared) -> dict | None:
        """Figures on the prepared index the trace opens with (M-RAG's card), if any."""
        return None

    def passages(self, book: Book, trace: Trace) -> list[tuple[int, str]]:
        """The evidence of a finished ``generate=False`` run as (position, text) pieces, best first: what the
        benchmark places before the shared generator. By default the runs of consecutive evidence sentences."""
        return [(run[0], book.span_text(run[0], run[-1])) for run in runs(trace.answer.evidence)]

    def run(self, book: Book, question: str, options: dict[str, str] | None = None,
            on_event: Callable[[Event], None] | None = None, **kwargs) -> Trace:
        """:meth:`ask` collected into a :class:`Trace`, each event also passed to ``on_event``."""
        trace = Trace(question)
        for event in self.ask(book, question, options, **kwargs):
            trace.add(event)
            if on_event:
                on_event(event)
        return trace

    def normalised(self, question: str, options: dict[str, str] | None) -> tuple[str, dict[str, str] | None]:
        """The question with its spacing collapsed and the non-empty options under upper-case letters, checked
        (:meth:`check_question`) before any work is done."""
        question = " ".join(question.split())
        options = {k.strip().upper(): v.strip() for k, v in (options or {}).items() if v and v.strip()} or None
        self.check_question(question)
        return question, options

    def check_question(self, question: str) -> None:
        if not question or not words(question):
            raise QuestionError("the question is empty; type a question about the book.")
        if len(question) > self.settings.max_question_chars:
            raise QuestionError(f"the question is {len(question)} characters long; the limit is "
                                f"{self.settings.max_question_chars}.")
        if self.llm.count_tokens(question) > self.llm.n_ctx // 4:
            raise QuestionError("the question is too long for the model's context; shorten it.")

    def room(self, wanted: int) -> int:
        """The evidence tokens the answer's prompt may hold: ``wanted`` (a budget setting; 0: as many as fit), at
        most what the model's context holds beside the prompt's own words, the question asked and the answer."""
        own = self.llm.count_messages(prompts.answer(*self.asked, "", self.settings, book=self.reading))
        fits = max(self.llm.n_ctx - own - self.settings.answer_tokens - PROMPT_SLACK, 0)
        return min(wanted, fits) if wanted else fits

    def cost(self, book: Book, sid: int) -> int:
        """The tokens sentence ``sid`` takes in a prompt: its label, its text and the line break."""
        return self.llm.count_tokens(prompts.labelled(book, sid)) + 1

    def fit(self, text: str, tokens: int) -> str:
        """``text`` cut to about ``tokens`` tokens (a chunk of giant sentences must still fit the context)."""
        cost = self.llm.count_tokens(text)
        return text if cost <= tokens else text[: len(text) * tokens // cost]

    def call(self, purpose: str, messages: list[dict[str, str]], iteration: int, *, max_tokens: int = 96,
             temperature: float = 0.0, seed: int | None = None, stream: bool = False, full: bool = False,
             private: bool = False):
        """One LLM call, yielded as an ``llm_call`` event once it has waited its turn for a shared model (``queue``
        events meanwhile; long work preempted by a short question waits and calls again); returns the reply text
        (with ``full``, the whole :class:`~elite_ui.models.base.Completion`). With ``stream``, the reply is also
        yielded piece by piece as ``answer_delta`` events while it is written. ``private``: under a spoiler ceiling
        the trace keeps :data:`PRIVATE` for the reply (the model's imagining of a passage, which may be its memory
        of the novel beyond the ceiling)."""
        if self.cancel.is_set():
            raise Cancelled("stopped.")
        while True:
            with (yield from self.turn(iteration)) as place:
                # a reader's streamed answer is never preempted (its pieces are on their screen); long work's is
                preemptible = place is not None and (not stream or self.share.background)
                stop = place.stop_flag(self.cancel) if preemptible else self.cancel
                request = Request(purpose, messages, max_tokens=max_tokens, temperature=temperature,
                                  seed=self.settings.seed if seed is None else seed, cancel=stop,
                                  outlived=place.outlived if place is not None else None)
                try:
                    if stream:
                        result = yield from self.relay(self.llm.stream(request), iteration)
                    else:
                        result = self.llm.complete(request)
                except Cancelled:
                    if not preemptible or not place.gave_way(self.cancel):
                        raise
                    continue  # preempted by a reader's short question: wait for the model again
                except EliteError:
                    raise
                except Exception as exc:  # a backend's own failure becomes one sentence for the user
                    raise ModelError(f"the model failed while {purpose.replace('_', ' ')}: {exc}") from exc
            break
        yield Event(Kind.LLM_CALL, iteration, LLMCall(
            purpose, as_read(messages), PRIVATE if private and self.cut() else self.unread(result.text),
            result.prompt_tokens, result.cached_tokens,
            result.completion_tokens, round(result.seconds, 4), result.finish_reason,
            round(place.waited, 3) if place else 0.0))
        return result if full else result.text

    def cut(self) -> bool:
        """Whether the book is read up to a spoiler ceiling."""
        return self.reading is not None and self.reading.guarded

    def unread(self, text: str) -> str:
        """What the model wrote, as the trace may keep it: under a spoiler ceiling (with the grounding check on),
        no name the book up to it does not write (:func:`.grounding.unread`)."""
        book = self.reading
        return unread(book, text) if book is not None and self.settings.grounding else text

    def turn(self, iteration: int):
        """Wait for the shared model's slot (saying, as ``queue`` events, how many calls are served first);
        returns the place to hold for one call, or a null context when the model is this engine's alone."""
        if self.share is None:
            return nullcontext()
        place, said = self.share.line_up(), None
        try:
            while not place.wait(POLL_SECONDS if said is not None else 0.05):
                if self.cancel.is_set():
                    raise Cancelled("stopped.")
                ahead = place.ahead
                if ahead != said:
                    said = ahead
                    capacity = self.share.capacity
                    yield Event(Kind.QUEUE, iteration, Queue(ahead, capacity.busy, capacity.slots))
        except BaseException:
            place.leave()
            raise
        return place

    def likeliest(self, messages: list[dict[str, str]], choices, iteration: int):
        """The model's log-probabilities of each single-token choice next (None if it cannot say), its turn
        waited for like any call."""
        with (yield from self.turn(iteration)):
            return self.llm.choice_logprobs(messages, choices)

    def written_answer(self, book: Book, question: str, messages: list[dict[str, str]], evidence: list[int],
                       iteration: int, stream: bool = True):
        """A free-form answer, streamed while it is written, cut where the model loops, ending with a whole
        sentence (a reply stopped by its length or its loop ends at its last full sentence), with citations, its
        sentences checked against them (:mod:`.grounding`). Under a spoiler ceiling a checked answer is not
        streamed, and the call's record keeps only what is shown: what the model wrote beyond what the book up to
        the ceiling supports reaches no page, trace or export. Not ``stream``: nothing is streamed."""
        guarded = (self.settings.grounding and book.guarded) or not stream
        calling = self.call("answer", messages, iteration, max_tokens=self.settings.answer_tokens,
                            stream=not guarded, full=True)
        held: list[Event] = []

        def hold(event: Event) -> bool:
            held.append(event)
            return False

        result = yield from (tapped(calling, hold) if guarded else calling)
        text = clean_answer(result.text)
        cut = result.finish_reason == "length" or text != " ".join(result.text.split())
        text = written_after_copy(text) if self.settings.quote_first else text
        text = whole_sentences(text) if cut else text
        text = without_labels(text, set(evidence)) or NO_ANSWER
        if prompts.NOT_SAID.lower().rstrip(".") in text.lower():  # the model says the passages hold no answer
            answer = Answer(not_said(book.ceiling), evidence=evidence)
        elif not (self.settings.grounding and (evidence or book.guarded)):  # under a ceiling, no evidence holds none
            answer = Answer(text, cite(book, text, evidence), evidence=evidence)
        else:
            kept, found = grounded(book, text, question, evidence, self.embed, self.names,
                                   topic=self.settings.on_topic)
            if self.settings.passage_check and kept:  # its calls recorded after the answer's
                kept = yield from tapped(self.passage_checked(book, self.asked[0], kept, found, iteration), hold)
            answer = checked_answer(book, text, kept, found, evidence)
        for event in held:
            if event.data.purpose == "answer" and answer.left_out:
                event.data.output = answer.text
            yield event
        return answer

    def passage_checked(self, book: Book, question: str, kept: str, found: Grounding, iteration: int):
        """``kept`` (the sentences the grounding check kept) less those whose cited passage the model, asked
        (``passage_check``), does not find answers the question, each call recorded in the trace (its reply: yes
        or no, with the log-odds of yes); a model that cannot say, or a passage longer than its context, keeps
        them."""
        out = []
        for sentence in answer_sentences(kept):
            messages = prompts.answers_it(cited_passage(book, sentence), question)
            began, tokens = time.monotonic(), self.llm.count_messages(messages)
            fits = tokens < self.llm.n_ctx
            odds = passage_odds((yield from self.likeliest(messages, (*YES, *NO), iteration))) if fits else None
            answers = odds is None or odds >= self.settings.passage_odds
            yield Event(Kind.LLM_CALL, iteration, LLMCall(
                "passage_check", as_read(messages),
                "cannot say" if odds is None else f"{'yes' if answers else 'no'} (log-odds of yes {odds:+.2f})",
                tokens, 0, 1, round(time.monotonic() - began, 4), "logprobs"))
            if answers:
                out.append(sentence)
            else:
                leave_out(found, sentence, [UNANSWERED])
        return " ".join(out)

    def answer_from(self, book: Book, question: str, options: dict[str, str] | None, context: str,
                    evidence: list[int], iteration: int = 1, prompt=None):
        """One answering call on ``context`` (put into ``prompt``, else :func:`.prompts.answer`): the chosen option
        for a multiple-choice question, else a written answer with its citations; what the book says (its quotes)
        is yielded first."""
        messages = (prompt or partial(prompts.answer, book=book))(question, options, context or "(nothing found)",
                                                                  self.settings)
        quotes = self.quotes(book, question, options, evidence)
        yield Event(Kind.QUOTES, iteration, Quoted(quotes))
        answer = yield from self.chosen_or_written(book, question, options, messages, evidence, iteration)
        answer.quotes = quotes
        return answer

    def chosen_or_written(self, book: Book, question: str, options: dict[str, str] | None, messages: list[dict],
                          evidence: list[int], iteration: int):
        """The chosen option for a multiple-choice question, else a written answer with its citations."""
        if options:
            reply = yield from self.call("answer", messages, iteration, max_tokens=self.settings.choice_tokens)
            choice = parse_decision(reply, options, self.settings.quote_first)
            if choice is None:
                choice = likeliest(options, (yield from self.likeliest(messages, options, iteration)))
            return chosen_answer(book, options, choice, evidence, reply if self.settings.quote_first else "")
        return (yield from self.answer_written(book, question, messages, evidence, iteration))

    def answer_written(self, book: Book, question: str, messages: list[dict[str, str]], evidence: list[int],
                       iteration: int):
        """A written answer from all the evidence (``messages``); with ``passage_answers``, first from the best
        passages, each read alone (:func:`best_passages`): the first answer the grounding check keeps whole is given,
        cited in its passage (a small model reads one passage well and loses the answer among several)."""
        pieces = best_passages(book, question, evidence, lambda sid: self.cost(book, sid), PASSAGE_TOKENS)
        for ids in pieces[: self.settings.passage_answers] if len(pieces) > 1 else []:  # one: it is all the evidence
            asked = prompts.answer(self.asked[0], None, "\n".join(prompts.labelled(book, sid) for sid in ids),
                                   self.settings, book=book)
            answer = yield from self.written_answer(book, question, asked, ids, iteration, stream=False)
            if answer.text not in (NO_ANSWER, not_said(book.ceiling)) and not (answer.left_out or answer.unsupported):
                answer.evidence = evidence
                return answer
        return (yield from self.written_answer(book, question, messages, evidence, iteration))

    def relay(self, pieces, iteration: int):
        """Pass a backend's stream on as ``answer_delta`` events, stopping early if the user stops."""
        while True:
            try:
                piece = next(pieces)
            except StopIteration as finished:
                return finished.value
            if self.cancel.is_set():
                pieces.close()
                raise Cancelled("stopped.")
            yield Event(Kind.ANSWER_DELTA, iteration, Delta(piece))


def as_read(messages: list[dict[str, str]]) -> str:
    """A call's messages as the trace shows its prompt."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)


def tapped(events, tap: Callable[[Event], bool]):
    """The events of ``events`` (an engine step), each ``llm_call`` record shown to ``tap`` first, which says
    whether it passes on now (a record held back is the caller's to yield); returns what the step returns."""
    while True:
        try:
            event = next(events)
        except StopIteration as finished:
            return finished.value
        if event.kind != Kind.LLM_CALL or tap(event):
            yield event


def runs(ids: list[int]) -> list[list[int]]:
    """``ids`` (in order) as runs of consecutive sentences."""
    out: list[list[int]] = []
    for sid in ids:
        if out and sid == out[-1][-1] + 1:
            out[-1].append(sid)
        else:
            out.append([sid])
    return out


def best_passages(book: Book, question: str, evidence: list[int], cost: Callable[[int], int],
                  most: int) -> list[list[int]]:
    """The evidence's passages (its runs of consecutive sentences, a run costing more than ``most`` tokens cut into
    pieces that do not), those that hold the most of the question's words first, each word counting its BM25 IDF
    (a rare name outweighs a common word), then in book order."""
    pieces: list[list[int]] = []
    for run in runs(sorted(evidence)):
        spent = most + 1
        for sid in run:
            spent += cost(sid)
            if spent > most:
                pieces.append([])
                spent = cost(sid)
            pieces[-1].append(sid)
    found, n = targets(book, [question]), len(book)

    def held(ids: list[int]) -> float:
        return sum(idf_lucene(t.df, n) for t in found if np.isin(t.sentences, ids).any())
    return sorted(pieces, key=held, reverse=True)


def checked_answer(book: Book, text: str, kept: str, found: Grounding, evidence: list[int]) -> Answer:
    """The answer after the grounding check: under a spoiler ceiling the sentences the evidence does not support
    are left out (a model that knows the novel may say what only a later chapter tells), and an answer left with
    none says so; without one they stay, marked."""
    ceiling, text = book.ceiling, found.text or text
    if not found.left_out:
        return Answer(text, cite(book, text, evidence), evidence=evidence, checked=found.sentences,
                      recited=found.recited, pointed=found.pointed)
    unanswered = sum(missing == [UNANSWERED] for missing in found.missing)
    if not book.guarded:
        return Answer(text, cite(book, text, evidence), evidence=evidence, checked=found.sentences,
                      unsupported=found.left_out, recited=found.recited, pointed=found.pointed, unanswered=unanswered)
    shown = kept or not_said(ceiling)
    return Answer(shown, cite(book, kept, evidence) if kept else [], evidence=evidence, checked=found.sentences,
                  left_out=len(found.left_out), recited=found.recited, pointed=found.pointed, unanswered=unanswered)


def not_said(ceiling) -> str:
    """The answer when the book up to the reader's ``ceiling`` (or the part of it the question named, or the
    passages found in the whole book) holds none, its closest sentences quoted with it."""
    if ceiling and ceiling.within:
        where = f"Not found: {ceiling.within}"
    elif ceiling:
        where = f"Not found so far: the book up to {ceiling.label or 'your ceiling'}"
    else:
        where = "The passages found in the book"
    return f"{where} does not say (its sentences closest to the question are quoted)."


def choose(llm: LLM, messages: list[dict[str, str]], reply: str, options: dict[str, str]) -> str | None:
    """The option a reply picks; failing that, the letter the model finds likeliest after ``messages``."""
    choice = parse_choice(reply, options)
    return choice if choice is not None else likeliest(options, llm.choice_logprobs(messages, options))


def likeliest(options: dict[str, str], logprobs: dict[str, float] | None) -> str | None:
    """The option with the highest log-probability, if the model could say."""
    return max(logprobs, key=logprobs.get) if logprobs else None


def chosen_answer(book: Book, options: dict[str, str], choice: str | None, evidence: list[int], deciding: str = "",
                  **extra) -> Answer:
    """The answer naming the chosen option (or saying none was readable), cited by the sentence ``deciding`` (the
    model's copy of it, ``quote_first``) labels, else by the option's words and that copy's."""
    text = f"({choice}) {options[choice]}" if choice else "The model gave no readable choice."
    cited = cite(book, f"{deciding} {options.get(choice, '')}".strip(), evidence)
    return Answer(text, cited, choice=choice, evidence=evidence, **extra)


def cite(book: Book, text: str, evidence: list[int]) -> list[Citation]:
    """The evidence sentences an answer cites as [S123]; failing that, those sharing most content words with it."""
    allowed = set(evidence)
    cited = [sid for sid in parse_sentence_ids(text) if sid in allowed]
    automatic = not cited
    if automatic and evidence:
        cited = [sid for overlap, sid in sharing(book, text, evidence)[:2] if overlap > 0] or [evidence[0]]
    return [Citation(sid, book.sentence(sid).citation, book.sentence(sid).text, automatic) for sid in cited]
