"""M-RAG's trace view: the index card, the budget bar, every matched key with its similarity, audit and cited
paragraphs (links to the reader), the values placed, the model's statement audits; its similarity chart; and
the extraction's progress."""

from __future__ import annotations

import plotly.graph_objects as go

from ...book import Book
from ...methods.trace import Event, Kind
from .common import ceiling_note, cite_link, esc, pct, stage_costs, totals_line
from .figures import figure


def index_card(stats: dict) -> str:
    """One line on a marker index: its size, coverage, fallback and the fidelity audit."""
    return (f"<div class='index-card'><b>M-RAG index</b> {stats['markers']:,} markers ({stats['model_markers']:,} "
            f"written by the model, {stats['chunk_markers']:,} chunk fallbacks) over {stats['paragraphs']:,} "
            f"paragraphs · coverage {pct(stats['coverage'])} (first call {pct(stats['coverage_first'])}) · "
            f"fallback {pct(stats['fallback_rate'])} · audit: support {pct(stats['support_rate'])}, names "
            f"{pct(stats['name_support'])}, numbers {pct(stats['number_support'])}, flagged "
            f"{pct(stats['flagged_share'])} · store {stats['store_bytes'] / 1024:,.0f} KB "
            f"({stats['storage_expansion']}x the book){so_far(stats)}</div>")


def so_far(stats: dict) -> str:
    """What of the book an index built up to a ceiling covers, if not all of it."""
    planned = stats.get("windows_in_book") or stats["windows"]
    return "" if stats["windows"] >= planned else (f" · built from the book's start: {stats['windows']} of "
                                                    f"{planned} windows (build on for a later ceiling)")


def build_progress(data: dict) -> str:
    """Extraction progress: windows done and left, resumed ones, and the time left at this run's pace."""
    left = "" if data.eta_seconds is None else f" · about {data.eta_seconds / 60:.1f} min left"
    resumed = f" ({data.resumed} from an earlier run)" if data.resumed else ""
    return (f"<div class='index-progress'>Extracting markers: {data.done} of {data.total} windows done"
            f"{resumed}, {data.left} left · {data.seconds / 60:.1f} min so far{left}"
            f"<progress value='{data.done}' max='{max(data.total, 1)}'></progress></div>")


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


def trace_html(book: Book, events: list[Event]) -> str:
    """M-RAG's trace: the index, every matched key with its similarity, audit and cited paragraphs (one click
    to the reader), the values placed in the context against the budget bar, model audits and costs."""
    parts = ["<div class='trace mrag'>", ceiling_note(events)]
    for start in (e.data for e in events if e.kind == Kind.START):
        parts.append(index_card(start.index))
    audits = {e.data.marker: e.data for e in events if e.kind == Kind.AUDIT}
    for assembly in (e.data for e in events if e.kind == Kind.ASSEMBLY):
        by = {m.marker: m for m in assembly.matches}
        placed = [by[n] for n in assembly.placed]
        parts.append(f"<div class='budget'><b>Context</b> {len(placed)} values, {assembly.spent:,} of "
                     f"{assembly.budget:,} tokens, ordered by {esc(assembly.order)} · key matching "
                     f"{assembly.seconds * 1000:.1f} ms{budget_bar(placed, assembly.budget)}</div>")
        rows = []
        for m in assembly.matches:
            links = " ".join(cite_link(book, sid, f"P{p}") for p, sid in zip(m.paragraphs, m.anchors, strict=True))
            value = (f"<details><summary>{'paragraphs placed (flagged value replaced)' if m.replaced else 'value'}"
                     f"</summary>{esc(m.text)}</details>" if m.placed else "")
            checked = audits.get(m.marker)
            if checked:
                value += "<div class='statements'>" + "".join(
                    f"<div class='verdict {'yes' if v['supported'] else 'no'}'>"
                    f"{'supported' if v['supported'] else 'not supported'}: {esc(v['statement'])}</div>"
                    for v in checked.statements) + "</div>"
            key = m.key if m.source == "model" or len(m.key) <= 160 else m.key[:160] + "…"
            rows.append(f"<tr class='key {'placed' if m.placed else 'unplaced'}'><td>{m.rank}</td>"
                        f"<td>{m.similarity:.3f}</td><td>{esc(key)}{value}</td>"
                        f"<td>{'placed' if m.placed else '—'}</td><td>{m.tokens}</td><td>{links}</td>"
                        f"<td>{audit_badge(m)}</td></tr>")
        parts.append("<table class='keys'><tr><th>#</th><th>similarity</th><th>key</th><th>context</th>"
                     f"<th>tokens</th><th>paragraphs</th><th>audit</th></tr>{''.join(rows)}</table>")
    parts.append(stage_costs([e.data for e in events if e.kind == Kind.LLM_CALL]))
    parts.append(totals_line(events))
    parts.append("</div>")
    return "".join(parts)


def similarity_figure(book: Book, events: list[Event]) -> go.Figure:
    """Bars: the similarity of each matched key, placed values in colour."""
    bars = [dict(type="bar", x=[f"#{m.rank}" for m in matches], y=[m.similarity for m in matches],
                 marker=dict(color=["#2563eb" if m.placed else "#cbd5e1" for m in matches]),
                 hovertext=[esc(m.key[:100]) for m in matches], name="keys")
            for matches in (e.data.matches for e in events if e.kind == Kind.ASSEMBLY)]
    return figure(bars, dict(title=dict(text="Similarity of the best keys (blue: value placed)"),
                             yaxis=dict(title=dict(text="cosine similarity")), height=280,
                             margin=dict(l=40, r=10, t=40, b=40), showlegend=False))
