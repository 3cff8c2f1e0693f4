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

from .model import Book, Chapter
from .names import Character, NameIndex

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
    """The sentences of the story that name ``character``: by a word only they bear, else (a name shared with
    another character: "Miss Darcy", "Mr. Darcy") by one of their variants written out."""
    own = names.search_words(character)
    found = [book.index.postings(w) for w in own or character.tokens]
    ids = np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    if own:
        return ids
    written = re.compile(r"\b(?:" + "|".join(re.escape(v) for v in sorted(character.variants, key=len, reverse=True))
                         + r")\b")
    return np.asarray([sid for sid in ids.tolist() if written.search(book.sentence(sid).text)], dtype=np.int64)


def xray(book: Book, names: NameIndex, character: Character, companions: int = 8) -> XRay:
    """``character``'s X-Ray from ``book`` (and every other character of ``names`` as a possible companion)."""
    ids = named_in_story(book, names, character)
    chapter_counts = Counter(int(book.chapter_of[sid]) for sid in ids)
    by_chapter = [(c.ref or c.title, chapter_counts.get(n, 0)) for n, c in enumerate(book.chapters)
                  if c.kind == "chapter"]
    own = [sid for n in sorted(chapter_counts) for sid in central(book, [int(s) for s in ids
                                                                         if book.chapter_of[s] == n], 1)]
    return XRay(character.name, character.variants, len(ids), by_chapter, int(ids[0]) if len(ids) else None,
                describing(book, character, ids), sharing(book, names, character, ids)[:companions], own)


COPULA = re.compile(r"\s+(was|is|had been|has been|became|seemed|looked|appeared|grew)\s+(?:(?:not|very|so|too|"
                    r"rather|quite|most|more|extremely|really|certainly|always|still|now|then|also|by no means)\s+)*"
                    r"((?:a|an|the)\s+)?([a-z][a-z-]+)")
"""After a name, what says what the character is: "was the superior", "is a conceited, pompous...", "looked
ill"; the groups are the verb, the article (if any) and the word that describes."""
APPOSITION = re.compile(r"(),\s+(a|an)\s+([a-z][a-z-]+)")
"""After a name, an apposition: ", a young man of ..."."""
TRAITS = re.compile(r"['’]s\s+(?:face|eyes|figure|person|manners|mind|character|temper|countenance|features|air|"
                    r"beauty|voice|looks?|appearance|disposition|spirits|nature|understanding|heart|pride|"
                    r"fortune|age|dress|smile)\b")
"""After a name, a possessive of what describes a person: "Elizabeth's eyes"."""
KIND = re.compile(r"^[^.;!?]{0,60}?\b(?:man|woman|girl|boy|fellow|gentleman|lady|creature|animal|friend|person|"
                  r"beauty|child)\b")
"""What a description says someone is: "a conceited, pompous, narrow-minded, silly man"."""
PASSING = {"seemed", "looked", "appeared", "grew"}
"""Verbs of how someone seems at a moment, more than of what they are like."""
NOT_DESCRIBING = {"gone", "going", "come", "coming", "sure", "told", "able", "unable", "about", "to", "in", "at",
                  "on", "by", "with", "of", "for", "from", "there", "here", "one", "first", "last", "only", "person",
                  "case", "subject", "cause", "object", "least", "same", "other", "as", "quite", "all", "much",
                  "almost", "far", "near", "eager", "impatient", "uncomfortable", "comfortable", "ready", "safe",
                  "busy", "silent", "alone", "glad", "sorry", "afraid", "angry", "anxious", "willing", "unwilling",
                  "happy", "unhappy", "well", "ill", "asleep", "awake", "alive", "dead", "then", "never", "again",
                  "left", "taken", "caught", "seen", "made", "kept", "brought", "given", "held", "sent", "thought",
                  "found", "known", "led", "shown", "met", "heard", "let"}
"""Words after "was" that say where someone is, what happens to them or how they feel at a moment, not what they
are like."""


def describing(book: Book, character: Character, ids: np.ndarray, most: int = 5) -> list[int]:
    """Sentences that say what the character is like: a variant of their name as a clause's subject followed by
    what describes them ("Darcy was clever", "Mr. Collins is a conceited, pompous... man"; not a passing state,
    "was delighted", "looked surprised", which counts less), by an apposition (", a young man of ..."), or by a
    possessive of a trait ("Elizabeth's eyes"); the ``most`` that say it most plainly, shortest first among equals,
    in book order."""
    variants = "|".join(re.escape(v) for v in sorted(character.variants, key=len, reverse=True))
    named = re.compile(rf"(?:^|[;:]\s+|,\s+|\band\s+|\bbut\s+|[“\"‘']|\bthat\s+)\b(?:{variants})\b")
    scored = []
    for sid in map(int, ids):
        text = book.sentence(sid).text
        score = 0
        for m in named.finditer(text):
            after = text[m.end():m.end() + 120]
            said = COPULA.match(after) or APPOSITION.match(after)
            word = said.group(3) if said else ""
            participle = word.endswith("ed") and "-" not in word and not said.group(2)  # "was distressed"
            if said and word not in NOT_DESCRIBING and not word.endswith(("ing", "ly")) and not participle:
                found = 2 + bool(KIND.match(after[said.end():])) + (said.group(1) in ("is", "has been"))
                score = max(score, found - (said.group(1) in PASSING))
            elif TRAITS.match(after):
                score = max(score, 2)
        if score:
            scored.append((score - len(text) / 600, sid))
    return sorted(sid for _, sid in sorted(scored, key=lambda item: (-item[0], item[1]))[:most])


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
