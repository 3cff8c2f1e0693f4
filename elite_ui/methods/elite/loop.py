"""The ELITE loop (section 4 of the paper), one method a stage: the model's search terms (:meth:`first_terms`),
collection (``retrieval.collect``), importance (:meth:`weigh`), the judge (in :meth:`explore`), breadth- and
depth-wise exploration (:meth:`breadth`, :meth:`depth`), then organising and answering (:meth:`organise`,
:meth:`vote`). Counting questions take ``counting``; an edited search starts from ``edit``.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter

import numpy as np

from ...book import Book
from ...book.lexicon import NAME
from ...book.names import NameIndex
from ...book.scope import asks_what_happens
from ...book.story import central
from ...models import LLM, Embed
from .. import prompts
from ..base import Engine, Prepared, chosen_answer, not_said
from ..grounding import UNREAD
from ..lexical import (
    RANKINGS,
    Target,
    overlaps_half,
    passage_scores,
    proximity_scores,
    scaled,
    smoothed,
    span_bm25,
    targets,
    tilings,
    touches,
)
from ..parsing import imagined_words, parse_decision, parse_sentence_ids, parse_terms, parse_verdict, whole_sentences
from ..trace import (
    Answer,
    Calls,
    Chunk,
    Chunks,
    Collection,
    Event,
    Exploration,
    Hit,
    Kind,
    Notice,
    Placed,
    Quoted,
    Retrieval,
    Sample,
    Term,
    Terms,
    Trim,
    Verdict,
)
from .counting import answer_by_counting, is_counting
from .edit import Edit, pinned_chunks, resume
from .importance import kl_divergence, noise_levels, perturb, similarity_importance
from .retrieval import collect, feedback_words, reranked, widen
from .search import Search
from .settings import Settings


class Elite(Engine):
    """Answers questions about a book with the ELITE method, reporting every stage as an event."""

    name = "elite"

    def __init__(self, llm: LLM, settings: Settings | None = None, *, embed: Embed | None = None,
                 cancel: threading.Event | None = None, names: NameIndex | None = None):
        super().__init__(llm, settings or Settings(), embed=embed, cancel=cancel)
        self.names = names

    pins_passages = True

    def steps(self, book: Book, question: str, options: dict[str, str] | None, *, prepared: Prepared,
              generate: bool = True, edit: Edit | None = None, about: list[int] | None = None):
        """Counting questions take the counting path; every other question (and every edited search, and every
        question about a passage) the loop."""
        if is_counting(question) and not edit and not about:
            return (yield from answer_by_counting(self, book, question, options))
        search = Search(book, question, options, about=list(about or []))
        if not (edit or about or options):
            about = self.part_extracts(book, question)
            if about:
                yield Event(Kind.WARNING, 1, Notice(
                    f"the question asks what happens in {book.ceiling.within}: its {len(about)} most central "
                    "sentences (LexRank, as the Story tab picks them) are pinned as evidence first."))
        return (yield from self.explore(search, generate, edit, about or []))

    def part_extracts(self, book: Book, question: str) -> list[int]:
        """The most central sentences (``part_extracts`` of them) of the part of the book ``question`` names, if
        it asks only what happens there (:func:`~elite_ui.book.scope.asks_what_happens`)."""
        n = self.settings.retrieval.part_extracts
        if not (n and book.ceiling and book.ceiling.within and asks_what_happens(question, book)):
            return []
        return central(book, list(range(book.story_from, len(book))), n)

    def explore(self, search: Search, generate: bool = True, edit: Edit | None = None,
                about: list[int] | None = None):
        """Iterations of collect, weigh, judge and explore until the evidence suffices or ``iter_max`` (one
        iteration without the judge); then organise and answer."""
        s, book = self.settings.exploration, search.book
        rng = np.random.default_rng(self.settings.seed)
        if edit:
            yield from resume(self, search, edit)
        else:
            search.terms = yield from self.first_terms(search)
        start = search.iteration
        last = max(s.iter_max, start) if s.judge else start
        for search.iteration in range(start, last + 1):
            if not (edit and search.iteration == start):
                search.terms += self.name_variants(book, search.terms, search.seen())
            found = yield from self.collected(search, (edit.pinned if edit else about) if search.iteration == start
                                              else [])
            found += yield from self.fed_back(search)
            if generate and (s.judge or self.settings.importance.importance_samples):  # calls before the answer
                yield from self.quoted(search)
            yield from self.weigh(search, found, rng)
            if not s.judge:
                break
            proposed = yield from self.judged(search)
            if search.verdict.sufficient or search.iteration == last:
                break
            yield from self.explored(search, found, proposed)
            if not any(t.in_book for t in search.terms):
                yield Event(Kind.WARNING, search.iteration, Notice("no new search terms were found; stopping."))
                break
        verdict = search.verdict
        if book.guarded and generate and not search.options and verdict is not None and not verdict.sufficient:
            return Answer(not_said(book.ceiling), evidence=search.evidence())
        ordered, rank = self.ordered(book, search.chunks, search.tried, search.asked)
        answer = yield from self.organise(search, ordered, rank, generate)
        if verdict is not None and not verdict.sufficient and generate:
            answer.caveat = "The passages found may not answer this question: the search was judged insufficient."
        return answer

    def quoted(self, search: Search):
        """What the book says so far: the best sentences of the evidence as it would be placed now, shown while the
        judge, importance or further iterations still run (the answer's own quotes come with it)."""
        book = search.book
        ordered, rank = self.ordered(book, search.chunks, search.tried, search.asked)
        placed = self.budgeted_sentences(book, ordered, rank)
        yield Event(Kind.QUOTES, search.iteration, Quoted(self.quotes(book, search.asked, search.options, placed)))

    def collected(self, search: Search, pins: list[int]):
        """An iteration's terms, the sentences they retrieve and the new passages those widen into (the reader's
        pinned passages first); returns the new passages."""
        s, book, iteration = self.settings.retrieval, search.book, search.iteration
        search.tried += search.terms
        yield Event(Kind.TERMS, iteration, Terms(search.terms, list(search.tried)))
        texts, weights = self.weighted(search.tried)
        hits = collect(book, texts, s, required=[t.text for t in search.terms if t.in_book], exclude=search.retrieved,
                       weights=weights)
        mark_support(book, hits, search.question, search.options)
        search.retrieved.update(h.sentence_id for h in hits)
        search.hits = hits
        yield Event(Kind.COLLECTION, iteration, Collection(hits))
        found = [c for c in widen(book, hits, s.neighbor_num, iteration) if c.key not in search.chunks]
        if pins:
            pinned = pinned_chunks(book, pins, s.neighbor_num, iteration)
            found = pinned + [c for c in found if not any(p.first <= c.first and c.last <= p.last for p in pinned)]
        search.chunks.update((c.key, c) for c in found)
        yield Event(Kind.CHUNKS, iteration, Chunks(found))
        return found

    def fed_back(self, search: Search):
        """Pseudo-relevance feedback (``feedback_terms``): words of the iteration's best sentences, weighed by RM3 or
        Bo1 (:func:`.retrieval.feedback_words`), searched in a second pass; returns its new passages."""
        s, book = self.settings.feedback, search.book
        if not s.feedback_terms or not search.hits:
            return []
        known = {f for t in search.tried for w in t.words for f in book.forms(w)}
        words = feedback_words(book, search.hits, s, known)
        search.terms = self.new_terms(book, words, "feedback", search.seen(), by="lexical")
        if not search.terms:
            return []
        return (yield from self.collected(search, []))

    def explored(self, search: Search, found: list[Chunk], proposed: list[str]):
        """The next iteration's terms: breadth- and depth-wise (or those the judge proposed)."""
        tried, book = search.seen(), search.book
        if self.settings.exploration.next_terms == "judge":
            breadth, depth = self.new_terms(book, proposed, "breadth", tried, by="judge"), []
        else:
            breadth = yield from self.breadth(search, tried)
            tried |= {t.text.casefold() for t in breadth}
            depth = yield from self.depth(search, found, search.tried + breadth, tried)
        search.terms = breadth + depth
        yield Event(Kind.EXPLORATION, search.iteration, Exploration(breadth, depth))

    def judged(self, search: Search):
        """The judge's verdict on the evidence so far (the passages the answer would read, in the same words, so
        that the answer's call reuses this one's KV cache), kept in ``search``; returns the next terms its reply
        proposes, if asked to."""
        s, book, proposed = self.settings.exploration, search.book, []
        if not search.chunks:
            search.verdict = Verdict(False, "nothing was found for these terms", True)
        else:
            ordered, rank = self.ordered(book, search.chunks, search.tried, search.asked)
            listing = self.listing(book, sorted(self.budgeted_sentences(book, ordered, rank)), ordered)
            asked = self.settings.terms.max_terms if s.next_terms == "judge" else 0
            reply = yield from self.call("judge", prompts.judge(search.asked, search.options, listing, asked),
                                         search.iteration, max_tokens=48 + 10 * asked)
            sufficient, reason = parse_verdict(reply)
            reason = whole_sentences(reason) if reason else reason  # a reply cut by its length ends where it was cut
            search.verdict = Verdict(s.judge_default if sufficient is None else sufficient, self.unread(reason),
                                     sufficient is not None)
            proposed = parse_terms(reply.strip().partition("\n")[2], asked,
                                   prompts.instructions(prompts.JUDGE_TERMS, search.said)) if asked else []
        yield Event(Kind.JUDGE, search.iteration, search.verdict)
        return proposed

    def first_terms(self, search: Search):
        """The model's search terms for the question (its list, or the words of the passage it imagines answers
        an open question: ``imagined_passage``), with the question's own words (or only them, announced, when the
        model gave nothing usable, or when it is not asked) and the options' words."""
        s, book, question, options = self.settings.terms, search.book, search.asked, search.options
        said = search.said
        terms: list[Term] = []
        words: list[str] = []
        if s.model_terms and s.imagined_passage and not options:  # a choice's options are searched themselves
            reply = yield from self.call("terms", prompts.imagined(question), 1, private=True)
            words = imagined_words(reply, said, s.imagined_words, book.lexicon,
                                   prompts.instructions(prompts.IMAGINED, said))
            terms = [t for t in self.new_terms(book, words, "question", set()) if t.in_book]  # none the book lacks
        elif s.model_terms:
            reply = yield from self.call("terms", prompts.terms(question, options, s.max_terms, s.terms_example), 1)
            words = parse_terms(reply, s.max_terms,
                                prompts.instructions(prompts.terms_task(s.terms_example), said, options))
            terms = self.new_terms(book, words, "question", set())
        tried = {t.text.casefold() for t in terms} | {w for t in terms for w in t.words}
        if not any(t.in_book for t in terms):
            terms += self.new_terms(book, book.lexicon.content_words(said), "fallback", tried, by="lexical")
            if s.model_terms:
                why = ("none of the model's search terms is written in the book" if words else
                       "the model gave no search term the question does not say already")
                yield Event(Kind.WARNING, 1, Notice(f"{why}, so the question's own words were searched instead."))
        elif s.question_words:
            terms += self.new_terms(book, book.lexicon.content_words(said), "question", tried, by="lexical")
        if s.option_words and options:
            for key, text in options.items():
                terms += self.new_terms(book, book.lexicon.content_words(text), "options", tried, by="option", of=key)
        return terms

    def new_terms(self, book: Book, texts: list[str], origin: str, tried: set[str], by: str = "model",
                  of: str = "") -> list[Term]:
        """Terms of ``texts`` not tried before (``tried`` grows with them), each saying whether the book has its
        words; under a spoiler ceiling, none of the model's that names someone the book up to it does not write
        (shown masked, it would still tell that someone comes later)."""
        out = []
        for text in texts:
            if text.casefold() in tried:
                continue
            tried.add(text.casefold())
            if by != "reader" and UNREAD in self.unread(text) and UNREAD not in text:
                continue
            ws = book.lexicon.content_words(text)
            in_book = any(f in book.index.vocabulary for w in ws for f in book.forms(w))
            out.append(Term(text, origin, ws, True, in_book, by, of))
        return out

    def weighted(self, terms: list[Term]) -> tuple[list[str], list[float]]:
        """The texts of ``terms`` the book has words of, each with its weight in the ``bm25`` rankings: the model's
        own terms weigh ``model_weight``, every other term (the question's words, names, options) 1."""
        kept = [t for t in terms if t.in_book]
        return [t.text for t in kept], [self.settings.terms.model_weight if t.by == "model" else 1.0 for t in kept]

    def name_variants(self, book: Book, terms: list[Term], tried: set[str]) -> list[Term]:
        """The other names of each character a term names (Lizzy, Eliza for Elizabeth), from the name index; only
        names found in ``book`` (so none from beyond a spoiler ceiling shows in the trace)."""
        if not (self.names and self.settings.terms.name_variants):
            return []
        out = []
        for term in terms:
            character = self.names.find(term.text)
            if character:
                out += [t for t in self.new_terms(book, self.names.search_words(character), "names", tried,
                                                  by="names", of=character.name) if t.in_book]
        return out

    def weigh(self, search: Search, found: list[Chunk], rng: np.random.Generator):
        """Importance of each new chunk (all, or the ``importance_chunks`` best by overlap)."""
        s, question, options, iteration = self.settings.importance, search.asked, search.options, search.iteration
        if s.importance_samples <= 0:
            return
        chosen = sorted(found, key=lambda c: -self.merit(c))
        if s.importance_chunks:
            chosen = chosen[: s.importance_chunks]
        room = self.room(self.settings.answering.evidence_tokens)
        total, done = len(chosen) * (1 + s.importance_samples), 0
        for chunk in chosen:
            started = time.perf_counter()
            passage = self.fit(chunk.text, room)
            yield Event(Kind.CALLS, iteration, Calls("importance", done, total))
            done += 1
            chunk.base_answer = yield from self.call(
                "importance", prompts.passage_answer(question, options, passage), iteration, max_tokens=40)
            base_letters = (yield from self.likeliest(prompts.passage_answer(question, options, passage), options,
                                                      iteration)) if options else None
            answers, kls = [], []
            for n, level in enumerate(noise_levels(s.importance_samples, rng)):
                noisy = perturb(passage, level, seed=self.settings.seed * 1000 + n)
                noisy_messages = prompts.passage_answer(question, options, noisy)
                yield Event(Kind.CALLS, iteration, Calls("importance", done, total))
                done += 1
                answers.append((yield from self.call("importance", noisy_messages, iteration, max_tokens=40)))
                if base_letters:
                    letters = yield from self.likeliest(noisy_messages, options, iteration)
                    kls.append(kl_divergence(base_letters, letters) if letters else None)
                else:
                    kls.append(None)
                chunk.samples.append(Sample(round(level, 4), math.nan, answers[-1], kls[-1]))
            chunk.importance, sims = similarity_importance(chunk.base_answer, answers, self.embed)
            for sample, sim in zip(chunk.samples, sims, strict=True):
                sample.similarity = round(sim, 4)
            valid = [k for k in kls if k is not None]
            chunk.kl_importance = float(np.mean(valid)) if valid else None
            chunk.seconds = round(time.perf_counter() - started, 3)
            yield Event(Kind.IMPORTANCE, iteration, chunk)

    def breadth(self, search: Search, tried: set[str]):
        """Related terms the model proposes from the iteration's best hits."""
        found = "\n".join(f"- {h.text[:160]}" for h in search.hits[:3]) or "- nothing"
        most = self.settings.terms.max_terms
        reply = yield from self.call("breadth", prompts.breadth(search.asked, [t.text for t in search.tried], found,
                                                                most), search.iteration)
        ignore = prompts.instructions(prompts.BREADTH, search.said)
        return self.new_terms(search.book, parse_terms(reply, most, ignore), "breadth", set(tried))

    def depth(self, search: Search, found: list[Chunk], known: list[Term], tried: set[str]):
        """Terms taken from the iteration's best chunks: the model's picks that occur in them, else their rarest
        words that recur elsewhere in the book."""
        s, book, question, iteration = self.settings.exploration, search.book, search.asked, search.iteration
        top = self.ranked(found)[: s.deep_search_index]
        if not top:
            return []
        text = self.fit("\n\n".join(c.text for c in top), self.room(self.settings.answering.evidence_tokens))
        reply = yield from self.call("depth", prompts.depth(question, text, s.deep_search_num), iteration)
        present = set(book.lexicon.words(text))
        picked = [t for t in parse_terms(reply, s.deep_search_num, prompts.instructions(prompts.DEPTH, search.said))
                  if set(book.lexicon.content_words(t)) <= present]
        terms = self.new_terms(book, picked, "depth", set(tried))
        if not terms:
            known = {w for t in known for w in t.words}
            terms = self.new_terms(book, salient_words(book, text, known)[: s.deep_search_num], "depth",
                                   set(tried), by="lexical")
        return terms

    def budgeted_sentences(self, book: Book, chunks: list[Chunk], rank: np.ndarray | None = None) -> list[int]:
        """The sentences of ``chunks``, best chunk first, while they fit the evidence token budget (:meth:`room`;
        a sentence that does not fit is skipped; its label and text count). A passage's sentences come in
        :meth:`focused` order, so that a long passage that does not fit keeps its best sentences, not its first."""
        budget = self.room(self.settings.answering.evidence_tokens)
        kept = []
        for sid in dict.fromkeys(sid for c in chunks for sid in self.focused(c, rank)):
            cost = self.cost(book, sid)
            if cost <= budget:
                budget -= cost
                kept.append(sid)
        return kept

    def focused(self, chunk: Chunk, rank: np.ndarray | None) -> list[int]:
        """A passage's sentences in the order they are placed: the window (``neighbor_num`` on each side) of each of
        its hits, best ``rank`` first, then the rest in book order. Touching windows merge into one passage, which
        can grow long: filled from its start, the budget would keep its first hits, not its best."""
        span = range(chunk.first, chunk.last + 1)
        if rank is None or chunk.fixed or len(chunk.hits) < 2:
            return list(span)
        n = self.settings.retrieval.neighbor_num
        best = sorted(chunk.hits, key=lambda sid: (-rank[sid], sid))
        around = [sid for hit in best for sid in range(max(chunk.first, hit - n), min(chunk.last, hit + n) + 1)]
        return list(dict.fromkeys([*around, *span]))

    def listing(self, book: Book, sentence_ids: list[int], chunks: list[Chunk]) -> str:
        """The evidence as the judge, the trim and the answer read it: one labelled sentence a line, in book order
        or (``evidence_order`` rank) the best passage of ``chunks`` first, each passage's sentences in book order;
        a scored chunk's importance before its first sentence."""
        marks = {c.first: f"(importance {c.importance:.2f}) " for c in chunks
                 if c.importance is not None and not math.isnan(c.importance)}
        place: dict[int, int] = {}
        if self.settings.answering.evidence_order == "rank":
            for n, chunk in enumerate(chunks):
                for sid in range(chunk.first, chunk.last + 1):
                    place.setdefault(sid, n)
        read = sorted(sentence_ids, key=lambda sid: (place.get(sid, len(chunks)), sid))
        return "\n".join(prompts.labelled(book, sid, marks.get(sid, "")) for sid in read) or "(nothing found)"

    def ordered(self, book: Book, chunks: dict, all_terms: list[Term],
                question: str) -> tuple[list[Chunk], np.ndarray]:
        """The order the evidence is placed in: the windows ranked by every term tried (with ``proximity``, their
        close pairs of words counting too; with ``passage_weight``, the score of the fixed chunks around them
        too; with ``rerank``, fused with their MiniLM similarity to ``question``), interleaved (with
        ``fuse_chunks``) with fixed chunks ranked by BM25 over the same terms, a rank fusion of the two views
        (pinned chunks stay first). A fixed chunk leads each pair: that view ranks the evidence higher
        (docs/benchmark.md). Also returns each sentence's rank (its score smoothed over ``reach``), which orders a
        passage's own sentences (:meth:`focused`)."""
        s, fusion = self.settings.retrieval, self.settings.fusion
        found = targets(book, *self.weighted(all_terms))
        scores = RANKINGS[s.ranking](book, found) if found else np.zeros(len(book))
        if s.proximity:
            placed = {sid for c in chunks.values() for sid in range(c.first, c.last + 1)}
            scores = scores + s.proximity * proximity_scores(book, found, sorted(placed))
        rank = smoothed(scores, s.reach, s.decay)
        started = time.perf_counter()
        tiled = self.tiled(book, found) if fusion.fuse_chunks and found else []
        seconds = round(time.perf_counter() - started, 4)
        if fusion.passage_weight and tiled:
            rank = scaled(rank) + fusion.passage_weight * scaled(passage_scores(book, tiled))
        ranked = self.ranked(chunks.values(), rank)
        if s.rerank:
            ranked = [c for c in ranked if c.pinned] + reranked([c for c in ranked if not c.pinned], question,
                                                                 self.embed)
        if not fusion.fuse_chunks:
            return ranked, rank
        pinned = [c for c in ranked if c.pinned]
        windows = [c for c in ranked if not c.pinned]
        fixed = self.fixed_chunks(book, tiled, seconds)
        mixed = [c for pair in zip(fixed, windows, strict=False) for c in pair]
        longer = windows if len(windows) > len(fixed) else fixed
        return pinned + mixed + longer[min(len(windows), len(fixed)):], rank

    def tiled(self, book: Book, found: list[Target]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        """The ``fuse_tilings`` tilings of the book into chunks of about ``fuse_chunks`` words, each chunk scored by
        BM25 over the target words ``found`` (:func:`span_bm25`, each tiling's spans as its own collection); a chunk
        that begins before the part of the book searched (the front matter under a ceiling, or before the part a
        question named) begins where it does."""
        start = book.searched_from
        out = []
        for spans in tilings(book, self.settings.fusion.fuse_chunks, self.settings.fusion.fuse_tilings):
            spans = [(max(first, start), last) for first, last in spans if last >= start]
            if spans:
                out.append((spans, span_bm25(book, found, np.asarray([first for first, _ in spans]))))
        return out

    def fixed_chunks(self, book: Book, tiled: list[tuple[list[tuple[int, int]], np.ndarray]], seconds: float,
                     most: int = 50) -> list[Chunk]:
        """The ``tiled`` chunks best first (a chunk more than half inside a better one left out), with
        ``best_neighbours`` the best one's neighbours (the chunks that overlap or meet it) right after it. Each
        carries the ranking's ``seconds``."""
        scored = [(float(scores[i]), spans[i]) for spans, scores in tiled for i in np.flatnonzero(scores > 0)]
        best: list[tuple[float, tuple[int, int]]] = []
        for score, span in sorted(scored, key=lambda item: (-item[0], item[1])):
            if not overlaps_half(span, [taken for _, taken in best]):
                best.append((score, span))
            if len(best) == most:
                break
        if self.settings.fusion.best_neighbours and best:
            beside = [item for item in best[1:] if touches(item[1], best[0][1])]
            best = [best[0], *beside, *(item for item in best[1:] if item not in beside)]
        return [Chunk(first=a, last=b, hits=[], score=0, text=book.span_text(a, b), iteration=0,
                      weight=round(score, 4), seconds=seconds, fixed=True) for score, (a, b) in best]

    def merit(self, chunk: Chunk) -> float:
        """What a chunk ranks by, importance aside: its best hit's weight, or (the paper's) its overlap."""
        return chunk.weight if self.settings.retrieval.weighted else chunk.score

    def ranked(self, chunks, rank: np.ndarray | None = None) -> list[Chunk]:
        """Pinned chunks first, then the most important (unscored chunks after scored ones), then the best: by
        overlap (the paper), or by the ``rank`` of their best sentence (the ``bm25`` scores of all terms tried,
        smoothed); then book order."""
        if self.settings.retrieval.weighted and rank is not None:
            for chunk in chunks:
                chunk.weight = round(float(rank[chunk.first : chunk.last + 1].max()), 4)

        def key(c: Chunk):
            importance = c.importance if c.importance is not None and not math.isnan(c.importance) else -1.0
            return (not c.pinned, -importance, -self.merit(c), c.first)
        return sorted(chunks, key=key)

    def organise(self, search: Search, chunks: list[Chunk], rank: np.ndarray, generate: bool = True):
        """Trim the evidence to what the model calls relevant, quote its best sentences, then answer from it
        (voting for multiple choice)."""
        book, question, options, iteration = search.book, search.asked, search.options, search.iteration
        candidates = sorted(self.budgeted_sentences(book, chunks, rank))
        listing = self.listing(book, candidates, chunks)
        kept, picked = candidates, []
        if candidates and self.settings.answering.trim and generate:  # what the book says, before the trim's call
            yield Event(Kind.QUOTES, iteration, Quoted(self.quotes(book, question, options, candidates)))
        if candidates and self.settings.answering.trim:
            reply = yield from self.call("trim", prompts.trim(question, options, listing), iteration, max_tokens=64)
            picked = [sid for sid in parse_sentence_ids(reply) if sid in set(candidates)]
            pinned = {sid for c in chunks if c.pinned for sid in range(c.first, c.last + 1)} & set(candidates)
            kept = sorted(set(picked) | pinned) if picked else candidates
        fused = [Placed(c.first, c.last, c.weight) for c in chunks
                 if c.fixed and not set(range(c.first, c.last + 1)).isdisjoint(candidates)]
        if fused:
            seconds = next(c.seconds for c in chunks if c.fixed)
            yield Event(Kind.RETRIEVAL, iteration, Retrieval(fused, "bm25", seconds))
        if candidates:
            yield Event(Kind.TRIM, iteration, Trim(sorted(kept), sorted(set(candidates) - set(kept)), bool(picked),
                                                   self.settings.answering.trim))
        quotes = self.quotes(book, question, options, kept)
        if not generate:
            return Answer("", evidence=kept, quotes=quotes)
        yield Event(Kind.QUOTES, iteration, Quoted(quotes))
        evidence = listing if kept == candidates else self.listing(book, kept, chunks)
        if options:
            answer = yield from self.vote(book, question, evidence, options, kept, iteration)
        else:
            messages = prompts.answer(question, options, evidence, self.settings, book=book)
            answer = yield from self.answer_written(book, search.question, messages, kept, iteration)
        answer.quotes = quotes
        return answer

    def vote(self, book: Book, question: str, evidence: str, options: dict[str, str], kept: list[int],
             iteration: int):
        """The majority of ``voter_num`` votes: the first at temperature 0, the others sampled, or
        (``rotated_votes``) each at temperature 0 on the options shifted by one more place."""
        s, turned = self.settings, self.settings.answering.rotated_votes

        def asked(order: dict[str, str]) -> list[dict[str, str]]:
            return prompts.answer(question, order, evidence, s, ahead=not turned)

        messages = asked(options)
        votes: Counter[str] = Counter()
        decided: list[tuple[str, str]] = []
        for n in range(max(1, s.answering.voter_num)):
            shown = rotated(options, n) if turned else options
            reply = yield from self.call("vote", asked(shown), iteration, max_tokens=s.choice_tokens,
                                         temperature=0.0 if n == 0 or turned else 0.8, seed=s.seed + n)
            picked = parse_decision(reply, shown, s.quote_first)
            if picked:
                choice = unrotated(options, picked, n) if turned else picked
                votes[choice] += 1
                decided.append((choice, reply))
        logprobs = yield from self.likeliest(messages, options, iteration)
        if not votes and logprobs:
            votes[max(logprobs, key=logprobs.get)] += 1
        total = sum(votes.values())
        order = {k: i for i, k in enumerate(options)}
        choice = (max(votes, key=lambda k: (votes[k], (logprobs or {}).get(k, 0.0), -order[k]))
                  if votes else None)
        shares = {k: round(votes.get(k, 0) / total, 3) if total else 0.0 for k in options}
        deciding = next((reply for picked, reply in decided if picked == choice), "") if s.quote_first else ""
        answer = chosen_answer(book, options, choice, kept, deciding, votes={k: votes.get(k, 0) for k in options},
                               vote_shares=shares)
        tied = [k for k in options if votes and votes[k] == votes[choice]]
        if len(tied) > 1:
            answer.caveat = (f"The votes tied between {', '.join(tied)} ({shares[choice]:.0%} each); "
                             f"{choice} is the one the model found likelier.")
        return answer


def rotated(options: dict[str, str], n: int) -> dict[str, str]:
    """The options shifted ``n`` places under the same letters (A reads what B said)."""
    texts = list(options.values())
    return {letter: texts[(i + n) % len(texts)] for i, letter in enumerate(options)}


def unrotated(options: dict[str, str], letter: str, n: int) -> str:
    """The letter of ``options`` that ``letter`` of :func:`rotated` (by ``n``) stands for."""
    letters = list(options)
    return letters[(letters.index(letter) + n) % len(letters)]


def salient_words(book: Book, text: str, known: set[str]) -> list[str]:
    """Words of ``text`` worth a search: names (capitalised inside a sentence) first, then the rarest words,
    keeping only words that occur in at least two sentences of the book."""
    vocabulary, frequency = book.index.vocabulary, book.index.document_frequency
    names = {w.lower() for w in NAME.findall(text)}
    candidates = [w for w in book.lexicon.content_words(text) if w not in known and w in vocabulary
                  and frequency[vocabulary[w]] >= 2]
    return sorted(candidates, key=lambda w: (w not in names, frequency[vocabulary[w]]))


def mark_support(book: Book, hits: list[Hit], question: str, options: dict[str, str] | None) -> None:
    """Which options each hit supports: those whose own words (not the question's) it holds."""
    if not options:
        return
    asked = set(book.lexicon.content_words(question))
    own = {key: {w for w in book.lexicon.content_words(text) if w not in asked} for key, text in options.items()}
    for hit in hits:
        matched = set(hit.matched)
        hit.supports = [key for key, words in own.items() if matched & words]
