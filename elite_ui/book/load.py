"""Loading a book: a txt, epub or pdf file checked, read by its format, then segmented, its chapters found, its
language detected and its words indexed (or opened from the parsed-book cache)."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import BookError
from .cache import cached_path, pack, unpack
from .formats import read_epub, read_pdf, read_txt
from .index import build_index
from .lexicon import WORD, detect_language, lexicon
from .model import Book, Chapter, Draft
from .segment import sentence_bounds, trim_span
from .structure import labels, structure

MAX_BYTES = 20 * 1024 * 1024


FORMATS = (".txt", ".epub", ".pdf")


@dataclass
class Opening:
    """A book file read as far as its card needs (its :class:`Draft`: text, paragraphs, chapter titles), or whole
    when it was in the cache; :meth:`finish` does the rest (sentences, language, word index) and caches it."""

    path: Path
    digest: str
    started: float
    draft: Draft | None = None
    book: Book | None = None
    stored: Path | None = None

    def chapters(self) -> int:
        """How many chapters the book has (its parts and front matter apart)."""
        if self.book is not None:
            return self.book.summary()["chapters"]
        first = next((start for start, end in self.draft.paragraphs if start < end), 0)
        starts, opening = chapter_starts_of(self.draft, first)
        return sum(h.kind == "chapter" for h in structure([title for _, title in starts], opening))

    def finish(self) -> Book:
        book = self.book
        if book is None:
            book = assemble(self.draft, path=str(self.path), fmt=self.path.suffix.lower()[1:], digest=self.digest)
            if self.stored:
                book.stats |= {"cached": False, "cache_bytes": pack(book, self.stored)}
        book.load_seconds = time.perf_counter() - self.started
        self.book = book
        return book


def open_file(path: str | Path, *, max_bytes: int = MAX_BYTES, cache_dir: Path | str | None = None) -> Opening:
    """Check a txt, epub or pdf file and read it by its format (or find it in ``cache_dir``, parsed before: same
    content), or raise :class:`BookError` saying why not."""
    started = time.perf_counter()
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise BookError(f"{path.name}: unsupported file type {suffix or '(none)'}; use .txt, .epub or .pdf.")
    if not path.is_file():
        raise BookError(f"{path.name}: no such file.")
    size = path.stat().st_size
    if size == 0:
        raise BookError(f"{path.name} is empty.")
    if size > max_bytes:
        raise BookError(f"{path.name} is {size / 2**20:.1f} MB; the limit is {max_bytes / 2**20:.0f} MB.")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    stored = cached_path(cache_dir, digest) if cache_dir else None
    book = unpack(stored, path) if stored and stored.exists() else None
    if book is not None:
        return Opening(path, digest, started, book=book)
    draft = {".txt": read_txt, ".epub": read_epub, ".pdf": read_pdf}[suffix](data, path.name)
    if not WORD.search(draft.text):
        raise BookError(f"{path.name} contains no readable text.")
    return Opening(path, digest, started, draft=draft, stored=stored)


def load_book(path: str | Path, *, max_bytes: int = MAX_BYTES, cache_dir: Path | str | None = None) -> Book:
    """Read a txt, epub or pdf file into a :class:`Book`, or raise :class:`BookError` saying why not. With
    ``cache_dir``, a book seen before (same content) opens from its parsed structure, and a new one is saved
    there; ``book.stats`` says which ("cached") and the cache file's size ("cache_bytes")."""
    return open_file(path, max_bytes=max_bytes, cache_dir=cache_dir).finish()


def chapter_starts_of(draft: Draft, first: int) -> tuple[list[tuple[int, str]], bool]:
    """Where each chapter starts and its title, and whether an opening one (titled by the book) is put first:
    when the text (from ``first``) starts before the first heading."""
    starts = sorted({start: title for title, start in draft.chapters}.items())
    opening = not starts or starts[0][0] > first
    if opening:
        starts.insert(0, (first, draft.title or "Opening"))
    return starts, opening


def assemble(draft: Draft, *, path: str, fmt: str, digest: str) -> Book:
    text = draft.text
    if not WORD.search(text):
        raise BookError("the book contains no readable text.")
    paragraphs = [p for p in draft.paragraphs if p[0] < p[1]] or [trim_span(text, 0, len(text))]
    language = detect_language(text)
    bounds, paragraph_of = sentence_bounds(text, paragraphs, language)
    if not len(bounds):
        raise BookError("the book contains no sentences.")
    chapter_starts, opening = chapter_starts_of(draft, int(bounds[0, 0]))
    chapters: list[Chapter] = []
    starts = np.asarray([s for s, _ in chapter_starts], dtype=np.int64)
    chapter_of = (np.searchsorted(starts, bounds[:, 0], side="right") - 1).clip(0).astype(np.int32)
    first_of = np.searchsorted(chapter_of, np.arange(len(starts)), side="left")
    titles = [title for _, title in chapter_starts]
    headings = structure(titles, opening)
    for i, ((start, title), heading, (ref, name)) in enumerate(zip(chapter_starts, headings,
                                                                    labels(titles, headings), strict=True)):
        end = int(chapter_starts[i + 1][0]) if i + 1 < len(chapter_starts) else len(text)
        chapters.append(Chapter(title, int(start), end, int(first_of[i]), heading.kind, heading.word or "chapter",
                                heading.number, ref, name))
    index, n_words = build_index(text, bounds, lexicon(language))
    page_starts = np.asarray(draft.page_starts, dtype=np.int64) if draft.page_starts is not None else None
    return Book(
        title=draft.title or Path(path).stem,
        author=draft.author,
        path=path,
        format=fmt,
        text=text,
        bounds=bounds,
        paragraph_of=paragraph_of,
        chapter_of=chapter_of,
        chapters=chapters,
        page_starts=page_starts,
        index=index,
        digest=digest,
        stats={"words": n_words} | ({"missing": draft.missing} if draft.missing else {}),
        language=language,
    )
