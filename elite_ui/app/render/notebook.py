"""The reading notebook as the Notebook tab shows it: each question with its answer and quotes, each passage."""

from __future__ import annotations

from .common import esc, link


def notebook_html(entries: list[dict]) -> str:
    """The reading notebook: each question with its answer and quotes, and each saved passage, linked to the book
    it comes from."""
    if not entries:
        return "<div class='notebook empty'>Questions, answers and passages you save appear here.</div>"
    parts = ["<div class='notebook'>"]
    for entry in entries:
        quotes = entry.get("quotes", []) if entry["kind"] == "answer" else [entry]
        cited = "".join(
            f"<blockquote>{esc(q['text'])}<br>— {link(entry['book'], q['sentence'], q['label'])}"
            f" {esc(q['where'])}, <i>{esc(entry.get('title', ''))}</i></blockquote>" for q in quotes)
        if entry["kind"] == "answer":
            parts.append(f"<div class='entry answer'><b>Q: {esc(entry['question'])}</b><div>{esc(entry['answer'])}"
                         f"</div>{cited}<small>{esc(entry['run'])} · {esc(entry['when'])}</small></div>")
        else:
            parts.append(f"<div class='entry quote'><b>Passage</b>{cited}<small>saved {esc(entry['when'])}</small>"
                         "</div>")
    parts.append("</div>")
    return "".join(parts)
