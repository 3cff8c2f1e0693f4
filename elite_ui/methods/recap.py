"""Chapter recaps written by the model, for a model that can write them: each chapter of the book as given (cut at
the reader's ceiling, so a chapter the ceiling cuts is summarised only up to it), read in windows that fit the
model's context; every recap sentence must cite the chapter's sentences it rests on, and one that cites none of
them is dropped. The chapter recaps are then condensed into one "so far" paragraph whose sentences must cite
sentences the recaps cited (in rounds, when the recaps do not fit the context at once). Kept per book, model and
chapter span (or recaps condensed) in the cache folder (a JSON line each), so a build resumes where it stopped and
a chapter is written once; progress after each chapter, Stop between calls.

A chapter's recap sentence must be supported by the sentences it cites: they hold its names, numbers and most of
its words (the grounding check's rule, :func:`.grounding.support`); the 1.5B model's labels drift down the chapter
as it loops, and a sentence its labels do not support is dropped. A small model often writes a good sentence with
no label (or none in the form asked for): such a sentence is cited by its words instead, to the few sentences it
may cite that share most of them, when those support it. A sentence nothing supports is dropped, and so is one
that copies out what it cites (a small model often copies the chapter instead of recapping it). A sentence written
again is kept once, and a reply cut by its length ends at its last whole sentence.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from pathlib import Path

from ..book import Book
from ..book.story import story_chapters
from ..errors import Cancelled, EliteError, ModelError
from ..models import LLM, Request
from ..models.capacity import Share
from .grounding import sharing, support
from .parsing import SENTENCE_LABEL, whole_sentences
from .prompts import labelled, messages, recap

REPLY_TOKENS = 220
WRITTEN_VERSION = 2
"""Part of the kept recaps' key: raised when the prompt or the check changes what a model's recap would be (2: the
worked example and the labels checked), so recaps written before are written again."""
WINDOW_SHARE = 0.6
"""Share of the model's context one window of a chapter's sentences takes (the rest: instructions and reply)."""


SENTENCES = re.compile(r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMs\.)(?<=[.!?\]])\s+(?=[A-Z\"“])")
"""Where a reply's sentences part: after a full stop, not after a title ("Mr. Bingley")."""
MATCHED = 3
"""Sentences a recap sentence without labels may be cited to, sharing most of its words first."""
COPIED = 0.9
"""The share of a recap sentence's words found in the same order in a sentence of the chapter that makes it a
copy."""
COPY_WORDS = 4
"""Words a recap sentence has at least to be told a copy (a short one matches anything in order)."""


@dataclass
class Written:
    """A chapter's recap: each sentence the model wrote with the sentences of the chapter it cites, and what became
    of the others."""

    ref: str = ""
    title: str = ""
    lines: list[tuple[str, list[int]]] = field(default_factory=list)
    dropped: int = 0
    """Recap sentences left out: they cited no sentence of the chapter and no sentence of it supports them, or they
    copy one out."""
    matched: int = 0
    """Recap sentences the model wrote no usable label for, cited by their words."""
    copied: int = 0
    """Of those dropped, the sentences of the chapter copied out, not recapped."""

    def add(self, other: Written) -> None:
        """``other``'s lines not yet here, and its counts."""
        self.lines += [line for line in other.lines if line not in self.lines]
        self.dropped, self.matched, self.copied = (self.dropped + other.dropped, self.matched + other.matched,
                                                   self.copied + other.copied)

    def record(self) -> dict:
        return {"lines": self.lines, "dropped": self.dropped, "matched": self.matched, "copied": self.copied}

    @classmethod
    def read(cls, ref: str, title: str, record: dict) -> Written:
        """A recap as :meth:`record` kept it (a record from before the counts were kept counts none)."""
        return cls(ref, title, [(t, ids) for t, ids in record["lines"]], record["dropped"], record.get("matched", 0),
                   record.get("copied", 0))


def condensing(listing: str) -> list[dict[str, str]]:
    return messages(f"Recaps of a novel's chapters, in order; after each sentence, the labels of the book's sentences "
                    f"it rests on:\n{listing}\n\nCondense them into the story so far: one paragraph of at most six "
                    "sentences, the main events in order. After each sentence, put in square brackets the labels it "
                    "rests on, copied from above.")


def cited(book: Book, reply: str, allowed: Collection[int], checked: bool = True) -> Written:
    """The reply's sentences with the labels they cite among ``allowed`` (the chapter's sentences, or those the
    recaps cited), a sentence without any label cited by its words (:func:`matched`); those neither cites (one
    citing only sentences of another chapter too), (``checked``) those their labels do not support (:func:`held`),
    and those that copy out what they cite (:func:`copied`) are dropped (and counted); one written again is kept
    once."""
    out, seen = Written(), set()
    for sentence in SENTENCES.split(reply.strip()):
        labels = [int(n) for n in SENTENCE_LABEL.findall(sentence)]
        ids = sorted({sid for sid in labels if sid in allowed})
        text = re.sub(r"\s*\[[^\]]*\]", "", sentence).strip()
        if not re.search(r"\w", text) or text in seen:  # no word: a quotation's closing mark split off
            continue
        seen.add(text)
        near = [sid for overlap, sid in sharing(book, text, sorted(allowed))[:MATCHED] if overlap]
        if not labels:  # one citing another chapter's sentences stays out
            ids = matched(book, text, near)
            out.matched += bool(ids)
        elif checked and ids and not held(book, text, ids):
            ids = []
        if ids and copied(book, text, near, ids):
            out.copied += 1
            ids = []
        if ids:
            out.lines.append((text, ids))
        else:
            out.dropped += 1
    return out


def copied(book: Book, text: str, near: list[int], ids: list[int]) -> bool:
    """Whether ``text`` copies out one of the sentences ``near`` it (those sharing most of its words), or the
    sentences it cites (``ids``) run together, or a stretch of them (:data:`COPIED` of its words in the same order;
    :data:`COPY_WORDS` at least), rather than recapping them."""
    said = book.lexicon.words(text)

    def share(sentences: list[int]) -> float:
        source = [w for sid in sentences for w in book.lexicon.words(book.sentence(sid).text)]
        blocks = SequenceMatcher(None, said, source, autojunk=False)
        return sum(block.size for block in blocks.get_matching_blocks()) / len(said)

    return len(said) >= COPY_WORDS and any(share(sentences) >= COPIED for sentences in [*([sid] for sid in near), ids])


def held(book: Book, text: str, ids: list[int]) -> bool:
    """Whether the sentences ``ids`` support ``text``: its names and numbers written there, most of its words too."""
    pool = [book.sentence(sid).text for sid in ids]
    return not support(book, text, " ".join(pool), pool, None)


def matched(book: Book, text: str, near: list[int]) -> list[int]:
    """The fewest of the sentences ``near`` ``text`` (the :data:`MATCHED` sharing most of its words, most first)
    that together support it (:func:`held`); [] when they do not."""
    return next((sorted(near[:n]) for n in range(1, len(near) + 1) if held(book, text, near[:n])), [])


class Recaps:
    """The written recaps of one book by one model, kept in ``cache_dir``."""

    def __init__(self, llm: LLM, book: Book, cache_dir: Path | str, cancel: threading.Event | None = None,
                 share: Share | None = None):
        self.llm, self.book, self.cancel, self.share = llm, book, cancel or threading.Event(), share
        key = hashlib.sha256(f"{book.digest}:{llm.name}:{WRITTEN_VERSION}".encode()).hexdigest()[:24]
        self.path = Path(cache_dir) / "recaps" / f"{key}.jsonl"

    def kept(self) -> dict[str, dict]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return {}
        out = {}
        for line in lines:
            try:
                record = json.loads(line)
                out[record["span"]] = record
            except (ValueError, KeyError, TypeError):
                continue
        return out

    def build(self, last_chapters: int | None = None) -> Iterator[tuple[int, int]]:
        """Write the missing chapters' recaps, yielding (chapters done, chapters in all) after each; returns the
        recaps in book order."""
        spans = story_chapters(self.book, last_chapters)
        kept, out = self.kept(), []
        for done, (chapter, first, last) in enumerate(spans, 1):
            span = f"{first}-{last}"
            if span not in kept:
                kept[span] = self.write(first, last) | {"span": span}
                self.keep(kept[span])
            out.append(Written.read(chapter.ref, chapter.title, kept[span]))
            yield done, len(spans)
        return out

    def so_far(self, recaps: list[Written]) -> Written:
        """The chapter recaps condensed into one paragraph (kept, keyed by the recaps condensed)."""
        lines = [line for r in recaps for line in r.lines]
        span = "so-far-" + hashlib.sha256(json.dumps(lines).encode()).hexdigest()[:16]
        record = self.kept().get(span)
        if record is None:
            record = self.condense(lines) | {"span": span}
            self.keep(record)
        return Written.read("So far", "", record)

    def condense(self, lines: list[tuple[str, list[int]]]) -> dict:
        """A call per window of recap lines, in rounds until one window holds them all (or a round shrinks
        nothing). Its sentences rest on the recaps' lines, already checked against the book: their labels must be
        among those the lines cite, and are not checked again."""
        allowed = {sid for _, ids in lines for sid in ids}
        tally = Written()
        while lines:
            listings = list(self.windows([f"{t} [{', '.join(f'S{sid}' for sid in ids)}]" for t, ids in lines]))
            out = Written()
            for listing in listings:
                out.add(self.ask(condensing(listing), allowed, checked=False))
            tally.add(replace(out, lines=[]))
            if len(listings) == 1 or len(out.lines) >= len(lines):
                return replace(tally, lines=out.lines).record()
            lines = out.lines
        return tally.record()

    def keep(self, record: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    def windows(self, lines: list[str]) -> Iterator[str]:
        """The lines in windows that fit the model's context share, in order."""
        room = int(self.llm.n_ctx * WINDOW_SHARE)
        window, size = [], 0
        for line in lines:
            cost = self.llm.count_tokens(line) + 1
            if window and size + cost > room:
                yield "\n".join(window)
                window, size = [], 0
            window.append(line[: room * 3])
            size += cost
        if window:
            yield "\n".join(window)

    def write(self, first: int, last: int) -> dict:
        """One chapter's recap: a call per window of its sentences."""
        out = Written()
        for listing in self.windows([labelled(self.book, sid) for sid in range(first, last + 1)]):
            out.add(self.ask(recap(listing), range(first, last + 1)))
        return out.record()

    def ask(self, chat: list[dict[str, str]], allowed: Collection[int], checked: bool = True) -> Written:
        """The model's reply to ``chat``, :func:`cited` (a reply cut by its length ending at its last whole
        sentence)."""
        if self.cancel.is_set():
            raise Cancelled("stopped; the chapters written so far are kept.")

        def reply(stop, outlived=None) -> str:
            request = Request("recap", chat, max_tokens=REPLY_TOKENS, cancel=stop, outlived=outlived)
            done = self.llm.complete(request)
            return whole_sentences(done.text) if done.finish_reason == "length" else done.text

        try:
            said = self.share.call(reply, self.cancel) if self.share else reply(self.cancel)
        except EliteError:
            raise
        except Exception as exc:  # a backend's own failure becomes one sentence, as in Engine.call
            raise ModelError(f"the model failed while writing a recap: {exc}") from exc
        return cited(self.book, said, allowed, checked)
