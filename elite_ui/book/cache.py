"""The parsed-book cache: a book seen before (the same content, whatever its file name) opens from its parsed
structure, saved by content hash as one .npz file (text as UTF-8, numpy arrays, metadata)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import zipfile
from dataclasses import asdict
from pathlib import Path

import numpy as np

from .index import WordIndex
from .model import Book, Chapter

PARSED_VERSION = 12
"""Bumped with any change to how books are parsed, so parsed books cached by an older loader are not reused."""


def default_cache_dir() -> Path:
    """Where parsed books and M-RAG marker stores are kept: $ELITE_CACHE, else ~/.cache/elite-reader."""
    return Path(os.environ.get("ELITE_CACHE") or Path.home() / ".cache" / "elite-reader")


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
    partial = stored.with_suffix(".partial.npz")
    try:
        stored.parent.mkdir(parents=True, exist_ok=True)
        np.savez(partial, **arrays)
        partial.replace(stored)
        return stored.stat().st_size
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        return 0


def evict(cache_dir: Path | str, limit_bytes: int) -> int:
    """Remove the least recently used parsed books until the folder holds at most ``limit_bytes`` (0: no cap);
    how many were removed. A book's file is touched each time it is opened, so its age is its last use."""
    if limit_bytes <= 0:
        return 0
    files = []
    for path in (Path(cache_dir) / "books").glob("*.npz"):
        with contextlib.suppress(OSError):
            stat = path.stat()
            files.append((stat.st_mtime, stat.st_size, path))
    total, removed = sum(size for _, size, _ in files), 0
    for _, size, path in sorted(files):
        if total <= limit_bytes:
            break
        with contextlib.suppress(OSError):
            path.unlink()
            total -= size
            removed += 1
    return removed


def unpack(stored: Path, path: Path) -> Book | None:
    """The book saved by :func:`pack`, or None if the file is unreadable (it is then parsed again). Opening it
    counts as a use (:func:`evict` removes the least recently used)."""
    with contextlib.suppress(OSError):
        os.utime(stored)
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
