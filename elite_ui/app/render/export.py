"""A question with its answer, citations and a summary of how it was found, as Markdown (the Export button)."""

from __future__ import annotations

import json
from dataclasses import asdict

from ...book import Book
from ...methods.registry import METHODS
from ...methods.trace import Kind, Trace
from .common import inert_markdown as md


def markdown_export(book: Book, trace: Trace) -> str:
    """A question with its answer, citations and a per-iteration summary, as Markdown."""
    answer, starts = trace.answer, trace.of(Kind.START)
    lines = [f"# {md(trace.question)}", "", f"*{md(book.title)}*" + (f" by {md(book.author)}" if book.author else ""),
             ""]
    if starts:
        start = starts[0].data
        c = start.ceiling
        read = c.within if c and c.within else f"the book up to {c.label}" if c and c.label else "the whole book"
        lines += [f"Asked of {md(read)} · method: {md(METHODS[start.method].label)} · model: {md(start.model)}", ""]
    if answer:
        if answer.quotes:
            lines += ["## What the book says", ""] + [f"> {md(' '.join(q.text.split()))} — **{q.label}**\n"
                                                      for q in answer.quotes]
        lines += ["## Answer", "", md(answer.text), ""]
        lines += [f"*{md(note)}*\n" for note in answer.notes]
        if answer.vote_shares:
            lines += ["Votes: " + ", ".join(f"{k} {v:.0%}" for k, v in answer.vote_shares.items()), ""]
        if answer.citations:
            lines += ["## Citations", ""]
            lines += [f"- **{c.label}** {md(' '.join(c.text.split()))}" for c in answer.citations]
            lines.append("")
    lines += ["## How it was found", ""]
    for event in trace.events:
        data = event.data
        if event.kind == Kind.TERMS:
            lines.append(f"- Iteration {event.iteration}: terms " + ", ".join(
                f"{md(t.text)} ({t.whence})" for t in data.new))
        elif event.kind == Kind.COLLECTION:
            lines.append(f"- Iteration {event.iteration}: {len(data.hits)} sentences retrieved")
        elif event.kind == Kind.IMPORTANCE:
            lines.append(f"- Iteration {event.iteration}: chunk S{data.first}–S{data.last} importance "
                         f"{data.importance:.2f}")
        elif event.kind == Kind.JUDGE:
            lines.append(f"- Iteration {event.iteration}: judge {'sufficient' if data.sufficient else 'not sufficient'}"
                         f": {md(data.reason)}")
        elif event.kind == Kind.COUNT:
            lines.append(f"- Counted “{md(data.phrase)}” ({md(', '.join(data.forms))}): {data.total}")
        elif event.kind == Kind.ASSEMBLY:
            by = {m.marker: m for m in data.matches}
            lines.append(f"- M-RAG placed {len(data.placed)} values ({data.spent} of {data.budget} tokens, "
                         f"by {data.order}): " + "; ".join(
                             f"“{md(by[n].key)}” (similarity {by[n].similarity:.2f}, paragraphs "
                             f"{', '.join(f'P{p}' for p in by[n].paragraphs)})" for n in data.placed))
    totals = asdict(trace.totals())
    lines += ["", "```json", json.dumps({k: v for k, v in totals.items() if k != "llm_seconds_by_purpose"}), "```"]
    return "\n".join(lines) + "\n"
