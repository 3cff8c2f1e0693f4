"""The conversation: each question, and its answer (streaming or final) with citation links."""

from __future__ import annotations

from ...book import Book
from ...methods.parsing import SENTENCE_LABEL
from ...methods.trace import Answer
from ..notebook import Turn
from .common import cite_link, esc, linked, quoted


def chat(book: Book | None, turns: list[Turn]) -> str:
    """The conversation: each turn's question, its answer (streaming or final) with citation links."""
    if not turns:
        said = (f"Ask a question about <i>{esc(book.title)}</i>: first comes what the book says, then the answer."
                if book else "Load a book, then ask a question about it.")
        return f"<div class='chat empty'>{said}</div>"
    parts = ["<div class='chat'>"]
    for turn in turns:
        options = "".join(f"<li><span class='label'>{esc(k)}</span> {esc(v)}</li>" for k, v in turn.options.items())
        options = f"<ol class='options'>{options}</ol>" if options else ""
        parts.append(f"<div class='msg user'>{esc(turn.question)}{options}</div>")
        if turn.error:
            body = f"<span class='error'>{esc(turn.error)}</span>"
        elif turn.answer is not None:
            body = answered(book, turn.answer)
        elif turn.stopped:
            body = f"{esc(turn.partial)} <span class='stopped'>Stopped before the answer was done.</span>"
        else:
            writing = f"<div class='model-answer'><span class='label'>The model's answer</span> {esc(turn.partial)}" \
                      f"<i>{'' if turn.partial else 'being written…'}</i></div>"
            body = (quoted_block(book, turn.quotes) + writing if turn.quotes else
                    esc(turn.partial) or "<i>Searching the book…</i>")
        parts.append(f"<div class='msg bot'>{body}</div>")
    parts.append("</div>")
    return "".join(parts)


def marked(text: str, unsupported: list[str], book: Book | None) -> str:
    """An answer's escaped text, citations linked, each sentence the grounding check found unsupported marked."""
    def shown(part: str) -> str:
        return linked(part, book) if book else esc(part)

    out, last = [], 0
    for sentence in unsupported:
        start = text.find(sentence, last)
        if start < 0:
            continue
        out += [shown(text[last:start]), f"<span class='unsupported' title='The sentences cited do not support "
                                         f"this'>{shown(sentence)}</span>"]
        last = start + len(sentence)
    return "".join(out) + shown(text[last:])


def quoted_block(book: Book | None, quotes: list) -> str:
    """What the book says: the best evidence sentences, quoted and cited."""
    shown = "".join(f"<blockquote>{quoted(q.text)} "
                    f"{cite_link(book, q.sentence_id) if book else esc('[' + q.label + ']')}</blockquote>"
                    for q in quotes)
    return f"<div class='quotes'><span class='label'>What the book says</span>{shown}</div>"


def answered(book: Book | None, answer: Answer) -> str:
    """An answer: first what the book says (its best evidence sentences, quoted and cited), then the model's
    answer with its citations, then its notes (:attr:`Answer.notes`)."""
    text = marked(answer.text, answer.unsupported, book)
    if book and answer.citations and not SENTENCE_LABEL.search(answer.text):
        text += "<div class='sources'>Sources: " + " ".join(
            cite_link(book, c.sentence_id) for c in answer.citations[:8]) + "</div>"
    caveat = "".join(f"<div class='caveat'>{esc(note)}</div>" for note in answer.notes)
    if not answer.quotes:
        return text + caveat
    return (quoted_block(book, answer.quotes) +
            f"<div class='model-answer'><span class='label'>{answer.heading}</span> {text}</div>{caveat}")
