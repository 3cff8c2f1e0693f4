"""The book map: the whole book as one axis, chapters marked, and where each iteration's hits fall."""

from __future__ import annotations

import plotly.graph_objects as go

from ...book import Book
from ...methods.trace import Event, Kind
from .common import colour, esc, grouped


def figure(traces: list[dict], layout: dict) -> go.Figure:
    """A plotly figure of ``traces`` (each a trace's properties, its ``type`` among them) and ``layout``, in
    plotly's nested form (``marker=dict(color=...)``, not ``marker_color``), built without checking each property
    against plotly's schema: the properties are ours, and checking them cost 8 ms of a book map's 8.5 ms, done for
    every refresh of every reader's trace (plotly's own template loader skips the check the same way)."""
    return go.Figure(data=traces, layout=layout, _validate=False)


def book_map(book: Book, events: list[Event]) -> go.Figure:
    """The book as one axis (sentence positions, chapters marked) and where each iteration's hits fall; under
    the run's spoiler ceiling, the book up to it (no later chapter's title shows)."""
    by = grouped(events)
    top = max([i for i in by if i > 0], default=1) + 0.5
    ceiling = next((e.data.ceiling for e in events if e.kind == Kind.START), None)
    end = ceiling.sentence + 1 if ceiling else len(book)
    chapters = [c for c in book.chapters if c.first_sentence < end]
    xs, ys, titles = [], [], []
    for chapter in chapters:
        xs += [chapter.first_sentence, chapter.first_sentence, None]
        ys += [0.5, top, None]
        titles += [chapter.title] * 2 + [None]
    traces = [dict(type="scatter", x=xs, y=ys, mode="lines", line=dict(width=1, color="rgba(120,120,120,0.3)"),
                   hovertext=titles, hoverinfo="text", name="chapters")]
    marked = [c for c in chapters if c.kind != "front"]
    marked = marked[:: max(1, len(marked) // 12)]
    for iteration in sorted(i for i in by if i > 0):
        hits = [h for c in by[iteration].collection for h in c.hits]
        found = [o for c in by[iteration].count for o in c.occurrences]
        placed = [m for a in by[iteration].assembly for m in a.matches if m.placed]
        xs = [h.sentence_id for h in hits] + [o.sentence_id for o in found] + [m.anchors[0] for m in placed]
        if not xs:
            continue
        text = [f"S{h.sentence_id} {esc(book.chapters[h.chapter].ref)}: {esc(h.text[:80])}" for h in hits]
        text += [f"S{o.sentence_id} {esc(book.chapters[o.chapter].ref)}: {esc(o.matched)}" for o in found]
        text += [f"P{m.paragraphs[0]}: {esc(m.key[:80])}" for m in placed]
        traces.append(dict(type="scatter", x=xs, y=[iteration] * len(xs), mode="markers", name=f"iteration {iteration}",
                           hovertext=text, hoverinfo="text",
                           marker=dict(size=9, symbol="line-ns-open", color=colour(iteration))))
    return figure(traces, dict(title=dict(text="Where the hits fall in the book"), height=240,
                               xaxis=dict(range=[0, max(end, 1)], tickvals=[c.first_sentence for c in marked],
                                          ticktext=[c.ref for c in marked], tickangle=-45),
                               yaxis=dict(title=dict(text="iteration"), dtick=1, range=[0.5, top]),
                               margin=dict(l=40, r=10, t=40, b=60), showlegend=False))
