"""ELITE's trace view: one compact card per iteration, readable at a glance (terms as chips, the best retrieved
sentences with matched words highlighted, importance as bars, the judge's verdict, the next terms, the evidence
kept), every sentence found and the costs one click away; and its importance chart. Counting runs show the count
per chapter."""

from __future__ import annotations

from collections import Counter, defaultdict

import plotly.graph_objects as go

from ...book import Book
from ...methods.trace import EditMade, Event, Kind, Retrieval
from .common import (
    SHOWN,
    Stage,
    ceiling_note,
    cite_link,
    clipped,
    colour,
    esc,
    grouped,
    highlight,
    place,
    stage_costs,
    totals_line,
)
from .figures import figure

BEST = 5
"""Retrieved sentences an iteration's card shows; the rest are one click away."""
ORIGINS = {"question": "from the question", "model": "written by the model for the question",
           "breadth": "breadth-wise", "depth": "depth-wise", "fallback": "question words (fallback)",
           "names": "another name of a character", "reader": "added by the reader", "options": "from an option"}


def trace_html(book: Book, events: list[Event]) -> str:
    """The trace panel: one collapsible block per iteration, then the organised evidence and totals."""
    by = grouped(events)
    edits = [e.data for e in events if e.kind == Kind.EDIT]
    parts = ["<div class='trace'>", ceiling_note(events), about_note(book, events),
             edit_note(book, edits[0]) if edits else "", LEGEND]
    tried: set[str] = set()
    for iteration in sorted(i for i in by if i > 0):
        parts.append(iteration_block(book, iteration, by[iteration], edits[0] if edits else None, tried))
    parts += [finals(book, by[0].answer), totals_line(events), "</div>"]
    return "".join(parts)


def iteration_block(book: Book, iteration: int, stage: Stage, edit: EditMade | None, tried: set[str]) -> str:
    """One iteration: its terms, hits, importance, verdict, next terms, evidence kept and costs (``tried``
    collects the terms seen so far, to mark the ones tried before)."""
    verdict = stage.judge[0] if stage.judge else None
    title = f"Iteration {iteration}"
    if edit and iteration < edit.iteration:
        title += f" (kept from run {edit.run})"
    elif edit and iteration == edit.iteration:
        title += " (edited)"
    if verdict is not None:
        title += " · " + ("sufficient" if verdict.sufficient else "not sufficient")
    parts = [f"<details open class='iteration' data-iteration='{iteration}'><summary><span class='swatch' "
             f"style='background:{colour(iteration)}'></span>{title}</summary>"
             f"<p class='plain'>{esc(in_words(stage, verdict))}</p>"]
    parts += [count_block(book, count) for count in stage.count]
    for terms in stage.terms:
        parts.append(f"<div class='terms'><b>Terms</b> {chips(terms.new, tried)}</div>")
        tried |= {t.text.casefold() for t in terms.new}
    # beside the terms they are about (not in red after the judge, above the next, usable terms)
    parts += [f"<div class='warning'>{esc(warning.message[:1].upper() + warning.message[1:])}</div>"
              for warning in stage.warning]
    parts += [hits_table(book, collection.hits[:BEST], stage.chunks, shown=160) for collection in stage.collection]
    if stage.importance:
        parts.append(importance_bars(book, iteration, stage.importance))
    if verdict is not None:
        note = "" if verdict.parsed else " (the reply said neither yes nor no; default taken)"
        parts.append(f"<div class='verdict {'yes' if verdict.sufficient else 'no'}'><b>Judge</b> "
                     f"{'sufficient' if verdict.sufficient else 'not sufficient'}: {esc(verdict.reason)}"
                     f"{esc(note)}</div>")
    parts += ["<div class='exploration'><b>Next</b> breadth-wise: "
              f"{chips(exploration.breadth, tried) or '—'}; depth-wise: {chips(exploration.depth, tried) or '—'}</div>"
              for exploration in stage.exploration]
    for trim in stage.trim:
        kept = " ".join(cite_link(book, sid) for sid in trim.kept)
        how = ("chosen by the model" if trim.by_model else "all kept: trimming is off" if not trim.enabled
               else "all kept: the model's pick was unreadable")
        parts.append(f"<div class='trim'><b>Evidence kept</b> ({how}): {kept}</div>")
    found = sum(len(collection.hits) for collection in stage.collection)
    more = [hits_table(book, collection.hits, stage.chunks) for collection in stage.collection
            if len(collection.hits) > BEST] + [fused_line(book, retrieval) for retrieval in stage.retrieval]
    parts += [f"<details class='all'><summary>{all_said(found, stage)}</summary>{''.join(more)}"
              f"{stage_costs(stage.llm_call)}</details>", "</details>"]
    return "".join(parts)


def all_said(found: int, stage: Stage) -> str:
    """What the card's fold holds: every sentence found (when the card shows only the best), the passages ranked
    by BM25, the model's calls."""
    said = [f"all {found} sentences found" if found > BEST else "",
            "the passages ranked by BM25" if stage.retrieval else "",
            f"{len(stage.llm_call)} model call{'s' * (len(stage.llm_call) != 1)}" if stage.llm_call else "costs"]
    text = ", ".join(s for s in said if s)
    return text[:1].upper() + text[1:]


def importance_bars(book: Book, iteration: int, chunks) -> str:
    """Each scored passage's importance as a bar (0: the answer did not change when it was blurred, 1: wholly)."""
    bars = "".join(
        f"<div class='imp-row' title='{esc(samples_note(c))}'><span class='imp-where'>{cite_link(book, c.first)}–"
        f"{cite_link(book, c.last)}</span><span class='imp-bar'><span style='width:{max(c.importance, 0) * 100:.0f}%;"
        f"background:{colour(iteration)}'></span></span> {c.importance:.2f}</div>" for c in chunks)
    return (f"<div class='importance'><b title='{esc(IMPORTANCE)}'>Importance</b> <span class='plain'>(how much the "
            f"answer changed when the passage was blurred: 0 not at all, 1 wholly)</span>{bars}</div>")


def in_words(stage: Stage, verdict) -> str:
    """What an iteration did, in one plain sentence ("Searched for toad, hall, live: 48 sentences matched, 12
    passages kept; the judge found them enough."), for someone watching rather than debugging."""
    said = []
    terms = [t.text for terms in stage.terms for t in terms.new if t.in_book]
    if stage.count:
        count = stage.count[0]
        said.append(f"Counted “{count.phrase}” in every form: {count.total} time{'s' * (count.total != 1)}")
    elif terms:
        said.append(f"Searched for {', '.join(terms[:8])}{'…' if len(terms) > 8 else ''}")
    matched = sum(len(c.hits) for c in stage.collection)
    kept = sum(len(c.chunks) for c in stage.chunks)
    if stage.collection:
        said.append(f"{matched} sentence{'s' * (matched != 1)} matched"
                    + (f", {kept} passage{'s' * (kept != 1)} kept" if stage.chunks else ""))
    sentence = ": ".join(said) or "Nothing new was searched"
    if verdict is not None:
        sentence += f"; the judge found them {'enough' if verdict.sufficient else 'not enough'}"
    return sentence + "."


def fused_line(book: Book, retrieval: Retrieval) -> str:
    """Chunk fusion: the fixed chunks, ranked by BM25 over every term tried, whose sentences reached the evidence."""
    placed = " ".join(f"<span class='imp'>{cite_link(book, c.first)}–{cite_link(book, c.last)} ({c.score:.1f})</span>"
                      for c in retrieval.chunks)
    return (f"<div class='fused'><b>Passages by BM25</b> (fixed chunks ranked over every term tried, placed in turn "
            f"with the passages above, {retrieval.seconds * 1000:.0f} ms): {placed}</div>")


def finals(book: Book, answers: list) -> str:
    """After the iterations: the sentences quoted first, and the vote shares of a multiple-choice answer."""
    parts = []
    for answer in answers:
        if answer.quotes:
            parts.append("<div class='quoted'><b>Quoted first</b> (the evidence's best sentences by the final "
                         "ranking): " + " ".join(cite_link(book, q.sentence_id) for q in answer.quotes) + "</div>")
        if answer.vote_shares:
            parts.append("<div class='votes'><b>Votes</b> " + " ".join(
                f"<span class='vote'>{esc(k)}: {v:.0%}</span>" for k, v in answer.vote_shares.items()) + "</div>")
    return "".join(parts)


LEGEND = ("<div class='legend'>Terms: " + " ".join(
    f"<span class='chip {origin}'>{esc(what)}</span>" for origin, what in (
    ("question", "for the question (its words or the model's)"), ("options", "from an option"),
    ("breadth", "breadth-wise"), ("depth", "depth-wise"), ("feedback", "from the first pass's sentences"),
    ("names", "another name of a character"), ("reader", "yours"), ("fallback", "question words (fallback)")))
    + " · faded: tried before · struck through: not in the book</div>")
"""What the chips' colours mean, shown above the iterations."""


def chips(terms, tried: set[str]) -> str:
    out = []
    for term in terms:
        state = "tried" if term.text.casefold() in tried else "new"
        missing = "" if term.in_book else " absent"
        note = f"{ORIGINS.get(term.whence, term.whence)}, {state}" + ("" if term.in_book else ", not in the book")
        if term.by == "lexical":
            note += ", taken from the text"
        elif term.by == "names":
            note += f", a name of {term.of}"
        elif term.by == "judge":
            note += ", written by the judge"
        elif term.by == "option":
            note += f", the words of option {term.of}"
        out.append(f"<span class='chip {esc(term.origin)} {state}{missing}' title='{esc(note)}'>"
                   f"{esc(term.text)}</span>")
    return " ".join(out)


def about_note(book: Book, events: list[Event]) -> str:
    """The passage the question was asked about, pinned as evidence, at the top of the trace."""
    about = next((e.data.about for e in events if e.kind == Kind.START and e.data.about), [])
    if not about:
        return ""
    text = " ".join(book.sentence(sid).text for sid in about if sid < len(book))
    return (f"<div class='about-note'><b>Asked about this passage</b> {cite_link(book, about[0])} (pinned as "
            f"evidence): <i>{clipped(text, 600)}</i></div>")


def edit_note(book: Book, edit: EditMade) -> str:
    """What the reader changed for this run: the iteration it searched again from, terms removed and added,
    passages pinned."""
    pinned = " ".join(cite_link(book, sid) for sid in edit.pinned if sid < len(book)) or "none"
    removed, added = (esc(", ".join(words) or "nothing") for words in (edit.removed, edit.added))
    return (f"<div class='edit-note'><b>Edited search</b> from iteration {edit.iteration} of run {edit.run}: "
            f"removed {removed}; added {added}; pinned {pinned}.</div>")


def samples_note(chunk) -> str:
    return "; ".join(f"λ={s.noise:.2f} similarity={s.similarity:.2f}" + (f" KL={s.kl:.3f}" if s.kl is not None
                                                                          else "") for s in chunk.samples)


IMPORTANCE = ("The answer was written again from the evidence with this passage's letters scrambled (character "
              "noise); importance is 1 minus how similar the two answers are. Hover a passage for each try.")


HIT_COLUMNS = [
    ("rank", "the sentence's place in the ranking, most matching first"),
    ("where", "the sentence in the book: click to read it in the Reader; pin it as evidence for an edited search"),
    ("terms in it", "how many different search terms (in any of their forms) the sentence holds: the paper's "
                    "word overlap"),
    ("weight", "what the sentences are ranked by (the ranking setting): the terms in it, or with bm25 rare words "
               "counting more; with reach, its neighbours' weights added"),
    ("sentence", "the sentence, the terms it holds highlighted"),
    ("passage", "the passage the sentence was widened into (with its neighbours) and given to the model"),
]
"""The columns of a table of retrieved sentences: their names, and what each means (shown on hover)."""


def hits_table(book: Book, hits, chunk_groups, shown: int = SHOWN) -> str:
    """The retrieved sentences, each with where it is, its terms and weight, highlighted (its first ``shown``
    characters), and its passage."""
    chunk_of = {}
    for group in chunk_groups:
        for chunk in group.chunks:
            for sid in chunk.hits:
                chunk_of[sid] = f"S{chunk.first}–S{chunk.last}"
    rows = "".join(
        f"<tr class='hit'><td>{h.rank}</td><td>{cite_link(book, h.sentence_id)} <a href='#pin' class='pin' "
        f"data-sid='{h.sentence_id}' title='pin as evidence for an edited search'>pin</a></td><td>{h.score}</td>"
        f"<td>{h.weight:.2f}</td><td class='sentence'>{highlight(book, h.text, h.matched, shown)}"
        f"{supports(h.supports)}</td><td>{esc(chunk_of.get(h.sentence_id, ''))}</td></tr>"
        for h in hits)
    if not rows:
        return "<div class='hits none'>No sentence holds these terms.</div>"
    head = "".join(f"<th title='{esc(hover)}'>{esc(name)}</th>" for name, hover in HIT_COLUMNS)
    return f"<table class='hits'><tr>{head}</tr>{rows}</table>"


def supports(letters: list[str]) -> str:
    """Which multiple-choice options a retrieved sentence holds the words of."""
    return f" <span class='supports'>supports {esc(', '.join(letters))}</span>" if letters else ""


def count_block(book: Book, count) -> str:
    """The counted phrase, its total, the occurrences per chapter, and the first 40 as links."""
    where = " ".join(cite_link(book, sid) for sid in dict.fromkeys(o.sentence_id for o in count.occurrences[:40]))
    more = f" … and {len(count.occurrences) - 40} more" if len(count.occurrences) > 40 else ""
    per_chapter: dict[int, int] = defaultdict(int)
    for o in count.occurrences:
        per_chapter[o.chapter] += 1
    chapters = " · ".join(f"{esc(book.chapters[c].ref)}: {n}" for c, n in sorted(per_chapter.items()))
    return (f"<div class='count'><b>Counting</b> “{esc(count.phrase)}” ({esc(', '.join(count.forms))}): "
            f"<b>{count.total}</b><div class='per-chapter'>{chapters}</div>{where}{more}</div>")


def importance_figure(book: Book, events: list[Event]) -> go.Figure:
    """Bars: the importance of each scored chunk (labelled by chapter and place in the book), in its iteration's
    colour; hovering shows its samples."""
    by = grouped(events)
    labels: Counter[str] = Counter()
    bars = []
    for iteration in sorted(i for i in by if by[i].importance):
        chunks = by[iteration].importance
        x = []
        for chunk in chunks:
            label = place(book, chunk.first)
            labels[label] += 1
            x.append(label if labels[label] == 1 else f"{label} ({labels[label]})")
        bars.append(dict(
            type="bar", name=f"iteration {iteration}", x=x, marker=dict(color=colour(iteration)),
            y=[max(c.importance, 0.0) for c in chunks],
            hovertext=[samples_note(c).replace("; ", "<br>") + f"<br>base answer: {esc(c.base_answer[:80])}"
                       for c in chunks],
            customdata=[[c.kl_importance] for c in chunks],
        ))
    return figure(bars, dict(title=dict(text="Importance of each chunk"),
                             yaxis=dict(title=dict(text="importance (1 − mean similarity)"), range=[0, 1]),
                             height=280, margin=dict(l=40, r=10, t=40, b=60), barmode="group"))
