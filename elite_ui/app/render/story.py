"""The Story tab's views: the story so far (each chapter's extracts, cited) and a character's X-Ray (mentions per
chapter, first appearance, descriptions, companions with the passages they share, and the relationship map)."""

from __future__ import annotations

import json
import math

import plotly.graph_objects as go

from ...book import Book
from ...book.story import ChapterRecap, XRay
from ...methods.recap import Written
from .common import cite_link, esc


def quoted(book: Book, sid: int) -> str:
    return f"{esc(' '.join(book.sentence(sid).text.split()))} {cite_link(book, sid)}"


def recap_html(book: Book, recaps: list[ChapterRecap], until: str) -> str:
    """Each chapter's extracts, labelled as extracts, up to ``until`` (where the reader's ceiling cuts the book)."""
    if not recaps:
        return "<div class='story'>The book has no chapters before this point.</div>"
    body = "".join(f"<h4>{esc(r.ref)} {esc(r.title)}</h4><ul>"
                   + "".join(f"<li>{quoted(book, sid)}</li>" for sid in r.sentences) + "</ul>" for r in recaps)
    return (f"<div class='story'><p class='note'>The story so far, {esc(until)}: extracts, the book's own sentences "
            f"that are most central to each chapter (chosen without a model), each cited.</p>{body}</div>")


def written_html(book: Book, recaps: list[Written], until: str, model: str, so_far: Written | None = None) -> str:
    """The chapters' recaps the model wrote (after them condensed ``so_far``), each sentence followed by the
    sentences it rests on."""
    if not recaps:
        return "<div class='story'>The book has no chapters before this point.</div>"

    def paragraph(lines: list[tuple[str, list[int]]]) -> str:
        return "<p>" + " ".join(f"{esc(text)} " + " ".join(cite_link(book, sid) for sid in ids)
                                for text, ids in lines) + "</p>"

    head = f"<h4>So far</h4>{paragraph(so_far.lines)}" if so_far is not None and so_far.lines else ""
    body = "".join(f"<h4>{esc(r.ref)} {esc(r.title)}</h4>{paragraph(r.lines)}" for r in recaps if r.lines)
    bare = sum(not r.lines for r in recaps)
    left = (f" Nothing the model wrote of {bare} chapter{'s' * (bare != 1)} could be cited; "
            f"{'they are' if bare != 1 else 'it is'} left out." if bare else "")
    by_words = sum(r.matched for r in recaps) + (so_far.matched if so_far is not None else 0)
    plural = by_words != 1
    left += (f" {by_words} sentence{'s' * plural} the model wrote without a usable label {'are' if plural else 'is'}"
             f" cited to the sentences that hold {'their' if plural else 'its'} words." if by_words else "")
    return (f"<div class='story'><p class='note'>The story so far, {esc(until)}, written by {esc(model)}: every "
            f"sentence cites the sentences it rests on (a sentence citing none was left out); the chapters follow "
            f"the paragraph that condenses them.{left}</p>{head}{body}</div>")


def xray_html(book: Book, x: XRay, until: str) -> str:
    if not x.mentions:
        return f"<div class='story'>{esc(x.name)} is not named {esc(until)}.</div>"
    first = quoted(book, x.first) if x.first is not None else ""
    described = "".join(f"<li>{quoted(book, sid)}</li>" for sid in x.described) or "<li>none found</li>"
    own = "".join(f"<li>{quoted(book, sid)}</li>" for sid in x.story)
    companions = "".join(
        f"<li><a href='#' class='companion' data-pair='{esc(json.dumps([x.name, name]))}'><b>{esc(name)}</b></a>: "
        f"{count} shared "
        f"paragraph{'s' * (count != 1)} · "
        + " ".join(cite_link(book, sid) for sid in sids) + "</li>" for name, count, sids in x.companions)
    return (f"<div class='story'><h4>{esc(x.name)}</h4><p>Also called: {esc(', '.join(x.variants[1:]) or '-')} · "
            f"named in {x.mentions:,} sentences {esc(until)}.</p><p><b>First appearance:</b> {first}</p>"
            f"<p><b>Described</b></p><ul>{described}</ul>"
            f"<p><b>Their story so far</b> (extracts: in each chapter, the most central sentence that names them)</p>"
            f"<ul>{own}</ul><p><b>Appears with</b> (click a name, or its point on the map, for every passage they "
            f"share; a citation opens one in the Reader)</p>"
            f"<ul>{companions or '<li>no one</li>'}</ul></div>")


def together_html(book: Book, name: str, other: str, spans: list[tuple[int, int]], until: str, most: int = 12) -> str:
    """The paragraphs that name both characters (the first ``most``), each sentence cited."""
    if not spans:
        return f"<div class='story'>{esc(name)} and {esc(other)} share no paragraph {esc(until)}.</div>"
    shown = "".join("<li>" + " ".join(quoted(book, sid) for sid in range(first, last + 1)) + "</li>"
                    for first, last in spans[:most])
    more = f"<p class='note'>and {len(spans) - most:,} more.</p>" if len(spans) > most else ""
    return (f"<div class='story'><h4>{esc(name)} and {esc(other)}</h4><p class='note'>{len(spans):,} paragraph"
            f"{'s' * (len(spans) != 1)} name both {esc(until)}:</p><ol>{shown}</ol>{more}</div>")


def xray_figure(x: XRay) -> go.Figure:
    """Mentions per chapter above; the relationship map below: the character in the middle, each companion
    around (the pair's names as the point's data, which a click sends back), the line's width the paragraphs
    they share."""
    fig = go.Figure()
    fig.add_bar(x=[ref for ref, _ in x.by_chapter], y=[n for _, n in x.by_chapter], name="mentions",
                xaxis="x", yaxis="y", marker_color="#2563eb")
    most = max([count for _, count, _ in x.companions], default=1)
    for n, (name, count, _) in enumerate(x.companions):
        angle = 2 * math.pi * n / max(len(x.companions), 1)
        px, py = math.cos(angle), math.sin(angle)
        fig.add_scatter(x=[0, px], y=[0, py], mode="lines", xaxis="x2", yaxis="y2", hoverinfo="skip",
                        line=dict(width=1 + 9 * count / most, color="rgba(37,99,235,0.45)"), showlegend=False)
        fig.add_scatter(x=[px], y=[py], mode="markers+text", text=[esc(name)], textposition="top center",
                        customdata=[json.dumps([x.name, name])],
                        hovertext=[f"{esc(name)}: {count} shared paragraphs"], hoverinfo="text", xaxis="x2",
                        yaxis="y2", marker=dict(size=12, color="#d97706"), showlegend=False)
    fig.add_scatter(x=[0], y=[0], mode="markers+text", text=[esc(x.name)], textposition="bottom center",
                    xaxis="x2", yaxis="y2", marker=dict(size=18, color="#2563eb"), showlegend=False)
    hidden = dict(visible=False, range=[-1.5, 1.5])
    fig.update_layout(height=620, showlegend=False, title=f"{esc(x.name)}: mentions per chapter, and who they "
                      "appear with", xaxis=dict(domain=[0, 1], anchor="y", tickangle=-45),
                      yaxis=dict(domain=[0.62, 1], title="sentences"), xaxis2=dict(domain=[0.2, 0.8], anchor="y2",
                                                                                     **hidden),
                      yaxis2=dict(domain=[0, 0.5], **hidden), margin=dict(l=40, r=20, t=50, b=20))
    return fig
