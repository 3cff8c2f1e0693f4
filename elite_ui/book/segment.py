"""Paragraphs and sentences: blocks between blank lines (hard-wrapped lines rejoined in books that lost their blank
lines), and blingfire's sentence boundaries with its habitual errors repaired (a split after "Mr." or an initial
undone, a missed split before "Mr." or before a capital it does not know, "À" or "É", made)."""

from __future__ import annotations

import ctypes
import re

import blingfire
import numpy as np

from .lexicon import CAPITAL, SMALL

TITLE_ENDINGS = ("r", "rs", "s", "t", "me", "lle", "essrs", "ev", "ol", "apt", "en")
"""What follows a title's capital where it is written short: Mr, Mrs, Ms, Dr, St, Mme, Mlle, Messrs, Rev, Col, Capt,
Gen."""
TITLE_ABBREVIATION = re.compile(r"[A-Z](?<![^\W_].)(?:" + "|".join(TITLE_ENDINGS) + r")?\.(?=\s)")
"""A capital alone (an initial) or a title written short (:data:`TITLE_ENDINGS`), followed by a full stop."""


ORDINAL = re.compile(r"(?<![\d.])\d{1,3}\.(?=\s)")
"""A German ordinal ("am 3. Mai", "der 2. Teil"), never the end of a sentence."""


TITLE_AFTER_STOP = re.compile(rf"[.!?](?<={SMALL}.)[\"”’]?\s+(?=(?:Mr|Mrs|Ms|Dr|M|Mme|Mlle|Sr|Sra|Srta)\.\s+{CAPITAL})")
MARKED_AFTER_STOP = re.compile(rf"[.!?…][\"”’»)\]]*\s+(?=[\"“‘«¿¡(\[]*(?![A-Z]){CAPITAL})")
"""A sentence's end before a capital with a mark or beyond A to Z ("À midi", "Ça", "Étienne", "“Éponine!”"), where
blingfire starts no sentence (it does before "Über" and "Наташа")."""


SPACES = np.array([c for c in range(0x3001) if chr(c).isspace()] + [0x200B, 0xFEFF], dtype=np.uint32)
"""Every character Python calls whitespace (line and paragraph separators included), zero-width space and BOM."""


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Paragraphs are blocks between blank lines. In books that never leave blank lines, each line is one, unless
    the lines are hard-wrapped: then a paragraph runs on to its first short line (:func:`wrapped`)."""
    blocks = [m.span() for m in re.finditer(r"[^\n]*\S[^\n]*(?:\n[^\n]*\S[^\n]*)*", text)]
    lines = text.count("\n") + 1
    if len(blocks) * 4 < lines / 2 or len(blocks) <= 1:
        blocks = wrapped(text, [m.span() for m in re.finditer(r"[^\n]*\S[^\n]*", text)])
    return [trim_span(text, a, b) for a, b in blocks]


WRAP_SLACK = 18
"""How much shorter than the wrap width a line inside a hard-wrapped paragraph can be: the next word did not fit."""


def wrapped(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Hard-wrapped lines (most of them about as long as the longest) joined into paragraphs, each ending at a
    line shorter than the wrap width less ``WRAP_SLACK``; such a line after a finished sentence stands alone (a
    heading). Books whose lines are not hard-wrapped keep a paragraph a line (verse, chat)."""
    if len(lines) < 20:
        return lines
    stripped = [text[a:b].rstrip() for a, b in lines]
    lengths = np.array([len(line) for line in stripped])
    width = int(np.percentile(lengths, 90))
    if width < 40 or np.mean(lengths >= width - WRAP_SLACK) < 0.5:
        return lines
    short = lengths < width - WRAP_SLACK
    after_stop = np.array([False] + [bool(re.search(r"[.!?:;\"”’)\]]$", line)) for line in stripped[:-1]])
    ends = np.union1d(np.flatnonzero(short), [len(lines) - 1])
    ends = np.union1d(ends, np.flatnonzero(short & after_stop) - 1)
    firsts = np.append(0, ends[:-1] + 1)
    return [(lines[f][0], lines[e][1]) for f, e in zip(firsts, ends, strict=True)]


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def sentence_bounds(text: str, paragraphs: list[tuple[int, int]],
                    language: str = "en") -> tuple[np.ndarray, np.ndarray]:
    """Sentence spans (blingfire), never crossing a paragraph, with blingfire's habitual errors fixed:
    a split after "Mr." and the like (and after a German ordinal, "am 3. Mai") is undone, and a missed split
    after a full stop is made: before "Mr." and before a capital blingfire misses (:data:`MARKED_AFTER_STOP`)."""
    para = np.asarray(paragraphs, dtype=np.int64).reshape(-1, 2)
    made = [m.end() for pattern in (TITLE_AFTER_STOP, MARKED_AFTER_STOP) for m in pattern.finditer(text)]
    cuts = np.union1d(np.union1d(blingfire_starts(text), para[:, 0]), np.asarray(made, dtype=np.int64))
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
    return bounded(text, bounds, owner[first].astype(np.int32))


LONGEST = 4000
"""The most characters a sentence may have (the corpus's longest has 2,541): longer text without a sentence end
(a book of one endless sentence) is cut at spaces into pieces of about this size, so that no hit, trace or prompt
holds a whole book."""


def bounded(text: str, bounds: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sentences longer than ``LONGEST`` cut at the last space before each ``LONGEST`` characters (or there)."""
    if not len(bounds) or int((bounds[:, 1] - bounds[:, 0]).max()) <= LONGEST:
        return bounds, owner
    spans, owners = [], []
    for (start, end), paragraph in zip(bounds.tolist(), owner.tolist(), strict=True):
        while end - start > LONGEST:
            space = text.rfind(" ", start + LONGEST // 2, start + LONGEST)
            cut = space if space > start else start + LONGEST
            spans.append((start, cut))
            owners.append(paragraph)
            start = cut + 1 if space > start else cut
        spans.append((start, end))
        owners.append(paragraph)
    return np.asarray(spans, dtype=bounds.dtype), np.asarray(owners, dtype=np.int32)


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
