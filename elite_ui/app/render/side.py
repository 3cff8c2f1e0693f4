"""One question answered by two methods, in two columns: answer, evidence, cost and time."""

from __future__ import annotations

from ...book import Book
from ...methods.registry import METHODS
from ...methods.trace import Trace
from .common import cite_link, clipped, esc, linked, method_of


def side_by_side(book: Book, traces: list[Trace]) -> str:
    """One question answered by two methods, in two columns: answer, evidence, cost and time."""
    columns = []
    for trace in traces:
        name = METHODS[method_of(trace.events)].label
        answer = trace.answer
        t = trace.totals()
        evidence = answer.evidence if answer else []
        shown = "".join(f"<li>{cite_link(book, sid)} {clipped(book.sentence(sid).text, 200)}</li>"
                        for sid in evidence[:8] if sid < len(book))
        more = f"<li>…and {len(evidence) - 8} more sentences</li>" if len(evidence) > 8 else ""
        body = linked(answer.text, book) if answer else "<i>no answer</i>"
        columns.append(
            f"<div class='column' data-method='{esc(method_of(trace.events))}'><h4>{esc(name)}</h4>"
            f"<div class='answer'>{body}</div><div class='cost'>{t.llm_calls} LLM calls · "
            f"{t.prompt_tokens:,} prompt tokens · {t.completion_tokens:,} generated · "
            f"{t.seconds:.1f} s</div><b>Evidence</b> ({len(evidence)} sentences)<ul>{shown}{more}</ul></div>")
    return f"<div class='side-by-side'>{''.join(columns)}</div>"
