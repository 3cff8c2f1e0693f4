"""What a search finds and answers with: terms, the sentences and passages they retrieve, the judge's verdict,
counted mentions, the answer with its citations, and M-RAG's markers and extraction windows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar


@dataclass
class Term:
    """A search term. ``origin``: question, breadth, depth, fallback (question words when the model gave none),
    names (another name of a character a term names), feedback (a word of the first pass's best sentences) or
    reader (added by the reader in an edited rerun)."""

    text: str
    origin: str
    words: list[str]
    new: bool = True
    in_book: bool = True
    by: str = "model"
    """model: the LLM wrote it; lexical: picked from the question's or the text's words; judge: proposed by the
    judge; names: from the name index; option: an option's own words; reader: typed by the reader."""
    of: str = ""
    """Whose: the character a ``names`` term is another name of, the letter of an ``option`` term's option."""

    @property
    def whence(self) -> str:
        """Where it came from, in a word: its ``origin``, but "model" for a term the model wrote for the question
        (a word of its imagined passage is no word of the question)."""
        return "model" if self.origin == "question" and self.by == "model" else self.origin


@dataclass(kw_only=True)
class Place:
    """Where something lies in the book: its sentence, character offsets, chapter and (for PDFs) page."""

    sentence_id: int
    start: int
    end: int
    chapter: int
    """Its chapter's place among the book's chapters, front matter counted (0: the first)."""
    chapter_title: str
    page: int | None
    chapter_ref: str = ""
    """Its chapter as the book numbers it, as citations write it ("ch. 10", "bk. 2, ch. 3")."""

    @classmethod
    def at(cls, sentence, **rest):
        """One at a book's ``sentence`` (a :class:`~elite_ui.book.model.Sentence`), with the kind's own fields."""
        return cls(sentence_id=sentence.id, start=sentence.start, end=sentence.end, chapter=sentence.chapter,
                   chapter_title=sentence.chapter_title, chapter_ref=sentence.chapter_ref, page=sentence.page,
                   **rest)


@dataclass(kw_only=True)
class Hit(Place):
    """A retrieved sentence: ``score`` is the number of distinct target words in it (the paper's overlap),
    ``weight`` what it was ranked by (the ``ranking`` formula, smoothed over its neighbours), ``supports`` the
    options whose words it holds (multiple choice)."""

    score: int
    matched: list[str]
    text: str
    rank: int = 0
    weight: float = 0.0
    supports: list[str] = field(default_factory=list)


@dataclass
class Sample:
    """One importance sample: noise level λ, cosine similarity of the two answers, and the perturbed answer."""

    noise: float
    similarity: float
    answer: str
    kl: float | None = None


@dataclass(kw_only=True)
class Chunk:
    """Hit sentences widened by their neighbours; overlapping widenings are merged into one chunk."""

    first: int
    last: int
    hits: list[int]
    score: int
    text: str
    iteration: int
    weight: float = 0.0
    """What it was placed by: a window's best sentence's rank (its hits' weights; with ``passage_weight``, that and
    its fixed chunk's score, each scaled to the question's best), a fixed chunk's BM25 score."""
    importance: float | None = None
    kl_importance: float | None = None
    base_answer: str = ""
    samples: list[Sample] = field(default_factory=list)
    seconds: float = 0.0
    pinned: bool = False
    """Pinned as evidence by the reader: ranked first and never trimmed."""
    fixed: bool = False
    """A fixed chunk ranked by BM25 (chunk fusion), not hits widened."""

    @property
    def key(self) -> tuple[int, int]:
        return (self.first, self.last)

    doing: ClassVar[str] = "weighing how much each passage matters"

    def said(self) -> str:
        return f"chunk S{self.first}-S{self.last} importance {self.importance:.2f}"


@dataclass
class Verdict:
    sufficient: bool
    reason: str
    parsed: bool

    doing: ClassVar[str] = "the model judged the evidence"

    def said(self) -> str:
        return f"judge says {'sufficient' if self.sufficient else 'not sufficient'}: {self.reason[:100]}"


@dataclass
class Citation:
    sentence_id: int
    label: str
    text: str
    automatic: bool = False


@dataclass(kw_only=True)
class Occurrence(Place):
    """One match of a counted phrase, as it is written in the book."""

    matched: str


@dataclass
class Count:
    phrase: str
    forms: list[str]
    total: int
    occurrences: list[Occurrence]
    phrase_source: str

    doing: ClassVar[str] = "mentions counted"

    def said(self) -> str:
        return f"counting \"{self.phrase}\" in the forms {', '.join(self.forms)}: {self.total}"


@dataclass
class Answer:
    """The model's answer with its citations; ``quotes``: the best evidence sentences, shown first as what the book
    says; ``caveat``: said when the search was judged insufficient."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    choice: str | None = None
    votes: dict[str, int] | None = None
    vote_shares: dict[str, float] | None = None
    count: Count | None = None
    evidence: list[int] = field(default_factory=list)
    quotes: list[Citation] = field(default_factory=list)
    caveat: str = ""
    checked: int = 0
    """Sentences of a written answer the grounding check read (0: not checked)."""
    left_out: int = 0
    """Of those, how many were left out under a spoiler ceiling: the sentences they cite do not support them (their
    words are not kept anywhere, since a model's memory of a later chapter is what the ceiling keeps out)."""
    unsupported: list[str] = field(default_factory=list)
    """Without a ceiling, the answer's sentences the sentences they cite do not support (shown marked)."""
    recited: int = 0
    """Sentences whose label the check moved to the evidence sentence that supports them."""
    pointed: int = 0
    """Sentences that only pointed at the sentences they cite ("The answer is [S12]."), given as those quoted."""
    unanswered: int = 0
    """Of the sentences left out or marked, those whose cited passage the model judged does not answer the question
    (the passage check)."""

    @property
    def heading(self) -> str:
        """What the answer is called after the quotes: a count is the book's, not the model's."""
        return "The count" if self.count else "The model's answer"

    @property
    def notes(self) -> list[str]:
        """What a reader is told under the answer, on every surface: the caveat and what the grounding check did."""
        return [note for note in (self.caveat, self.grounding_note) if note]

    @property
    def grounding_note(self) -> str:
        """What the grounding check did, in a sentence (empty when it found every sentence supported)."""
        some = len(self.unsupported) or self.left_out
        sentences = f"{some} sentence{'s' * (some != 1)} of the model's answer"
        moved = (f"{self.recited} citation{'s' * (self.recited != 1)} moved to the evidence sentence that says it. "
                 if self.recited else "")
        moved += (f"{self.pointed} sentence{'s' * (self.pointed != 1)} of the model's answer only pointed at what "
                  f"{'they' if self.pointed != 1 else 'it'} cite{'s' * (self.pointed == 1)}, quoted instead. "
                  if self.pointed else "")
        them, cite, passage = (("them", "they cite", "passages they cite answer") if some > 1 else
                               ("it", "it cites", "passage it cites answers"))
        why = f"the sentences {cite} do not support {them}"
        if self.unanswered:
            asked = f"the model did not find that the {passage} the question"
            why = asked if self.unanswered == some else f"{why}, or {asked}"
        if self.left_out:
            said = (f"{sentences} left out: {why}. A model may know a famous book beyond your ceiling; answers are "
                    "checked against the book up to it.")
        else:
            said = f"{sentences} marked: {why}." if some else ""
        return (moved + said).strip()

    doing: ClassVar[str] = "answer written"


@dataclass
class Marker:
    """One meta-marker. ``source``: model, or chunk (the fallback: an uncovered paragraph as key and value).
    ``cited_by``: model (its own paragraph numbers), or overlap (it gave none; the paragraph sharing most of its
    words was taken)."""

    key: str
    value: str
    paragraphs: list[int]
    source: str = "model"
    cited_by: str = "model"
    window: int = 0
    support: float = 1.0
    """Share of the value's content words found (in some inflected form) in the cited paragraphs."""
    name_support: float | None = None
    number_support: float | None = None
    missing: list[str] = field(default_factory=list)
    flagged: bool = False
    id: int = -1


@dataclass
class Window:
    """One extraction window and what it cost."""

    index: int
    first: int
    last: int
    markers: list[Marker]
    attempts: int
    coverage_first: float
    """Share of the window's paragraphs cited after the first call."""
    coverage: float
    """Share cited after the retries, before the fallback."""
    fallback: int
    """Paragraphs that became chunk markers."""
    dropped: int
    """Markers discarded: unreadable, copied from the prompt's example, repeated, or citing nothing they share."""
    prompt_tokens: int
    completion_tokens: int
    seconds: float
