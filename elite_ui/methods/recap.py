"""Chapter recaps written by the model, for a model that can write them: each chapter of the book as given (cut at
the reader's ceiling, so a chapter the ceiling cuts is summarised only up to it), read in windows that fit the
model's context; every recap sentence must cite the chapter's sentences it rests on, and one that cites none of
them is dropped. The chapter recaps are then condensed into one "so far" paragraph whose sentences must cite
sentences the recaps cited (in rounds, when the recaps do not fit the context at once). Kept per book, model and
chapter span (or recaps condensed) in the cache folder (a JSON line each), so a build resumes where it stopped and
a chapter is written once; progress after each chapter, Stop between calls.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Container, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..book import Book
from ..book.story import story_chapters
from ..errors import Cancelled, EliteError, ModelError
from ..models import LLM, Request
from ..models.capacity import Share
from .parsing import SENTENCE_LABEL
from .prompts import labelled, messages

REPLY_TOKENS = 220
WINDOW_SHARE = 0.6
"""Share of the model's context one window of a chapter's sentences takes (the rest: instructions and reply)."""


@dataclass
class Written:
    """A chapter's recap: each sentence the model wrote with the sentences of the chapter it cites."""

    ref: str
    title: str
    lines: list[tuple[str, list[int]]]
    dropped: int = 0
    """Recap sentences left out because they cited no sentence of the chapter."""


def prompt(listing: str) -> list[dict[str, str]]:
    return messages(f"Sentences of a chapter of a novel:\n{listing}\n\nRecap what happens in them in at most four "
                    "sentences, in the order it happens. After each sentence, put in square brackets the labels of "
                    "the sentences it comes from, for example [S12, S14].")


def condensing(listing: str) -> list[dict[str, str]]:
    return messages(f"Recaps of a novel's chapters, in order; after each sentence, the labels of the book's sentences "
                    f"it rests on:\n{listing}\n\nCondense them into the story so far: one paragraph of at most six "
                    "sentences, the main events in order. After each sentence, put in square brackets the labels it "
                    "rests on, copied from above.")


def cited(reply: str, allowed: Container[int]) -> tuple[list[tuple[str, list[int]]], int]:
    """The reply's sentences with the labels they cite among ``allowed`` (the chapter's sentences, or those the
    recaps cited); those that cite none are dropped and counted."""
    lines, dropped = [], 0
    for sentence in re.split(r"(?<=[.!?\]])\s+(?=[A-Z\"“])", reply.strip()):
        ids = sorted({int(n) for n in SENTENCE_LABEL.findall(sentence) if int(n) in allowed})
        text = re.sub(r"\s*\[[^\]]*\]", "", sentence).strip()
        if not text:
            continue
        if ids:
            lines.append((text, ids))
        else:
            dropped += 1
    return lines, dropped


class Recaps:
    """The written recaps of one book by one model, kept in ``cache_dir``."""

    def __init__(self, llm: LLM, book: Book, cache_dir: Path | str, cancel: threading.Event | None = None,
                 share: Share | None = None):
        self.llm, self.book, self.cancel, self.share = llm, book, cancel or threading.Event(), share
        key = hashlib.sha256(f"{book.digest}:{llm.name}".encode()).hexdigest()[:24]
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
            record = kept[span]
            out.append(Written(chapter.ref, chapter.title, [(t, ids) for t, ids in record["lines"]],
                               record["dropped"]))
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
        return Written("So far", "", [(t, ids) for t, ids in record["lines"]], record["dropped"])

    def condense(self, lines: list[tuple[str, list[int]]]) -> dict:
        """A call per window of recap lines, in rounds until one window holds them all (or a round shrinks
        nothing)."""
        allowed = {sid for _, ids in lines for sid in ids}
        dropped = 0
        while lines:
            listings = list(self.windows([f"{t} [{', '.join(f'S{sid}' for sid in ids)}]" for t, ids in lines]))
            out = []
            for listing in listings:
                found, lost = self.ask(condensing(listing), allowed)
                out += [said for said in found if said not in out]
                dropped += lost
            if len(listings) == 1 or len(out) >= len(lines):
                return {"lines": out, "dropped": dropped}
            lines = out
        return {"lines": [], "dropped": dropped}

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
        lines, dropped = [], 0
        for listing in self.windows([labelled(self.book, sid) for sid in range(first, last + 1)]):
            found, lost = self.ask(prompt(listing), range(first, last + 1))
            lines += [said for said in found if said not in lines]
            dropped += lost
        return {"lines": lines, "dropped": dropped}

    def ask(self, chat: list[dict[str, str]], allowed: Container[int]) -> tuple[list, int]:
        if self.cancel.is_set():
            raise Cancelled("stopped; the chapters written so far are kept.")

        def reply(stop, outlived=None) -> str:
            request = Request("recap", chat, max_tokens=REPLY_TOKENS, cancel=stop, outlived=outlived)
            return self.llm.complete(request).text

        try:
            said = self.share.call(reply, self.cancel) if self.share else reply(self.cancel)
        except EliteError:
            raise
        except Exception as exc:  # a backend's own failure becomes one sentence, as in Engine.call
            raise ModelError(f"the model failed while writing a recap: {exc}") from exc
        return cited(said, allowed)
