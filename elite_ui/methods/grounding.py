"""The grounding check: each sentence of a written answer must rest on the book's sentences it cites, or it is left
out. A model may know a famous novel, and say from memory what the book up to the reader's ceiling does not say
(who Elizabeth marries, under a ceiling at chapter 10); the check keeps only what the evidence supports.

A sentence is supported when every name and number (in digits or in words: "5" is "five") in it is written in the
sentences it cites (its [S123] labels) or in the question, a name of the question it repeats is written in or near the
sentences it cites (:data:`AROUND`: so that the claim is about whom the question asks, not a swap), and at least
:data:`COVERED` of its content words that the question does not say in any form (its claim) are in the sentences it
cites, in any of their forms (walked: walks, walking): the question's own words support nothing, and a sentence that
only repeats the question, not a yes or no, is no answer. A sentence whose names and numbers are there but whose claim
falls short by no more than :data:`SECOND_OPINION` gets a second opinion from the shipped MiniLM embedding: supported if
it is close (:data:`CLOSE`) to one of the sentences it cites. The thresholds are measured by ``benchmarks/grounding.py``
on the novels-dev questions (a correct option stated as an answer against its gold evidence is kept, the wrong options
are left out), the claim rule on a real model's own answers (docs/benchmark.md, "Answers with a real model"). With the
setting ``on_topic`` (off by default: it trades right answers for "does not say"), a sentence none of whose cited
sentences is near the question is left out too (:func:`off_topic`).

A sentence that cites none must rest on one evidence sentence, not on words gathered from all of it ("Anna waited
for her husband by reading a telegram", each word somewhere in the passages): it is checked against each of the
:data:`RECITED` evidence sentences sharing most of its words, and cites the one that supports it alone.

A model often labels the right claim with a sentence a few lines off ("The Bennets have five daughters [S128]",
S128 saying nothing of five): a sentence its labels do not support is checked, by the same rules, against each
of the :data:`RECITED` evidence sentences sharing most of its words, and where one supports it alone, its label is
moved there (and the trace says so) rather than the claim left out.

A sentence that only points at the sentences it cites ("The answer is [S2753].", or the question restated over a
label: :func:`pointing`) says nothing to check; it is given as those sentences, quoted (and the answer's note says
so), and checked like any other; one that opens by framing its claim ("The answer is Jane [S289].") is checked on
the claim alone (:data:`FRAMED`). A sentence that says again, word for word, what the answer has already given (the
model often copies out the sentence it pointed at) is given once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..book import Book
from ..book.lexicon import CAPITALISED_WORD, NUMBER
from ..book.lexicon import words as words_of
from ..book.names import TITLES, NameIndex, story_text
from ..book.structure import NUMBER_WORDS
from ..models import Embed
from .parsing import parse_sentence_ids, quotation, sentence_pieces

COVERED = 0.5
"""The share of a sentence's content words its evidence (or the question) must hold."""
SECOND_OPINION = 0.3
"""How far below :data:`COVERED` a sentence may fall and still be judged by the embedding."""
AROUND = 5
"""Sentences either side of a cited one where the question's names may be written (a pronoun names them, a
speaker is named a few lines before their words)."""
CLOSE = 0.55
"""The cosine similarity to a cited sentence at which the embedding calls a sentence supported."""
OFF_TOPIC = "(no sentence it cites is about the question)"
"""What a sentence lacks when none of the sentences it cites is near the question (:func:`off_topic`)."""
RECITED = 3
"""Evidence sentences a sentence whose labels do not support it is checked against, most words shared first."""
ONE_SENTENCE = "(no one sentence of the evidence says it)"
"""What a sentence that cites none lacks when no single evidence sentence supports it."""
NOTHING_NEW = "(nothing the question did not say)"
"""What a sentence that only repeats the question lacks."""
YES_NO = re.compile(r"\W*(?:yes|no)\b", re.IGNORECASE)
"""A reply of yes or no: it may repeat the question and still answer it."""
LABELS = re.compile(r"\s*\[\s*S\s?\d{1,7}(?:\s*[,;]\s*S?\s?\d{1,7})*\s*\]")
"""A citation label as a model writes it: [S12], [S12, S14]."""
NAMED = re.compile(rf"(?<!^)(?<![.!?:;\"“‘]\s)\b{CAPITALISED_WORD}\b")
"""A capitalised word that opens no sentence: a name (or a title) the evidence must write too."""
CAPITALISED = re.compile(r"\b(?:(" + "|".join(TITLES) + rf")\.?[ \t]+)?({CAPITALISED_WORD})"
                         rf"(?:[ \t]+({CAPITALISED_WORD}))?\b")
"""A capitalised word, perhaps after a title and before a second one ("Mrs. Gardiner", "Fairfax Rochester"), where
it may be a name (a model's list of terms puts one first on each line)."""


@dataclass
class Grounding:
    """What the check found in one answer: its sentences, and the ones left out with the words their evidence
    lacked (the words are kept for the benchmark; the page says only how many were left out, since a model's
    memory of a later chapter is what a spoiler ceiling keeps out)."""

    sentences: int = 0
    left_out: list[str] = field(default_factory=list)
    missing: list[list[str]] = field(default_factory=list)
    recited: int = 0
    """Sentences whose label was moved to (or, citing none, given) the evidence sentence that supports them."""
    pointed: int = 0
    """Sentences that only pointed at the sentences they cite, given as those sentences quoted (:func:`pointing`)."""
    text: str = ""
    """The whole answer, labels moved where they were."""


UNANSWERED = "(the passage it cites does not answer the question, the model judged)"
"""What a sentence lacks when the model, asked, does not find that the passage it cites answers the question."""
YES, NO = ("yes", "Yes"), ("no", "No")
"""The first tokens of a reply of yes, and of no."""


def cited_passage(book: Book, sentence: str) -> str:
    """The sentences ``sentence`` cites, with one either side, as one passage."""
    ids = sorted({n for sid in parse_sentence_ids(sentence) if sid < len(book) for n in book.around(sid, 1)})
    return " ".join(" ".join(book.sentence(sid).text.split()) for sid in ids)


def passage_odds(logprobs: dict[str, float] | None) -> float | None:
    """The log-odds of yes over no in a model's next-token log-probabilities (None if it cannot say)."""
    if not logprobs:
        return None
    return float(np.logaddexp.reduce([logprobs[w] for w in YES]) - np.logaddexp.reduce([logprobs[w] for w in NO]))


def leave_out(found: Grounding, sentence: str, missing: list[str]) -> None:
    """Count ``sentence`` of a checked answer as left out, lacking ``missing``."""
    found.left_out.append(sentence)
    found.missing.append(missing)


UNREAD = "…"
"""What stands for a name the book up to the reader's ceiling does not write, in what the model wrote."""


def unread(book: Book, text: str) -> str:
    """``text`` (what a model wrote: its search terms, its judgement, its reply as the trace keeps it) with each
    name the book as read so far never writes (or never writes so: "Mrs. Gardiner" where only "my brother
    Gardiner" came yet, "Fairfax Rochester" where only Mrs. Fairfax and Mr. Rochester did), its title with it,
    replaced by :data:`UNREAD`, when the book is cut at a spoiler ceiling: a model that knows a famous novel may
    name who comes later."""
    if not book.guarded:
        return text
    known, read = book.index.vocabulary, []

    def shown(m: re.Match) -> str:
        title, *names = m.groups()
        names = [n for n in names if n]
        if not title and len(names) > 1 and names[0].lower() in book.lexicon.stopwords:  # "Then Darcy", "The Arve"
            return m.group(0)[: m.start(3) - m.start(0)] + CAPITALISED.sub(shown, m.group(3))
        spellings = [book.spelled(n) for n in names]  # "Eponine" is the "Éponine" the book writes
        written = all(any(w in known for w in spelled) for spelled in spellings)
        if written and (title or len(names) > 1):  # the phrase as a whole, in the text read (taken once)
            if not read:
                read.append(story_text(book))
            words = [f"(?i:{'|'.join(map(re.escape, spelled))})" for spelled in spellings]
            phrase = r"\s+".join([*([rf"{title}\.?"] if title else []), *words])
            written = bool(re.search(rf"\b{phrase}\b", read[0]))
        return m.group(0) if written else UNREAD  # the title too: "Mr. …" would tell that someone comes

    return CAPITALISED.sub(shown, text)


def writes(book: Book, held: set[str], name: str, names: NameIndex | None, inflected: bool = False) -> bool:
    """Whether the words ``held`` write ``name`` (``inflected``: in one of its forms), a family's plural as its
    singular (:meth:`Book.family`: "the Bennets", "Mrs. Bennet"), or another name of the same character
    (``names``): a word of it no other character shares ("Lizzy" for "Elizabeth"), or the whole of a name of several
    words ("Miss Bennet" for "Jane"), not a family's surname alone ("Bennet" is not "Elizabeth")."""
    forms = book.forms if inflected else book.spelled
    for written in (name, *book.family(name)):
        character = names.find(written) if names else None
        if held & set(forms(written)) or (character and (
                held & set(names.search_words(character))
                or any(len(ws) > 1 and set(ws) <= held for ws in map(words_of, character.variants)))):
            return True
    return False


def answer_sentences(text: str) -> list[str]:
    """``text`` cut into sentences, each keeping the citation labels written after its full stop ("[S3, S5]" too)."""
    out: list[str] = []
    for piece in sentence_pieces(text):
        if out and re.fullmatch(rf"(?:{LABELS.pattern}[\s,;.]*)+", piece):
            out[-1] += piece
        elif piece.strip():
            out.append(piece)
    return [s.strip() for s in out]


def support(book: Book, sentence: str, pool: str, pool_sentences: list[str], embed: Embed | None,
            names: NameIndex | None = None, asked: str | None = None) -> list[str]:
    """The words of ``sentence`` its evidence ``pool`` (the cited sentences and the question) does not hold, or
    [] when it is supported. A name (a capitalised word inside the sentence, or opening it when ``names`` knows
    it) is held when the pool writes it (a family's plural, "the Bennets", as its singular: :meth:`Book.family`), or
    another name of the same character (``names``: "Miss Fairfax" holds "Jane"); a number must be written, in
    digits or in words (:func:`as_number`; a count worked out from several sentences is the counting path's, which
    cites every occurrence). With the
    question ``asked``, the words it weighs are those the question does not say, held by the cited sentences
    alone: the claim, not the question repeated (a sentence that only repeats the question, not a yes or no,
    supports nothing: :data:`NOTHING_NEW`)."""
    plain = FRAMED.sub(" ", LABELS.sub(" ", sentence))
    held = set(book.lexicon.words(pool))

    opening = re.match(rf"\W*({CAPITALISED_WORD})\b", plain)
    first = [opening.group(1)] if opening and names and names.find(opening.group(1)) else []
    absent = [w for w in first + NAMED.findall(plain) if not writes(book, held, w, names)]
    written = {as_number(w) for w in held}
    absent += [n for n in NUMBER.findall(plain) if as_number(n) not in written]
    if absent:
        return absent
    said = {w.lower() for w in first + NAMED.findall(plain)} | {t.lower() for t in TITLES}  # names, held above
    words = [w for w in book.lexicon.content_words(plain) if not w.isdigit() and w not in said]
    if asked is not None:
        repeated = word_forms(book, asked)
        claim = [w for w in words if w not in repeated]
        if not claim:  # a name or a number the question does not say is the claim (held above); else a yes or no
            question = set(book.lexicon.words(asked))
            if any(w.lower() not in question for w in first + NAMED.findall(plain) + NUMBER.findall(plain)):
                return []
            if not YES_NO.match(plain):
                return [NOTHING_NEW]
        words, held = claim or words, set(book.lexicon.words(" ".join(pool_sentences)))
    lacking = [w for w in words if not held & set(book.forms(w))]
    if not words or len(lacking) <= (1 - COVERED) * len(words):
        return []
    close_enough = len(lacking) <= (1 - COVERED + SECOND_OPINION) * len(words)
    if close_enough and embed is not None and pool_sentences and nearest(embed, plain, pool_sentences) >= CLOSE:
        return []
    return lacking


def as_number(word: str) -> str:
    """A number in digits or in words (to ninety-nine) as its digits, any other word as it is, lower-cased: an
    answer's "5" is the book's "five"."""
    value = int(word) if word.isdigit() else NUMBER_WORDS.get(word.lower())
    return word.lower() if value is None else str(value)


def capitalised(book: Book, text: str) -> list[str]:
    """The capitalised words of ``text`` that may be names (not a title, "Mr", nor a stopword, "The"), in order."""
    return list(dict.fromkeys(w for w in re.findall(rf"\b{CAPITALISED_WORD}\b", text)
                              if w not in TITLES and w.lower() not in book.lexicon.stopwords))


def asked_names(book: Book, question: str) -> list[str]:
    """Whom (or what place) ``question`` asks about: its :func:`capitalised` words after its first (which every
    question capitalises)."""
    return capitalised(book, question.split(maxsplit=1)[-1])


def unconnected(book: Book, sentence: str, question: str, cited: list[int], names: NameIndex | None) -> list[str]:
    """The names of the question that ``sentence`` is not about: those it repeats that its cited sentences, the
    :data:`AROUND` sentences either side of them and their chapters' titles (Dubliners's "EVELINE") never write
    (nor another name of the same character), or, when those sentences write none of the question's names at all,
    all of them. The answer's claim is then about someone the question does not ask about ("Elizabeth marries
    Bingley [S137]", "Bingley [S137]" for "Who does Elizabeth marry?", S137 being the line 'Bingley.')."""
    asked = asked_names(book, question)
    if not asked or not cited:
        return []
    near = {sid for c in cited for sid in book.around(c, AROUND)}
    titles = dict.fromkeys(book.sentence(c).chapter_title for c in cited)
    held = set(book.lexicon.words(" ".join([*(book.sentence(sid).text for sid in sorted(near)), *titles])))

    def written(word: str) -> bool:
        return writes(book, held, word, names, inflected=True)

    missing = [w for w in capitalised(book, sentence) if w in asked and not written(w)]
    return missing or ([] if any(map(written, asked)) else asked)


def off_topic(question: str, texts: list[str], embed: Embed | None, topic: float) -> list[str]:
    """[:data:`OFF_TOPIC`] when none of ``texts`` (the sentences an answer sentence cites) reaches the cosine
    similarity ``topic`` to the question (by the shipped MiniLM embedding): the answer is then read into a passage
    about something else ("Mary was sewing a handkerchief for Fred Vincy [S2568]", S2568 being "This was what Fred
    Vincy felt."); [] when one does, with no embedding, or with ``topic`` 0 (the default: docs/benchmark.md,
    "Answers with a real model", measures the trade)."""
    if not (topic and embed is not None and texts):
        return []
    return [] if nearest(embed, question, texts) >= topic else [OFF_TOPIC]


def nearest(embed: Embed, text: str, others: list[str]) -> float:
    """The highest cosine similarity, by ``embed``, of ``text`` to one of ``others`` (at least one)."""
    vectors = np.asarray(embed([text, *others]), dtype=float)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
    return float((vectors[1:] @ vectors[0]).max())


def lacking(book: Book, sentence: str, question: str, cited: list[int], embed: Embed | None,
            names: NameIndex | None, claim: bool = True, topic: float = 0.0) -> list[str]:
    """What ``sentence`` says that the sentences ``cited`` (and the question) do not: [] when they support it.
    ``claim``: its words beyond the question's must be in the cited sentences (:func:`support`); ``topic``: one
    of them must be near the question (:func:`off_topic`)."""
    texts = [book.sentence(sid).text for sid in cited]
    return (unconnected(book, sentence, question, cited, names)
            or off_topic(question, texts, embed, topic)
            or support(book, sentence, " ".join([question, *texts]), texts, embed, names,
                       question if claim else None))


def recited(book: Book, sentence: str, question: str, evidence: list[int], labelled: list[int],
            embed: Embed | None, names: NameIndex | None, tried: int = RECITED, claim: bool = True,
            topic: float = 0.0) -> int | None:
    """The evidence sentence, other than those ``labelled``, that supports ``sentence`` alone: the first of the
    ``tried`` sharing most of its content words; None when none does."""
    shared = sharing(book, LABELS.sub(" ", sentence), [sid for sid in evidence if sid not in labelled])
    return next((sid for overlap, sid in shared[:tried]
                 if overlap and not lacking(book, sentence, question, [sid], embed, names, claim, topic)), None)


def sharing(book: Book, text: str, sentences: list[int]) -> list[tuple[int, int]]:
    """``sentences`` by how many content words of ``text`` each holds, most first (then in book order), each with
    that count."""
    wanted = set(book.lexicon.content_words(text))
    return sorted(((len(wanted & set(book.lexicon.content_words(book.sentence(sid).text))), sid)
                   for sid in sentences), key=lambda pair: (-pair[0], pair[1]))


def grounded(book: Book, text: str, question: str, evidence: list[int], embed: Embed | None = None,
             names: NameIndex | None = None, recite: int = RECITED, claim: bool = True,
             alone: bool = True, topic: float = 0.0) -> tuple[str, Grounding]:
    """``text`` with the sentences its evidence does not support left out (their labels moved where one of
    ``recite`` other evidence sentences supports them), and what was found. ``claim`` False: the words the
    question says count as support too (the check before issue 40's walk; the benchmark compares the two).
    ``alone``: a sentence that cites none must rest on one evidence sentence (:func:`recited`), which it then
    cites; else on all the evidence together (the check before stop 48). ``topic``: a sentence none of whose cited
    sentences comes this near the question is left out too (:func:`off_topic`; 0, the default: no such rule)."""
    allowed = set(evidence)
    found = Grounding()
    kept, written, given = [], [], set()
    for sentence in answer_sentences(text):
        labelled = [sid for sid in parse_sentence_ids(sentence) if sid in allowed]
        if labelled and pointing(book, sentence, question):
            sentence = quoted(book, labelled)
            found.pointed += 1
        said = tuple(words_of(LABELS.sub(" ", sentence)))
        if said in given:  # the model copied out the sentence it had pointed at, now quoted: given once
            continue
        given.add(said)
        missing = lacking(book, sentence, question, labelled or list(evidence), embed, names, claim, topic)
        unlabelled = alone and not labelled and not missing  # all the evidence together holds it: which sentence?
        moved = recited(book, sentence, question, evidence, labelled, embed, names, recite or RECITED, claim,
                        topic) if (missing and labelled and recite) or unlabelled else None
        if moved is not None:
            sentence, missing = relabelled(sentence, moved), []
            found.recited += 1
        elif unlabelled:
            missing = [ONE_SENTENCE]
        found.sentences += 1
        written.append(sentence)
        if missing:
            leave_out(found, sentence, missing)
        else:
            kept.append(sentence)
    found.text = " ".join(written)
    return " ".join(kept), found


FRAME = frozenset(["answer", "passage", "sentence"])
"""Words a sentence may use to point at its citations without saying anything ("The answer is [S2753].")."""
FRAMED = re.compile(rf"^\W*(?:the\s+)?(?:{'|'.join(sorted(FRAME))})s?\s+(?:is|are|was|says?|states?)\b:?",
                    re.IGNORECASE)
"""An opening that only frames what follows ("The answer is Jane [S289]."): the words of :data:`FRAME` there are no
claim the cited sentences must hold."""
DENIED = re.compile(r"\b(?:not|no|never|nothing|none)\b|n't\b", re.IGNORECASE)
"""A negation: a sentence that says its citation does not answer points at nothing."""


def word_forms(book: Book, text: str) -> set[str]:
    """Every form of every word of ``text`` (walked: walks, walking), lower-cased."""
    return {f for w in book.lexicon.words(text) for f in book.forms(w)}


def pointing(book: Book, sentence: str, question: str) -> bool:
    """Whether ``sentence``, not a yes or no nor a denial, says nothing but the question's words and numbers and
    the words of :data:`FRAME`, in any of their forms: it points at the sentences it cites for the answer ("The
    answer is [S2753].", "Levin put in his game bag when the sun rose behind the storm-clouds [S3916]."), which are
    then the answer it gives."""
    plain = LABELS.sub(" ", sentence)
    if YES_NO.match(plain) or DENIED.search(plain):
        return False
    said = word_forms(book, question) | word_forms(book, " ".join(FRAME))
    return all(w.lower() in said for w in book.lexicon.content_words(plain) + NUMBER.findall(plain))


def quoted(book: Book, sids: list[int]) -> str:
    """The sentences ``sids`` quoted as the book writes them, with their labels."""
    return " ".join(f"{quotation(book.sentence(sid).text)} [S{sid}]" for sid in sids)


def relabelled(sentence: str, sid: int) -> str:
    """``sentence`` citing sentence ``sid`` in place of the labels it wrote (where the first of them stood)."""
    first = LABELS.search(sentence)
    cut = first.start() if first else len(sentence)
    rest = LABELS.sub("", sentence[cut:])
    return f"{LABELS.sub('', sentence[:cut])} [S{sid}]{rest}"
