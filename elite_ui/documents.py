"""Books: txt, epub and pdf files turned into chapters, paragraphs and sentences with stable IDs and offsets.

Everything retrieval needs is built once here, at load: the sentence boundaries (blingfire), the chapter and
page of every sentence, and an inverted index from each lower-cased word to the sentences holding it.
"""

from __future__ import annotations

import ctypes
import hashlib
import itertools
import json
import os
import re
import time
import zipfile
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path

import blingfire
import numpy as np

from .errors import BookError
from .lexicon import ENGLISH, WORD, Lexicon, detect_language, forms, lexicon

MAX_BYTES = 20 * 1024 * 1024
MAX_UNPACKED = 256 * 1024 * 1024
"""An epub whose members unpack to more than this (a zip bomb) is refused before anything is unpacked."""
FORMATS = (".txt", ".epub", ".pdf")

CHAPTER_HEADING = re.compile(
    r"^(?=(?-i:[A-Z]))(?:chapter|book|part|volume|letter|stave|canto|section|prologue|epilogue|preface|introduction|"
    r"chapitre|livre|partie|kapitel|buch|teil|cap[ií]tulo|libro|parte)"
    r"(?:[\s.:\-—–]+(?:[0-9]+|[ivxlcdm]+\b|the\s+\w+|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\b.*|\.?)$",
    re.IGNORECASE,
)
CAPS_HEADING = re.compile(r"^(?=.*[A-Z]{2})[^a-z!?]{2,60}$")
ROMAN_HEADING = re.compile(r"^[IVXLC]+\.(?:\s+[^a-z]+)?$")
CJK_HEADING = re.compile(r"^第[0-9一二三四五六七八九十百千零〇两]+[章回节卷部篇](?:\s.*)?$")
TITLE_ABBREVIATION = re.compile(r"[A-Z](?<![^\W_].)(?:r|rs|s|t|me|lle|essrs|ev|ol|apt|en)?\.(?=\s)")
"""A capital alone (an initial) or a title such as Mr, Mrs, Dr, St, Mme, Rev, Capt, followed by a full stop."""
ORDINAL = re.compile(r"(?<![\d.])\d{1,3}\.(?=\s)")
"""A German ordinal ("am 3. Mai", "der 2. Teil"), never the end of a sentence."""
TITLE_AFTER_STOP = re.compile(r"[.!?](?<=[a-z].)[\"”’]?\s+(?=(?:Mr|Mrs|Ms|Dr|M|Mme|Mlle|Sr|Sra|Srta)\.\s+[A-Z])")
SPACES = np.array([c for c in range(0x3001) if chr(c).isspace()] + [0x200B, 0xFEFF], dtype=np.uint32)
"""Every character Python calls whitespace (line and paragraph separators included), zero-width space and BOM."""
MOJIBAKE_HINT = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc"
    "\u2013-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]"
)
"""A UTF-8 lead byte read as Latin-1/cp1252 followed by a continuation byte read the same way ("Ã¨" for "è")."""
C1_AFTER_QUOTE = re.compile("(?<=[\"'\u2018\u2019\u201c\u201d])[\u0080-\u009f]")
C1_CONTROL = re.compile("[\u0080-\u009f]")
GUTENBERG_START = re.compile(r"^\s*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.IGNORECASE | re.MULTILINE)
GUTENBERG_END = re.compile(
    r"^\s*(?:\*{3}\s*)?END OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.IGNORECASE | re.MULTILINE
)


@dataclass(frozen=True)
class Chapter:
    """A titled span of the book: its first sentence and the offsets it covers."""

    title: str
    start: int
    end: int
    first_sentence: int


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

    @property
    def label(self) -> str:
        return f"S{self.id}"

    @property
    def citation(self) -> str:
        """How an answer cites it: ``S1234, ch. 12`` (and ``p. 5`` for PDFs)."""
        parts = [self.label, f"ch. {self.chapter + 1}"]
        if self.page is not None:
            parts.append(f"p. {self.page}")
        return ", ".join(parts)


@dataclass
class WordIndex:
    """Inverted index: word -> sorted sentence IDs, stored as one CSR array pair (numpy, no per-word lists)."""

    vocabulary: dict[str, int]
    indptr: np.ndarray
    sentence_ids: np.ndarray
    document_frequency: np.ndarray

    def postings(self, word: str) -> np.ndarray:
        wid = self.vocabulary.get(word)
        if wid is None:
            return self.sentence_ids[:0]
        return self.sentence_ids[self.indptr[wid] : self.indptr[wid + 1]]


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

    @property
    def lexicon(self) -> Lexicon:
        return lexicon(self.language)

    def forms(self, word: str) -> tuple[str, ...]:
        """``word`` and its inflected forms: lemminflect's in English; elsewhere the book's words with the same
        Snowball stem."""
        if self.language == "en":
            return forms(word)
        word = word.lower()
        stem = self.lexicon.stems([word])
        return tuple(dict.fromkeys([word, *self.stem_groups.get(stem[0], ())])) if stem else (word,)

    @cached_property
    def stem_groups(self) -> dict[str, list[str]]:
        """The book's words grouped by Snowball stem (empty for languages without a stemmer)."""
        vocabulary = list(self.index.vocabulary)
        groups: dict[str, list[str]] = {}
        for word, stem in zip(vocabulary, self.lexicon.stems(vocabulary) or []):
            groups.setdefault(stem, []).append(word)
        return groups

    def __len__(self) -> int:
        return len(self.bounds)

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
        )

    def span_text(self, first: int, last: int) -> str:
        """Text from sentence ``first`` to sentence ``last`` inclusive, as it stands in the book."""
        return self.text[int(self.bounds[first, 0]) : int(self.bounds[last, 1])]

    def page_of(self, offset: int) -> int | None:
        if self.page_starts is None:
            return None
        return int(np.searchsorted(self.page_starts, offset, side="right"))

    def read_as(self, language: str) -> Book:
        """The book with the words of another language (its word index rebuilt; sentences are kept)."""
        index, n_words = build_index(self.text, self.bounds, lexicon(language))
        return replace(self, index=index, language=language, stats=self.stats | {"words": n_words})

    def up_to(self, last: int, label: str) -> Book:
        """The book as read up to sentence ``last`` (inclusive), the spoiler ceiling: the same sentence IDs,
        nothing after it (text, chapters, pages and the word index all end there)."""
        last = min(max(last, 0), len(self) - 1)
        end = int(self.bounds[last, 1])
        chapters = [c for c in self.chapters if c.first_sentence <= last]
        chapters[-1] = replace(chapters[-1], end=end)
        index, n_words = build_index(self.text[:end], self.bounds[: last + 1], self.lexicon)
        pages = None if self.page_starts is None else self.page_starts[self.page_starts < end]
        return replace(self, text=self.text[:end], bounds=self.bounds[: last + 1],
                       paragraph_of=self.paragraph_of[: last + 1], chapter_of=self.chapter_of[: last + 1],
                       chapters=chapters, page_starts=pages, index=index,
                       stats=self.stats | {"words": n_words, "ceiling": {"sentence": last, "label": label}})

    def load_note(self) -> str:
        """How the book was opened: parsed (and cached for next time), or from the cache of an earlier visit."""
        size = f"{self.stats.get('cache_bytes', 0) / 2**20:.1f} MB"
        if self.stats.get("cached"):
            return f"opened from the cache in {self.load_seconds:.2f} s (parsed structure {size})"
        if "cached" in self.stats:
            return f"loaded in {self.load_seconds:.2f} s; cached for next time ({size})"
        return f"loaded in {self.load_seconds:.2f} s"

    def summary(self) -> dict:
        return {
            "title": self.title,
            "author": self.author,
            "format": self.format,
            "characters": len(self.text),
            "chapters": len(self.chapters),
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


CEILING = re.compile(r"^\s*(?:(chapter|ch\.?|page|p\.?)\s*(\d+)|(\d+(?:\.\d+)?)\s*%)\s*$", re.I)


def reading_ceiling(book: Book, spec: str) -> tuple[int, str] | None:
    """The last sentence a reader has read, from "chapter 12", "page 80" or "40%" (None when ``spec`` is empty),
    and how to name it."""
    if not spec.strip():
        return None
    found = CEILING.match(spec)
    if not found:
        raise BookError(f'"{spec.strip()}" is not a reading position; write "chapter 12", "page 80" or "40%".')
    kind, number, percent = found.groups()
    if percent is not None:
        share = min(float(percent), 100.0) / 100
        last = int(np.searchsorted(book.bounds[:, 1], int(len(book.text) * share), side="right")) - 1
        return max(last, 0), f"{percent}% of the book"
    n = int(number)
    if kind.lower().startswith("c"):
        if not 1 <= n <= len(book.chapters):
            raise BookError(f"chapter {n} is not in this book, which has {len(book.chapters)} chapters.")
        last = book.chapters[n].first_sentence - 1 if n < len(book.chapters) else len(book) - 1
        return last, f"chapter {n} ({book.chapters[n - 1].title})"
    if book.page_starts is None:
        raise BookError("this book has no pages (it is not a PDF); give a chapter or a percentage.")
    if not 1 <= n <= len(book.page_starts):
        raise BookError(f"page {n} is not in this book, which has {len(book.page_starts)} pages.")
    end = int(book.page_starts[n]) if n < len(book.page_starts) else len(book.text)
    return max(int(np.searchsorted(book.bounds[:, 1], end, side="right")) - 1, 0), f"page {n}"


def default_cache_dir() -> Path:
    """Where parsed books and M-RAG marker stores are kept: $ELITE_CACHE, else ~/.cache/elite-reader."""
    return Path(os.environ.get("ELITE_CACHE") or Path.home() / ".cache" / "elite-reader")


def load_book(path: str | Path, *, max_bytes: int = MAX_BYTES, cache_dir: Path | str | None = None) -> Book:
    """Read a txt, epub or pdf file into a :class:`Book`, or raise :class:`BookError` saying why not. With
    ``cache_dir``, a book seen before (same content) opens from its parsed structure, and a new one is saved
    there; ``book.stats`` says which ("cached") and the cache file's size ("cache_bytes")."""
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
    if book is None:
        reader = {".txt": read_txt, ".epub": read_epub, ".pdf": read_pdf}[suffix]
        draft = reader(data, path.name)
        if not WORD.search(draft.text):
            raise BookError(f"{path.name} contains no readable text.")
        book = assemble(draft, path=str(path), fmt=suffix[1:], digest=digest)
        if stored:
            book.stats |= {"cached": False, "cache_bytes": pack(book, stored)}
    book.load_seconds = time.perf_counter() - started
    return book


def load_cached(digest: str, cache_dir: Path | str) -> Book | None:
    """The book with this content hash if it was parsed before into ``cache_dir`` (the page reopens a reader's
    book after a reload this way), else None."""
    if not re.fullmatch(r"[0-9a-f]{64}", str(digest)):
        return None
    stored = cached_path(cache_dir, digest)
    started = time.perf_counter()
    book = unpack(stored, stored) if stored.exists() else None
    if book is not None:
        book.load_seconds = time.perf_counter() - started
    return book


def cached_path(cache_dir: Path | str, digest: str) -> Path:
    return Path(cache_dir) / "books" / f"{digest[:32]}-v{PARSED_VERSION}.npz"


PARSED_VERSION = 2
"""Bumped with any change to how books are parsed, so parsed books cached by an older loader are not reused."""


def pack(book: Book, stored: Path) -> int:
    """Save ``book``'s parsed structure (text as UTF-8, numpy arrays, metadata) to ``stored``; its size in bytes,
    or 0 when it cannot be written (the cache is a convenience, never a reason to fail)."""
    meta = {"title": book.title, "author": book.author, "format": book.format, "digest": book.digest,
            "stats": book.stats, "language": book.language, "chapters": [asdict(c) for c in book.chapters]}
    arrays = {"text": np.frombuffer(book.text.encode("utf-8"), dtype=np.uint8), "bounds": book.bounds,
              "paragraph_of": book.paragraph_of, "chapter_of": book.chapter_of, "indptr": book.index.indptr,
              "sentence_ids": book.index.sentence_ids, "document_frequency": book.index.document_frequency,
              "vocabulary": np.frombuffer("\n".join(book.index.vocabulary).encode("utf-8"), dtype=np.uint8),
              "meta": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)}
    if book.page_starts is not None:
        arrays["page_starts"] = book.page_starts
    try:
        stored.parent.mkdir(parents=True, exist_ok=True)
        partial = stored.with_suffix(".partial.npz")
        np.savez(partial, **arrays)
        partial.replace(stored)
        return stored.stat().st_size
    except OSError:
        return 0


def unpack(stored: Path, path: Path) -> Book | None:
    """The book saved by :func:`pack`, or None if the file is unreadable (it is then parsed again)."""
    try:
        with np.load(stored) as saved:
            arrays = {name: saved[name] for name in saved.files}
        meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
        words_in_order = arrays["vocabulary"].tobytes().decode("utf-8").split("\n")
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError):
        return None
    index = WordIndex({w: i for i, w in enumerate(words_in_order) if w}, arrays["indptr"], arrays["sentence_ids"],
                      arrays["document_frequency"])
    return Book(title=meta["title"], author=meta["author"], path=str(path), format=meta["format"],
                text=arrays["text"].tobytes().decode("utf-8"), bounds=arrays["bounds"],
                paragraph_of=arrays["paragraph_of"], chapter_of=arrays["chapter_of"],
                chapters=[Chapter(**c) for c in meta["chapters"]], page_starts=arrays.get("page_starts"),
                index=index, digest=meta["digest"], language=meta["language"],
                stats=meta["stats"] | {"cached": True, "cache_bytes": stored.stat().st_size})


def decode(data: bytes, name: str) -> str:
    """Bytes to text: UTF-8 (with or without BOM) first, else the encoding charset-normalizer detects."""
    head = data[:8192]
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        wide = utf16_without_bom(data)
        if wide is None:
            raise BookError(f"{name} looks like a binary file, not text.")
        return wide
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise BookError(f"{name}: the text encoding could not be recognised.")
    return str(best).lstrip("\ufeff")


def utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 text saved without a byte-order mark (zero bytes at every other position), or None."""
    head = data[:8192]
    for offset, codec in ((1, "utf-16-le"), (0, "utf-16-be")):
        if len(head) >= 2 and head[offset::2].count(0) > 0.7 * (len(head) // 2) and len(data) % 2 == 0:
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                return None
    return None


def repair(text: str) -> str:
    """Normalise line ends and repair mis-decoded characters: ftfy on the lines that hold a mojibake-like pair.

    Stray C1 control characters next to quotes (left by an earlier, lossy mojibake clean-up, as in some
    Gutenberg files) are dropped first, since ftfy would read them as cp1252 letters.
    """
    import ftfy

    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = C1_AFTER_QUOTE.sub("", text)
    bad_lines = sorted({text.rfind("\n", 0, m.start()) + 1 for m in MOJIBAKE_HINT.finditer(text)})
    if bad_lines:
        pieces, last = [], 0
        for start in bad_lines:
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            pieces += [text[last:start], ftfy.fix_text(text[start:end], normalization="NFC", uncurl_quotes=False)]
            last = end
        text = "".join(pieces) + text[last:]
    return C1_CONTROL.sub("", text)


def strip_gutenberg(text: str) -> tuple[str, dict[str, str]]:
    """Drop a Project Gutenberg header and licence, keeping the Title/Author fields of the header."""
    meta: dict[str, str] = {}
    start = GUTENBERG_START.search(text)
    if start:
        header = text[: start.start()]
        for key in ("Title", "Author"):
            found = re.search(rf"^{key}:\s*(.+)$", header, re.MULTILINE)
            if found:
                meta[key.lower()] = found.group(1).strip()
        text = text[start.end() :]
    end = GUTENBERG_END.search(text)
    if end:
        text = text[: end.start()]
    return text, meta


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Paragraphs are blocks between blank lines; in books that never leave blank lines, each line is one."""
    blocks = [m.span() for m in re.finditer(r"[^\n]*\S[^\n]*(?:\n[^\n]*\S[^\n]*)*", text)]
    lines = text.count("\n") + 1
    if len(blocks) * 4 < lines / 2 or len(blocks) <= 1:
        blocks = [m.span() for m in re.finditer(r"[^\n]*\S[^\n]*", text)]
    return [trim_span(text, a, b) for a, b in blocks]


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def headings(text: str, paragraphs: list[tuple[int, int]]) -> list[tuple[str, int]]:
    """Chapter starts: short paragraphs that read like a heading ("CHAPTER IV", "I. THE PRISON DOOR").

    Books with fewer than three such headings (story collections) fall back to short all-capitals lines.
    """
    short = [(" ".join(text[a:b].split()), a) for a, b in paragraphs if b - a <= 120]
    found = [(line, a) for line, a in short
             if CHAPTER_HEADING.match(line) or ROMAN_HEADING.match(line) or CJK_HEADING.match(line)]
    if len(found) < 3:
        capitals = [(line, a) for line, a in short[3:] if CAPS_HEADING.match(line)]
        found = capitals if len(capitals) > len(found) else found
    return found


def title_and_author(text: str, paragraphs: list[tuple[int, int]], meta: dict[str, str]) -> tuple[str, str]:
    """Metadata where present, else the first short line as title and a "by X" line near it as author."""
    title, author = meta.get("title", ""), meta.get("author", "")
    opening = [" ".join(text[a:b].split()) for a, b in paragraphs[:8]]
    lines = [ln.strip() for chunk in opening for ln in chunk.split("  ") if ln.strip()]
    if not title and lines:
        title = lines[0][:120]
    if not author:
        for line in lines[:8]:
            found = re.match(r"^(?:(?:by|par|von|por)\s+|作者[:：]?\s*)(.+?)[,.]?$", line, re.IGNORECASE)
            if found:
                author = found.group(1)
                break
    return title, author


def read_txt(data: bytes, name: str) -> Draft:
    text, meta = strip_gutenberg(repair(decode(data, name)))
    paragraphs = paragraph_spans(text)
    title, author = title_and_author(text, paragraphs, meta)
    return Draft(text, paragraphs, headings(text, paragraphs), title, author)


def html_blocks(html: bytes) -> list[str]:
    """Text of the block elements of an XHTML document, in order, scripts and styles removed."""
    import warnings

    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)  # XHTML read leniently as HTML, on purpose
        soup = BeautifulSoup(html, "lxml")
    for tag in soup(["script", "style", "head"]):
        tag.decompose()
    blocks = soup.find_all(["p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre"])
    texts = [" ".join(b.get_text(" ").split()) for b in blocks if not b.find(["p", "li"])]
    if not any(texts):
        texts = [line for line in (" ".join(x.split()) for x in soup.get_text("\n").split("\n\n")) if line]
    return [t for t in texts if t]


def read_epub(data: bytes, name: str) -> Draft:
    import io

    import ebooklib
    from ebooklib import epub

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except Exception as exc:  # zipfile raises BadZipFile, NotImplementedError, struct.error, EOFError...
        raise BookError(f"{name} is not a readable EPUB file ({type(exc).__name__}).") from None
    if unpacked > MAX_UNPACKED:
        raise BookError(f"{name} unpacks to {unpacked / 2**20:,.0f} MB, far more than any book; it was refused.")
    try:
        book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except Exception as exc:  # ebooklib lets zipfile, lxml and its own errors through, of many types
        raise BookError(f"{name} is not a readable EPUB file ({type(exc).__name__}).") from None
    titles = {}
    for link in flatten_toc(book.toc):
        titles.setdefault(link.href.split("#")[0], link.title)
    parts: list[str] = []
    paragraphs: list[tuple[int, int]] = []
    chapters: list[tuple[str, int]] = []
    offset = 0
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        blocks = html_blocks(item.get_content())
        if not blocks:
            continue
        title = titles.get(item.get_name()) or (blocks[0] if len(blocks[0]) <= 120 else "")
        if title:
            chapters.append((title, offset))
        for block in blocks:
            paragraphs.append((offset, offset + len(block)))
            parts.append(block)
            offset += len(block) + 2
    text = "\n\n".join(parts)
    meta_title = book.get_metadata("DC", "title")
    meta_author = book.get_metadata("DC", "creator")
    return Draft(
        text,
        paragraphs,
        chapters,
        meta_title[0][0] if meta_title else "",
        meta_author[0][0] if meta_author else "",
    )


def flatten_toc(toc) -> list:
    out = []
    for entry in toc:
        if isinstance(entry, tuple):
            section, children = entry
            if hasattr(section, "href"):
                out.append(section)
            out.extend(flatten_toc(children))
        elif hasattr(entry, "href"):
            out.append(entry)
    return out


def read_pdf(data: bytes, name: str) -> Draft:
    import pymupdf

    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises its own and plain RuntimeErrors for broken files
        raise BookError(f"{name} is not a readable PDF file ({type(exc).__name__}).") from None
    if doc.needs_pass:
        raise BookError(f"{name} is encrypted; open it with its password and save an unprotected copy.")
    pages = []
    for number in range(doc.page_count):
        try:
            pages.append(doc.load_page(number).get_text("text"))
        except Exception:  # a damaged page is skipped; the rest of the book still loads
            pages.append("")
    try:
        meta, toc = doc.metadata or {}, doc.get_toc(simple=True)
    except Exception:  # a damaged outline or info dictionary costs only the chapter titles
        meta, toc = {}, []
    doc.close()
    pages = drop_running_lines(pages)
    parts: list[str] = []
    page_starts: list[int] = []
    paragraphs: list[tuple[int, int]] = []
    offset = 0
    for page in pages:
        page_starts.append(offset)
        page = re.sub(r"(\w)-\n(\w)", r"\1\2", page)
        blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n|(?<=[.!?\"”’])\n(?=[A-Z“\"])", page)]
        for block in (b for b in blocks if b):
            paragraphs.append((offset, offset + len(block)))
            parts.append(block)
            offset += len(block) + 2
    text = "\n\n".join(parts)
    if not WORD.search(text):
        raise BookError(f"{name} has no text layer (it is probably scanned images); run OCR on it first.")
    chapters = [(title, page_starts[page - 1]) for _level, title, page in toc if 0 < page <= len(page_starts)]
    if not chapters:
        chapters = headings(text, paragraphs)
    return Draft(text, paragraphs, chapters, meta.get("title", ""), meta.get("author", ""), page_starts)


def drop_running_lines(pages: list[str]) -> list[str]:
    """Remove running headers and footers: first/last lines that recur, digits aside, on many pages (unless that
    would leave no text at all: pages that are all alike)."""
    if len(pages) < 3:
        return pages

    def key(line: str) -> str:
        return re.sub(r"\d+", "#", line.strip().lower())

    edges = Counter()
    for page in pages:
        lines = [ln for ln in page.splitlines() if ln.strip()]
        edges.update({key(ln) for ln in lines[:2] + lines[-2:]})
    running = {k for k, n in edges.items() if n >= max(3, len(pages) // 2) or re.fullmatch(r"#|page #", k)}
    out = []
    for page in pages:
        lines = page.splitlines()
        nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
        edge = set(nonblank[:2] + nonblank[-2:])
        out.append("\n".join(ln for i, ln in enumerate(lines) if not (i in edge and key(ln) in running)))
    return out if any(WORD.search(page) for page in out) else pages


def sentence_bounds(text: str, paragraphs: list[tuple[int, int]],
                    language: str = "en") -> tuple[np.ndarray, np.ndarray]:
    """Sentence spans (blingfire), never crossing a paragraph, with blingfire's habitual errors fixed:
    a split after "Mr." and the like (and after a German ordinal, "am 3. Mai") is undone, and a missed split
    before "Mr." after a full stop is made."""
    para = np.asarray(paragraphs, dtype=np.int64).reshape(-1, 2)
    title_starts = [m.end() for m in TITLE_AFTER_STOP.finditer(text)]
    cuts = np.union1d(np.union1d(blingfire_starts(text), para[:, 0]), np.asarray(title_starts, dtype=np.int64))
    owner = np.searchsorted(para[:, 0], cuts, side="right") - 1
    keep = (owner >= 0) & (cuts < len(text))
    cuts, owner = cuts[keep], owner[keep]
    keep = cuts < para[owner, 1]
    cuts, owner = cuts[keep], owner[keep]
    ends = np.minimum(np.append(cuts[1:], len(text)), para[owner, 1])
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    solid = ~np.isin(codes, SPACES)
    positions = np.arange(len(codes), dtype=np.int32)
    next_solid = np.minimum.accumulate(np.where(solid, positions, np.int32(len(codes)))[::-1])[::-1]
    last_solid = np.maximum.accumulate(np.where(solid, positions, np.int32(-1)))
    del codes, solid, positions
    starts = next_solid[cuts]
    ends = last_solid[ends - 1] + 1
    keep = starts < ends
    starts, ends, owner = starts[keep], ends[keep], owner[keep]
    abbreviated = np.zeros(len(last_solid) + 1, dtype=bool)
    abbreviated[[m.end() for m in TITLE_ABBREVIATION.finditer(text)]] = True
    if language == "de":
        abbreviated[[m.end() for m in ORDINAL.finditer(text)]] = True
    joins = np.zeros(len(starts), dtype=bool)
    joins[1:] = abbreviated[ends[:-1]] & (owner[1:] == owner[:-1])
    first = np.flatnonzero(~joins)
    last = np.append(first[1:], len(starts)) - 1
    bounds = np.stack([starts[first], ends[last]], axis=1)
    return bounds, owner[first].astype(np.int32)


def blingfire_starts(text: str) -> np.ndarray:
    """Character offsets where blingfire starts a sentence (its byte offsets mapped back with numpy)."""
    raw = text.encode("utf-8")
    size = len(raw)
    out = ctypes.create_string_buffer(size * 2 + 16)
    starts = (ctypes.c_int32 * len(out))()
    ends = (ctypes.c_int32 * len(out))()
    count = blingfire.blingfire.TextToSentencesWithOffsets(
        ctypes.c_char_p(raw), ctypes.c_int(size), ctypes.byref(out), ctypes.byref(starts), ctypes.byref(ends),
        ctypes.c_int(len(out)),
    )
    if count < 0 or count > len(out) or not size:
        return np.zeros(0, dtype=np.int64)
    n = out.value.count(b"\n") + 1
    byte_starts = np.frombuffer(starts, dtype=np.int32, count=n).astype(np.int64).clip(0, size - 1)
    char_of_byte = np.cumsum((np.frombuffer(raw, dtype=np.uint8) & 0xC0) != 0x80) - 1
    return char_of_byte[byte_starts]


def build_index(text: str, bounds: np.ndarray, lex: Lexicon = ENGLISH) -> tuple[WordIndex, int]:
    """Inverted index over lower-cased words: one pass per sentence (a regex, or jieba for Chinese), then numpy
    (sorting word/sentence pairs)."""
    lower = text.lower()
    if lex.segmented:
        per_sentence = [lex.words(lower[a:b]) for a, b in bounds.tolist()]
    else:
        findall = WORD.findall
        per_sentence = [findall(lower, a, b) for a, b in bounds.tolist()]
    every_word = list(itertools.chain.from_iterable(per_sentence))
    vocabulary = {w: i for i, w in enumerate(dict.fromkeys(every_word))}
    word_ids = np.fromiter(map(vocabulary.__getitem__, every_word), dtype=np.int64, count=len(every_word))
    sentence_of = np.repeat(np.arange(len(bounds), dtype=np.int64), [len(ws) for ws in per_sentence])
    n_sent = max(len(bounds), 1)
    pairs = np.sort(word_ids * n_sent + sentence_of)
    pairs = pairs[np.append(True, pairs[1:] != pairs[:-1])] if len(pairs) else pairs
    counts = np.bincount(pairs // n_sent, minlength=len(vocabulary))
    indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    index = WordIndex(vocabulary, indptr, (pairs % n_sent).astype(np.int32), counts.astype(np.int32))
    return index, len(word_ids)


def assemble(draft: Draft, *, path: str, fmt: str, digest: str) -> Book:
    text = draft.text
    if not WORD.search(text):
        raise BookError("the book contains no readable text.")
    paragraphs = [p for p in draft.paragraphs if p[0] < p[1]] or [trim_span(text, 0, len(text))]
    language = detect_language(text)
    bounds, paragraph_of = sentence_bounds(text, paragraphs, language)
    if not len(bounds):
        raise BookError("the book contains no sentences.")
    chapter_starts = sorted({start: title for title, start in draft.chapters}.items())
    chapters: list[Chapter] = []
    if not chapter_starts or chapter_starts[0][0] > bounds[0, 0]:
        chapter_starts.insert(0, (int(bounds[0, 0]), draft.title or "Opening"))
    starts = np.asarray([s for s, _ in chapter_starts], dtype=np.int64)
    chapter_of = (np.searchsorted(starts, bounds[:, 0], side="right") - 1).clip(0).astype(np.int32)
    first_of = np.searchsorted(chapter_of, np.arange(len(starts)), side="left")
    for i, (start, title) in enumerate(chapter_starts):
        end = int(chapter_starts[i + 1][0]) if i + 1 < len(chapter_starts) else len(text)
        chapters.append(Chapter(title=title, start=int(start), end=end, first_sentence=int(first_of[i])))
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
        stats={"words": n_words},
        language=language,
    )
