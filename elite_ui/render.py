"""What the reader sees, rendered from engine events: HTML (every book or model string escaped) and plotly figures.

Nothing here runs a model or imports Gradio; the UI passes events in and shows what comes out.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict

import plotly.graph_objects as go

from .documents import Book
from .parsing import SENTENCE_LABEL
from .trace import Answer, Event, Trace

ORIGINS = {"question": "from the question", "breadth": "breadth-wise", "depth": "depth-wise",
           "fallback": "question words (fallback)", "names": "another name of a character",
           "reader": "added by the reader"}
CHUNK_STRATEGIES = {"embedding": "Chunk embedding (MiniLM)", "bm25": "BM25 chunks"}
STRATEGY_NAMES = {"elite": "ELITE", "mrag": "M-RAG", **CHUNK_STRATEGIES}


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def book_card(book: Book) -> str:
    s = book.summary()
    author = f" by {esc(book.author)}" if book.author else ""
    return (f"<div class='book-card'><b>{esc(book.title)}</b>{author}<br>"
            f"{s['chapters']} chapters · {s['paragraphs']:,} paragraphs · {s['sentences']:,} sentences · "
            f"{s['words']:,} words (about {len(book.text) // 4:,} tokens) · {esc(book.lexicon.name)} · {book.format} · "
            f"{esc(book.load_note())}</div>")


def cite_link(book: Book, sid: int, label: str | None = None) -> str:
    """A link that opens the reader at sentence ``sid``, shown as its citation (or ``label``)."""
    label = label or (book.sentence(sid).citation if 0 <= sid < len(book) else f"S{sid}")
    return f"<a href='#S{sid}' class='cite' data-sid='{sid}'>[{esc(label)}]</a>"


def linked(text: str, book: Book) -> str:
    """Escaped ``text`` with each [S123] of a sentence that exists turned into a citation link."""
    out, last = [], 0
    for m in SENTENCE_LABEL.finditer(text):
        if int(m.group(1)) >= len(book):
            continue
        start, end = m.span()
        if text[start - 1 : start] == "[" and text[end : end + 1] == "]":
            start, end = start - 1, end + 1
        out += [esc(text[last:start]), cite_link(book, int(m.group(1)))]
        last = end
    return "".join(out) + esc(text[last:])


def highlight(book: Book, text: str, words: list[str]) -> str:
    """Escaped ``text`` with every word matching a target word (in any inflected form) wrapped in <mark>."""
    out, last = [], 0
    for m in book.lexicon.matcher(sorted({f for w in words for f in book.forms(w)})).finditer(text):
        out += [esc(text[last : m.start()]), f"<mark>{esc(m.group())}</mark>"]
        last = m.end()
    return "".join(out) + esc(text[last:])


def chat(book: Book | None, turns: list[dict]) -> str:
    """The conversation: each turn's question, its answer (streaming or final) with citation links."""
    if not turns:
        return "<div class='chat empty'>Load a book, then ask a question about it.</div>"
    parts = ["<div class='chat'>"]
    for turn in turns:
        parts.append(f"<div class='msg user'>{esc(turn['question'])}</div>")
        answer: Answer | None = turn.get("answer")
        if turn.get("error"):
            body = f"<span class='error'>{esc(turn['error'])}</span>"
        elif answer is not None:
            body = linked(answer.text, book) if book else esc(answer.text)
            if answer.citations and not SENTENCE_LABEL.search(answer.text):
                body += "<div class='sources'>Sources: " + " ".join(
                    cite_link(book, c.sentence_id) for c in answer.citations[:8]) + "</div>"
        else:
            body = esc(turn.get("partial", "")) or f"<i>{esc(turn.get('status', 'Searching the book…'))}</i>"
        parts.append(f"<div class='msg bot'>{body}</div>")
    parts.append("</div>")
    return "".join(parts)


def grouped(events: list[Event]) -> dict[int, dict[str, list]]:
    by: dict[int, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for event in events:
        by[event.iteration][event.kind].append(event.data)
    return by


def chips(terms, tried: set[str]) -> str:
    out = []
    for term in terms:
        state = "tried" if term.text.casefold() in tried else "new"
        missing = "" if term.in_book else " absent"
        note = f"{ORIGINS.get(term.origin, term.origin)}, {state}" + ("" if term.in_book else ", not in the book")
        if term.by == "lexical":
            note += ", taken from the text"
        elif term.by.startswith("names: "):
            note += f", a name of {term.by.removeprefix('names: ')}"
        out.append(f"<span class='chip {esc(term.origin)} {state}{missing}' title='{esc(note)}'>"
                   f"{esc(term.text)}</span>")
    return " ".join(out)


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


def strategy(events: list[Event]) -> str:
    starts = [e.data for e in events if e.kind == "start"]
    return starts[0].get("strategy", "elite") if starts else "elite"


def trace_html(book: Book, events: list[Event]) -> str:
    """The trace panel: one collapsible block per iteration, then the organised evidence and totals
    (for M-RAG: the index, the matched keys and the values placed against the budget)."""
    if strategy(events) == "mrag":
        return mrag_html(book, events)
    if strategy(events) in CHUNK_STRATEGIES:
        return chunk_rag_html(book, events)
    by = grouped(events)
    edits = [e.data for e in events if e.kind == "edit"]
    parts = ["<div class='trace'>", ceiling_note(events), edit_note(book, edits[0]) if edits else ""]
    tried: set[str] = set()
    for iteration in sorted(i for i in by if i > 0):
        stage = by[iteration]
        verdict = stage["judge"][0] if stage["judge"] else None
        title = f"Iteration {iteration}"
        if edits and iteration < edits[0]["iteration"]:
            title += f" (kept from run {edits[0]['run']})"
        elif edits and iteration == edits[0]["iteration"]:
            title += " (edited)"
        if verdict is not None:
            title += " · " + ("sufficient" if verdict.sufficient else "not sufficient")
        parts.append(f"<details open class='iteration' data-iteration='{iteration}'><summary>{title}</summary>")
        for count in stage["count"]:
            parts.append(count_block(book, count))
        for terms in stage["terms"]:
            parts.append(f"<div class='terms'><b>Terms</b> {chips(terms['new'], tried)}</div>")
            tried |= {t.text.casefold() for t in terms["new"]}
        for collection in stage["collection"]:
            parts.append(hits_table(book, collection["hits"], stage["chunks"]))
        scored = stage["importance"]
        if scored:
            parts.append("<div class='importance'><b>Importance</b> " + " ".join(
                f"<span class='imp' title='{esc(samples_note(c))}'>S{c.first}–S{c.last}: "
                f"{c.importance:.2f}</span>" for c in scored) + "</div>")
        if verdict is not None:
            note = "" if verdict.parsed else " (the reply said neither yes nor no; default taken)"
            parts.append(f"<div class='verdict {'yes' if verdict.sufficient else 'no'}'><b>Judge</b> "
                         f"{'sufficient' if verdict.sufficient else 'not sufficient'}: {esc(verdict.reason)}"
                         f"{esc(note)}</div>")
        for warning in stage["warning"]:
            parts.append(f"<div class='warning'>{esc(warning['message'])}</div>")
        for exploration in stage["exploration"]:
            parts.append("<div class='exploration'><b>Next</b> breadth-wise: "
                         f"{chips(exploration['breadth'], tried) or '—'}; depth-wise: "
                         f"{chips(exploration['depth'], tried) or '—'}</div>")
        for trim in stage["trim"]:
            kept = " ".join(cite_link(book, sid) for sid in trim["kept"])
            how = ("chosen by the model" if trim["by_model"] else "all kept: trimming is off" if not trim["enabled"]
                   else "all kept: the model's pick was unreadable")
            parts.append(f"<div class='trim'><b>Evidence kept</b> ({how}): {kept}</div>")
        parts.append(stage_costs(stage["llm_call"]))
        parts.append("</details>")
    finals = by[0]
    for answer in finals["answer"]:
        if answer.vote_shares:
            parts.append("<div class='votes'><b>Votes</b> " + " ".join(
                f"<span class='vote'>{esc(k)}: {v:.0%}</span>" for k, v in answer.vote_shares.items()) + "</div>")
    parts.append(totals_line(events))
    parts.append("</div>")
    return "".join(parts)


def edit_note(book: Book, edit: dict) -> str:
    """What the reader changed for this run: the iteration it searched again from, terms removed and added,
    passages pinned."""
    pinned = " ".join(cite_link(book, sid) for sid in edit["pinned"] if sid < len(book)) or "none"
    removed, added = (esc(", ".join(edit[k]) or "nothing") for k in ("removed", "added"))
    return (f"<div class='edit-note'><b>Edited search</b> from iteration {edit['iteration']} of run {edit['run']}: "
            f"removed {removed}; added {added}; pinned {pinned}.</div>")


def chunk_rag_html(book: Book, events: list[Event]) -> str:
    """The trace of plain chunk RAG: the chunks placed in the context, with their scores."""
    parts = ["<div class='trace'>", ceiling_note(events)]
    for retrieval in (e.data for e in events if e.kind == "retrieval"):
        label = CHUNK_STRATEGIES[retrieval["method"]]
        rows = "".join(
            f"<tr><td>{n}</td><td>{cite_link(book, c['first'])}–{cite_link(book, c['last'])}</td>"
            f"<td>{c['score']:.3f}</td>"
            f"<td>{esc(' '.join(book.span_text(c['first'], c['last']).split())[:240])}…</td></tr>"
            for n, c in enumerate(retrieval["chunks"], 1) if c["last"] < len(book))
        parts.append(f"<div class='retrieval'><b>{esc(label)}</b>: {len(retrieval['chunks'])} chunks placed "
                     f"({retrieval['seconds'] * 1000:.0f} ms)<table><tr><th>#</th><th>sentences</th><th>score</th>"
                     f"<th>text</th></tr>{rows}</table></div>")
    parts.append(totals_line(events))
    parts.append("</div>")
    return "".join(parts)


def side_by_side(book: Book, traces: list[Trace]) -> str:
    """One question answered by two strategies, in two columns: answer, evidence, cost and time."""
    columns = []
    for trace in traces:
        name = STRATEGY_NAMES.get(strategy(trace.events), strategy(trace.events))
        answer = trace.answer
        t = trace.totals()
        evidence = answer.evidence if answer else []
        shown = "".join(f"<li>{cite_link(book, sid)} {esc(' '.join(book.sentence(sid).text.split())[:200])}</li>"
                        for sid in evidence[:8] if sid < len(book))
        more = f"<li>…and {len(evidence) - 8} more sentences</li>" if len(evidence) > 8 else ""
        body = linked(answer.text, book) if answer else "<i>no answer</i>"
        columns.append(
            f"<div class='column' data-strategy='{esc(strategy(trace.events))}'><h4>{esc(name)}</h4>"
            f"<div class='answer'>{body}</div><div class='cost'>{t['llm_calls']} LLM calls · "
            f"{t['prompt_tokens']:,} prompt tokens · {t['completion_tokens']:,} generated · "
            f"{t.get('seconds', 0):.1f} s</div><b>Evidence</b> ({len(evidence)} sentences)<ul>{shown}{more}</ul></div>")
    return f"<div class='side-by-side'>{''.join(columns)}</div>"


def notebook_html(book: Book | None, entries: list[dict]) -> str:
    """The reading notebook: each question with its answer and quotes, and each saved passage."""
    if not entries:
        return "<div class='notebook empty'>Questions, answers and passages you save appear here.</div>"
    parts = ["<div class='notebook'>"]
    for entry in entries:
        quotes = entry.get("quotes", []) if entry["kind"] == "answer" else [entry]
        here = book is not None and entry.get("book") == book.digest
        cited = "".join(
            f"<blockquote>{esc(q['text'])}<br>— "
            f"{cite_link(book, q['sentence'], q['label']) if here else esc('[' + q['label'] + ']')}"
            f" {esc(q['where'])}, <i>{esc(entry.get('title', ''))}</i></blockquote>" for q in quotes)
        if entry["kind"] == "answer":
            parts.append(f"<div class='entry answer'><b>Q: {esc(entry['question'])}</b><div>{esc(entry['answer'])}"
                         f"</div>{cited}<small>{esc(entry['run'])} · {esc(entry['when'])}</small></div>")
        else:
            parts.append(f"<div class='entry quote'><b>Passage</b>{cited}<small>saved {esc(entry['when'])}</small>"
                         "</div>")
    parts.append("</div>")
    return "".join(parts)


def ceiling_note(events: list[Event]) -> str:
    """The spoiler ceiling a question was asked under, if any."""
    for start in (e.data for e in events if e.kind == "start"):
        if start.get("ceiling"):
            c = start["ceiling"]
            return (f"<div class='ceiling'><b>Spoiler ceiling</b> read up to {esc(c['label'])} (S{c['sentence']}): "
                    "nothing after it is searched, counted or answered from.</div>")
    return ""


def totals_line(events: list[Event]) -> str:
    if not any(e.kind == "done" for e in events):
        return ""
    t = Trace("", list(events)).totals()
    return (f"<div class='totals'>{t['iterations']} iteration(s) · {t['llm_calls']} LLM calls · "
            f"{t['evaluated_tokens']:,} prompt tokens evaluated ({t['cached_tokens']:,} reused) · "
            f"{t['completion_tokens']:,} generated · {t.get('seconds', 0):.1f} s</div>")


def pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def index_card(stats: dict) -> str:
    """One line on a marker index: its size, coverage, fallback and the fidelity audit."""
    return (f"<div class='index-card'><b>M-RAG index</b> {stats['markers']:,} markers ({stats['model_markers']:,} "
            f"written by the model, {stats['chunk_markers']:,} chunk fallbacks) over {stats['paragraphs']:,} "
            f"paragraphs · coverage {pct(stats['coverage'])} (first call {pct(stats['coverage_first'])}) · "
            f"fallback {pct(stats['fallback_rate'])} · audit: support {pct(stats['support_rate'])}, names "
            f"{pct(stats['name_support'])}, numbers {pct(stats['number_support'])}, flagged "
            f"{pct(stats['flagged_share'])} · store {stats['store_bytes'] / 1024:,.0f} KB "
            f"({stats['storage_expansion']}x the book)</div>")


def build_progress(data: dict) -> str:
    """Extraction progress: windows done and left, resumed ones, and the time left at this run's pace."""
    left = "" if data.get("eta_seconds") is None else f" · about {data['eta_seconds'] / 60:.1f} min left"
    resumed = f" ({data['resumed']} from an earlier run)" if data.get("resumed") else ""
    return (f"<div class='index-progress'>Extracting markers: {data['done']} of {data['total']} windows done"
            f"{resumed}, {data['left']} left · {data['seconds'] / 60:.1f} min so far{left}"
            f"<progress value='{data['done']}' max='{max(data['total'], 1)}'></progress></div>")


def audit_badge(match) -> str:
    if match.source == "chunk":
        return "<span class='audit chunk' title='the paragraph itself (fallback)'>chunk</span>"
    verdict = "flagged" if match.flagged else "supported"
    return (f"<span class='audit {verdict}' title='share of the value&#39;s words found in its paragraphs'>"
            f"{verdict} {match.support:.0%}</span>")


def budget_bar(placed, budget: int) -> str:
    segments = "".join(
        f"<span class='seg {'flagged' if m.flagged else m.source}' style='width:{100 * m.tokens / max(budget, 1):.2f}%'"
        f" title='{esc(f'M{m.marker}: {m.key[:80]} ({m.tokens} tokens)')}'></span>" for m in placed)
    return f"<div class='budget-bar'>{segments}</div>"


def mrag_html(book: Book, events: list[Event]) -> str:
    """M-RAG's trace: the index, every matched key with its similarity, audit and cited paragraphs (one click
    to the reader), the values placed in the context against the budget bar, model audits and costs."""
    parts = ["<div class='trace mrag'>", ceiling_note(events)]
    for start in (e.data for e in events if e.kind == "start"):
        parts.append(index_card(start["index"]))
    audits = {e.data["marker"]: e.data for e in events if e.kind == "audit"}
    for assembly in (e.data for e in events if e.kind == "assembly"):
        by = {m.marker: m for m in assembly["matches"]}
        placed = [by[n] for n in assembly["placed"]]
        parts.append(f"<div class='budget'><b>Context</b> {len(placed)} values, {assembly['spent']:,} of "
                     f"{assembly['budget']:,} tokens, ordered by {esc(assembly['order'])} · key matching "
                     f"{assembly['seconds'] * 1000:.1f} ms{budget_bar(placed, assembly['budget'])}</div>")
        rows = []
        for m in assembly["matches"]:
            links = " ".join(cite_link(book, sid, f"P{p}") for p, sid in zip(m.paragraphs, m.anchors))
            value = (f"<details><summary>{'paragraphs placed (flagged value replaced)' if m.replaced else 'value'}"
                     f"</summary>{esc(m.text)}</details>" if m.placed else "")
            checked = audits.get(m.marker)
            if checked:
                value += "<div class='statements'>" + "".join(
                    f"<div class='verdict {'yes' if v['supported'] else 'no'}'>"
                    f"{'supported' if v['supported'] else 'not supported'}: {esc(v['statement'])}</div>"
                    for v in checked["statements"]) + "</div>"
            key = m.key if m.source == "model" or len(m.key) <= 160 else m.key[:160] + "…"
            rows.append(f"<tr class='key {'placed' if m.placed else 'unplaced'}'><td>{m.rank}</td>"
                        f"<td>{m.similarity:.3f}</td><td>{esc(key)}{value}</td>"
                        f"<td>{'placed' if m.placed else '—'}</td><td>{m.tokens}</td><td>{links}</td>"
                        f"<td>{audit_badge(m)}</td></tr>")
        parts.append("<table class='keys'><tr><th>#</th><th>similarity</th><th>key</th><th>context</th>"
                     f"<th>tokens</th><th>paragraphs</th><th>audit</th></tr>{''.join(rows)}</table>")
    parts.append(stage_costs([e.data for e in events if e.kind == "llm_call"]))
    parts.append(totals_line(events))
    parts.append("</div>")
    return "".join(parts)


def samples_note(chunk) -> str:
    return "; ".join(f"λ={s.noise:.2f} similarity={s.similarity:.2f}" + (f" KL={s.kl:.3f}" if s.kl is not None
                                                                          else "") for s in chunk.samples)


def hits_table(book: Book, hits, chunk_groups) -> str:
    chunk_of = {}
    for group in chunk_groups:
        for chunk in group["chunks"]:
            for sid in chunk.hits:
                chunk_of[sid] = f"S{chunk.first}–S{chunk.last}"
    rows = "".join(
        f"<tr class='hit'><td>{h.rank}</td><td>{cite_link(book, h.sentence_id)} <a href='#pin' class='pin' "
        f"data-sid='{h.sentence_id}' title='pin as evidence for an edited search'>pin</a></td><td>{h.score}</td>"
        f"<td class='sentence'>{highlight(book, h.text, h.matched)}</td>"
        f"<td>{esc(chunk_of.get(h.sentence_id, ''))}</td></tr>"
        for h in hits)
    if not rows:
        return "<div class='hits none'>No sentence holds these terms.</div>"
    return ("<table class='hits'><tr><th>#</th><th>where</th><th>overlap</th><th>sentence</th><th>chunk</th></tr>"
            f"{rows}</table>")


def count_block(book: Book, count) -> str:
    """The counted phrase, its total, the occurrences per chapter, and the first 40 as links."""
    where = " ".join(cite_link(book, sid) for sid in dict.fromkeys(o.sentence_id for o in count.occurrences[:40]))
    more = f" … and {len(count.occurrences) - 40} more" if len(count.occurrences) > 40 else ""
    per_chapter: dict[int, int] = defaultdict(int)
    for o in count.occurrences:
        per_chapter[o.chapter] += 1
    chapters = " · ".join(f"ch. {c + 1}: {n}" for c, n in sorted(per_chapter.items()))
    return (f"<div class='count'><b>Counting</b> “{esc(count.phrase)}” ({esc(', '.join(count.forms))}): "
            f"<b>{count.total}</b><div class='per-chapter'>{chapters}</div>{where}{more}</div>")


def importance_figure(events: list[Event]) -> go.Figure:
    """Bars: the importance of each scored chunk, by iteration; hovering shows its samples. For M-RAG: the
    similarity of each matched key, placed values in colour."""
    if strategy(events) == "mrag":
        return similarity_figure(events)
    fig = go.Figure()
    by = grouped(events)
    for iteration in sorted(i for i in by if by[i]["importance"]):
        chunks = by[iteration]["importance"]
        fig.add_bar(
            name=f"iteration {iteration}", x=[f"S{c.first}–S{c.last}" for c in chunks],
            y=[c.importance for c in chunks],
            hovertext=[samples_note(c).replace("; ", "<br>") + f"<br>base answer: {esc(c.base_answer[:80])}"
                       for c in chunks],
            customdata=[[c.kl_importance] for c in chunks],
        )
    fig.update_layout(title="Importance of each chunk", yaxis_title="importance (1 − mean similarity)",
                      yaxis_range=[0, 1], height=280, margin=dict(l=40, r=10, t=40, b=40), barmode="group")
    return fig


def similarity_figure(events: list[Event]) -> go.Figure:
    fig = go.Figure()
    for assembly in (e.data for e in events if e.kind == "assembly"):
        matches = assembly["matches"]
        fig.add_bar(x=[f"#{m.rank}" for m in matches], y=[m.similarity for m in matches],
                    marker_color=["#2563eb" if m.placed else "#cbd5e1" for m in matches],
                    hovertext=[esc(m.key[:100]) for m in matches], name="keys")
    fig.update_layout(title="Similarity of the best keys (blue: value placed)", yaxis_title="cosine similarity",
                      height=280, margin=dict(l=40, r=10, t=40, b=40), showlegend=False)
    return fig


def book_map(book: Book, events: list[Event]) -> go.Figure:
    """The whole book as one axis (sentence positions, chapters marked) and where each iteration's hits fall."""
    fig = go.Figure()
    by = grouped(events)
    top = max([i for i in by if i > 0], default=1) + 0.5
    xs, ys, titles = [], [], []
    for chapter in book.chapters:
        xs += [chapter.first_sentence, chapter.first_sentence, None]
        ys += [0.5, top, None]
        titles += [chapter.title] * 2 + [None]
    fig.add_scatter(x=xs, y=ys, mode="lines", line=dict(width=1, color="rgba(120,120,120,0.3)"), hovertext=titles,
                    hoverinfo="text", name="chapters")
    for iteration in sorted(i for i in by if i > 0):
        hits = [h for c in by[iteration]["collection"] for h in c["hits"]]
        found = [o for c in by[iteration]["count"] for o in c.occurrences]
        placed = [m for a in by[iteration]["assembly"] for m in a["matches"] if m.placed]
        xs = [h.sentence_id for h in hits] + [o.sentence_id for o in found] + [m.anchors[0] for m in placed]
        if not xs:
            continue
        text = [f"S{h.sentence_id} ch. {h.chapter + 1}: {esc(h.text[:80])}" for h in hits]
        text += [f"S{o.sentence_id} ch. {o.chapter + 1}: {esc(o.matched)}" for o in found]
        text += [f"P{m.paragraphs[0]}: {esc(m.key[:80])}" for m in placed]
        fig.add_scatter(x=xs, y=[iteration] * len(xs), mode="markers", name=f"iteration {iteration}",
                        hovertext=text, hoverinfo="text", marker=dict(size=9, symbol="line-ns-open"))
    fig.update_layout(title="Where the hits fall in the book", height=220, xaxis_title="sentence (chapters marked)",
                      xaxis_range=[0, max(len(book), 1)], yaxis=dict(title="iteration", dtick=1, range=[0.5, top]),
                      margin=dict(l=40, r=10, t=40, b=40), showlegend=False)
    return fig


def reader(book: Book, sid: int, around: int = 2, ceiling: int | None = None) -> str:
    """The cited sentence highlighted inside its paragraph and ``around`` paragraphs each side, with its chapter;
    nothing after sentence ``ceiling`` (the reader's spoiler ceiling)."""
    if not 0 <= sid < len(book) or (ceiling is not None and sid > ceiling):
        return "<div class='reader'>No such sentence.</div>"
    target = book.sentence(sid)
    paragraph_of = book.paragraph_of
    first = int(paragraph_of[sid]) - around
    last = int(paragraph_of[sid]) + around
    lo = int(paragraph_of.searchsorted(first, side="left"))
    hi = int(paragraph_of.searchsorted(last, side="right")) - 1
    hi = hi if ceiling is None else min(hi, ceiling)
    paragraphs, current = [], None
    for i in range(lo, hi + 1):
        s = book.sentence(i)
        piece = f"<mark id='cited'>{esc(s.text)}</mark>" if i == sid else esc(s.text)
        if s.paragraph != current:
            paragraphs.append([])
            current = s.paragraph
        paragraphs[-1].append(piece)
    page = f" · page {target.page}" if target.page is not None else ""
    body = "".join(f"<p>{' '.join(p)}</p>" for p in paragraphs)
    return (f"<div class='reader' data-sid='{sid}'><div class='where'>{esc(target.chapter_title)} · "
            f"chapter {target.chapter + 1}{page} · S{sid}</div>{body}</div>")


def markdown_export(book: Book, trace: Trace) -> str:
    """A question with its answer, citations and a per-iteration summary, as Markdown."""
    answer = trace.answer
    lines = [f"# {trace.question}", "", f"*{book.title}*" + (f" by {book.author}" if book.author else ""), ""]
    if answer:
        lines += ["## Answer", "", answer.text, ""]
        if answer.vote_shares:
            lines += ["Votes: " + ", ".join(f"{k} {v:.0%}" for k, v in answer.vote_shares.items()), ""]
        if answer.citations:
            lines += ["## Citations", ""] + [f"- **{c.label}** {' '.join(c.text.split())}" for c in answer.citations]
            lines.append("")
    lines += ["## How it was found", ""]
    for event in trace.events:
        data = event.data
        if event.kind == "terms":
            lines.append(f"- Iteration {event.iteration}: terms " + ", ".join(
                f"{t.text} ({t.origin})" for t in data["new"]))
        elif event.kind == "collection":
            lines.append(f"- Iteration {event.iteration}: {len(data['hits'])} sentences retrieved")
        elif event.kind == "importance":
            lines.append(f"- Iteration {event.iteration}: chunk S{data.first}–S{data.last} importance "
                         f"{data.importance:.2f}")
        elif event.kind == "judge":
            lines.append(f"- Iteration {event.iteration}: judge {'sufficient' if data.sufficient else 'not sufficient'}"
                         f": {data.reason}")
        elif event.kind == "count":
            lines.append(f"- Counted “{data.phrase}” ({', '.join(data.forms)}): {data.total}")
        elif event.kind == "assembly":
            by = {m.marker: m for m in data["matches"]}
            lines.append(f"- M-RAG placed {len(data['placed'])} values ({data['spent']} of {data['budget']} tokens, "
                         f"by {data['order']}): " + "; ".join(
                             f"“{by[n].key}” (similarity {by[n].similarity:.2f}, paragraphs "
                             f"{', '.join(f'P{p}' for p in by[n].paragraphs)})" for n in data["placed"]))
    totals = trace.totals()
    lines += ["", "```json", json.dumps({k: v for k, v in totals.items() if k != "llm_seconds_by_purpose"}), "```"]
    return "\n".join(lines) + "\n"
