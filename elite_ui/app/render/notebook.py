"""The reading notebook as the Notebook tab shows it: each question with its answer and quotes, each passage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import esc, labels_linked, link, quoted
from .common import inert_markdown as md

if TYPE_CHECKING:
    from ..notebook import Entry


def notebook_html(entries: list[Entry]) -> str:
    """The reading notebook: each question with its answer and quotes, and each saved passage, linked to the book
    it comes from."""
    if not entries:
        return "<div class='notebook empty'>Questions, answers and passages you save appear here.</div>"
    parts = ["<div class='notebook'>"]
    for entry in entries:
        cited = "".join(
            f"<blockquote>{quoted(q.text)}<br>— {link(entry.book, q.sentence, q.label)}"
            f" {esc(q.where)}, <i>{esc(entry.title)}</i></blockquote>" for q in entry.quotes)
        if entry.about:
            sids = ",".join(str(int(sid)) for sid in entry.about)
            parts.append(f"<div class='entry highlight'><b>{esc(entry.question)}</b><div>{esc(entry.answer)}"
                         f"</div>{cited}<a href='#' class='ask-highlight' data-book='{esc(entry.book)}' "
                         f"data-sids='{sids}'>Ask about this highlight</a> <small>{esc(entry.when)}</small></div>")
        elif entry.kind == "answer":
            parts.append(f"<div class='entry answer'><b>Q: {esc(entry.question)}</b><div>{cited_answer(entry)}"
                         f"</div>{cited}<small>{esc(entry.run)} · {esc(entry.when)}</small></div>")
        else:
            parts.append(f"<div class='entry quote'><b>Passage</b>{cited}<small>saved {esc(entry.when)}</small>"
                         "</div>")
    parts.append("</div>")
    return "".join(parts)


def cited_answer(entry: Entry) -> str:
    """An answer entry's text, each sentence label it cites ("S102", "[S495]") a link named by its chapter."""
    labels = {q.sentence: q.label for q in entry.quotes}
    return labels_linked(entry.answer, lambda sid: link(entry.book, sid, labels[sid]) if sid in labels else None)


def notebook_markdown(entries: list[Entry]) -> str:
    """The notebook as Markdown (its export): one section per question (answer, then its quotes) or saved
    passage; every text from the book, the model or the reader rendered inert, each on one line."""
    def line(text: str) -> str:
        return md(" ".join(str(text).split()))

    lines = ["# Reading notebook", ""]
    for entry in entries:
        source = f"*{line(entry.title)}*"
        if entry.kind == "answer":
            lines += [f"## Q: {line(entry.question)}", "", line(entry.answer), "",
                      f"{source} · {line(entry.run)} · {line(entry.when)}", ""]
            lines += [f"> {line(q.text)}  \n> — \\[{line(q.label)}\\] {line(q.where)}\n" for q in entry.quotes]
        else:
            passage = entry.quotes[0]
            lines += [f"## Passage, {line(passage.where)}", "", f"> {line(passage.text)}  \n> — "
                      f"\\[{line(passage.label)}\\]", "", f"{source} · saved {line(entry.when)}", ""]
    return "\n".join(lines)
