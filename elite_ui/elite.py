"""The ELITE loop (section 4 of the paper): generate terms, collect, weigh importance, judge, explore, organise.

:meth:`Elite.ask` is a generator of trace :class:`~elite_ui.trace.Event` objects, so a UI can show each stage as
it happens; :meth:`Elite.run` collects them into a :class:`~elite_ui.trace.Trace`.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from copy import deepcopy
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from . import prompts
from .counting import QUOTED, count, fallback_phrase, is_counting, mention_order
from .documents import Book
from .engine import Engine, chosen_answer
from .importance import Embed, kl_divergence, noise_levels, perturb, similarity_importance
from .lexicon import NAME
from .llm import LLM
from .names import NameIndex
from .parsing import parse_choice, parse_sentence_ids, parse_terms, parse_verdict
from .retrieval import collect, widen
from .trace import Answer, Chunk, Citation, Event, Hit, Sample, Term, Verdict


@dataclass(frozen=True)
class Settings:
    """The loop's settings. The first six carry the paper's names and defaults."""

    recall_index: int = 25
    """Sentences kept per collection step (top K by overlap)."""
    neighbor_num: int = 2
    """Sentences added on each side of a hit to make its chunk."""
    deep_search_index: int = 5
    """How many of an iteration's chunks depth-wise exploration reads."""
    deep_search_num: int = 10
    """At most this many depth-wise terms per iteration."""
    voter_num: int = 10
    """Votes cast for a multiple-choice answer; the majority wins."""
    iter_max: int = 5
    """Iterations of collect-judge-explore at most."""
    max_terms: int = 10
    """Terms asked for at the start and per breadth-wise expansion."""
    question_words: bool = True
    """Also search for the question's own content words, beside the model's terms."""
    importance_samples: int = 3
    """Noise levels λ sampled per chunk for its importance (0 turns importance off)."""
    importance_chunks: int = 0
    """Score only this many new chunks per iteration, best overlap first (0: all)."""
    judge_default: bool = False
    """Verdict taken when the judge's reply says neither yes nor no (False: keep searching)."""
    name_variants: bool = True
    """Add the other variants of a character's name (the book's name index) when a term names the character."""
    trim: bool = True
    """Let the model drop evidence it finds irrelevant before answering (the paper's organising step)."""
    evidence_tokens: int = 2000
    """Token budget for the evidence shown to the judge and to the answer."""
    answer_tokens: int = 160
    """Longest free-form answer, in tokens."""
    max_question_chars: int = 2000
    seed: int = 0


@dataclass
class Edit:
    """A reader's change to an earlier run of the same question: search again from ``iteration`` with ``terms``
    as that iteration's terms (the earlier iterations' terms and evidence are kept), with the sentences
    ``pinned`` as evidence that is ranked first and never trimmed."""

    events: list[Event]
    """The earlier run's events."""
    iteration: int
    terms: list[str]
    pinned: list[int] = field(default_factory=list)
    run: int = 1
    """Which run of the question it edits (for the trace)."""


KEPT = {"terms", "collection", "chunks", "importance", "judge", "exploration", "warning"}
"""The kinds of an earlier run's events an edited run starts from (its calls and answer are not carried over)."""

PRESETS = {
    "paper": Settings(),
    "laptop": Settings(
        recall_index=8, neighbor_num=1, deep_search_index=2, deep_search_num=5, voter_num=3, iter_max=2,
        max_terms=6, importance_samples=1, importance_chunks=3, trim=False, evidence_tokens=800, answer_tokens=96,
    ),
}
"""``paper``: the paper's settings. ``laptop``: about half a minute per question with the embedded model on a CPU;
trimming is off because SmolLM2-135M's picks dropped most of the evidence (FairytaleQA evidence recall 0.26 with
trimming, 0.66 without, 0.70 with the question's words too; see the README's benchmark)."""


class Elite(Engine):
    """Answers questions about a book with the ELITE method, reporting every stage as an event."""

    def __init__(self, llm: LLM, settings: Settings | None = None, *, embed: Embed | None = None,
                 cancel: threading.Event | None = None, names: NameIndex | None = None):
        super().__init__(llm, settings or Settings(), embed=embed, cancel=cancel)
        self.names = names

    def ask(self, book: Book, question: str, options: dict[str, str] | None = None, *,
            generate: bool = True, edit: Edit | None = None) -> Iterator[Event]:
        """Every stage as events. ``generate=False`` stops after trimming: the answer event then holds only the
        evidence (the benchmark gives every strategy's context to one shared generator). ``edit``: search again
        from an iteration of an earlier run, as the reader changed it."""
        question, options = self.normalised(question, options)
        started = time.perf_counter()
        s = self.settings
        yield Event("start", 0, {"question": question, "options": options, "settings": asdict(s),
                                 "book": book.summary(), "model": self.llm.name, "strategy": "elite",
                                 "ceiling": book.stats.get("ceiling")})
        if is_counting(question) and not edit:
            answer = yield from self.counting(book, question, options)
        else:
            answer = yield from self.explore(book, question, options, generate, edit)
        yield Event("answer", 0, answer)
        yield Event("done", 0, {"seconds": round(time.perf_counter() - started, 3)})

    def counting(self, book: Book, question: str, options: dict[str, str] | None):
        reply = yield from self.call("count_phrase", prompts.count_phrase(question), 1, max_tokens=16)
        phrase, source = counting_phrase(question, parse_terms(reply, 1), book)
        result = count(book, phrase, source)
        yield Event("count", 1, result)
        where = list(dict.fromkeys(o.sentence_id for o in result.occurrences))
        order = mention_order(question)
        if order and where:
            sid = where[0] if order == "first" else where[-1]
            place = book.sentence(sid)
            text = (f'"{result.phrase}" is {order} mentioned in chapter {place.chapter + 1} ({place.chapter_title}), '
                    f'[S{sid}]: "{" ".join(place.text.split())}" ({result.total} mentions in all).')
            return Answer(text, [Citation(sid, place.citation, place.text)], count=result, evidence=[sid])
        shown = ", ".join(f"[S{sid}]" for sid in where[:20])
        more = f" and {len(where) - 20} more sentences" if len(where) > 20 else ""
        text = (f'"{result.phrase}" (counting the forms {", ".join(result.forms)}) occurs {result.total} times'
                + (f": {shown}{more}." if result.total else "."))
        choice = closest_number_option(result.total, options) if options else None
        citations = [Citation(sid, book.sentence(sid).citation, book.sentence(sid).text) for sid in where[:20]]
        return Answer(text, citations, choice=choice, count=result, evidence=where)

    def explore(self, book: Book, question: str, options: dict[str, str] | None, generate: bool = True,
                edit: Edit | None = None):
        s = self.settings
        rng = np.random.default_rng(s.seed)
        if edit:
            start, terms, all_terms, chunks, retrieved = yield from self.resume(book, edit)
        else:
            terms = yield from self.first_terms(book, question, options)
            start, all_terms, chunks, retrieved = 1, [], {}, set()
        last = max(s.iter_max, start)
        for iteration in range(start, last + 1):
            if not (edit and iteration == start):
                terms += self.name_variants(book, terms, {t.text.casefold() for t in all_terms + terms})
            all_terms += terms
            yield Event("terms", iteration, {"new": terms, "all": list(all_terms)})
            hits = collect(book, [t.text for t in all_terms if t.in_book], s.recall_index,
                           required=[t.text for t in terms if t.in_book], exclude=retrieved)
            retrieved.update(h.sentence_id for h in hits)
            yield Event("collection", iteration, {"hits": hits})
            found = [c for c in widen(book, hits, s.neighbor_num, iteration) if c.key not in chunks]
            if edit and iteration == start:
                pinned = self.pinned(book, edit.pinned, iteration)
                found = pinned + [c for c in found if not any(p.first <= c.first and c.last <= p.last
                                                                 for p in pinned)]
            chunks.update((c.key, c) for c in found)
            yield Event("chunks", iteration, {"chunks": found})
            yield from self.weigh(found, question, options, iteration, rng)
            if chunks:
                evidence = self.evidence_text(ranked(chunks.values()))
                reply = yield from self.call("judge", prompts.judge(question, options, evidence), iteration,
                                             max_tokens=48)
                sufficient, reason = parse_verdict(reply)
                verdict = Verdict(s.judge_default if sufficient is None else sufficient, reason,
                                  sufficient is not None)
            else:
                verdict = Verdict(False, "nothing was found for these terms", True)
            yield Event("judge", iteration, verdict)
            if verdict.sufficient or iteration == last:
                break
            tried = {t.text.casefold() for t in all_terms}
            breadth = yield from self.breadth(book, question, all_terms, hits, tried, iteration)
            tried |= {t.text.casefold() for t in breadth}
            depth = yield from self.depth(book, question, found, all_terms + breadth, tried, iteration)
            terms = breadth + depth
            yield Event("exploration", iteration, {"breadth": breadth, "depth": depth})
            if not any(t.in_book for t in terms):
                yield Event("warning", iteration, {"message": "no new search terms were found; stopping."})
                break
        ceiling = book.stats.get("ceiling")
        if ceiling and generate and not options and not verdict.sufficient:
            return Answer(f"Not found so far: the book up to {ceiling['label']} does not say.",
                          evidence=sorted({sid for c in chunks.values() for sid in range(c.first, c.last + 1)}))
        answer = yield from self.organise(book, question, options, ranked(chunks.values()), iteration, generate)
        return answer

    def first_terms(self, book: Book, question: str, options: dict[str, str] | None):
        """The model's search terms for the question, with the question's own words (or only them, announced,
        when the model gave nothing usable)."""
        s = self.settings
        reply = yield from self.call("terms", prompts.terms(question, options, s.max_terms), 1)
        terms = self.new_terms(book, parse_terms(reply, s.max_terms), "question", set())
        tried = {t.text.casefold() for t in terms} | {w for t in terms for w in t.words}
        if not any(t.in_book for t in terms):
            terms += self.new_terms(book, book.lexicon.content_words(question), "fallback", tried, by="lexical")
            yield Event("warning", 1, {"message": "the model gave no usable search terms; "
                                                  "searching for the question's own words instead."})
        elif s.question_words:
            terms += self.new_terms(book, book.lexicon.content_words(question), "question", tried, by="lexical")
        return terms

    def resume(self, book: Book, edit: Edit):
        """An edited run's starting point: the earlier run's iterations before ``edit.iteration`` (yielded again,
        so this run's trace is whole), then the reader's terms for that iteration and what changed."""
        kept = deepcopy([e for e in edit.events if 0 < e.iteration < edit.iteration and e.kind in KEPT])
        yield from kept
        all_terms = [t for e in kept if e.kind == "terms" for t in e.data["new"]]
        chunks = {c.key: c for e in kept if e.kind == "chunks" for c in e.data["chunks"]}
        retrieved = {h.sentence_id for e in kept if e.kind == "collection" for h in e.data["hits"]}
        before = {t.text.casefold(): t for e in edit.events if e.kind == "terms" and e.iteration == edit.iteration
                  for t in e.data["new"]}
        wanted = list(dict.fromkeys(t.strip() for t in edit.terms if t.strip()))
        tried = {t.text.casefold() for t in all_terms}
        terms = [replace(before[t.casefold()], new=True) for t in wanted if t.casefold() in before]
        tried |= {t.text.casefold() for t in terms}
        added = self.new_terms(book, [t for t in wanted if t.casefold() not in before], "reader", tried, by="reader")
        terms += added + self.name_variants(book, added, tried)
        chosen = {t.casefold() for t in wanted}
        yield Event("edit", edit.iteration, {
            "run": edit.run, "iteration": edit.iteration, "added": [t.text for t in added],
            "removed": [t.text for key, t in before.items() if key not in chosen],
            "pinned": sorted(sid for sid in set(edit.pinned) if 0 <= sid < len(book))})
        return edit.iteration, terms, all_terms, chunks, retrieved

    def pinned(self, book: Book, sentence_ids: list[int], iteration: int) -> list[Chunk]:
        """The reader's pinned sentences widened by their neighbours into chunks that are ranked first."""
        hits = []
        for sid in sorted(sid for sid in set(sentence_ids) if 0 <= sid < len(book)):
            s = book.sentence(sid)
            hits.append(Hit(sid, s.start, s.end, s.chapter, s.chapter_title, s.page, 0, [], s.text))
        chunks = widen(book, hits, self.settings.neighbor_num, iteration)
        for chunk in chunks:
            chunk.pinned = True
        return chunks

    def new_terms(self, book: Book, texts: list[str], origin: str, tried: set[str], by: str = "model") -> list[Term]:
        out = []
        for text in texts:
            if text.casefold() in tried:
                continue
            tried.add(text.casefold())
            ws = book.lexicon.content_words(text)
            in_book = any(f in book.index.vocabulary for w in ws for f in book.forms(w))
            out.append(Term(text, origin, ws, True, in_book, by))
        return out

    def name_variants(self, book: Book, terms: list[Term], tried: set[str]) -> list[Term]:
        """The other names of each character a term names (Lizzy, Eliza for Elizabeth), from the name index; only
        names found in ``book`` (so none from beyond a spoiler ceiling shows in the trace)."""
        if not (self.names and self.settings.name_variants):
            return []
        out = []
        for term in terms:
            character = self.names.find(term.text)
            if character:
                out += [t for t in self.new_terms(book, self.names.search_words(character), "names", tried,
                                                  by=f"names: {character.name}") if t.in_book]
        return out

    def weigh(self, found: list[Chunk], question: str, options, iteration: int, rng: np.random.Generator):
        """Importance of each new chunk (all, or the ``importance_chunks`` best by overlap)."""
        s = self.settings
        if s.importance_samples <= 0:
            return
        chosen = sorted(found, key=lambda c: -c.score)
        if s.importance_chunks:
            chosen = chosen[: s.importance_chunks]
        for chunk in chosen:
            started = time.perf_counter()
            passage = self.fit(chunk.text, s.evidence_tokens)
            chunk.base_answer = yield from self.call(
                "importance", prompts.passage_answer(question, options, passage), iteration, max_tokens=40)
            base_letters = self.llm.choice_logprobs(prompts.passage_answer(question, options, passage),
                                                    options) if options else None
            answers, kls = [], []
            for n, level in enumerate(noise_levels(s.importance_samples, rng)):
                noisy = perturb(passage, level, seed=s.seed * 1000 + n)
                noisy_messages = prompts.passage_answer(question, options, noisy)
                answers.append((yield from self.call("importance", noisy_messages, iteration, max_tokens=40)))
                if base_letters:
                    letters = self.llm.choice_logprobs(noisy_messages, options)
                    kls.append(kl_divergence(base_letters, letters) if letters else None)
                else:
                    kls.append(None)
                chunk.samples.append(Sample(round(level, 4), math.nan, answers[-1], kls[-1]))
            chunk.importance, sims = similarity_importance(chunk.base_answer, answers, self.embed)
            for sample, sim in zip(chunk.samples, sims):
                sample.similarity = round(sim, 4)
            valid = [k for k in kls if k is not None]
            chunk.kl_importance = float(np.mean(valid)) if valid else None
            chunk.seconds = round(time.perf_counter() - started, 3)
            yield Event("importance", iteration, chunk)

    def breadth(self, book: Book, question: str, all_terms: list[Term], hits: list[Hit], tried: set[str],
                iteration: int):
        found = "\n".join(f"- {h.text[:160]}" for h in hits[:3]) or "- nothing"
        reply = yield from self.call(
            "breadth", prompts.breadth(question, [t.text for t in all_terms], found, self.settings.max_terms),
            iteration)
        return self.new_terms(book, parse_terms(reply, self.settings.max_terms), "breadth", set(tried))

    def depth(self, book: Book, question: str, found: list[Chunk], known: list[Term], tried: set[str],
              iteration: int):
        """Terms taken from the iteration's best chunks: the model's picks that occur in them, else their rarest
        words that recur elsewhere in the book."""
        s = self.settings
        top = ranked(found)[: s.deep_search_index]
        if not top:
            return []
        passages = self.fit("\n\n".join(c.text for c in top), s.evidence_tokens)
        reply = yield from self.call("depth", prompts.depth(question, passages, s.deep_search_num), iteration)
        present = set(book.lexicon.words(passages))
        picked = [t for t in parse_terms(reply, s.deep_search_num) if set(book.lexicon.content_words(t)) <= present]
        terms = self.new_terms(book, picked, "depth", set(tried))
        if not terms:
            known = {w for t in known for w in t.words}
            terms = self.new_terms(book, salient_words(book, passages, known)[: s.deep_search_num], "depth",
                                   set(tried), by="lexical")
        return terms

    def evidence_text(self, chunks: list[Chunk]) -> str:
        """Chunks, best first, each with its importance where scored, within the evidence token budget."""
        budget = self.settings.evidence_tokens
        blocks = []
        for n, chunk in enumerate(chunks, 1):
            mark = (f" (importance {chunk.importance:.2f})" if chunk.importance is not None
                    and not math.isnan(chunk.importance) else "")
            block = f"[{n}]{mark} {' '.join(chunk.text.split())}"
            cost = self.llm.count_tokens(block)
            if cost > budget:
                if not blocks:
                    blocks.append(self.fit(block, budget))
                break
            budget -= cost
            blocks.append(block)
        return "\n".join(blocks) or "(nothing found)"

    def budgeted_sentences(self, book: Book, sentence_ids: list[int]) -> list[int]:
        budget = self.settings.evidence_tokens
        kept = []
        for sid in sentence_ids:
            cost = self.llm.count_tokens(book.sentence(sid).text) + 4
            if cost > budget:
                break
            budget -= cost
            kept.append(sid)
        return kept

    def organise(self, book: Book, question: str, options, chunks: list[Chunk], iteration: int,
                 generate: bool = True):
        """Trim the evidence to what the model calls relevant, then answer from it (voting for multiple choice)."""
        ordered = list(dict.fromkeys(sid for c in chunks for sid in range(c.first, c.last + 1)))
        candidates = self.budgeted_sentences(book, ordered)
        listing = "\n".join(f"S{sid}: {' '.join(book.sentence(sid).text.split())}" for sid in sorted(candidates))
        kept, picked = candidates, []
        if candidates and self.settings.trim:
            reply = yield from self.call("trim", prompts.trim(question, options, listing), iteration, max_tokens=64)
            picked = [sid for sid in parse_sentence_ids(reply) if sid in set(candidates)]
            pinned = {sid for c in chunks if c.pinned for sid in range(c.first, c.last + 1)} & set(candidates)
            kept = sorted(set(picked) | pinned) if picked else candidates
        if candidates:
            yield Event("trim", iteration, {"kept": sorted(kept), "dropped": sorted(set(candidates) - set(kept)),
                                            "by_model": bool(picked), "enabled": self.settings.trim})
        kept = sorted(kept)
        if not generate:
            return Answer("", evidence=kept)
        evidence = "\n".join(f"[S{sid}] {' '.join(book.sentence(sid).text.split())}" for sid in kept)
        messages = prompts.answer(question, options, evidence or "(nothing found)")
        if options:
            return (yield from self.vote(book, messages, options, kept, iteration))
        return (yield from self.written_answer(book, messages, kept, iteration))

    def vote(self, book: Book, messages, options: dict[str, str], kept: list[int], iteration: int):
        s = self.settings
        votes: Counter[str] = Counter()
        for n in range(max(1, s.voter_num)):
            reply = yield from self.call("vote", messages, iteration, max_tokens=12,
                                         temperature=0.0 if n == 0 else 0.8, seed=s.seed + n)
            choice = parse_choice(reply, options)
            if choice:
                votes[choice] += 1
        logprobs = self.llm.choice_logprobs(messages, options)
        if not votes and logprobs:
            votes[max(logprobs, key=logprobs.get)] += 1
        total = sum(votes.values())
        order = {k: i for i, k in enumerate(options)}
        choice = (max(votes, key=lambda k: (votes[k], (logprobs or {}).get(k, 0.0), -order[k]))
                  if votes else None)
        shares = {k: round(votes.get(k, 0) / total, 3) if total else 0.0 for k in options}
        return chosen_answer(book, options, choice, kept, votes={k: votes.get(k, 0) for k in options},
                             vote_shares=shares)


def ranked(chunks) -> list[Chunk]:
    """Pinned chunks first, then the most important (unscored chunks after scored ones), then by overlap, then
    book order."""
    def key(c: Chunk):
        importance = c.importance if c.importance is not None and not math.isnan(c.importance) else -1.0
        return (not c.pinned, -importance, -c.score, c.first)
    return sorted(chunks, key=key)


def counting_phrase(question: str, proposed: list[str], book: Book) -> tuple[str, str]:
    """What to count: a phrase quoted in the question; else the model's phrase if all its words come from the
    question; else the question's last content word found in the book."""
    if QUOTED.search(question):
        return fallback_phrase(question, book), "question"
    said = book.lexicon.words
    asked = {f for w in said(question) for f in book.forms(w)}
    if proposed and len(said(proposed[0])) <= 4 and set(said(proposed[0])) <= asked:
        return proposed[0], "model"
    return fallback_phrase(question, book), "question"


def salient_words(book: Book, text: str, known: set[str]) -> list[str]:
    """Words of ``text`` worth a search: names (capitalised inside a sentence) first, then the rarest words,
    keeping only words that occur in at least two sentences of the book."""
    vocabulary, frequency = book.index.vocabulary, book.index.document_frequency
    names = {w.lower() for w in NAME.findall(text)}
    candidates = [w for w in book.lexicon.content_words(text) if w not in known and w in vocabulary
                  and frequency[vocabulary[w]] >= 2]
    return sorted(candidates, key=lambda w: (w not in names, frequency[vocabulary[w]]))


def closest_number_option(total: int, options: dict[str, str]) -> str | None:
    """The option whose number is nearest to ``total`` (options such as "12 times")."""
    numbered = {}
    for key, text in options.items():
        found = re.search(r"\d+", text.replace(",", ""))
        if found:
            numbered[key] = abs(int(found.group()) - total)
    return min(numbered, key=numbered.get) if numbered else None


def with_overrides(settings: Settings, **overrides) -> Settings:
    """``settings`` with the non-None ``overrides`` applied."""
    return replace(settings, **{k: v for k, v in overrides.items() if v is not None})

