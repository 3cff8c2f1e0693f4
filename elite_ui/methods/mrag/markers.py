"""Meta-markers: what the model writes (a key, a value, the paragraphs cited), read defensively from its reply,
and the fidelity audit of each (the share of the value's words found in the paragraphs it cites)."""

from __future__ import annotations

import re

import json_repair

from ...book import Book
from ...book.lexicon import NAME, NUMBER, content_words
from .. import prompts
from ..trace import Marker

DIGITS = re.compile(r"\d+")





def parse_markers(text: str, size: int) -> tuple[list[tuple[str, str, list[int]]], int]:
    """(key, value, cited local numbers 1..size) of each readable marker in a reply, and how many were dropped:
    no key or value, copied from the prompt's example, or repeated."""
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    found = json_repair.loads(text[start:]) if start >= 0 else []
    if isinstance(found, dict):
        found = found.get("markers", [found])
    if not isinstance(found, list):
        return [], 0
    example = {s.casefold() for m in prompts.MARKER_EXAMPLE for s in (m["key"], m["value"])}
    out, seen, dropped = [], set(), 0
    for item in found:
        item = item if isinstance(item, dict) else {}
        key = " ".join(str(item.get("key") or item.get("question") or "").split())
        value = " ".join(str(item.get("value") or item.get("answer") or item.get("passage") or "").split())
        cited = item.get("paragraphs") or item.get("paragraph_indices") or item.get("indices") or []
        numbers = [int(n) for x in (cited if isinstance(cited, list) else [cited]) for n in DIGITS.findall(str(x))]
        if not content_words(key) or not content_words(value) or key.casefold() in example \
                or value.casefold() in example or (key.casefold(), value.casefold()) in seen:
            dropped += 1
            continue
        seen.add((key.casefold(), value.casefold()))
        out.append((key, value, sorted({n for n in numbers if 1 <= n <= size})))
    return out, dropped


def audit(book: Book, marker: Marker, source: str, threshold: float) -> Marker:
    """Fill in the marker's support: the share of its value's content words (names and numbers included, and
    also reported apart) that occur in ``source``, its cited paragraphs, in some inflected form."""
    present = set(book.lexicon.words(source))

    def found(word: str) -> bool:
        return any(f in present for f in book.forms(word))

    wanted = book.lexicon.content_words(marker.value)
    missing = [w for w in wanted if not found(w)]
    marker.support = round(1 - len(missing) / len(wanted), 4) if wanted else 0.0
    marker.missing = missing
    names = {w.lower() for w in NAME.findall(marker.value)}
    numbers = {w.lower() for w in NUMBER.findall(marker.value)}
    marker.name_support = round(sum(found(w) for w in names) / len(names), 4) if names else None
    marker.number_support = round(sum(n in present for n in numbers) / len(numbers), 4) if numbers else None
    marker.flagged = marker.support < threshold
    return marker
