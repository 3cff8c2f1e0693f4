"""KOReader's sidecar of a book, ``<book>.sdr/metadata.<ext>.lua`` beside it (or in KOReader's settings folder,
under ``docsettings/`` or ``hashdocsettings/``): where the reader is (``last_xpointer``, ``percent_finished``) and
the ``annotations`` they made (``text``, ``note``, ``chapter``, ``pos0``, ``datetime``). The file is a Lua table
literal; it is parsed as data (luaparser's syntax tree, walked here), never run: anything but a literal (a call, a
name, an operation) refuses the whole file in one sentence."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from .model import LibraryError, Marked, Position, Reading, cut, fraction

MAX_BYTES = 5 * 2**20
MAX_DEPTH = 8
"""Tables nest at most this deep in a sidecar (KOReader's go three or four deep)."""
MAX_BRACKETS = 2 * MAX_DEPTH + 2
"""Brackets of any kind nest at most this deep outside strings and comments, counted before the parser reads the
file (a parser given 100,000 nested parentheses runs for minutes and gigabytes)."""
SPECIAL = re.compile(r"""--|[\[\](){}"']""")
SHORT_STRING = {q: re.compile(rf"{q}(?:[^{q}\\\n]|\\.)*{q}", re.S) for q in "\"'"}
LONG_OPEN = re.compile(r"\[(=*)\[")


def sidecar_for(book_file: str | Path, settings: str | Path | None = None) -> Path | None:
    """KOReader's sidecar of ``book_file``, where KOReader keeps it: beside the book, else under its settings
    folder ``settings``: ``docsettings/`` (mirroring the book's absolute path) or ``hashdocsettings/`` (by the
    file's partial MD5); None when there is none."""
    book_file = Path(book_file)
    name = f"metadata{book_file.suffix.lower()}.lua"
    places = [book_file.parent / f"{book_file.stem}.sdr" / name]
    if settings:
        settings = Path(settings).expanduser()
        places.append(settings / "docsettings" / str(book_file.resolve().parent).lstrip("/") /
                      f"{book_file.stem}.sdr" / name)
        digest = partial_md5(book_file)
        places.append(settings / "hashdocsettings" / digest[:2] / f"{digest}.sdr" / name)
    return next((p for p in places if p.is_file()), None)


def partial_md5(path: Path) -> str:
    """KOReader's document digest (``util.partialMD5``): the MD5 of 1,024-byte samples at 0 and at 1,024 times
    each power of 4 up to 1 GiB, stopping at the end of the file."""
    import hashlib

    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as file:
        for offset in (0, *(1024 << (2 * i) for i in range(11))):
            file.seek(offset)
            sample = file.read(1024)
            if not sample:
                break
            digest.update(sample)
    return digest.hexdigest()


def read_sidecar(path: str | Path) -> Reading:
    """What a KOReader sidecar says, or :class:`LibraryError` in one sentence."""
    from luaparser import ast

    path = Path(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise LibraryError(f"{path.name} is larger than any KOReader settings file; it was not read.")
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LibraryError(f"{path.name} could not be read ({exc.strerror or type(exc).__name__}).") from None
    except UnicodeDecodeError:
        raise LibraryError(f"{path.name} is not a KOReader settings file (not Lua text).") from None
    if brackets(source) > MAX_BRACKETS:
        raise LibraryError(f"{path.name} nests its tables deeper than KOReader does; it was not read.")
    try:
        tree = ast.parse(source)
    except Exception:  # luaparser raises its own SyntaxException and ANTLR errors
        raise LibraryError(f"{path.name} is not a KOReader settings file (not a Lua table).") from None
    body = tree.body.body
    if len(body) != 1 or type(body[0]).__name__ != "Return" or len(body[0].values) != 1:
        raise LibraryError(f"{path.name} is not a KOReader settings file: it must only return a table.")
    settings = literal(body[0].values[0], path.name, 0)
    if not isinstance(settings, dict):
        raise LibraryError(f"{path.name} is not a KOReader settings file: it must only return a table.")
    return reading(settings)


def brackets(source: str) -> int:
    """How deep brackets of any kind nest in Lua ``source`` outside its strings and comments, read once from start
    to end (an unclosed string or long bracket counts as deeper than any file may be)."""
    depth = deepest = 0
    at = 0
    while found := SPECIAL.search(source, at):
        token, at = found.group(), found.end()
        long = LONG_OPEN.match(source, found.start() + 2 if token == "--" else found.start())
        if long:  # a long string or a long comment: to its closing bracket of the same level
            close = source.find(f"]{long.group(1)}]", long.end())
            if close < 0:
                return MAX_BRACKETS + 1
            at = close + len(long.group(1)) + 2
        elif token == "--":
            line_end = source.find("\n", at)
            at = len(source) if line_end < 0 else line_end
        elif token in "\"'":
            string = SHORT_STRING[token].match(source, found.start())
            if not string:
                return MAX_BRACKETS + 1
            at = string.end()
        elif token in "[({":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def literal(node, name: str, depth: int):
    """The Python value of a Lua literal: a table (dict), string, number, boolean or nil; anything else (code)
    refuses the file."""
    kind = type(node).__name__
    if depth > MAX_DEPTH:
        raise LibraryError(f"{name} nests its tables deeper than KOReader does; it was not read.")
    if kind == "Table":
        table, n = {}, 0
        for field in node.fields:
            if getattr(field, "between_brackets", False) or type(field.key).__name__ != "Name":
                key = literal(field.key, name, depth + 1) if field.key is not None else None
            else:
                key = field.key.id
            if key is None:
                n += 1
                key = n
            table[key] = literal(field.value, name, depth + 1)
        return table
    if kind == "String":
        return node.s.decode("utf-8", "replace") if isinstance(node.s, bytes) else str(node.s)
    if kind == "Number":
        return node.n
    if kind == "UMinusOp" and type(node.operand).__name__ == "Number":
        return -node.operand.n
    if kind in ("TrueExpr", "FalseExpr"):
        return kind == "TrueExpr"
    if kind == "Nil":
        return None
    raise LibraryError(f"{name} holds code ({kind}), not only settings; it was not read, and nothing of it runs.")


def reading(settings: dict) -> Reading:
    """The position and annotations of a sidecar's settings (values of the wrong type are left out)."""
    out = Reading("KOReader")
    place = settings.get("last_xpointer")
    when = stamp(settings.get("summary", {}).get("modified") if isinstance(settings.get("summary"), dict) else None)
    share = fraction(settings.get("percent_finished"))
    if isinstance(place, str) or share is not None:
        out.position = Position("KOReader", cut(place, 2000) or None, share, when)
    out.marked = annotations(settings)
    return out


def annotations(settings: dict) -> list[Marked]:
    """The highlights of a sidecar: its ``annotations`` (KOReader 2024.07 and later), else the older ``highlight``
    table (by page) with the notes of the ``bookmarks`` at the same place (there ``notes`` held the highlighted
    text and ``text`` the reader's note)."""
    marked = []
    listed = settings.get("annotations")
    if isinstance(listed, dict):
        entries = [(e, e.get("note")) for e in listed.values() if isinstance(e, dict)]
    else:
        pages = settings.get("highlight")
        noted = {b.get("pos0"): b.get("text") for b in table_values(settings.get("bookmarks")) if isinstance(b, dict)
                 and isinstance(b.get("pos0"), str)}
        entries = [(e, noted.get(e.get("pos0"))) for page in table_values(pages) for e in table_values(page)
                   if isinstance(e, dict)]
    for entry, note in entries:
        if not cut(entry.get("text")).strip():
            continue
        pos0 = entry.get("pos0")
        marked.append(Marked("KOReader", cut(entry["text"]), cut(note), cut(pos0, 2000) if isinstance(pos0, str)
                             else None, cut(entry.get("chapter"), 300), stamp(entry.get("datetime"))))
    return marked


def table_values(table) -> list:
    """A Lua table's values in key order (nothing for anything else)."""
    return [table[k] for k in sorted(table, key=str)] if isinstance(table, dict) else []


def stamp(value) -> float | None:
    """KOReader's "2024-05-01 21:14:03" (or a date alone) as seconds since 1970, or None."""
    if not isinstance(value, str):
        return None
    try:
        return dt.datetime.fromisoformat(value[:19].strip()).timestamp()
    except ValueError:
        return None
