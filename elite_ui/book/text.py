"""Raw text made readable: bytes decoded (UTF-8, UTF-16 without a mark, or what charset-normalizer detects),
line ends normalised, mojibake repaired with ftfy, and the Project Gutenberg header and licence cut off."""

from __future__ import annotations

import re
import unicodedata

from ..errors import BookError

MOJIBAKE_HINT = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc"
    "\u2013-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]"
)
"""A UTF-8 lead byte read as Latin-1/cp1252 followed by a continuation byte read the same way ("Ã¨" for "è")."""


LOSSY_PUNCTUATION = re.compile("[\"'\u2018\u2019\u201c\u201d]([\u0080-\u009f])")
"""A quote mark and a C1 control: what an earlier, lossy clean-up of some Gutenberg files left of a UTF-8 punctuation
mark (E2 80 xx read as Latin-1, its first two bytes made a quote mark). The control is its last byte, which says the
mark: "\\x99" ’, "\\x9c" “, "\\x9d" ”, "\\x94" — (:func:`punctuation_mark`)."""


C1_CONTROL = re.compile("[\u0080-\u009f]")


GUTENBERG_START = re.compile(r"^\s*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.IGNORECASE | re.MULTILINE)


GUTENBERG_END = re.compile(
    r"^\s*(?:\*{3}\s*)?END OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.IGNORECASE | re.MULTILINE
)


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

    A quote mark and a C1 control (:data:`LOSSY_PUNCTUATION`) become the mark the control's byte says first
    ("Reed"\\x99s" is "Reed’s"), since ftfy would read the control as a cp1252 letter.
    """
    import ftfy

    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = LOSSY_PUNCTUATION.sub(punctuation_mark, text)
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


def punctuation_mark(found: re.Match) -> str:
    """The punctuation mark (U+2000 to U+201F) whose UTF-8 encoding ends with the byte of ``found``'s control."""
    return chr(0x2000 + ord(found.group(1)) - 0x80)


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


COMPATIBLE = {c: unicodedata.normalize("NFKC", chr(c)) for c in [
    *range(0xFB00, 0xFB07), 0x017F, *range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B)]} | {
    0x00AD: "", 0x2060: ""}
"""Compatibility characters a reader never means as such: the ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ (PDFs keep them), the long s,
and full-width letters and digits, each as the letters it stands for (Unicode NFKC); and the invisible marks inside
a word, dropped: the soft hyphen (an e-book hyphenated for its reader, "Eliza\u00adbeth") and the word joiner, which
would cut the word in two for the search, the names and the counts."""


ANY_COMPATIBLE = re.compile(f"[{''.join(map(chr, COMPATIBLE))}]")


def compatible(text: str) -> str:
    """``text`` with every :data:`COMPATIBLE` character spelled out ("ﬁrst" is "first"), so that it can be found and
    counted; every format reader applies it before offsets are taken. (A search first: ``str.translate`` with a
    table takes 0.1 s for a 3 MB book, a search 0.01 s, and most books have none.)"""
    return SHOWN_SOFT_HYPHEN.sub("-", text).translate(COMPATIBLE) if ANY_COMPATIBLE.search(text) else text


SHOWN_SOFT_HYPHEN = re.compile("\u00ad(?=[ \t]*(?:\n|$))")
"""A soft hyphen at a line's end, where a PDF shows it: a hyphen, so that the word it breaks is joined as any is
(:func:`~elite_ui.book.formats.joined_words`)."""
