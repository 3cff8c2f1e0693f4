"""Question sets in our JSONL format, and converters into it from L-Eval, FairytaleQA and NovelQA.

One question per line::

    {"id": "...", "book": "books/x.txt" (relative to the jsonl file), "question": "...",
     "options": {"A": "...", ...} or null, "answer": "B" (a letter when options are given) or "text" or ["a", "b"],
     "evidence": ["exact substring of the book", ...], "aspect": "...", "complexity": "sh" or "mh", "reworded": false,
     "up_to": "chapter 10" (optional), "key": [["five", "5"]] (optional), "beyond": false (optional)}
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import EliteError


@dataclass
class Question:
    id: str
    book: str
    question: str
    answer: str | list[str]
    options: dict[str, str] | None = None
    evidence: list[str] = field(default_factory=list)
    aspect: str = ""
    complexity: str = ""
    reworded: bool = False
    """Written away from its evidence's words (novels-300 marks it; see benchmarks/novels)."""
    up_to: str = ""
    """The spoiler ceiling it is asked under ("chapter 10", "S5210"; empty: the whole book)."""
    key: list[list[str]] | None = None
    """What a right free-form answer must say: each item one of its alternatives ([["five", "5"]])."""
    beyond: bool = False
    """Its answer lies after ``up_to``: the right answer says the book up to there does not say."""


def read(path: str | Path) -> list[Question]:
    """Questions of a JSONL file; ``book`` paths come back absolute."""
    path = Path(path)
    if not path.is_file():
        raise EliteError(f"{path}: no such question set.")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            question = Question(**{k: data.get(k) for k in Question.__dataclass_fields__ if k in data})
        except (ValueError, TypeError) as exc:
            raise EliteError(f"{path.name}, line {n}: not a question in our format ({exc}).") from None
        question.book = str((path.parent / question.book).resolve())
        question.evidence = question.evidence or []
        out.append(question)
    return out


def sample(questions: list[Question], seed: int | None = None, skip: int = 0, limit: int = 0) -> list[Question]:
    """``questions`` in a seeded random order (``seed`` None: as written), the first ``skip`` left out, at most
    ``limit`` of the rest (0: all)."""
    if seed is not None:
        questions = list(questions)
        random.Random(seed).shuffle(questions)
    return questions[skip : skip + limit] if limit else questions[skip:]


def write(path: str | Path, questions: list[Question]) -> Path:
    """Write ``questions``; absolute book paths are stored relative to the file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for q in questions:
            row = asdict(q)
            book = Path(q.book)
            if book.is_absolute():
                row["book"] = str(book.relative_to(path.parent.resolve()))
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def save_book(out: Path, name: str, text: str) -> str:
    """Write a book's text under out/books/ once; the file name is a readable stem plus a content hash."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "book"
    path = out / "books" / f"{stem}-{digest}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return str(path.resolve())


OPTION = re.compile(r"^\s*\(([A-D])\)\s*(.*?)\s*$")


def split_options(text: str) -> tuple[str, dict[str, str]]:
    """An L-Eval quality question: the question, then one "(A) ..." option per line."""
    question, options = [], {}
    for line in text.splitlines():
        found = OPTION.match(line)
        if found:
            options[found.group(1)] = found.group(2)
        elif line.strip() and not options:
            question.append(line.strip())
    return " ".join(question), options


def from_leval(source: Path, out: Path) -> list[Question]:
    """L-Eval JSONL (one document per line; ``instructions`` and ``outputs`` aligned). Multiple choice when the
    questions carry "(A) ..." options (quality), free-form otherwise (scientific_qa)."""
    questions = []
    for d, line in enumerate(source.read_text(encoding="utf-8").splitlines()):
        doc = json.loads(line)
        book = save_book(out, f"{source.stem}-{d}", doc["input"])
        for n, (instruction, gold) in enumerate(zip(doc["instructions"], doc["outputs"], strict=False)):
            text, options = split_options(instruction)
            if options:
                letter = re.match(r"\s*\(([A-D])\)", gold)
                answer: str | list[str] = letter.group(1) if letter else gold.strip()
            else:
                text, options, answer = " ".join(instruction.split()), None, gold.strip()
            questions.append(Question(f"{source.stem}-{d}-{n}", book, text, answer, options or None,
                                      aspect=source.stem))
    return questions


def from_fairytaleqa(root: Path, out: Path) -> list[Question]:
    """FairytaleQA: section-stories/<split>/<story>-story.csv and questions/<split>/<story>-questions.csv.
    The evidence of a question is the text of its ``cor_section`` sections."""
    questions = []
    for story_file in sorted(root.glob("section-stories/*/*-story.csv")):
        story = story_file.name[: -len("-story.csv")]
        with story_file.open(encoding="utf-8") as f:
            sections = {row["section"].strip(): row["text"].strip() for row in csv.DictReader(f)}
        book = save_book(out, story, "\n\n".join(sections.values()))
        question_file = root / "questions" / story_file.parent.name / f"{story}-questions.csv"
        if not question_file.exists():
            continue
        with question_file.open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                answers = [row[k].strip() for k in ("answer1", "answer2", "answer3", "answer4", "answer5", "answer6")
                           if row.get(k) and row[k].strip()]
                cited = [s.strip() for s in row["cor_section"].split(",") if s.strip()]
                questions.append(Question(
                    f"{story}-{row['question_id']}", book, row["question"].strip(), answers, None,
                    [sections[s] for s in cited if s in sections], row.get("attribute1", "").strip(),
                    "mh" if len(cited) > 1 else "sh"))
    return questions


def from_novelqa(source: Path, book_file: Path, out: Path) -> list[Question]:
    """NovelQA's JSON for one book (QID, Question, Options, Answer, Aspect, Complexity, Evidences)."""
    book = save_book(out, book_file.stem, book_file.read_text(encoding="utf-8-sig"))
    data = json.loads(source.read_text(encoding="utf-8"))
    rows = data if isinstance(data, list) else list(data.values())
    questions = []
    for row in rows:
        options = row.get("Options") or None
        if isinstance(options, list):
            options = dict(zip("ABCD", options, strict=False))
        questions.append(Question(str(row["QID"]), book, row["Question"], row.get("Answer", ""), options,
                                  list(row.get("Evidences") or []), row.get("Aspect", ""), row.get("Complexity", "")))
    return questions


CONVERTERS = {"leval": from_leval, "fairytaleqa": from_fairytaleqa, "novelqa": from_novelqa}
