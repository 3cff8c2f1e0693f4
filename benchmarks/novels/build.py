"""Build the question set from the written drafts: ``python -m benchmarks.novels.build``.

A draft (``drafts/<book>.txt``) holds one block per question, blocks apart by a blank line::

    fr-07 mh relation reworded
    Q: the question
    A: the answer, in a few words
    E: 941-942
    E: 1230

The first line is the id (the book's prefix, a number), ``sh`` or ``mh``, the aspect, and ``reworded`` when the
question was written away from its evidence's words. Each ``E:`` line is one piece of evidence: a sentence, or a run
of consecutive sentences, by the numbers ``passages`` prints. Their text is taken from the book file itself (the
app's loader reads the same offsets), so every evidence string is an exact substring of the novel.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchmarks.novels import BOOKS, opened

HERE = Path(__file__).resolve().parent
SET = HERE / "novels-300.jsonl"
HEADER = re.compile(r"^(?P<id>(?P<book>[a-z]{2})-\d{2}) (?P<complexity>sh|mh) (?P<aspect>[a-z]+)"
                    r"(?P<reworded> reworded)?$")


def blocks(text: str) -> list[list[str]]:
    return [block.strip().splitlines() for block in re.split(r"\n\s*\n", text.strip()) if block.strip()]


def evidence(book, raw: str, span: str) -> str:
    """The book's text of sentences ``a`` to ``b`` (``a-b``, or one number), checked against the raw file."""
    first, _, last = span.partition("-")
    if not (first.isdigit() and (last or first).isdigit() and int(first) <= int(last or first) < len(book)):
        raise SystemExit(f"{book.path}: evidence {span!r} is not a sentence number or a run a-b of the book's")
    text = book.span_text(int(first), int(last or first))
    if text not in raw:
        raise SystemExit(f"{book.path}: sentences {span} are not in the file as the loader reads them")
    return text


def question(block: list[str]) -> dict:
    head = HEADER.match(block[0])
    fields = {line[:2]: line[3:].strip() for line in block[1:] if line[:2] in ("Q:", "A:")}
    if not head or head["book"] not in BOOKS or set(fields) != {"Q:", "A:"}:
        raise SystemExit(f"not a question (an id of one of the novels, then Q: and A: lines): {block[0]!r}")
    book, raw = opened(head["book"])
    spans = [line[3:].strip() for line in block[1:] if line.startswith("E:")]
    return {"id": head["id"], "book": str(Path("../../../shared/corpus") / f"{BOOKS[head['book']]}.txt"),
            "question": fields["Q:"], "options": None, "answer": fields["A:"],
            "evidence": [evidence(book, raw, span) for span in spans], "aspect": head["aspect"],
            "complexity": head["complexity"], "reworded": bool(head["reworded"])}


def main() -> None:
    rows = []
    for draft in sorted((HERE / "drafts").glob("*.txt")):
        if draft.stem not in BOOKS.values():
            raise SystemExit(f"{draft.name}: a draft is named after one of the novels ({', '.join(BOOKS.values())})")
        rows += [question(block) for block in blocks(draft.read_text(encoding="utf-8"))]
    SET.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"{len(rows)} questions written to {SET.relative_to(HERE.parents[1])}")


if __name__ == "__main__":
    main()
