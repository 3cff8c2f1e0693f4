"""The conversation: each question, and its answer (streaming or final) with citation links."""

from __future__ import annotations

from ...book import Book
from ...methods.parsing import SENTENCE_LABEL
from ...methods.trace import Answer
from .common import cite_link, esc, linked


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
