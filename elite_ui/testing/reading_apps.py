"""What reading apps keep about a book, made for tests and benchmarks the way each writes it: an EPUB with the
nesting real ones have, the place of a sentence as Calibre's viewer writes it (``epubcfi(/N/2/4/...)``), as the
EPUB standard writes it (``epubcfi(/6/N!/4/...)``) and as KOReader writes it (an xpointer); a Calibre library
(``metadata.db`` with Calibre's own tables) and a KOReader sidecar (``metadata.epub.lua``)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path

from ..book import Book
from ..book.formats import epub_spine
from ..library.places import local, parsed, strings, text_blocks
from .files import make_epub


def nested_epub(book: Book, path: Path) -> Path:
    """``book``'s chapters as an EPUB whose paragraphs sit in a ``div`` and carry inline elements (a paragraph's
    second word and its middle one in italics, as e-books emphasise), so that places are paths through real
    nesting: a sentence may start in a paragraph's second or third text node."""
    chapters = []
    for n, chapter in enumerate(book.chapters):
        if chapter.kind != "chapter":
            continue
        last = book.chapters[n + 1].first_sentence if n + 1 < len(book.chapters) else len(book)
        spans: dict[int, list[int]] = {}
        for sid in range(chapter.first_sentence, last):
            spans.setdefault(int(book.paragraph_of[sid]), []).append(sid)
        paragraphs = [" ".join(book.span_text(ids[0], ids[-1]).split()) for ids in spans.values()]
        paragraphs = [p for p in paragraphs if p and p != " ".join(chapter.title.split())]
        body = "".join(f"<p>{emphasised(p)}</p>" for p in paragraphs)
        chapters.append((escape(chapter.title), f"<div class='text'>{body}</div>"))
    return make_epub(path, chapters, title=book.title, author=book.author)


def emphasised(paragraph: str) -> str:
    words = [escape(w) for w in paragraph.split(" ")]
    if len(words) < 3:
        return " ".join(words)
    middle = len(words) // 2
    if middle > 2:
        words[middle] = f"<i>{words[middle]}</i>"
    return f"{words[0]} <i>{words[1]}</i> " + " ".join(words[2:])


@lru_cache(maxsize=4)
def spine(path: str, modified: int) -> list:
    """An EPUB's spine items, read once while the file is unchanged."""
    return epub_spine(Path(path).read_bytes(), Path(path).name).items


@dataclass
class Written:
    """A sentence's start as each app writes it."""

    calibre: str
    standard: str
    koreader: str
    spine_index: int
    in_item: str
    """Calibre's highlight CFI: the path inside the spine item alone."""


def written_places(epub_path: Path, book: Book, sentence: int) -> Written:
    """Where sentence ``sentence`` of ``book`` (read from ``epub_path``) starts, as each app writes it."""
    items = spine(str(epub_path), Path(epub_path).stat().st_mtime_ns)
    start = int(book.bounds[sentence, 0])
    index = max(n for n, item in enumerate(items) if item.blocks and item.start <= start)
    item, offset, k = items[index], start - items[index].start, 0
    while offset > len(item.blocks[k]):
        offset -= len(item.blocks[k]) + 2
        k += 1
    root = parsed(item)
    block, _ = text_blocks(root)[k]
    raw = strings(block)
    head = item.blocks[k][offset:offset + 24]
    joined = "".join(str(s) for s in raw)
    at = joined.find(head, max(0, offset - 40))
    for string in raw:
        if at <= len(string) and (at < len(string) or string is raw[-1]):
            break
        at -= len(string)
    owner = string.getparent() if string.is_text else string.getparent().getparent()
    own = owner.xpath("text()")
    nth = next(n for n, s in enumerate(own) if s.getparent() is string.getparent() and s.is_text == string.is_text)
    chars = sum(len(s) for s in own[:nth]) + at
    steps, koreader, node = [], [], owner
    while node is not root:
        parent = node.getparent()
        elements = [c for c in parent if isinstance(c.tag, str)]
        steps.append(f"/{2 * (elements.index(node) + 1)}")
        same = [c for c in parent if local(c) == local(node)]
        koreader.append(f"/{local(node)}" + (f"[{same.index(node) + 1}]" if len(same) > 1 else ""))
        node = parent
    path = "".join(reversed(steps))
    text_node = "text()" if nth == 0 else f"text()[{nth + 1}]"
    return Written(calibre=f"epubcfi(/{2 * (index + 1)}/2{path}/1:{chars})",
                   standard=f"epubcfi(/6/{2 * (index + 1)}!{path}/1:{chars})",
                   koreader=f"/body/DocFragment[{index + 1}]{''.join(reversed(koreader))}/{text_node}.{at}",
                   spine_index=index, in_item=f"/2{path}/1:{chars}")


CALIBRE_TABLES = """
CREATE TABLE authors ( id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE, sort TEXT COLLATE NOCASE,
    link TEXT NOT NULL DEFAULT "", UNIQUE(name));
CREATE TABLE books ( id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL DEFAULT 'Unknown' COLLATE NOCASE,
    sort TEXT COLLATE NOCASE, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, pubdate TIMESTAMP DEFAULT
    CURRENT_TIMESTAMP, series_index REAL NOT NULL DEFAULT 1.0, author_sort TEXT COLLATE NOCASE, isbn TEXT DEFAULT
    "" COLLATE NOCASE, lccn TEXT DEFAULT "" COLLATE NOCASE, path TEXT NOT NULL DEFAULT "", flags INTEGER NOT NULL
    DEFAULT 1, uuid TEXT, has_cover BOOL DEFAULT 0, last_modified TIMESTAMP NOT NULL DEFAULT
    "2000-01-01 00:00:00+00:00");
CREATE TABLE books_authors_link ( id INTEGER PRIMARY KEY, book INTEGER NOT NULL, author INTEGER NOT NULL,
    UNIQUE(book, author));
CREATE TABLE data ( id INTEGER PRIMARY KEY, book INTEGER NON NULL, format TEXT NON NULL COLLATE NOCASE,
    uncompressed_size INTEGER NON NULL, name TEXT NON NULL, UNIQUE(book, format));
CREATE TABLE last_read_positions ( id INTEGER PRIMARY KEY, book INTEGER NOT NULL, format TEXT NOT NULL COLLATE
    NOCASE, user TEXT NOT NULL, device TEXT NOT NULL, cfi TEXT NOT NULL, epoch REAL NOT NULL, pos_frac REAL NOT NULL
    DEFAULT 0, UNIQUE(user, device, book, format));
CREATE TABLE annotations ( id INTEGER PRIMARY KEY, book INTEGER NOT NULL, format TEXT NOT NULL COLLATE NOCASE,
    user_type TEXT NOT NULL, user TEXT NOT NULL, timestamp REAL NOT NULL, annot_id TEXT NOT NULL, annot_type TEXT
    NOT NULL, annot_data TEXT NOT NULL, searchable_text TEXT NOT NULL DEFAULT '',
    UNIQUE(book, user_type, user, format, annot_type, annot_id));
"""
"""The tables of Calibre's ``metadata.db`` that the library reader uses, as Calibre creates them
(kovidgoyal/calibre ``resources/metadata_sqlite.sql`` and the schema upgrades that add reading positions and
annotations)."""


def calibre_library(folder: Path, books: list[dict]) -> Path:
    """A Calibre library in ``folder``: each of ``books`` ({"title", "author", "files": [paths], "position":
    (cfi, pos_frac, epoch) or None, "highlights": [annot_data dicts]}) copied to ``Author/Title (id)/`` and listed
    in ``metadata.db``."""
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / "metadata.db")
    db.executescript(CALIBRE_TABLES)
    for book_id, entry in enumerate(books, 1):
        relative = f"{entry['author']}/{entry['title']} ({book_id})"
        (folder / relative).mkdir(parents=True, exist_ok=True)
        db.execute("INSERT INTO books (id, title, sort, author_sort, path) VALUES (?, ?, ?, ?, ?)",
                   (book_id, entry["title"], entry["title"], entry["author"], relative))
        db.execute("INSERT OR IGNORE INTO authors (name, sort) VALUES (?, ?)", (entry["author"], entry["author"]))
        author = db.execute("SELECT id FROM authors WHERE name = ?", (entry["author"],)).fetchone()[0]
        db.execute("INSERT INTO books_authors_link (book, author) VALUES (?, ?)", (book_id, author))
        for file in entry["files"]:
            name = f"{entry['title']} - {entry['author']}"
            fmt = Path(file).suffix[1:].upper()
            shutil.copy(file, folder / relative / f"{name}.{fmt.lower()}")
            db.execute("INSERT INTO data (book, format, uncompressed_size, name) VALUES (?, ?, ?, ?)",
                       (book_id, fmt, Path(file).stat().st_size, name))
        fmt = Path(entry["files"][0]).suffix[1:].upper()
        if entry.get("position"):
            cfi, frac, epoch = entry["position"]
            db.execute("INSERT INTO last_read_positions (book, format, user, device, cfi, epoch, pos_frac) VALUES "
                       "(?, ?, 'local', '_', ?, ?, ?)", (book_id, fmt, cfi, epoch, frac))
        for n, annot in enumerate(entry.get("highlights", [])):
            db.execute("INSERT INTO annotations (book, format, user_type, user, timestamp, annot_id, annot_type, "
                       "annot_data, searchable_text) VALUES (?, ?, 'local', 'viewer', ?, ?, 'highlight', ?, ?)",
                       (book_id, fmt, annot.get("epoch", 0), f"a{n}", json.dumps(annot),
                        annot.get("highlighted_text", "")))
    db.commit()
    db.close()
    return folder


def lua(value, indent: str = "") -> str:
    """A Python value written as KOReader writes its settings (a Lua table literal, keys sorted)."""
    inner = indent + "    "
    if isinstance(value, dict):
        fields = "".join(f"{inner}[{lua(k)}] = {lua(v, inner)},\n" for k, v in sorted(value.items(), key=str))
        return "{\n" + fields + indent + "}"
    if isinstance(value, list):
        return lua(dict(enumerate(value, 1)), indent)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def koreader_sidecar(book_file: Path, settings: dict) -> Path:
    """KOReader's sidecar beside ``book_file``: ``<name>.sdr/metadata.<ext>.lua``."""
    folder = book_file.with_suffix(".sdr")
    folder.mkdir(exist_ok=True)
    path = folder / f"metadata{book_file.suffix}.lua"
    path.write_text(f"-- {book_file.name}\nreturn {lua(settings)}\n", encoding="utf-8")
    return path

