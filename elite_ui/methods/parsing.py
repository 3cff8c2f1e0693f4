"""Defensive readers of model output: small models ramble, repeat themselves and ignore formats."""

from __future__ import annotations

import re

import json_repair
from rapidfuzz import fuzz, process

from ..book.lexicon import STOPWORDS, WORD, Lexicon, content_words, words
from ..book.segment import TITLE_ENDINGS

LIST_MARKER = re.compile(r"^\s*(?:[-*•·]+|\d+[.)]|[a-z][.)]|terms?:|search(?: words| terms)?:|keywords?:)\s*", re.I)
SPLIT = re.compile(r"[\n,;|]+")
QUOTES = "\"'“”‘’`*_"
MAX_TERM_WORDS = 5
FRAGMENT_START = {"and", "or", "but", "which", "that", "what", "where", "when", "who", "why", "how", "because"}


def parse_terms(text: str, limit: int, ignore: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Search terms from a list the model wrote (lines, commas, JSON or numbered), deduplicated, junk dropped.

    Junk: empty items, items longer than five words (sentences, not terms), items with no content word and
    items mostly of stopwords ("The answer is") or opening like a clause ("and the..."). A label before a colon
    is dropped ("Names: Darcy" -> Darcy). The words of ``ignore`` (a prompt's own instructions, which a small
    model copies back: "names", "key words") are taken out of every item first.
    """
    items: list[str] = []
    if "[" in text:
        found = json_repair.loads(text[text.index("[") :])
        if isinstance(found, list):
            items = [str(x) for x in found if isinstance(x, (str, int, float))]
    if not items:
        items = SPLIT.split(text)
    terms: dict[str, str] = {}
    for item in items:
        item = item.rsplit(":", 1)[-1]
        item = " ".join(LIST_MARKER.sub("", item.strip()).strip(QUOTES + " .:!?()[]{}").split())
        if ignore:
            item = " ".join(w for w in item.split() if not set(words(w)) & ignore).strip(QUOTES + " ,.:;!?()")
        tokens = words(item)
        if not item or len(tokens) > MAX_TERM_WORDS or not content_words(item):
            continue
        if sum(t in STOPWORDS for t in tokens) * 2 > len(tokens) or tokens[0] in FRAGMENT_START:
            continue
        terms.setdefault(item.casefold(), item)
        if len(terms) >= limit:
            break
    return list(terms.values())


ABOUT_THE_BOOK = re.compile(
    r"^\W*(?:(?:i'?m |i am )?sorry,?\s+but\b|as an ai\b|please\s+(?:provide|give|specify|clarify)\b"
    r"|i\s+(?:can ?not|can't|don't|do not)\s+(?:provide|answer|determine|have access))"
    r"|\b(?:the|this)\s+(?:novel|book|passage|text|story)\s+(?:does|did|do)(?:\s+not|n't)\s+(?:\w+\s+)?(?:provide|"
    r"mention|specify|state|say|describe|indicate|reveal|give|contain|include)"
    r"|\bno\s+(?:specific\s+)?(?:information|mention|details?)\b", re.I)
"""A sentence the model wrote about the book or itself rather than imagining the passage ("The novel does not
provide a specific number of daughters the Bennets have.", "I'm sorry, ...")."""


def imagined_words(text: str, question: str, limit: int, lexicon: Lexicon,
                   ignore: frozenset[str] = frozenset()) -> list[str]:
    """The search terms of a passage the model imagined (``prompts.imagined``): its content words of three letters
    or more that the question does not say, each once, in order, as written (a name keeps its capital, so that a
    spoiler ceiling's mask knows it), at most ``limit``; words as the book's ``lexicon`` reads them. Words in
    ``ignore`` (the prompt's own, :func:`prompts.instructions`) are not terms, nor those of a sentence about the book
    rather than of it (:data:`ABOUT_THE_BOOK`: it would search "provide", "specific", "number")."""
    text = " ".join(s for s in sentence_pieces(text) if not ABOUT_THE_BOOK.search(s))
    asked = set(lexicon.content_words(question)) | ignore
    written = {w.lower(): w for w in reversed(WORD.findall(text))}  # a word's first writing
    return [written.get(w, w) for w in lexicon.content_words(text) if len(w) > 2 and w not in asked][:limit]


YES = re.compile(r"\b(yes|sufficient|enough|adequate|can be answered)\b", re.I)
NO = re.compile(r"\b(no|not|insufficient|missing|lacks?|cannot|can't|unclear)\b", re.I)


def parse_verdict(text: str) -> tuple[bool | None, str]:
    """(sufficient?, reason) from a yes/no reply; None when the reply says neither first."""
    first = text.strip().split("\n", 1)[0]
    reason = re.sub(r"^\W*(yes|no)\b\W*", "", first, flags=re.I).strip() or text.strip()[:200]
    no, yes = NO.search(first), YES.search(first)
    if no and (not yes or no.start() <= yes.start()):
        return False, reason[:200]
    if yes:
        return True, reason[:200]
    return None, reason[:200]


def parse_choice(text: str, options: dict[str, str]) -> str | None:
    """The option letter a reply picks: "(B)", "B.", "Answer: B", or else the option text it quotes most closely."""
    letters = "".join(re.escape(k) for k in options)
    if not letters:
        return None
    for pattern in (rf"\(([{letters}])\)", rf"\b(?:answer|option)\s*(?:is)?\s*:?\s*\(?([{letters}])\b",
                    rf"^\W*([{letters}])\b"):
        found = re.search(pattern, text, re.I | re.M)
        if found and found.group(1).upper() in options:
            return found.group(1).upper()
    best = process.extractOne(text, options, scorer=fuzz.partial_ratio, score_cutoff=80)
    return best[2] if best else None


def copied_and_said(text: str) -> tuple[str, str] | None:
    """A ``quote_first`` reply cut into the sentence it copied and what follows its last "Answer:"; None when it
    wrote no "Answer:"."""
    *copied, said = re.split(r"\banswer\s*:", text, flags=re.I)
    return (" ".join(copied).strip(), said.strip()) if copied else None


def parse_decision(text: str, options: dict[str, str], quote_first: bool) -> str | None:
    """The option letter a reply picks; after a copied sentence (``quote_first``), only what follows its last
    "Answer:" counts (the sentence may open with "A")."""
    if quote_first:
        cut = copied_and_said(text)
        return parse_choice(cut[1], options) if cut else None
    return parse_choice(text, options)


def written_after_copy(text: str) -> str:
    """A free-form ``quote_first`` reply's answer: what follows its last "Answer:", labelled with the label of the
    sentence it copied where it writes none; the whole reply when it wrote no "Answer:" (its copy, which then is
    the answer in the book's words)."""
    cut = copied_and_said(text)
    if cut is None or not cut[1]:
        return text
    copied, said = cut
    labels = parse_sentence_ids(copied)
    if parse_sentence_ids(said) or not labels:
        return said
    stop = re.search(r"[.!?]$", said)
    return f"{said[:stop.start()] if stop else said} [S{labels[0]}]."


SENTENCE_LABEL = re.compile(r"\bS\s?(\d{1,7})\b")


def parse_sentence_ids(text: str) -> list[int]:
    """Sentence IDs cited as S123 (in any brackets), in order of first mention."""
    return list(dict.fromkeys(int(m) for m in SENTENCE_LABEL.findall(text)))


CITED = re.compile(r"\s?\[\s*S\s?(\d{1,7})\s*\]|\bS\s?(\d{1,7})\b")


def without_labels(text: str, allowed: set[int]) -> str:
    """``text`` without the sentence labels ([S123]) that cite no sentence in ``allowed``: a model may invent one,
    or cite past the end of the book."""
    def kept(m: re.Match) -> str:
        return m.group(0) if int(m.group(1) or m.group(2)) in allowed else ""
    return " ".join(CITED.sub(kept, text).split())


LOOP_WORDS = 12
"""Longest run of words :func:`cut_loop` looks for repeated back to back."""


def cut_loop(text: str) -> str:
    """``text`` up to where a run of 1 to LOOP_WORDS words starts repeating a third time in a row
    ("and then she walked again and then she walked again and then...")."""
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    tokens = [text[a:b].lower() for a, b in spans]
    cut = len(tokens)
    for size in range(1, LOOP_WORDS + 1):
        for start in range(min(cut, len(tokens) - 3 * size + 1)):
            run = tokens[start : start + size]
            if run == tokens[start + size : start + 2 * size] == tokens[start + 2 * size : start + 3 * size]:
                cut = min(cut, start + size)
                break
    return text if cut == len(tokens) else text[: spans[cut - 1][1]]


QUOTE_MARKS = "\"“‘'"
"""Marks that open a quotation (a sentence of dialogue opens with its own)."""


EMPHASIS = re.compile(r"(?<![\w_])_([^_\n]{1,200})_(?![\w_])")
"""Italics as plain-text books write them (Project Gutenberg's ``_talk_``)."""


def quotation(text: str) -> str:
    """A book's sentence as a quotation, on one line: inside quotation marks unless it opens with its own
    (dialogue); one that ends a line of dialogue with its closing mark gets the opening one alone (no doubled
    closing marks)."""
    flat = " ".join(text.split())
    if flat[:1] in QUOTE_MARKS:
        return flat
    return f"“{flat}" if flat[-1:] in "”\"" else f"“{flat}”"


def clean_answer(text: str) -> str:
    """Cut a reply where the model starts repeating itself: a sentence or line it already wrote, or a run of
    words looping back to back."""
    seen: set[str] = set()
    kept: list[str] = []
    for piece in re.split(r"(?<=[.!?])\s+|\n+", cut_loop(text.strip())):
        key = " ".join(piece.lower().split())
        if not key:
            continue
        if key in seen:
            break
        seen.add(key)
        kept.append(piece.strip())
    return " ".join(kept)


SENTENCE_END = re.compile("".join(rf"(?<!\b[A-Z]{ending})" for ending in TITLE_ENDINGS)
                          + r"(?<!\b[A-Z])(?<!\b\d)[.!?…][\"”’')\]]*(?:\s*\[[^\]]{1,40}\][.!?]?)?")
"""The end of a sentence: its stop (not a title's written short as the book's sentences read it, "Rev.", nor an
initial's or a list's "4."), closing quotes or brackets, and a citation that may follow it ("[S12].")."""


def sentence_pieces(text: str) -> list[str]:
    """``text`` cut after each :data:`SENTENCE_END`, every character kept (the last piece may end in none)."""
    cuts = [m.end() for m in SENTENCE_END.finditer(text)]
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def whole_sentences(text: str) -> str:
    """``text`` up to the end of its last whole sentence; a text with no sentence end is kept, marked as cut."""
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    if ends:
        return text[: ends[-1]].strip()
    return f"{text.rstrip()}…" if text.strip() else ""
