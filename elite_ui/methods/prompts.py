"""Prompt texts of every stage. Short, one task each. The judge, the trim and the answer see the same question and
passages first and differ only in their last lines, so each call after the first reuses the model's KV cache."""

from __future__ import annotations

import json

from ..book import Book
from ..book.lexicon import content_words, forms
from ..book.scope import asks_what_happens

SYSTEM = "You are a careful reading assistant. You answer questions about a novel using only passages from it."


def labelled(book: Book, sid: int, before: str = "") -> str:
    """A sentence as the model reads it: its label, then its text on one line (``before`` it, a note such as its
    chunk's importance)."""
    return f"[S{sid}] {before}{' '.join(book.sentence(sid).text.split())}"


ABOUT_WORDS = 60
"""The most words of the passage a question is about that the question, as the model reads it, quotes."""


def about_text(book: Book, sids: list[int]) -> str:
    """The passage a question is about as its mention quotes it: its first :data:`ABOUT_WORDS` words."""
    words = " ".join(book.sentence(sid).text for sid in sids).split()
    return " ".join(words[:ABOUT_WORDS]) + (" …" if len(words) > ABOUT_WORDS else "")


def about(question: str, book: Book, sids: list[int]) -> str:
    """The question as the model reads it when the reader asks it about a passage (a highlight, the Reader's
    selection): the passage named by its labels and quoted (:func:`about_text`), so that "this" and "the following
    text" point somewhere; the question alone when it is about none."""
    if not sids:
        return question
    span = f"S{sids[0]}" + (f" to S{sids[-1]}" if len(sids) > 1 else "")
    return f'{question} (The question is about the passage [{span}]: "{about_text(book, sids)}")'


def messages(user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def options_block(options: dict[str, str] | None) -> str:
    if not options:
        return ""
    return "\nOptions:\n" + "\n".join(f"({k}) {v}" for k, v in options.items())


def count_phrase(question: str) -> list[dict[str, str]]:
    return messages(
        f"Question: {question}\n\nWhich single word or short phrase must be counted in the book to answer this? "
        "Reply with only that word or phrase."
    )


TERMS = ("Write up to {limit} search terms for finding the passages that answer this question: names, places, "
         "objects and key words from the question, and words the answering passage is likely to contain. "
         "One term per line, nothing else.")
TERMS_EXAMPLE = ("Write up to {limit} search terms for finding the passage of the novel that answers this "
                 "question: the names it asks about, then words that passage itself would use (the answer's likely "
                 "actions, objects, places, feelings, and synonyms of the question's words). One term per line, "
                 "nothing else.\n\nFor example, for \"How did Tom get the fence painted?\":\nTom\nfence\n"
                 "whitewash\nbrush\nboys\ntrade")
IMAGINED = ("Write two sentences, as the novel itself would word them, of the passage that answers this question. "
            "Nothing else.")
"""The ``imagined_passage`` setting's prompt: the model's imagining of the answering passage, whose words are
searched (query2doc: Wang, Yang & Wei, "Query2doc: Query Expansion with Large Language Models", EMNLP 2023)."""
BREADTH = ("The answer is still missing. Write up to {limit} new search terms, different from those already "
           "searched: related names, places, events or words that could lead to the answer. One per line.")
DEPTH = ("Copy from these passages up to {limit} names, places, objects or events worth searching for next to "
         "answer the question. One per line, nothing else.")


JUDGE_TERMS = "If not, write up to {limit} new search terms for what is missing, one per line."


def instructions(task: str, question: str, options: dict[str, str] | None = None) -> frozenset[str]:
    """The content words of a prompt's ``task``, in any of their forms ("place" for "places"), that the question and
    its options do not use in any: a small model copies them back as terms ("names", "places", "key words from the
    question"), and they find nothing it asked for."""
    asked = {f for w in content_words(" ".join([question, *(options or {}).values()])) for f in forms(w)}
    return frozenset(f for w in content_words(task.format(limit="")) for f in forms(w) if f not in asked)


def terms_task(example: bool) -> str:
    """What the terms prompt asks: with ``example``, the words of the passage that answers, shown one worked
    example (the ``terms_example`` setting)."""
    return TERMS_EXAMPLE if example else TERMS


def terms(question: str, options: dict[str, str] | None, limit: int, example: bool = False) -> list[dict[str, str]]:
    return messages(f"Question: {question}{options_block(options)}\n\n" + terms_task(example).format(limit=limit))


def imagined(question: str) -> list[dict[str, str]]:
    return messages(f"Question: {question}\n\n{IMAGINED}")


def passage_answer(question: str, options: dict[str, str] | None, passage: str) -> list[dict[str, str]]:
    tail = "Reply with the letter of the best option." if options else "Answer in one short sentence."
    return messages(f"Question: {question}{options_block(options)}\n\nPassage:\n{passage}\n\n{tail}")


def passages(question: str, options: dict[str, str] | None, evidence: str) -> str:
    """What the judge, the trim and the answer read first: the question and the passages found."""
    return f"Question: {question}{options_block(options)}\n\nPassages from the book:\n{evidence}\n\n"


def judge(question: str, options: dict[str, str] | None, evidence: str, next_terms: int = 0) -> list[dict[str, str]]:
    """Does the evidence suffice? With ``next_terms``, the reply also proposes what to search for next."""
    more = " " + JUDGE_TERMS.format(limit=next_terms) if next_terms else ""
    return messages(passages(question, options, evidence)
                    + "Is this evidence enough to answer the question? Reply yes or no, then give the reason in one "
                      f"line.{more}")


def breadth(question: str, tried: list[str], found: str, limit: int) -> list[dict[str, str]]:
    return messages(f"Question: {question}\n\nAlready searched for: {', '.join(tried)}\nWhat that found:\n{found}"
                    "\n\n" + BREADTH.format(limit=limit))


def depth(question: str, passages: str, limit: int) -> list[dict[str, str]]:
    return messages(f"Question: {question}\n\nPassages:\n{passages}\n\n" + DEPTH.format(limit=limit))


def trim(question: str, options: dict[str, str] | None, evidence: str) -> list[dict[str, str]]:
    return messages(passages(question, options, evidence)
                    + "Which sentences help answer the question? Reply with their labels only, for example: S12, S40.")


NOT_SAID = "The passages do not say."
"""What the answer prompt asks a model to reply when the passages hold no answer."""


def answer_tail(options: dict[str, str] | None, how=None) -> str:
    """What to reply, as ``how`` (an :class:`~elite_ui.methods.base.AnswerSettings`; None: its defaults) asks: the
    option's letter (``quote_first``: after the sentence that decides, copied), or a short answer with the label of
    the sentence that says it, in the model's own words or (``quoted``) the passage's, or (``quote_first``) after
    that sentence copied (``abstain``: or :data:`NOT_SAID` when the passages hold none)."""
    if options:
        return QUOTE_FIRST if getattr(how, "quote_first", False) else "Reply with the letter of the correct option."
    said = (QUOTE_FIRST_WRITTEN if getattr(how, "quote_first", False) else
            "Reply in this form, with the words of the passage that answer the question, copied from it: <those "
            "words> [S<number of their sentence>]." if getattr(how, "quoted", False) else
            "Reply in this form, in one short sentence of your own words: <the answer> [S<number of the sentence "
            "that says it>].")
    return said + (f" If the passages do not say, reply: {NOT_SAID}" if getattr(how, "abstain", False) else "")


QUOTE_FIRST = ("First copy, with its label, the sentence of the passages that decides between the options; then, on "
               "a line of its own, write: Answer: <the letter of the correct option>.")
"""The multiple-choice answer's task with ``quote_first``: the deciding sentence before the letter."""
QUOTE_FIRST_WRITTEN = ("First copy, with its label, the sentence of the passages that answers the question; then, on a "
                       "line of its own, write: Answer: <the answer, in one short sentence of your own words>.")
"""The free-form answer's task with ``quote_first``: the sentence that answers before the answer."""


def answer(question: str, options: dict[str, str] | None, evidence: str, how=None,
           ahead: bool = True, book=None) -> list[dict[str, str]]:
    """The question and the passages first (the judge's and the trim's prefix too), then the question again beside
    what to do: a small model answers the question it read last. Not ``ahead``: the options only after the passages
    (votes that order them differently share the rest from the model's cache). A question that asks only what
    happens in a part of the book (``part_recaps``; one named by its title, given the ``book``) is answered as the
    Story tab's recap of the passages is written (:func:`recap`)."""
    if not options and getattr(how, "part_recaps", False) and asks_what_happens(question, book):
        return recap(evidence)
    return messages(passages(question, options if ahead else None, evidence)
                    + f"Question: {question}{options_block(options)}\n" + answer_tail(options, how))


def reading(question: str, options: dict[str, str] | None, book: str, how=None) -> list[dict[str, str]]:
    """The whole book first, then the question: questions on the same book share the book's prefix, so the model
    reads it once and reuses it from its KV cache."""
    return messages(f"The book:\n{book}\n\nQuestion: {question}{options_block(options)}\n\n"
                    + answer_tail(options, how))


MARKER_SYSTEM = "You build a search index of a novel."
MARKER_TASK = (
    'Turn the paragraphs into meta-markers for a search index: a JSON list of objects with "key" (a detailed '
    'question about one narrow piece of content), "value" (a self-contained passage of 200-300 words keeping every '
    'detail of that content: names, places, numbers, events) and "paragraphs" (the numbers of the paragraphs it '
    "comes from). Cover every paragraph. Reply with the JSON list only."
)
MARKER_EXAMPLE_TEXT = (
    "[1] Mr. Hale left the church at Helstone after forty years, and the family moved north to Milton, a town of "
    "cotton mills.\n\n[2] In Milton, Margaret met Mr. Thornton, the mill owner, who had started work at thirteen "
    "to pay his father's debts."
)
MARKER_EXAMPLE = [
    {"key": "Why did the Hale family move to Milton?",
     "value": "Mr. Hale left his church at Helstone after forty years, so the family moved north to Milton, a town "
              "of cotton mills.", "paragraphs": [1]},
    {"key": "Who is Mr. Thornton and how did he begin working?",
     "value": "Mr. Thornton is a mill owner in Milton whom Margaret meets. He started work at thirteen to pay his "
              "father's debts.", "paragraphs": [2]},
]
"""The few-shot example (invented, so copies of it are easy to spot and drop)."""


def markers(listing: str, few_shot: bool) -> list[dict[str, str]]:
    """M-RAG extraction: numbered paragraphs in, a JSON list of key/value/paragraphs markers out."""
    example = (f"\n\nExample paragraphs:\n{MARKER_EXAMPLE_TEXT}\n\nExample markers:\n"
               f"{json.dumps(MARKER_EXAMPLE, indent=1)}" if few_shot else "")
    return [{"role": "system", "content": MARKER_SYSTEM},
            {"role": "user", "content": f"{MARKER_TASK}{example}\n\nParagraphs:\n{listing}\n\nMarkers:"}]


def answers_it(passage: str, question: str) -> list[dict[str, str]]:
    """Whether a passage an answer cites answers the question (:func:`.grounding.passage_odds`): the question alone,
    not the answer, and no system prompt (as it was measured)."""
    return [{"role": "user", "content": f"Passage: {passage}\n\nQuestion: {question}\n\n"
                                        "Does the passage answer the question? Answer yes or no."}]


def supported(passage: str, statement: str) -> list[dict[str, str]]:
    return messages(
        f"Passage:\n{passage}\n\nStatement: {statement}\n\nIs every fact in the statement stated in the passage? "
        "Reply yes or no, then give the reason in one line."
    )


ASK = ("Say what happens in them in at most four short sentences of your own words, in the order it happens, one a "
       "line; do not copy the sentences. End each of yours with the labels of the sentences it comes from, in square "
       "brackets.")
EXAMPLE_CHAPTER = (
    "[S1] Mr. Hale came home early, pale and silent.\n[S2] \"I have left the Church,\" he told his wife at dinner.\n"
    "[S3] Mrs. Hale wept; Margaret took her hand.\n[S4] Within a month the family had packed their books and set out "
    "for Milton, a town of mills in the north.")
EXAMPLE_RECAP = ("Mr. Hale tells his wife that he has left the Church [S1, S2].\nMrs. Hale is distraught and Margaret "
                 "comforts her [S3].\nThe family moves north to the mill town of Milton [S4].")
"""A worked example, invented (its labels are no chapter's, so a copy of it is dropped): the 1.5B model, only told
how to cite, copied the instruction's own example sentence and no recap sentence of its own was kept."""


def chapter_ask(listing: str) -> str:
    return f"Sentences of a chapter of a novel, each after its label:\n{listing}\n\n{ASK}"


def recap(listing: str) -> list[dict[str, str]]:
    """Sentences of the book to recap (a chapter's, for the Story tab; the evidence, for a question that asks only
    what happens in a part of the book, ``part_recaps``), after the worked example."""
    return [*messages(chapter_ask(EXAMPLE_CHAPTER)), {"role": "assistant", "content": EXAMPLE_RECAP},
            {"role": "user", "content": chapter_ask(listing)}]
