"""The story so far and a character's X-Ray, made from the book alone (no model), from whatever book they are given:
a book cut at the reader's spoiler ceiling (:meth:`Book.up_to`) holds nothing past it, so nothing past it can
appear, by construction.

- :func:`recap`: each chapter's most central sentences, picked by LexRank (Erkan and Radev 2004, "LexRank:
  Graph-based Lexical Centrality as Salience in Text Summarization"): TF-IDF cosine similarity between the
  chapter's sentences (scikit-learn), PageRank over the graph of similar pairs (networkx). They are extracts, the
  book's own sentences, each cited.
- :func:`xray`: one character's mentions per chapter, first appearance, the sentences that describe them (their
  name beside an apposition or "was a ..."), the characters they share paragraphs with, and their own story so
  far (in each chapter, the most central of the sentences that name them).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from .lexicon import WORD
from .model import Book, Chapter
from .names import TITLES, Character, NameIndex, gender, pronoun_genders

SIMILAR = 0.1
"""LexRank's threshold: two sentences whose TF-IDF cosine reaches it are linked."""
FULL = 12
"""Words a sentence needs to be an extract (shorter ones only when a chapter has none): a line of dialogue such as
"Of course not," said the Rat is central to the graph and tells nothing of the story."""
LONGEST_CHAPTER = 1500
"""Sentences of a chapter LexRank compares at most (evenly spread; a longer chapter is sampled)."""


@dataclass
class ChapterRecap:
    ref: str
    title: str
    sentences: list[int]
    """The chapter's extracts, in book order."""


def story_chapters(book: Book, last_chapters: int | None = None) -> list[tuple[Chapter, int, int]]:
    """The book's chapters (the front matter left out), or its ``last_chapters``, each with its first and last
    sentence (a chapter the ceiling cuts ends at the ceiling)."""
    starts = [c.first_sentence for c in book.chapters[1:]] + [len(book)]
    spans = [(c, c.first_sentence, min(following, len(book)) - 1)
             for c, following in zip(book.chapters, starts, strict=True) if c.kind == "chapter"]
    return spans[-last_chapters:] if last_chapters else spans


def recap(book: Book, per_chapter: int = 3, last_chapters: int | None = None) -> list[ChapterRecap]:
    """The story so far, chapter by chapter (the front matter left out): ``per_chapter`` extracts of each, or of
    the ``last_chapters`` only."""
    return [ChapterRecap(chapter.ref, chapter.title, central(book, list(range(first, last + 1)), per_chapter))
            for chapter, first, last in story_chapters(book, last_chapters)]


def central(book: Book, ids: list[int], n: int) -> list[int]:
    """The ``n`` most central of the sentences ``ids`` (LexRank), in book order."""
    if len(ids) > LONGEST_CHAPTER:
        ids = [ids[i] for i in np.linspace(0, len(ids) - 1, LONGEST_CHAPTER).astype(int)]
    texts = [book.sentence(sid).text for sid in ids]
    if len(ids) <= n:
        return ids
    try:
        vectors = TfidfVectorizer(stop_words=sorted(book.lexicon.stopwords) or None).fit_transform(texts)
    except ValueError:  # no word left to weigh (a chapter of numbers or stopwords)
        return ids[:n]
    similar = cosine_similarity(vectors, dense_output=False)
    graph = nx.Graph()
    graph.add_nodes_from(range(len(ids)))
    rows, cols = similar.nonzero()
    graph.add_edges_from((int(a), int(b)) for a, b, v in zip(rows, cols, similar.data, strict=True)
                         if a < b and v >= SIMILAR)
    rank = nx.pagerank(graph)
    wordy = ([i for i in range(len(ids)) if len(texts[i].split()) >= FULL] or
             [i for i in range(len(ids)) if len(texts[i].split()) >= FULL // 2] or list(range(len(ids))))
    best = sorted(wordy, key=lambda i: (-rank[i], i))[:n]
    return sorted(ids[i] for i in best)


@dataclass
class XRay:
    """One character up to where the book ends (the reader's ceiling)."""

    name: str
    variants: list[str]
    mentions: int
    by_chapter: list[tuple[str, int]]
    """Each chapter's reference and how many of its sentences name the character."""
    first: int | None
    """The first sentence of the story that names them."""
    described: list[int] = field(default_factory=list)
    companions: list[tuple[str, int, list[int]]] = field(default_factory=list)
    """Other characters by shared paragraphs: name, how many, and the first sentences that name both."""
    story: list[int] = field(default_factory=list)
    """Their own story so far: in each chapter that names them, the most central of those sentences."""


def mentioning(book: Book, names: NameIndex, character: Character) -> np.ndarray:
    """The sentences of the story that name ``character``: one of their variants written out as the book writes
    names, capitalised ("the grey wolf" names no Grey Beaver, "his lip" no Lip-lip; a variant the reader typed in
    lower case in any case), and not inside another character's longer name ("Lydgate" in "Mrs. Lydgate", Rosamond,
    or in "Sir Godwin Lydgate")."""
    found = [book.index.postings(w) for w in character.tokens]
    ids = np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    own = sorted(character.variants, key=len, reverse=True)
    longer = sorted({v for mine in own for word in WORD.findall(mine.casefold())[:1]
                     for v in names.writing.get(word, ()) if v not in own and inside(mine, v)}, key=len, reverse=True)
    written = re.compile(rf"\b(?:(?P<other>{alternatives(longer) or '(?!)'})|(?P<own>{alternatives(own)}))\b")
    return np.asarray([sid for sid in ids.tolist()
                       if any(m.group("own") for m in written.finditer(book.sentence(sid).text))], dtype=np.int64)


def alternatives(variants: list[str]) -> str:
    """``variants`` as one regex alternation, each as written (one in lower case, as a reader may type it, in any
    case)."""
    return "|".join(re.escape(v) if not v.islower() else f"(?i:{re.escape(v)})" for v in variants)


def inside(name: str, longer: str) -> bool:
    """Whether ``longer`` writes ``name`` as its words ("Lydgate" in "Sir Godwin Lydgate")."""
    return bool(re.search(rf"\b{re.escape(name)}\b", longer, re.I))


def xray(book: Book, names: NameIndex, character: Character, companions: int = 8) -> XRay:
    """``character``'s X-Ray from ``book`` (and every other character of ``names`` as a possible companion)."""
    ids = named_in_story(book, names, character)
    chapter_counts = Counter(int(book.chapter_of[sid]) for sid in ids)
    by_chapter = [(c.ref or c.title, chapter_counts.get(n, 0)) for n, c in enumerate(book.chapters)
                  if c.kind == "chapter"]
    own = [sid for n in sorted(chapter_counts) for sid in central(book, [int(s) for s in ids
                                                                         if book.chapter_of[s] == n], 1)]
    return XRay(character.name, character.variants, len(ids), by_chapter, int(ids[0]) if len(ids) else None,
                describing(book, character, ids, names), sharing(book, names, character, ids)[:companions], own)


COPULA = re.compile(r"\s+(was|is|had been|has been|seemed|looked|appeared)\s+(?:(?:not|very|so|too|"
                    r"rather|quite|most|more|extremely|really|certainly|always|also|perfectly|remarkably|uncommonly|"
                    r"exceedingly|by no means|(?:a|an|the)(?:\s+(?:very|most|rather))?)\s+)*([a-z][a-z-]+)(\s+\w+)?")
"""After a name, what says what the character is: "was clever", "is a conceited, pompous...", "was not a sensible
man"; the groups are the verb, the word that describes and the word after it."""
HAVING = re.compile(r"\s+(?:had|has)\s+(?:a|an)\s+(?:(?:very|most|rather)\s+)?([a-z][a-z-]+)(?:,?\s+[a-z-]+)*?\s+"
                    r"(?:face|figure|person|manners|mind|character|temper|countenance|features|air|disposition|"
                    r"understanding|heart|nature|look|voice|fortune)\b")
"""After a name, a trait had: "had a pleasant countenance", "has a lively, playful disposition"."""
TRAIT_WORDS = frozenset({
    "accomplished", "affable", "affectionate", "agreeable", "amiable", "amusing", "arrogant", "artful", "attentive",
    "awkward", "bad", "beautiful", "benevolent", "bold", "boastful", "brave", "bright", "candid", "careful",
    "careless", "charming", "cheerful", "civil", "clever", "clumsy", "cold", "conceited", "conscientious",
    "contemptuous", "courageous", "courteous", "cowardly", "crafty", "cruel", "cunning", "deficient", "delightful",
    "disagreeable", "discreet", "dishonest", "docile", "dull", "easy", "eccentric", "elegant", "eloquent",
    "energetic", "envious", "extravagant", "fair", "faithful", "fashionable", "fat", "fine", "foolish", "frank",
    "fretful", "friendly", "frivolous", "gay", "generous", "genial", "gentle", "gentlemanlike", "gentlemanly",
    "giddy", "good", "good-humoured", "good-looking", "good-natured", "graceful", "gracious", "grave", "greedy",
    "handsome", "hasty", "haughty", "honest", "honourable", "hot-tempered", "humble", "idle", "ignorant", "ill-bred",
    "ill-natured", "ill-tempered", "imprudent", "impudent", "industrious", "insolent", "intelligent", "irritable",
    "jealous", "kind", "kind-hearted", "ladylike", "lazy", "learned", "liberal", "lively", "lovely", "loyal", "mean",
    "merry", "miserly", "modest", "moody", "naughty", "noble", "obliging", "obstinate", "old", "open-hearted",
    "passionate", "patient", "pleasant", "plain", "playful", "polite", "pompous", "poor", "positive", "pretty",
    "proud", "prudent", "quarrelsome", "quick", "quiet", "rash", "reasonable", "reckless", "reserved", "respectable",
    "respected", "rich", "rude", "sarcastic", "satirical", "selfish", "sensible", "serious", "severe", "short",
    "shrewd", "shy", "silly", "simple", "sincere", "sly", "small", "sociable", "soft", "steady", "stern", "strange",
    "stubborn", "stupid", "superior", "sweet", "tall", "talkative", "tender", "thoughtful", "timid", "tiresome",
    "tolerable", "ugly", "unaffected", "uncivil", "unpleasant", "unreserved", "vain", "vulgar", "warm-hearted",
    "weak", "wealthy", "well-bred", "well-read", "wicked", "wild", "wise", "witty", "worthy", "young"
})
"""Words that say what someone is like (a trait, not a mood or what happens to them): what "Described" lists."""
OCCASION = frozenset({"to", "in", "for", "with", "at", "about", "on", "from", "by", "enough", "that", "when", "deal"})
"""A word after the describing word that ties it to an occasion ("was punctual to his time", "kind to Mr. Bingley",
"satisfied with coming"): no longer what the character is like."""
KIND = re.compile(r"^[^.;!?]{0,60}?\b(?:man|woman|girl|boy|fellow|gentleman|lady|creature|animal|friend|person|"
                  r"beauty|child)\b")
"""What a description says someone is: "a conceited, pompous, narrow-minded, silly man"."""
PASSING = {"seemed", "looked", "appeared"}
"""Verbs of how someone seems at a moment, more than of what they are like."""


def describing(book: Book, character: Character, ids: np.ndarray, names: NameIndex | None = None,
               most: int = 5) -> list[int]:
    """Sentences that say what the character is like: a variant of their name (or "the" and it: "The Mole was a good
    listener") as a clause's subject followed by a word of :data:`TRAIT_WORDS` ("Darcy was clever", "Mr. Collins is a
    conceited, pompous... man"; not "was punctual to his time", tied to an occasion, and counting less after "seemed",
    "looked") or a trait had ("had a pleasant countenance"); or, counting less, "he" or "she" (the character's,
    :func:`pronoun`) so described in narration (no quotation marks) right after the name as subject, in its sentence or
    the next, where no other character the pronoun could stand for is named (of ``names``: a man's title is no "she");
    the ``most`` that say it most plainly (a kind of person named, the present tense), shortest first among equals, in
    book order. None rather than a sentence that does not describe them."""
    variants = "|".join(re.escape(v) for v in sorted(character.variants, key=len, reverse=True))
    named = subject(rf"(?:[Tt]he\s+)?(?:{variants})", r"[“\"‘']|\bthat\s+")
    own, sex = pronoun(book, character, ids)
    could = [v for c in (names.characters if names else []) if c is not character
             and gender(Counter(c.variants), None) in (sex, None)
             for v in c.variants]
    others = re.compile(r"\b(?:" + "|".join(re.escape(v) for v in sorted(could, key=len, reverse=True)) + r")\b"
                        if could else r"(?!)")
    scores: dict[int, float] = {}

    def keep(sid: int, score: int) -> None:
        if score > 0:
            scores[sid] = max(scores.get(sid, 0), score - len(book.sentence(sid).text) / 600)
    for sid in map(int, ids):
        text = book.sentence(sid).text
        as_subject = [m for m in named.finditer(text) if not BETWEEN.search(text, 0, m.start())]
        keep(sid, max((said(text[m.end():m.end() + 120]) for m in as_subject), default=0))
        if not (own and as_subject and not others.search(text) and not QUOTED.search(text)):
            continue
        for at, start in ((sid, as_subject[0].end()), (sid + 1, 0)):
            told = book.sentence(at).text if at < len(book) else ""
            if at == sid or not (others.search(told) or QUOTED.search(told) or named.search(told)):
                keep(at, max((said(told[m.end():m.end() + 120]) - 1 for m in own.finditer(told, start)), default=0))
    return sorted(sorted(scores, key=lambda sid: (-scores[sid], sid))[:most])


BETWEEN = re.compile(r"\bbetween\b[^,;:]*$")
"""A clause's "between", before a name: "The farewell between herself and Mr. Wickham was perfectly friendly"
names him as no subject (the farewell was friendly, not Wickham)."""
QUOTED = re.compile(r"[“”\"‘’']\W|\W[“”\"‘’']|^[“\"‘']")
"""A quotation mark: the sentence is (partly) someone's speech, where "he" and "she" may be anyone."""


def pronoun(book: Book, character: Character, ids: np.ndarray) -> tuple[re.Pattern | None, str | None]:
    """The pronoun that stands for ``character`` as a clause's subject, and their sex ("m" or "f"): as their titles
    say (Mr., Miss), else as the pronouns after their names in the sentences ``ids`` say (:func:`names.gender`);
    None when it cannot be told."""
    words = {w for v in character.variants for w in v.split() if w[:1].isupper() and w.rstrip(".") not in TITLES}
    by_pronouns = set(pronoun_genders(". ".join(book.sentence(sid).text for sid in map(int, ids)), words).values())
    sex = gender(Counter(character.variants), by_pronouns.pop() if len(by_pronouns) == 1 else None)
    if sex is None:
        return None, None
    word = "he|He" if sex == "m" else "she|She"
    return subject(word, r"\bfor\s+"), sex


def subject(words: str, openings: str) -> re.Pattern:
    """One of ``words`` (alternatives of a regular expression) as a clause's subject: at the sentence's start or
    after a semicolon, a colon, a comma, "and", "but", or one of ``openings``."""
    return re.compile(rf"(?:^|[;:]\s+|,\s+|\band\s+|\bbut\s+|{openings})\b(?:{words})\b")


def said(after: str) -> int:
    """How plainly the words after a subject say what it is like (0: they do not): a word of :data:`TRAIT_WORDS`
    after "was", "is"... not tied to an occasion (2; a kind of person named 3; the present tense one more; after
    "seemed", "looked" one less), or a trait had (2)."""
    copula = COPULA.match(after)
    if copula and copula.group(2) in TRAIT_WORDS and (copula.group(3) or "").strip() not in OCCASION:
        return (2 + bool(KIND.match(after[copula.end(2):])) + (copula.group(1) in ("is", "has been"))
                - (copula.group(1) in PASSING))
    had = HAVING.match(after)
    return 2 if had and had.group(1) in TRAIT_WORDS else 0


def named_in_story(book: Book, names: NameIndex, character: Character) -> np.ndarray:
    """The sentences of the story (after the front matter) that name ``character``."""
    ids = mentioning(book, names, character)
    return ids[ids >= book.first_read]


def sharing(book: Book, names: NameIndex, character: Character, ids: np.ndarray) -> list[tuple[str, int, list[int]]]:
    """The other characters named in the paragraphs that name ``character``: name, shared paragraphs, and the
    first three sentences naming the other character there; most shared first."""
    paragraphs = set(book.paragraph_of[ids].tolist())
    out = []
    for other in names.characters:
        if other is character:
            continue
        shared = [int(s) for s in named_in_story(book, names, other) if int(book.paragraph_of[s]) in paragraphs]
        count = len({int(book.paragraph_of[s]) for s in shared})
        if count:
            out.append((other.name, count, shared[:3]))
    return sorted(out, key=lambda row: -row[1])


def together(book: Book, names: NameIndex, character: Character, other: Character) -> list[tuple[int, int]]:
    """The paragraphs of the story that name both characters, as (first, last) sentence IDs, in book order: the
    passages behind a line of the relationship map."""
    shared = sorted(set(book.paragraph_of[named_in_story(book, names, character)].tolist())
                    & set(book.paragraph_of[named_in_story(book, names, other)].tolist()))
    starts = np.searchsorted(book.paragraph_of, shared, side="left")
    ends = np.searchsorted(book.paragraph_of, shared, side="right") - 1
    return list(zip(starts.tolist(), ends.tolist(), strict=True))
