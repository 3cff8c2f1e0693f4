"""Build the answers benchmark's sets from novels-300 and its keys: ``python -m benchmarks.answer_sets.build``.

- ``novels-keyed.jsonl``: every question of novels-300 with its key (``novels-300-keys.txt``), asked of the whole
  book.
- ``novels-ceilings.jsonl``: each single-hop question twice, under a spoiler ceiling: ``<id>-in`` at the end of the
  chapter its evidence ends in (the answer has been read), and ``<id>-out`` at the end of the chapter before the one
  its evidence starts in (the answer lies beyond: the right answer says the book up to there does not say; left
  out when that chapter is the story's first). The ceilings are sentences ("S1234"), as a reading app's position
  is. Said plainly: a fact the book also tells before its evidence's chapter makes an ``-out`` question answerable;
  none was checked for that.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.novels import opened
from benchmarks.novels.build import HEADER, blocks

HERE = Path(__file__).resolve().parent
NOVELS = HERE.parent / "novels"


def keys() -> dict[str, list[list[str]]]:
    """Each question's key: its items, each a list of alternatives."""
    out = {}
    for line in (HERE / "novels-300-keys.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            qid, _, rest = line.strip().partition(" ")
            out[qid] = [[a.strip() for a in item.split("|") if a.strip()] for item in rest.split(";")]
    return out


def evidence_sentences() -> dict[str, list[int]]:
    """Each question's evidence as sentence numbers of its book, from the drafts."""
    out = {}
    for draft in sorted((NOVELS / "drafts").glob("*.txt")):
        for block in blocks(draft.read_text(encoding="utf-8")):
            spans = [line[3:].strip() for line in block[1:] if line.startswith("E:")]
            ids = []
            for span in spans:
                first, _, last = span.partition("-")
                ids += range(int(first), int(last or first) + 1)
            out[HEADER.match(block[0])["id"]] = ids
    return out


def chapter_end(book, chapter: int) -> int:
    return book.chapters[chapter + 1].first_sentence - 1 if chapter + 1 < len(book.chapters) else len(book) - 1


def main() -> None:
    rows = [json.loads(line) for line in (NOVELS / "novels-300.jsonl").read_text(encoding="utf-8").splitlines()]
    keyed, where = keys(), evidence_sentences()
    rows = [{**row, "key": keyed[row["id"]]} for row in rows]
    ceilings = []
    for row in rows:
        if row["complexity"] != "sh":
            continue
        book, _ = opened(row["id"][:2])
        first, last = min(where[row["id"]]), max(where[row["id"]])
        inside = chapter_end(book, int(book.chapter_of[last]))
        ceilings.append({**row, "id": f"{row['id']}-in", "up_to": f"S{inside}", "beyond": False})
        before = int(book.chapter_of[first]) - 1
        if before >= 0 and book.chapters[before].first_sentence >= book.first_read:
            ceilings.append({**row, "id": f"{row['id']}-out", "up_to": f"S{chapter_end(book, before)}",
                             "beyond": True})
    for name, written in (("novels-keyed.jsonl", rows), ("novels-ceilings.jsonl", ceilings)):
        (HERE / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in written), encoding="utf-8")
        print(f"{len(written)} questions written to {name}")


if __name__ == "__main__":
    main()
