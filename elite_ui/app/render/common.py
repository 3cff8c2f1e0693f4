"""What every view shares: escaping (every book or model string is rendered as text, in HTML or Markdown),
citation links into the reader, highlighted words, the run's method, its costs per stage and its totals."""

from __future__ import annotations

import html
import re
from collections import defaultdict
from dataclasses import dataclass, field, fields

from ...book import Book
from ...methods.parsing import EMPHASIS, SENTENCE_LABEL, quotation
from ...methods.trace import (
    Answer,
    Assembly,
    Chunk,
    Chunks,
    Collection,
    Count,
    Event,
    Exploration,
    Kind,
    LLMCall,
    Notice,
    Retrieval,
    Terms,
    Trace,
    Trim,
    Verdict,
)

BOOK_KEY = 16
"""Hex digits of a book's content hash a citation link carries, to open the book it was made in."""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


MARKUP = re.compile(r"([\\`*_~|$<])"                          # emphasis, code, strikethrough, tables, math, HTML
                    r"|(\[S\d+[A-Za-z0-9 .,;]*\](?![(\[:]))"  # a citation label: [S12] (it can link to nothing)
                    r"|([\[\]])"                              # links, images and link definitions
                    r"|(&(?=#?\w+;))"                          # entities
                    r"|(?:(?<=http)|(?<=https)|(?<=ftp)|(?<=mailto)|(?<=xmpp))(:)"  # web addresses (GFM's autolinks)...
                    r"|(?<=\bwww)(\.)|(?<=\S)(@)(?=[\w-])|(/)(?=/)"  # ...and e-mail addresses (",@x.com" too)
                    , re.IGNORECASE)
"""What makes Markdown markup inside a line, each escaped with a backslash as CommonMark allows, and only where it
would: a title, a model's reply or an error message put into the status line or an export cannot become
emphasis, an image, a link, HTML or math there, and still reads as itself ("(", ":" or a citation label stay
bare)."""
LINE_START = re.compile(r"^[ \t]*(?:([#>+=-])|(\d+)([.)]))?", re.MULTILINE)
"""What makes Markdown markup at the start of a line: headings, quotes, lists, rules, setext underlines (and the
indent of a code block, dropped)."""


def inert_markdown(text: str) -> str:
    """``text`` as Markdown that renders as the same text (CommonMark's backslash escapes, only where needed)."""
    text = MARKUP.sub(lambda m: m.group(2) or "\\" + m.group(0), text)
    return LINE_START.sub(lambda m: "\\" + m.group(1) if m.group(1) else
                          f"{m.group(2)}\\{m.group(3)}" if m.group(2) else "", text)


ITERATION_COLOURS = ("#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2", "#65a30d", "#dc2626")
"""One colour per iteration, the same in the trace's blocks, the importance chart and the book map."""


def colour(iteration: int) -> str:
    return ITERATION_COLOURS[(iteration - 1) % len(ITERATION_COLOURS)]


def place(book: Book, sid: int) -> str:
    """Where a sentence lies, for a chart's label: its chapter and how far into the book ("ch. 12, 41%")."""
    ref = book.chapters[int(book.chapter_of[sid])].ref if 0 <= sid < len(book) else f"S{sid}"
    return f"{ref}, {sid * 100 // max(len(book), 1)}%"


def cite_link(book: Book, sid: int, label: str | None = None) -> str:
    """A link that opens the reader at sentence ``sid`` of ``book`` (that book, whichever is open when it is
    clicked), shown as its citation (or ``label``)."""
    return link(book.digest, sid, label or (book.sentence(sid).citation if 0 <= sid < len(book) else f"S{sid}"))


def link(digest: str, sid: int, label: str) -> str:
    """A citation link to sentence ``sid`` of the book with content hash ``digest``."""
    return f"<a href='#S{sid}' class='cite' data-book='{esc(digest[:BOOK_KEY])}' data-sid='{sid}'>[{esc(label)}]</a>"


def linked(text: str, book: Book) -> str:
    """Escaped ``text`` with each [S123] of a sentence that exists turned into a citation link."""
    return labels_linked(text, lambda sid: cite_link(book, sid) if sid < len(book) else None)


def labels_linked(text: str, link_of) -> str:
    """Escaped ``text`` with each sentence label ([S123], S123, "S123:") that ``link_of`` links (it returns the
    link's HTML, or None to leave the label as it is) turned into that link."""
    out, last = [], 0
    for m in SENTENCE_LABEL.finditer(text):
        made = link_of(int(m.group(1)))
        if made is None:
            continue
        start, end = m.span()
        if text[start - 1 : start] == "[" and text[end : end + 1] == "]":
            start, end = start - 1, end + 1
        out += [esc(text[last:start]), made]
        last = end
    return "".join(out) + esc(text[last:])


def italics(shown: str) -> str:
    """Escaped book text with its ``_italics_`` in italics."""
    return EMPHASIS.sub(r"<em>\1</em>", shown)


def quoted(text: str) -> str:
    """A book's sentence as a quotation (:func:`~elite_ui.methods.parsing.quotation`), escaped, its ``_italics_``
    in italics."""
    return italics(esc(quotation(text)))


def clipped(text: str, limit: int) -> str:
    """``text`` on one line, escaped, cut at the last word that fits in ``limit`` characters with an ellipsis
    (never mid-word)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return esc(flat)
    return esc(flat[:limit].rsplit(" ", 1)[0].rstrip(",;:")) + "…"


SHOWN = 400
"""Characters of a long sentence the trace shows before "show more" (a sentence is at most 4,000)."""


def highlight(book: Book, text: str, words: list[str], shown: int = SHOWN) -> str:
    """Escaped ``text`` with every word matching a target word (in any inflected form) wrapped in <mark> and its
    ``_italics_`` in italics; past ``shown`` characters, the rest folds under "show more"."""
    if len(text) <= shown:
        return marked(book, text, words)
    cut = text.rfind(" ", 0, shown) + 1 or shown
    return (f"{marked(book, text[:cut], words)}<details class='more'><summary>show more</summary>"
            f"{marked(book, text[cut:], words)}</details>")


def marked(book: Book, text: str, words: list[str]) -> str:
    out, last = [], 0
    for m in book.lexicon.matcher(sorted({f for w in words for f in book.forms(w)})).finditer(text):
        out += [esc(text[last : m.start()]), f"<mark>{esc(m.group())}</mark>"]
        last = m.end()
    return italics("".join(out) + esc(text[last:]))


@dataclass
class Stage:
    """What an iteration of a run did, by the kind of its events (iteration 0: what comes after the loop, the
    answer): the payloads the trace views draw."""

    terms: list[Terms] = field(default_factory=list)
    collection: list[Collection] = field(default_factory=list)
    chunks: list[Chunks] = field(default_factory=list)
    importance: list[Chunk] = field(default_factory=list)
    judge: list[Verdict] = field(default_factory=list)
    exploration: list[Exploration] = field(default_factory=list)
    retrieval: list[Retrieval] = field(default_factory=list)
    trim: list[Trim] = field(default_factory=list)
    count: list[Count] = field(default_factory=list)
    assembly: list[Assembly] = field(default_factory=list)
    warning: list[Notice] = field(default_factory=list)
    llm_call: list[LLMCall] = field(default_factory=list)
    answer: list[Answer] = field(default_factory=list)


KINDS = {f.name for f in fields(Stage)}


def grouped(events: list[Event]) -> dict[int, Stage]:
    """A run's events by iteration, each iteration's by kind (the kinds a view draws)."""
    by: dict[int, Stage] = defaultdict(Stage)
    for event in events:
        if event.kind.value in KINDS:
            getattr(by[event.iteration], event.kind.value).append(event.data)
    return by


def method_of(events: list[Event]) -> str:
    starts = [e.data for e in events if e.kind == Kind.START]
    return starts[0].method if starts else "elite"


def stage_costs(calls) -> str:
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0, 0.0])
    for call in calls:
        row = totals[call.purpose]
        row[0] += 1
        row[1] += call.prompt_tokens - call.cached_tokens
        row[2] += call.completion_tokens
        row[3] += call.seconds
    if not totals:
        return ""
    rows = "".join(f"<tr><td>{esc(p)}</td><td>{n}</td><td>{ev}</td><td>{gen}</td><td>{sec:.2f} s</td></tr>"
                   for p, (n, ev, gen, sec) in totals.items())
    return ("<table class='costs'><tr><th>stage</th><th>calls</th><th>prompt tokens</th><th>generated</th>"
            f"<th>time</th></tr>{rows}</table>")


def ceiling_note(events: list[Event]) -> str:
    """The spoiler ceiling a question was asked under, or the part of the book it named, if any."""
    for start in (e.data for e in events if e.kind == Kind.START):
        c = start.ceiling
        if c and c.within:
            read = f" (read up to {esc(c.label)})" if c.label else ""
            return (f"<div class='ceiling'><b>The question names a part of the book</b>: only "
                    f"{esc(c.within)}{read} is searched, S{c.first} to S{c.sentence}.</div>")
        if c:
            front = (f" The front matter before S{c.first} (title page, preface...) is left out too."
                     if c.first else "")
            return (f"<div class='ceiling'><b>Spoiler ceiling</b> read up to {esc(c.label)} (S{c.sentence}): "
                    f"nothing after it is searched, counted or answered from.{front}</div>")
    return ""


def totals_line(events: list[Event]) -> str:
    if not any(e.kind == Kind.DONE for e in events):
        return ""
    t = Trace("", list(events)).totals()
    return (f"<div class='totals'>{t.iterations} iteration(s) · {t.llm_calls} LLM calls · "
            f"{t.evaluated_tokens:,} prompt tokens evaluated ({t.cached_tokens:,} reused) · "
            f"{t.completion_tokens:,} generated · {t.seconds:.1f} s</div>")


def pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"
