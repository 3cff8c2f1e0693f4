"""A loaded book: chapters, paragraphs and sentences with stable IDs and offsets, over numpy arrays.

:class:`Book` builds a :class:`Sentence` on demand; :meth:`Book.up_to` cuts it at a spoiler ceiling and
:meth:`Book.read_as` reads it with another language's words. Format readers hand over a :class:`Draft`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from .index import WordIndex, build_index
from .lexicon import Lexicon, forms, lexicon, unmarked


@dataclass(frozen=True)
class Chapter:
    """A titled span of the book: its first sentence and the offsets it covers; what the book's own heading makes
    of it (``kind``: front, part or chapter, and its number), and how it is cited (``ref``: "ch. 10") and named
    in prose (``name``: "chapter 10"); see :mod:`elite_ui.book.structure`."""

    title: str
    start: int
    end: int
    first_sentence: int
    kind: str = "chapter"
    word: str = "chapter"
    number: int | None = None
    ref: str = ""
    name: str = ""


@dataclass(frozen=True)
class Sentence:
    """One sentence and where it lies: ``id`` is stable for a given file and version of this loader."""

    id: int
    start: int
    end: int
    text: str
    paragraph: int
    chapter: int
    chapter_title: str
    page: int | None
    chapter_ref: str = ""
    """The chapter as the book numbers it, for citations ("ch. 12", "preface")."""
    chapter_name: str = ""
    """The same in prose ("chapter 12", "the preface")."""

    @property
    def label(self) -> str:
        return f"S{self.id}"

    @property
    def citation(self) -> str:
        """How an answer cites it: ``S1234, ch. 12`` (and ``p. 5`` for PDFs)."""
        parts = [self.label, self.chapter_ref]
        if self.page is not None:
            parts.append(f"p. {self.page}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Ceiling:
    """How far the reader has read: the last sentence (its ID in the whole book), how the reader named it
    ("chapter 10"; empty when only a question's part cut the book), and the first sentence searched (after the
    front matter, unless that is searched too); ``within`` names the part of the book a question asked about,
    searched alone (:mod:`elite_ui.book.scope`: "chapter 3 (...)"), if it did."""

    sentence: int
    label: str
    first: int = 0
    within: str = ""


@dataclass
class Book:
    """A loaded book. Sentence data live in numpy arrays; :meth:`sentence` builds a :class:`Sentence` on demand."""

    title: str
    author: str
    path: str
    format: str
    text: str
    bounds: np.ndarray
    paragraph_of: np.ndarray
    chapter_of: np.ndarray
    chapters: list[Chapter]
    page_starts: np.ndarray | None
    index: WordIndex
    digest: str
    load_seconds: float = 0.0
    stats: dict = field(default_factory=dict)
    language: str = "en"
    """ISO 639-1 code of the book's language (detected at load), which picks its :attr:`lexicon`."""
    ceiling: Ceiling | None = None
    """Where the reader's spoiler ceiling cut it (:meth:`up_to`), if it did."""

    @property
    def lexicon(self) -> Lexicon:
        return lexicon(self.language)

    def forms(self, word: str) -> tuple[str, ...]:
        """``word`` and its inflected forms: lemminflect's in English, with the book's words that write one of them
        with marks ("eponine" finds "Éponine", "cafe" "café": a reader and a model type names without them);
        elsewhere the book's words with the same Snowball stem (there "ou" is no "où")."""
        if self.language == "en":
            return tuple(dict.fromkeys(w for f in (*forms(word), *self.family(word)) for w in self.spelled(f)))
        word = word.lower()
        stem = self.lexicon.stems([word])
        return tuple(dict.fromkeys([word, *self.stem_groups.get(stem[0], ())])) if stem else (word,)

    def family(self, word: str) -> list[str]:
        """A name's family plural and its one name, where the book writes them ("bennets": "bennet", "lucas":
        "lucases"): English inflects no name, so "the Bennets" had not found "Mrs. Bennet". Not for a word English
        inflects, nor to one ("news" is no plural of "new")."""
        word = word.lower()
        if forms(word) != (word,):
            return []
        kin = [word + "s", word + "es", word.removesuffix("s"), word.removesuffix("es")]
        return [w for w in dict.fromkeys(kin) if w != word and len(w) > 2 and w in self.index.vocabulary
                and forms(w) == (w,)]

    def spelled(self, word: str) -> tuple[str, ...]:
        """``word`` lower-cased, and the book's words that write it with marks ("eponine": "éponine")."""
        word = word.lower()
        return (word, *self.marked.get(unmarked(word), ()))

    @cached_property
    def marked(self) -> dict[str, list[str]]:
        """The book's words written with marks, by the word without them ("eponine": ["éponine"])."""
        out: dict[str, list[str]] = {}
        for word in self.index.vocabulary:
            if (plain := unmarked(word)) != word:
                out.setdefault(plain, []).append(word)
        return out

    @cached_property
    def stem_groups(self) -> dict[str, list[str]]:
        """The book's words grouped by Snowball stem (empty for languages without a stemmer)."""
        vocabulary = list(self.index.vocabulary)
        groups: dict[str, list[str]] = {}
        for word, stem in zip(vocabulary, self.lexicon.stems(vocabulary) or [], strict=False):
            groups.setdefault(stem, []).append(word)
        return groups

    def __len__(self) -> int:
        return len(self.bounds)

    @cached_property
    def headings(self) -> frozenset[int]:
        """The sentences that write a chapter's heading ("II.", then "THE OPEN ROAD"): a chapter's first sentences,
        as long as together they write no more than its title."""
        out = set()
        for chapter in self.chapters:
            said = ""
            for sid in range(chapter.first_sentence, len(self)):
                said = " ".join([*said.split(), *self.span_text(sid, sid).split()])
                if not (chapter.title == said or chapter.title.startswith(f"{said} ")):
                    break
                out.add(sid)
        return frozenset(out)

    @cached_property
    def sentence_lengths(self) -> np.ndarray:
        """The number of distinct words of each sentence (what BM25 normalises a match by)."""
        return np.bincount(self.index.sentence_ids, minlength=len(self)).astype(np.float64)

    def sentence(self, sid: int) -> Sentence:
        if not 0 <= sid < len(self.bounds):
            raise IndexError(f"no sentence S{sid}")
        start, end = (int(x) for x in self.bounds[sid])
        chapter = int(self.chapter_of[sid])
        return Sentence(
            id=sid,
            start=start,
            end=end,
            text=self.text[start:end],
            paragraph=int(self.paragraph_of[sid]),
            chapter=chapter,
            chapter_title=self.chapters[chapter].title,
            page=self.page_of(start),
            chapter_ref=self.chapters[chapter].ref,
            chapter_name=self.chapters[chapter].name,
        )

    def around(self, sid: int, before: int, after: int | None = None) -> range:
        """Sentence ``sid`` with ``before`` sentences before it and ``after`` (default ``before``) after it, as
        many as the book holds."""
        return range(max(sid - before, 0), min(sid + (before if after is None else after) + 1, len(self)))

    @property
    def first_read(self) -> int:
        """The first sentence after the front matter (title page, contents, preface...): where the story starts."""
        return next((c.first_sentence for c in self.chapters if c.kind != "front"), 0)

    def span_text(self, first: int, last: int) -> str:
        """Text from sentence ``first`` to sentence ``last`` inclusive, as it stands in the book."""
        return self.text[int(self.bounds[first, 0]) : int(self.bounds[last, 1])]

    def sentence_at(self, offset: int) -> int:
        """The sentence an offset of the text falls in (before the first: the first; past the end: the last)."""
        return int(np.clip(np.searchsorted(self.bounds[:, 0], offset, side="right") - 1, 0, len(self) - 1))

    def page_of(self, offset: int) -> int | None:
        if self.page_starts is None:
            return None
        return int(np.searchsorted(self.page_starts, offset, side="right"))

    def read_as(self, language: str) -> Book:
        """The book with the words of another language (its word index rebuilt; sentences are kept)."""
        index, n_words = build_index(self.text, self.bounds, lexicon(language))
        return replace(self, index=index, language=language, stats=self.stats | {"words": n_words})

    def up_to(self, last: int, label: str, front: bool = False, first: int | None = None,
              within: str = "") -> Book:
        """The book as read up to sentence ``last`` (inclusive), the spoiler ceiling: the same sentence IDs,
        nothing after it (text, chapters, pages and the word index all end there). The front matter (an editor's
        preface may tell the whole plot) is left out of the word index too, unless ``front``; or everything before
        ``first``, where a question asked about a part of the book (``within``, its name)."""
        last = min(max(last, 0), len(self) - 1)
        end = int(self.bounds[last, 1])
        first = min(first, last) if first is not None else 0 if front else min(self.first_read, last)
        chapters = [c for c in self.chapters if c.first_sentence <= last]
        chapters[-1] = replace(chapters[-1], end=end)
        searched = self.bounds[: last + 1].copy()
        searched[:first] = 0  # empty spans: the front matter holds no words to find
        index, n_words = build_index(self.text[:end], searched, self.lexicon)
        pages = None if self.page_starts is None else self.page_starts[self.page_starts < end]
        return replace(self, text=self.text[:end], bounds=self.bounds[: last + 1],
                       paragraph_of=self.paragraph_of[: last + 1], chapter_of=self.chapter_of[: last + 1],
                       chapters=chapters, page_starts=pages, index=index, stats=self.stats | {"words": n_words},
                       ceiling=Ceiling(last, label, first, within))

    def cut(self, ceiling: Ceiling) -> Book:
        """The book cut at ``ceiling`` again (an edited search re-reads the book its run was asked of)."""
        return self.up_to(ceiling.sentence, ceiling.label, first=ceiling.first, within=ceiling.within)

    @property
    def story_from(self) -> int:
        """The first sentence of the story searched: after the front matter (searched or not), and within the part a
        question named."""
        return max(self.first_read, self.searched_from)

    @property
    def guarded(self) -> bool:
        """Whether a reader's spoiler ceiling cut the book (not only the part a question named): nothing a model
        says beyond what the book up to there supports may reach the reader."""
        return self.ceiling is not None and bool(self.ceiling.label)

    @property
    def searched_from(self) -> int:
        """The first sentence searched: after the front matter under a spoiler ceiling, else the first."""
        return self.ceiling.first if self.ceiling else 0

    def load_note(self) -> str:
        """How the book was opened: parsed (and cached for next time), or from the cache of an earlier visit; and
        what of it the file lacks."""
        size = f"{self.stats.get('cache_bytes', 0) / 2**20:.1f} MB"
        if self.stats.get("cached"):
            note = f"opened from the cache in {self.load_seconds:.2f} s (parsed structure {size})"
        elif "cached" in self.stats and self.stats.get("cache_bytes"):
            note = f"loaded in {self.load_seconds:.2f} s; cached for next time ({size})"
        elif "cached" in self.stats:
            note = f"loaded in {self.load_seconds:.2f} s; not cached (the cache folder cannot be written)"
        else:
            note = f"loaded in {self.load_seconds:.2f} s"
        return "; ".join(filter(None, (note, self.missing_note())))

    def missing_note(self) -> str:
        """What the file lists but does not hold (an EPUB's missing chapters, read as empty), or ""."""
        missing = self.stats.get("missing") or []
        if not missing:
            return ""
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        names = ", ".join(name[:60] for name in missing[:3]) + more
        return (f"{len(missing)} chapter file{'s' if len(missing) > 1 else ''} the book lists "
                f"{'are' if len(missing) > 1 else 'is'} missing from it ({names}); read without "
                f"{'them' if len(missing) > 1 else 'it'}")

    def summary(self) -> dict:
        return {
            "title": self.title,
            "author": self.author,
            "format": self.format,
            "characters": len(self.text),
            "chapters": sum(c.kind == "chapter" for c in self.chapters),
            "parts": sum(c.kind == "part" for c in self.chapters),
            "front_matter": [c.title for c in self.chapters if c.kind == "front"],
            "paragraphs": int(self.paragraph_of[-1]) + 1 if len(self) else 0,
            "sentences": len(self),
            "words": int(self.stats.get("words", 0)),
            "load_seconds": round(self.load_seconds, 3),
            "language": self.language,
        }


@dataclass
class Draft:
    """What a format reader hands over: clean text, paragraph spans, chapter starts and optional page starts."""

    text: str
    paragraphs: list[tuple[int, int]]
    chapters: list[tuple[str, int]]
    title: str = ""
    author: str = ""
    page_starts: list[int] | None = None
    missing: list[str] = field(default_factory=list)
    """Text documents the file lists but does not hold (an EPUB's missing chapters), read as empty."""
