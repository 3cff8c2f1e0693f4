"""The reading notebook as the Notebook tab shows it: each question with its answer and quotes, each passage."""

from __future__ import annotations

from ...book import Book
from .common import cite_link, esc


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
