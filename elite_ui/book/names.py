"""The book's characters and the variants of their names ("Elizabeth", "Lizzy", "Eliza", "Miss Elizabeth Bennet"),
found without embeddings, offered to term expansion and editable by the reader.

Names are capitalised words of the story (the front matter left out: a preface names its author and her other books)
that open no sentence, follow no apostrophe ('Tis), are (almost) never written in lower case unless the book writes them
before a surname and on their own too ("Will Ladislaw", "Grace Poole") and are not a family's plural ("the Lucases"), a
place (:func:`a_place`) or a thing written after "the" that never speaks (:func:`a_thing`: "the Bastille"); a
surname keeps its particle ("de Bourgh"). Variants of one character are joined by rules read from the text: a full name
joins its first name ("Elizabeth Bennet" -> Elizabeth), unless the first name is written with a second surname about as
often ("Mary Ingram", "Mary Rivers": "Mary" stays alone) or its surname is seldom written where the first name is ("Jim
Turner", a robber of one scene, is not Huckleberry Finn's Jim); a nickname joins its given name (the ``nicknames``
table: Lizzy, Eliza -> Elizabeth; Kitty and Catherine); a diminutive joins its stem (Ratty -> Rat, Janet -> Jane); a
titled surname ("Mr. Darcy") joins the one character of that sex whose full name carries it, unless the book tells him
apart by his given name ("Mr. Frank Churchill", "Mr. Fred": "Mr. Churchill" is his uncle, "Mr. Vincy" his father) or
names both in one sentence, else each titled form is a character of its own ("Mr. Bennet", "Mrs. Bennet"); a surname
alone is a man's ("Darcy"; "Weston" is Mr. Weston, not the more written Mrs. Weston); a rank ("Captain Weston", "Dr.
Lydgate") joins the man of its surname unless both are named at once; a middle name joins the surname's character
("Edward Fairfax Rochester"; not a surname of another family's full name, "Linton Heathcliff"); a title with a given
name joins the full name it is written with ("St. John" -> "St. John Rivers"), "Aunt Reed" Mrs. Reed; "Miss" and a
surname is the eldest daughter ("Miss Bennet" -> Jane, whose sisters are "Miss Elizabeth", "Miss Lydia"); a woman's
given name with a man's surname is her married name ("Jane Rochester" -> Jane Eyre); "Mrs. John Knightley" is his wife,
not him; a wife the story marries is the woman named with her husband and a marriage before the book first calls her
"Mrs." ("Mrs. Collins", Charlotte Lucas; "Mrs. Wickham", Lydia, who signs "Lydia Wickham"); "Mrs. Poole", where no man
has the surname, the one woman written with it ("Grace Poole"). A given name with a title of rank it mostly carries
("Lady Catherine", "Colonel Fitzwilliam") is a person of its own, apart from the bare name, and keeps its full names
("Lady Catherine de Bourgh"; Kitty is "Catherine"). A given name the book writes only alone and says in dialogue
("Tertius, ...") is the name of the titled character who speaks the paragraphs beside it ("said Lydgate"), three times
at least. Sexes come from titles and from the pronouns after a name. ``python -m benchmarks.names`` measures the merged
pairs against lists made by hand. Every rule can be wrong; the reader edits the result as text, one character per line.

Under a spoiler ceiling the index is found again in the book cut there (:func:`names_for`), so no name, variant
or join that only a later chapter shows is listed.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache, partial
from itertools import islice
from pathlib import Path

import numpy as np

from ..errors import EliteError
from .lexicon import CAPITAL, CAPITALISED_WORD, INSIDE, SMALL, STOPWORDS, WORD, unmarked
from .model import Book

TITLES = ("Mr", "Mrs", "Miss", "Ms", "Dr", "Lady", "Sir", "Lord", "Madame", "Mademoiselle", "Monsieur", "Mme",
          "Mlle", "Colonel", "Captain", "Uncle", "Aunt", "Master", "Mars", "Mistress", "Father", "Mother", "Sister",
          "Brother", "St", "Don", "Doña", "Señor", "Señora", "Herr", "Frau", "Fräulein")
PARTICLE = r"(?:(?:de|du|van|von)[ \t]+)?"
"""A surname's lower-case particle ("de Bourgh", "van Tassel")."""
HYPHENED = rf"(?:-{SMALL}{{2,}}(?!['’-]?{CAPITAL}))*"
"""A name's lower-case parts after hyphens ("Lip-lip", "Mit-sah"; not the particles of "Champ-de-Mars")."""
NAME_WORD = CAPITAL + SMALL + "+" + HYPHENED
"""A capitalised word, of any alphabet with capitals ("Thénardier"), perhaps hyphened ("Kloo-kooch")."""
MID_SENTENCE = re.compile(rf"{INSIDE}{CAPITALISED_WORD}{HYPHENED}\b", re.M)
"""A capitalised word that does not open a sentence (:data:`~elite_ui.book.lexicon.NAME`), with its hyphened
parts."""
FORM = re.compile(r"\b(?:(" + "|".join(TITLES) + r")\.?\s+)?(" + PARTICLE + NAME_WORD + ")"
                  r"(?:[ \t]+(?!(?:" + "|".join(TITLES) + r")\b)(" + PARTICLE + NAME_WORD + r"))?\b")
"""A name as written: an optional title, a capitalised word and perhaps a second one (a surname, not a title: "When
Mr. Darcy" is no "When Mr"), each perhaps after a particle ("Miss de Bourgh", "Lady Catherine de Bourgh")."""
ABBREVIATED = {"Mr", "Mrs", "Ms", "Dr", "Mme", "Mlle", "St"}
SURNAME_TITLES = {"Mr", "Mrs", "Monsieur", "Madame", "Herr", "Frau", "Señor", "Señora"}
"""Titles put before a surname rather than a given name."""
MARRIED = {"Mrs", "Madame", "Mme", "Frau", "Señora"}
"""Titles of a wife: "Mrs. Bingley" is no Caroline Bingley (a woman's full name in a novel is mostly her maiden
name), so they join no full name."""
NOT_CHARACTERS = frozenset([
    "English", "French", "German", "Russian", "Spanish", "Italian", "Dutch", "Irish", "Scotch", "Scottish", "Welsh",
    "British", "American", "Indian", "Chinese", "Japanese", "Greek", "Roman", "Turkish", "Polish", "Swiss",
    "Austrian", "Prussian", "Portuguese", "Swedish", "Danish", "Norwegian", "Egyptian", "Jewish", "Christian",
    "Catholic", "Protestant", "Englishman", "Frenchman", "Englishwoman", "Frenchwoman", "Englishmen", "Frenchmen",
    "Parisian", "London", "North", "South", "East", "West", "Northern", "Southern", "Eastern", "Western", "Emperor",
    "Empress", "King", "Queen", "Prince", "Princess", "Duke", "Duchess", "Count", "Countess", "Baron", "Baroness",
    "Marquis", "Marquise", "Earl", "General", "Admiral", "Major", "Lieutenant", "Sergeant", "Corporal", "Doctor",
    "Professor", "Bishop", "Archbishop", "Pope", "Cardinal", "Abbé", "Abbot", "Priest", "Judge", "Mayor", "Governor",
    "President", "Majesty", "Highness", "Excellency", "Lordship", "Ladyship", "Monseigneur", "Madame", "Monsieur",
    "Mademoiselle", "God", "Heaven", "Providence", "Christ", "Lord", "Devil", "Satan", "Christmas", "Easter",
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "January", "February", "March",
    "April", "May", "June", "July", "August", "September", "October", "November", "December", "Rue", "Saint",
    "Sainte", "Boulevard", "Faubourg", "Street", "Square", "Lane", "Road", "Park", "Hall", "Abbey", "Church",
    "Chapel", "River", "Lake", "Lakes", "Mount", "Island", "Empire", "Republic", "Revolution", "Chapter",
    "Volume", "Illustration", "Bible", "Psalms", "Gospel", "Maker", "Creator", "Saviour", "Christians", "Creole",
    "Christianity", "Missis", "Aye", "Humph",
])
"""Capitalised words that are never a character on their own: nationalities, compass points, titles without a name,
God and scripture, feast days, days and months, the words of places and of the book's own parts, a servant's
"Missis" and the commonest interjections."""
EPITHETS = frozenset(["Old", "Young", "Little", "Poor", "Dear", "Good", "Great", "Big", "Chief", "Miss", "Master"])
"""Words put before a name that are no given name ("Old Featherstone", "Young Jerry", "Poor Miss Taylor")."""
AFTER_TITLE = re.compile(r"\b(?:" + "|".join(ABBREVIATED) + rf")\.\s+({CAPITALISED_WORD})\b")
"""A name after an abbreviated title ("Mr. Collins"), which :data:`NAME` takes for a sentence's first word."""
ELIDED = re.compile(rf"['’\"“‘]({NAME_WORD})\b")
"""A capitalised word right after an apostrophe ('Tis, 'Twas: a word with its first letters left out) or an opening
quotation mark (“Humph!”, “Aye”: the first word of a line of dialogue)."""
IN_PLACE = re.compile(r"\b(?:Rue|rue|Saint|Sainte|Mount|Fort|Port|Cape|Lake|Boulevard|Faubourg|Quai)[ \t-]+"
                      rf"({NAME_WORD})\b")
"""A capitalised word after a word that makes it a place ("Rue Plumet", "Saint Bernard")."""
PLACE = re.compile(rf"\b(?:in|at|to|from|near|towards|into|through|of|à|en|de|a|hacia)\s+({NAME_WORD})\b")
"""A capitalised word after a preposition of place: names mostly written so are places, not characters."""
MALE = {"Mr", "Sir", "Lord", "Monsieur", "Colonel", "Captain", "Uncle", "Master", "Mars", "Father", "Brother", "Don",
        "Señor", "Herr"}
FEMALE = {"Mrs", "Miss", "Ms", "Lady", "Madame", "Mademoiselle", "Mme", "Mlle", "Aunt", "Mistress", "Mother",
          "Sister", "Doña", "Señora", "Frau", "Fräulein"}
WIVES = MARRIED | {"Lady"}
"""Titles that before a surname name a wife ("Lady Lucas", Sir William's), never her daughters."""
UNMARRIED = {"Miss", "Mademoiselle", "Mlle", "Fräulein"}
"""Titles of an unmarried woman: "Miss Bennet" alone is the eldest daughter, her sisters are "Miss Elizabeth"."""
RANKS = {"Captain", "Colonel", "Dr"}
"""Titles of a man's rank, which a book may drop for "Mr." as his story goes on."""
RANKED = {"Doctor": "m", "Inspector": "m", "Lieutenant": "m", "Sergeant": "m", "Corporal": "m", "Major": "m",
          "General": "m", "Admiral": "m", "Professor": "m", "Baron": "m", "Count": "m", "Prince": "m",
          "Monseigneur": "m", "Bishop": "m", "Citizen": "m", "Baroness": "f", "Countess": "f", "Princess": "f",
          "Citizeness": "f", "Little": None, "Poor": None, "Dear": None}
"""Ranks, titles of nobility and epithets the book writes before a name ("Inspector Javert", "Princess Betsy",
"Little Pearl") and the sex of those they name (an epithet's: either): never a name's part, they join the name's one
character (:func:`join_ranked`). Not "Young" or "Old": "Young Jerry" is Jerry Cruncher's son."""
OTHER_SEX = {"m": ("f",), "f": ("m",)}
"""The sex a man's or a woman's rank never names (an epithet's: none)."""
RANK_FORM = re.compile(rf"\b({'|'.join(RANKED)})[ \t]+({NAME_WORD})\b")
KIN = {"Aunt": MARRIED, "Mother": MARRIED, "Uncle": {"Mr", "Monsieur", "Herr", "Señor"}}
"""A kinship title and the titles the same person is written with by others ("Aunt Reed" is Mrs. Reed, "Mother
Thénardier" Madame Thénardier)."""
PRONOUN = re.compile(rf"\b({NAME_WORD})\b[^.!?;:\"“”]{{0,80}}?\b(he|him|his|she|her|hers)\b")
"""A name and the first personal pronoun after it in its clause: mostly the name's own."""
TRIPLE = re.compile(rf"\b({NAME_WORD})[ \t]+({NAME_WORD})[ \t\n]+({NAME_WORD})\b")
"""Three capitalised words in a row: a given name, a middle name and a surname ("Edward Fairfax Rochester")."""
SAINT_PLACE = re.compile(rf"\bSt\.\s+({NAME_WORD})['’]s\b")
"""A saint's name in the possessive is a church or a court ("at St. James's"), not a character."""
LATIN_CAPITALS = {"en", "fr", "es", "it", "pt", "nl"}
"""Languages where a capital inside a sentence marks a name (German capitalises every noun; Chinese has none)."""


@dataclass
class Character:
    """One character: the name it is listed under and every variant of it found in (or added for) the book."""

    name: str
    variants: list[str]
    mentions: int = 0

    @property
    def tokens(self) -> list[str]:
        """The words of its variants as the book's index has them (cut at hyphens: "Lip-lip" is "lip"), titles, ranks
        and particles ("de") left out, lower-cased."""
        out = []
        for variant in self.variants:
            out += [w.lower() for w in re.split(r"[\s.-]+", variant)
                    if w and w not in TITLES and w not in RANKED and not w.islower()]
        return list(dict.fromkeys(out))

    @property
    def claims(self) -> set[str]:
        """Its :attr:`tokens` but the surname of a wife's title ("Mrs. Wickham": her husband's word, not hers)."""
        married = {v.split()[-1].lower() for v in self.variants if v.split()[0].rstrip(".") in MARRIED}
        unmarried = {w.lower() for v in self.variants if v.split()[0].rstrip(".") not in MARRIED for w in v.split()}
        return set(self.tokens) - (married - unmarried)


@dataclass
class NameIndex:
    """A book's characters, most mentioned first (a reader's edited list keeps the reader's order)."""

    characters: list[Character] = field(default_factory=list)
    edited: bool = False
    """Written by the reader (:meth:`from_text`), not found in the book."""

    def seen_in(self, book: Book) -> NameIndex:
        """The characters ``book`` (perhaps cut at a spoiler ceiling) names, each with only the variants it
        writes, listed under the first of those (the reader's name for it, when the book has written it)."""
        variants = sorted({v for c in self.characters for v in c.variants}, key=len, reverse=True)
        if not variants:
            return NameIndex([], self.edited)
        found = re.findall(r"\b(?:" + "|".join(map(written_as, variants)) + r")\b", story_text(book))
        written = Counter(" ".join(f.split()) for f in found)
        seen = [[v for v in c.variants if written[v]] for c in self.characters]
        return NameIndex([Character(forms[0], forms, sum(map(written.get, forms))) for forms in seen if forms],
                         self.edited)

    @cached_property
    def writing(self) -> dict[str, set[str]]:
        """Each word of a variant (lower-cased) and the variants, of every character, that write it."""
        out: dict[str, set[str]] = {}
        for variant in {v for c in self.characters for v in c.variants}:
            for word in WORD.findall(variant.casefold()):
                out.setdefault(word, set()).add(variant)
        return out

    def find(self, text: str) -> Character | None:
        """The character ``text`` names: a variant of it, or a word of the term that is one of its words, with or
        without their letters' marks ("Eponine" is Éponine)."""
        wanted = unmarked(text.casefold().strip())
        for character in self.characters:
            if any(unmarked(v.casefold()) == wanted for v in character.variants):
                return character
        said = set(re.findall(r"[^\W_]+", wanted))
        found = [c for c in self.characters if said & set(map(unmarked, c.tokens))]
        return max(found, key=lambda c: c.mentions) if found else None

    def search_words(self, character: Character) -> list[str]:
        """The character's words no other character shares (Lizzy, Eliza; not the family's Bennet; a wife's married
        name leaves her husband his: :attr:`Character.claims`)."""
        shared = {w for c in self.characters if c is not character for w in c.claims}
        return [w for w in character.tokens if w not in shared]

    def as_text(self) -> str:
        """One line per character, ``Name: variant, variant``: what the reader edits."""
        return "\n".join(f"{c.name}: {', '.join(c.variants)}" for c in self.characters)

    @classmethod
    def from_text(cls, text: str) -> NameIndex:
        """The index a reader wrote: one character per line, ``Name: variant, variant``; a line without a colon
        is a character with no other variant. Raises :class:`NamesError` on a line it cannot read."""
        characters = []
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            name, _, rest = line.partition(":")
            name = name.strip()
            variants = list(dict.fromkeys([name, *(v.strip() for v in rest.split(",") if v.strip())]))
            if not name or any(len(v) > 60 for v in variants):
                raise NamesError(f"line {number} of the character names needs a name before its colon and "
                                 "variants of at most 60 characters.")
            characters.append(Character(name, variants))
        return cls(characters, edited=True)


def names_for(book: Book, cache_dir: Path | str | None) -> NameIndex:
    """The character names a reader of ``book`` (cut at their spoiler ceiling, or whole) sees: the edited index
    they saved under ``cache_dir``, cut to what ``book`` names, else the one found in ``book``."""
    saved = names_file(book, cache_dir)
    if saved and saved.exists():
        try:
            return NameIndex.from_text(saved.read_text(encoding="utf-8")).seen_in(book)
        except (OSError, UnicodeDecodeError, NamesError):
            pass
    return found_names(book)


FOUND_KEPT = 32
"""Name indexes kept, for books and spoiler ceilings asked for lately (finding one reads the whole text: 0.16 s
for Pride and Prejudice, 0.8 s for Les Misérables)."""
_found: OrderedDict[tuple, NameIndex] = OrderedDict()
_finding = threading.Lock()


def found_names(book: Book) -> NameIndex:
    """:func:`build_names` of ``book``, kept for the next reader of the same book up to the same sentence."""
    key = (book.digest, len(book), book.first_read, book.language)
    with _finding:
        if key in _found:
            _found.move_to_end(key)
            return _found[key]
    index = build_names(book)
    with _finding:
        _found[key] = index
        while len(_found) > FOUND_KEPT:
            _found.popitem(last=False)
    return index


def written_as(name: str) -> str:
    """A pattern for ``name`` as a book may write it, its words apart by any spacing (a line break too)."""
    return r"\s+".join(map(re.escape, name.split()))


def story_text(book: Book) -> str:
    """The text of ``book`` after its front matter (a preface names its author, her other books, her critics)."""
    return book.text[int(book.bounds[book.first_read, 0]):] if len(book) else ""


def save_names(book: Book, index: NameIndex, cache_dir: Path | str | None) -> bool:
    """Keep the reader's edited name index of ``book`` for their next visit; whether it could be written."""
    saved = names_file(book, cache_dir)
    if saved is None:
        return False
    try:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(index.as_text(), encoding="utf-8")
    except OSError:
        return False
    return True


def names_file(book: Book, cache_dir: Path | str | None) -> Path | None:
    return Path(cache_dir) / "names" / f"{book.digest[:32]}.txt" if cache_dir else None


class NamesError(EliteError):
    """The reader's edited name list cannot be read."""


LEAST = 3
"""The least a name is written to be listed, and a form to tell two characters apart (:func:`distinguished`)."""


def build_names(book: Book, min_mentions: int = LEAST) -> NameIndex:
    """The characters of ``book`` mentioned at least ``min_mentions`` times in all, most mentioned first."""
    if book.language not in LATIN_CAPITALS:
        return NameIndex()
    text = story_text(book)
    titled = Counter(AFTER_TITLE.findall(text))
    capitalised = Counter(MID_SENTENCE.findall(text)) + titled
    lower = Counter(re.findall(rf"\b{SMALL}{{2,}}\b", text)) + Counter(
        re.findall(rf"\b{SMALL}+(?:-{SMALL}+)+\b", text))  # "good-bye": no "Good-bye" then
    elided, placed = Counter(ELIDED.findall(text)), Counter(IN_PLACE.findall(text))
    names = {w for w, n in capitalised.items() if n >= min_mentions and w not in TITLES
             and w not in NOT_CHARACTERS and (elided[w] + placed[w]) * 2 < n}
    followers: dict[str, Counter] = {}
    for pair in re.finditer(rf"\b({NAME_WORD})(?=[ \t]+({NAME_WORD})\b)", text):
        followers.setdefault(pair.group(1), Counter())[pair.group(2)] += 1
    common = {w for w in names if w.lower() in STOPWORDS or lower[w.lower()] * 10 > capitalised[w]}
    surnames, uncommon = set(titled) & names, names - common
    names -= {w for w in common if not given_before(w, surnames, followers.get(w, Counter()), capitalised[w])
              and not named_with(w, uncommon, followers.get(w, Counter()), capitalised)}
    names -= {w for w in names if family_plural(w, names)}
    written, pairs = written_forms(text, names, book.author)
    firsts = given_names(names, written, pairs)
    genders = pronoun_genders(text, names)
    sentences = [book.sentence(n).text for n in range(book.first_read, len(book))]
    named = naming_sentences(sentences)
    carried = {(title, first) for (title, first, last), n in written.items() if first in firsts and title
               and title not in SURNAME_TITLES and not last and n >= written[("", first, "")]}
    untitled = pairs - Counter({(first, last): n for (title, first, last), n in written.items()
                                if last and (title, first) in carried})
    triples = Counter(m.groups() for m in TRIPLE.finditer(text)
                      if all(w in names and w not in TITLES for w in m.groups()))
    home = homes(firsts, untitled, capitalised, genders, triples, stretches_of(text))
    ranked = Counter(RANK_FORM.findall(text))
    by_rank: Counter[str] = Counter()
    for (rank, name), n in ranked.items():
        if name in firsts and RANKED[rank]:
            by_rank[home[name]] += n
    variants = forms_by_character(written, pairs, firsts, home, genders, named, carried, by_rank)
    join_bare_surnames(variants, firsts, genders)
    seen = written_at(text)
    join_ranks(variants, genders, named, seen)
    join_nicknames(variants, {k for k in variants if k.split()[0].rstrip(".") in TITLES and k.split()[-1] in firsts},
                   genders)
    join_middle_names(variants, triples)
    join_titled_given_names(variants)
    articled = Counter(re.findall(rf"\b(?:the|an?)\s+({NAME_WORD})\b", text))
    join_once_written_surnames(variants, genders, named, articled, capitalised)
    join_kin(variants)
    join_eldest_daughters(variants, genders)
    join_married_names(variants, genders)
    join_lone_wives(variants, genders)
    join_wives(variants, genders, seen, sentences, [int(b - book.bounds[book.first_read, 0])
                                                    for b in book.bounds[book.first_read:, 0]])
    join_addressed(variants, story_paragraphs(book))
    join_aliases(variants, text)
    join_ranked(variants, genders, ranked)
    places = Counter(PLACE.findall(text)) + Counter(SAINT_PLACE.findall(text))
    spoken = Counter(speakers(text))
    found = [character(key, counter) for key, counter in variants.items()]
    return NameIndex(sorted((c for c in found if c.mentions >= min_mentions and not a_place(c, places, capitalised)
                             and not a_thing(c, articled, spoken)), key=lambda c: -c.mentions))


def join_ranked(variants: dict[str, Counter], genders: dict[str, str], ranked: Counter) -> None:
    """A rank or an epithet and a name written :data:`LEAST` times ("Inspector Javert", "Princess Betsy") is a form
    of the character listed under that name alone or as its given name, where no other character is and no other
    full name begins with it ("Count Alexey" is not Alexey Alexandrovitch, Alexey Vronsky being one), and the
    character's sex is not the other (:data:`RANKED`). Not a surname's after a given name: "Princess Shtcherbatskaya"
    is Kitty Shtcherbatskaya's mother."""
    for (rank, name), n in ranked.items():
        holders = listed_under(variants, name)
        others = [k for k, forms in variants.items() if any(f.split()[0] == name and " " in f for f in forms)]
        if (n >= LEAST and len(holders) == 1 and set(others) <= set(holders) and variants[holders[0]].total() >= LEAST
                and sex(variants, genders, holders[0]) not in OTHER_SEX.get(RANKED[rank], ())):
            variants[holders[0]][f"{rank} {name}"] += n


def listed_under(variants: dict[str, Counter], name: str) -> list[str]:
    """The characters listed under ``name`` alone or as their given name ("Silas", "Silas Phelps", "Uncle Silas")."""
    return [k for k in variants if name in (k, first_name(k))]


def a_place(found: Character, places: Counter, capitalised: Counter) -> bool:
    """Whether a character found is a place: a name of one word (or a saint's, "St. Clair") written after a
    preposition of place ("at Longbourn") in two fifths of its mentions, or a longer name whose first word, not a
    title, is so written in two fifths of the times the book capitalises it or names the character ("at Wuthering
    Heights", "in Moscow Levin had been struck": no "Moscow Levin")."""
    words = found.name.split()
    if len(words) == 1 or words[0] == "St.":
        return places[found.name.removeprefix("St. ")] * 5 > 2 * found.mentions
    return words[0].rstrip(".") not in TITLES and places[words[0]] * 5 > 2 * max(capitalised[words[0]], found.mentions)


def a_thing(found: Character, articled: Counter, spoken: Counter) -> bool:
    """Whether a character found is no person: a name of one word written after an article in half its mentions
    ("the Bastille", "the Puritan magistrates", "an Arabian", "the Crown") that no speech verb names as the speaker
    (Grahame's animals are "the Rat" too, but "said the Rat")."""
    return " " not in found.name and articled[found.name] * 2 >= found.mentions and not spoken[found.name]


def given_before(word: str, surnames: set[str], followers: Counter, written: int) -> bool:
    """Whether ``word``, a word the book also writes in lower case ("will", "grace"), is a given name all the same:
    written before one of the ``surnames`` (names the book writes after "Mr.", "Mrs."...) three times at least, and
    in a tenth of the times it is capitalised ("Will Ladislaw", "Grace Poole"; not "Old Featherstone", "Inspector
    Javert"), and capitalised on its own too, three times and in a fifth of them (not "Water Rat", "Wild Wood");
    ``followers`` counts the capitalised words written after it."""
    most = max((n for w, n in followers.items() if w in surnames), default=0)
    alone = written - followers.total()
    return word not in EPITHETS and most >= 3 and most * 10 >= written and alone >= 3 and alone * 5 >= written


def named_with(word: str, names: set[str], followers: Counter, capitalised: Counter) -> bool:
    """Whether ``word``, a word the book also writes in lower case ("grey"), is the first word of a name of two all
    the same: capitalised before one of the ``names`` nine times in ten and three times at least, and that name
    written alone no more often than after it ("Grey Beaver"; not "Water Rat", whom the book mostly calls "Rat")."""
    if word in EPITHETS or not followers:
        return False
    (name, both), = followers.most_common(1)
    return name in names and both >= 3 and both * 10 >= 9 * capitalised[word] and both * 2 >= capitalised[name]


def family_plural(word: str, names: set[str]) -> bool:
    """Whether ``word`` is the plural of another name, a family ("the Lucases", "the Bingleys")."""
    return any(word.endswith(end) and word.removesuffix(end) in names for end in ("es", "s"))


def given_names(names: set[str], written: Counter, pairs: Counter) -> set[str]:
    """The names written at least as often before a surname as they are used as a surname themselves, and those
    written before a surname :data:`LEAST` times and never after a given name, however often a surname's title
    comes before them alone ("Mr. Edgar", as servants call Edgar Linton)."""
    given, surname, last_of = Counter(), Counter(), Counter()
    for (first, last), n in pairs.items():
        given[first] += n
        last_of[last] += n
    surname.update(last_of)
    for (title, first, last), n in written.items():
        if title in SURNAME_TITLES and not last:
            surname[first] += n
    return {w for w in names if given[w] >= surname[w] or (given[w] >= LEAST and not last_of[w])}


def homes(firsts: set[str], pairs: Counter, capitalised: Counter, genders: dict[str, str],
          triples: Counter, stretches: Callable[[str], set[int]]) -> dict[str, str]:
    """Each given name's character: its most written full name (unless a second one is written at least half as
    often, and the two are not one name's parts, written together twice in ``triples``: "Konstantin Dmitrievitch
    Levin"; then the name alone), or (a nickname) its parent name's. A full name counts only where its surname is
    written in a tenth at least of the stretches of the book that write the given name (``stretches``): a full
    name of one scene is another person ("Jim Turner", a steamboat robber, is not Huckleberry Finn's Jim)."""
    home: dict[str, str] = {}
    surnames: dict[str, list[tuple[int, str]]] = {}
    for (first, last), n in sorted(pairs.items(), key=lambda item: -item[1]):
        if first in firsts and len(stretches(first) & stretches(last)) * 10 >= len(stretches(first)):
            home.setdefault(first, f"{first} {last}")
            surnames.setdefault(first, []).append((n, last))
    for first, full in surnames.items():
        (most, one), (then, other) = [*full, (0, "")][:2]
        together = max(triples[(first, one, other)], triples[(first, other, one)])
        if then >= 2 and then * 2 >= most and together < 2:
            home[first] = first  # Mary Ingram and Mary Rivers: "Mary" alone is neither for sure
    for word in sorted(firsts, key=lambda w: -capitalised[w]):
        parent = nickname_parent(word, firsts, capitalised, genders)
        home[word] = home[parent] if parent else home.get(word, word)
    return home


STRETCHES = 40
"""How many equal stretches :func:`stretches_of` cuts a book into."""


def stretches_of(text: str) -> Callable[[str], set[int]]:
    """The stretches of ``text`` (of :data:`STRETCHES`) that write a name (as the index keeps it: "de_Meaux"), from
    one pass over the text's capitalised words: a particle's name where its particle comes just before one of them."""
    places: dict[str, list[int]] = {}
    for word in re.finditer(rf"\b{CAPITAL}\w*{HYPHENED}", text):
        places.setdefault(word.group(), []).append(word.start())

    def start(lead: re.Pattern | None, at: int) -> int | None:
        """Where the name written with its capitalised word at ``at`` starts (its particle's place), if it is."""
        if lead is None:
            return at
        found = lead.search(text, max(at - 80, 0), at)
        return found.start() if found else None

    @cache
    def stretches(name: str) -> set[int]:
        *before, last = as_written(name).split()
        lead = re.compile(rf"\b{written_as(' '.join(before))}\s+$") if before else None
        return {at * STRETCHES // len(text) for at in map(partial(start, lead), places.get(last, ())) if at is not None}

    return stretches


def naming_sentences(sentences: list[str]) -> dict[str, set[int]]:
    """The sentences (their places in ``sentences``) each name is written in, alone ("Fred", "Lydgate") or after a
    title ("Mr. Vincy", "Captain Lydgate")."""
    named: dict[str, set[int]] = {}
    for number, sentence in enumerate(sentences):
        for form in FORM.finditer(sentence):
            title, first, _ = name_parts(form)
            for name in {first if not title else "", written_name(title, first)} - {""}:
                named.setdefault(name, set()).add(number)
    return named


def two_people(named: dict[str, set[int]], titled: str, *given: str, reach: int = 0) -> bool:
    """Whether the book names ``titled`` ("Mr. Vincy") and ``given`` ("Fred") in one sentence (or ``reach``
    sentences apart) too often for them to be one man (a book seldom calls one person by two names at once): twice,
    and in a tenth of the sentences naming ``titled``."""
    others = {n + step for name in given for n in named.get(name, ()) for step in range(-reach, reach + 1)}
    both = len(named.get(titled, set()) & others)
    return both >= 2 and both * 10 >= len(named.get(titled, ()))


def forms_by_character(written: Counter, pairs: Counter, firsts: set[str], home: dict[str, str],
                       genders: dict[str, str], named: dict[str, set[int]],
                       carried: set[tuple[str, str]], ranked: Counter) -> dict[str, Counter]:
    """Every written form counted under its character: a given name's home, or with a title it mostly carries
    (``carried``) that title's; a titled surname the one character of the title's sex (pronouns, ``genders``, or
    the titles of its full names) whose full name carries it, unless :func:`distinguished` (by that title or a rank,
    ``ranked``, before his given name: Lieutenant Théodule is not "Father Gillenormand") from another of his family
    (a second full name with the surname, or the surname after a title of the other sex :data:`LEAST` times: "Mrs.
    Churchill"; A Tale of Two Cities's "Mr. Jarvis Lorry", whose "Mrs. Lorry" is twice a wife he never had, is "Mr.
    Lorry") or :func:`two_people`
    (``named``) tell them apart, else a character of its own ("Mr. Bennet"); a wife's title with a man's full name
    ("Mrs. John Knightley") its own; a surname alone itself (:func:`join_bare_surnames`); a middle name and a surname
    ("Fairfax Rochester") the surname's, unless the first is another family's surname, the surname of a full name
    ("Linton Heathcliff", Heathcliff's son, named for Edgar Linton's family: not Heathcliff)."""
    def character_of(first: str, last: str, title: str = "") -> str:
        """A given name's character, unless this full name has another surname (Jean Prouvaire, not Valjean)."""
        if (title, first) in carried:
            return written_name(title, first)
        if (first, last) in carrying:  # "John Rivers", once, is "St. John Rivers"
            return written_name(carrying[(first, last)], first)
        return home[first] if not last or home[first].endswith(f" {last}") else f"{first} {last}"

    carrying = {(first, last): title for (title, first, last), n in written.items()
                if last and (title, first) in carried and n > written[("", first, last)]}
    carriers: dict[str, Counter] = {}
    titled_full: Counter[tuple[str, str]] = Counter()
    titled_sex: dict[str, set[str]] = {}
    for (title, first, last), n in written.items():
        if first in firsts and last:
            carriers.setdefault(last, Counter())[character_of(first, last, title)] += n
        if first in firsts and title:
            titled_full[(title, character_of(first, last, title))] += n
            man = title in MALE or (title in MARRIED and last)  # "Mrs. John Knightley": his wife
            if man or title in FEMALE:
                titled_sex.setdefault(character_of(first, last, title), set()).add("m" if man else "f")
    sex_of = {k: genders.get(first_name(k)) or (min(said) if len(said) == 1 else None)
              for k, said in titled_sex.items()}
    family_names = {last for (_, first, last) in written if first in firsts and last}
    variants: dict[str, Counter] = {}
    for (title, first, last), n in written.items():
        form = written_name(title, first, last)
        if first in firsts and title and not last and n >= written[("", first, "")]:
            key = form
        elif (title, first) in carried:
            key = character_of(first, last, title)  # "Lady Catherine de Bourgh": Lady Catherine's, not Kitty's
        elif first in firsts and title in MARRIED and last and sex_of.get(character_of(first, last)) == "m":
            key = form  # "Mrs. John Knightley" is John Knightley's wife
        elif first in firsts:
            key = character_of(first, last)
        elif last and not title:  # "Fairfax Rochester", a middle name and a surname: the surname's character;
            key = form if first in family_names else last  # "Linton Heathcliff" its own (Edgar Linton's family)
        elif not title:
            key = first  # a surname alone: :func:`join_bare_surnames`
        else:
            holders = [k for k, held in carriers.get(first, {}).items() if title not in WIVES | UNMARRIED | set(KIN)
                       and sex_of.get(k, genders.get(first_name(k))) == ("m" if title in MALE else "f")
                       and not (distinguished(titled_full[(title, k)] + ranked[k], held)
                                and another_of_family(written, carriers, title, first))
                       and not two_people(named, form, first_name(k))
                       and k.split()[0].rstrip(".") not in (MALE | FEMALE) - {title}]
            key = holders[0] if len(holders) == 1 else written_name(title, first)
        variants.setdefault(key, Counter())[form] += n
    return variants


def another_of_family(written: Counter, carriers: dict[str, Counter], title: str, surname: str) -> bool:
    """Whether the book writes another of ``surname`` than the one it writes after ``title``: a second full name
    (``carriers``), or the surname after a title of the other sex :data:`LEAST` times ("Mrs. Churchill")."""
    other = sum(n for (said, first, last), n in written.items()
                if first == surname and not last and said and (said in FEMALE) == (title in MALE))
    return len(carriers[surname]) > 1 or other >= LEAST


def first_name(key: str) -> str:
    """A character's given name: its key's first word, or its second after a title ("St. John")."""
    words = key.split()
    return words[1] if len(words) > 1 and words[0].rstrip(".") in TITLES else words[0]


def distinguished(titled: int, written: int) -> bool:
    """Whether a character whose full name the book writes ``written`` times is written with a title and his given
    name ``titled`` times ("Mr. Frank Churchill", "Mr. Fred") often enough to tell him apart from another of his
    surname with that title alone ("Mr. Churchill" is his uncle, "Mr. Vincy" his father), as "Miss Elizabeth" is told
    from "Miss Bennet": :data:`LEAST` times at least (the name finder's own least; "Mr. Joshua Rigg", twice, is still
    "Mr. Rigg") and in a fifth of his full names."""
    return titled >= LEAST and titled * 5 >= written


def join_bare_surnames(variants: dict[str, Counter], firsts: set[str], genders: dict[str, str]) -> None:
    """A surname alone ("Darcy") joins its :func:`bearer` (the narration calls men by their surname alone, women
    seldom: "Weston" is Mr. Weston, not the more written Mrs. Weston)."""
    for bare in [k for k in variants if " " not in k and k not in firsts]:
        held = bearer(variants, genders, bare, bare)
        if held:
            variants[held].update(variants.pop(bare))


def titled_keys(variants: dict[str, Counter], titles: Iterable[str]) -> list[str]:
    """The characters listed under one of ``titles`` and a name ("Mrs. Collins", "Captain Weston")."""
    return [k for k in variants if len(k.split()) == 2 and k.split()[0].rstrip(".") in titles]


def join_ranks(variants: dict[str, Counter], genders: dict[str, str], named: dict[str, set[int]],
               seen: Callable[[str], tuple[float, float]]) -> None:
    """A rank and a surname ("Captain Weston", Mr. Weston before he sold his commission) joins the surname's man
    (:func:`bearer`) written five times as often and before it, unless the book names both in one sentence or the
    next (:func:`two_people`: "Captain Lydgate" is Lydgate's cousin; Les Misérables' "Colonel Pontmercy", written
    before Marius, his father)."""
    for key in titled_keys(variants, RANKS):
        surname = key.split()[1]
        man = bearer(variants, genders, surname, key)
        if (man and sex(variants, genders, man) == "m" and variants[man].total() >= 5 * variants[key].total()
                and min(seen(f)[0] for f in variants[man] if " " in f) < seen(key)[0]
                and not two_people(named, key, *variants[man], reach=1)):
            variants[man].update(variants.pop(key))


def bearer(variants: dict[str, Counter], genders: dict[str, str], surname: str, other: str) -> str | None:
    """The character a bare ``surname`` names, of those (but ``other``) written with it: the man most often titled
    with it ("Mr. Darcy"; Jane Eyre's "Reed" is "Mr. Reed", her uncle, not John, her cousin, less often "Master
    Reed"), else a man ("Sir James Chettam"), else the most written."""
    def rank(key: str) -> tuple:
        man = sex(variants, genders, key) == "m"
        titled = sum(n for f, n in variants[key].items()
                     if len(f.split()) == 2 and f.split()[1] == surname and f.split()[0].rstrip(".") in MALE)
        return titled, man, sum(variants[key].values())

    holders = [k for k, forms in variants.items() if k != other and any(
        len(f.split()) > 1 and f.split()[-1] == surname for f in forms)]
    return max(holders, key=rank) if holders else None


def join_nicknames(variants: dict[str, Counter], apart: set[str], genders: dict[str, str]) -> None:
    """A one-word character that is a nickname or diminutive of a more mentioned one's name joins it, and a less
    mentioned one-word character its nickname names (not one of the ``apart`` characters, a title and a given name:
    Kitty is no Lady Catherine)."""
    totals = {k: sum(c.values()) for k, c in variants.items()}
    keys_of: dict[str, list[str]] = {}
    for key in variants:
        for token in key.split():
            keys_of.setdefault(token, []).append(key)
    for word in sorted((k for k in variants if " " not in k), key=totals.get):
        if word not in variants:
            continue
        targets, stems = nickname_targets(word), tuple(short_forms(word))
        likely = [t for t in keys_of if t.lower() in targets or (stems and t.lower().startswith(stems))]
        parents = list(dict.fromkeys(k for t in likely if nickname_of(word, t, genders) for k in keys_of[t]
                                     if k != word and k in variants and k not in apart))
        more = [k for k in parents if totals[k] > totals[word]]
        if more:
            variants[max(more, key=totals.get)].update(variants.pop(word))
        elif [k for k in parents if " " not in k]:  # the nickname is the commoner name (Kitty, Catherine once)
            for k in {k for k in parents if " " not in k}:
                variants[word].update(variants.pop(k))


def join_middle_names(variants: dict[str, Counter], triples: Counter) -> None:
    """A given name, a middle name and a surname written together twice or more (``triples``: "Edward Fairfax
    Rochester") join the character of the surname alone ("Rochester", with "Mr. Rochester"): so do the characters
    named by its pairs ("Edward Fairfax") or by a title and its given name ("Mr. Edward"), and the pairs written as
    another's forms."""
    for (first, middle, last), n in triples.items():
        homes = [k for k, forms in variants.items() if last in forms]
        if n < 2 or len(homes) != 1:
            continue
        pairs = (f"{first} {middle}", f"{middle} {last}")
        for key in [k for k in variants if k != homes[0]]:
            titled = len(key.split()) == 2 and key.split()[1] == first and key.split()[0].rstrip(".") in TITLES
            if key in pairs or titled:
                variants[homes[0]].update(variants.pop(key))
                continue
            for form in set(pairs) & set(variants[key]):
                variants[homes[0]][form] += variants[key].pop(form)
            if not variants[key]:
                del variants[key]
        variants[homes[0]][f"{first} {middle} {last}"] += n


def join_titled_given_names(variants: dict[str, Counter]) -> None:
    """A title and a given name ("St. John", "Sir William") join the character that holds them with a surname
    ("St. John Rivers"), or of several, the one holding them twice as often as any other (not "St. John Eyre",
    written once)."""
    for key in titled_keys(variants, TITLES):
        held = sorted((sum(n for f, n in forms.items() if f.startswith(f"{key} ")), k) for k, forms in variants.items()
                      if k != key)
        if held and held[-1][0] and (len(held) == 1 or held[-1][0] >= 2 * held[-2][0]):
            variants[held[-1][1]].update(variants.pop(key))


def join_once_written_surnames(variants: dict[str, Counter], genders: dict[str, str], named: dict[str, set[int]],
                               articled: Counter, capitalised: Counter) -> None:
    """A given name whose full name the book writes once ("The Rev. Camden Farebrother"; "I perceived Henry
    Clerval"), listed under that full name with no form of its surname, joins the one man the book calls by that
    surname after a title or alone ("Mr. Farebrother", "Clerval"), unless the given name is a woman's, is another
    character's surname ("Mr. Fitzwilliam Darcy", once, is no reason to take Colonel Fitzwilliam's "Fitzwilliam" for
    Darcy), follows an article in half its capitalised writings (``articled``: "the Marché Lenoir", a market; "the
    Jew Volgarinov"), or the book names the two in one sentence (:func:`two_people`)."""
    surnames = {k.split()[1] for k in titled_keys(variants, TITLES)}
    for key in [k for k in variants if len(k.split()) == 2 and k.split()[0].rstrip(".") not in TITLES]:
        given, surname = key.split()
        if (sex(variants, genders, key) == "f" or given in surnames or articled[given] * 2 >= capitalised[given]
                or any(f.split()[-1] == surname for f in variants[key] if " " in f)):
            continue
        men = {k: f for k, forms in variants.items() if k != key and k.split()[-1] == surname
               and sex(variants, genders, k) == "m" for f in forms
               if f == k == surname or (f.split()[0].rstrip(".") in MALE and f.split()[1:] == [surname])}
        if len(men) == 1 and not any(two_people(named, f, given) for f in men.values()):
            variants[next(iter(men))].update(variants.pop(key))


def join_kin(variants: dict[str, Counter]) -> None:
    """"Aunt Reed" joins Mrs. Reed, "Mother Thénardier" Madame Thénardier, "Uncle Gardiner" Mr. Gardiner
    (:data:`KIN`); an aunt no wife of her surname is written for, the one unmarried woman ("Aunt Gillenormand",
    Mademoiselle Gillenormand); else the one character listed under that name alone or as its given name, whose
    titles are not the other sex's ("Uncle Silas" is Silas Phelps, "Aunt Sally" Sally)."""
    for key in titled_keys(variants, KIN):
        kin, name = key.split()
        same = [k for k in variants if k.split()[-1] == name and k.split()[0].rstrip(".") in KIN[kin]]
        if not same and kin == "Aunt":
            same = [k for k in variants if k.split()[-1] == name and k.split()[0].rstrip(".") in UNMARRIED]
        if not same:  # a given name: the sexes its titles and the kin's say (not the pronouns, maybe another's)
            kin_sex = gender(variants[key], None)
            same = [k for k in listed_under(variants, name) if k != key
                    and gender(variants[k], None) not in OTHER_SEX.get(kin_sex, ())]
        if len(same) == 1:
            variants[same[0]].update(variants.pop(key))


def join_eldest_daughters(variants: dict[str, Counter], genders: dict[str, str]) -> None:
    """"Miss Bennet" alone names the eldest unmarried daughter of the family: it joins the one woman whose full name
    the book writes with that surname (Jane Eyre; "Jane Bennet" once); of several, the one not written "Miss" with her
    given name (her younger sisters are "Miss Elizabeth", "Miss Lydia") unless those left are named less than a fifth
    as often as one of her (Middlemarch's Rosamond Vincy, once "Miss Rosamond", is Miss Vincy, not her aunt Harriet,
    a Vincy before she married), and of those still several, one mentioned twice as often as any other (Blanche
    Ingram). The one woman of that surname is not her when the book calls her "Miss" with her given name in a tenth
    of her mentions or more: a younger sister whose elder the book names otherwise (Jane Eyre's Georgiana Reed,
    "Miss Georgiana" 6 times in 43, is not Miss Reed, Eliza)."""
    for key in titled_keys(variants, UNMARRIED):
        title, surname = key.split()
        women = [k for k in variants if len(k.split()) == 2 and k.split()[1] == surname
                 and k.split()[0].rstrip(".") not in TITLES and sex(variants, genders, k) != "m"]
        given = {k: sum(c for f, c in variants[k].items() if f.startswith(f"{title} {k.split()[0]}")) for k in women}
        eldest = [k for k in women if not given[k]]
        if len(women) > 1 and 5 * max((variants[k].total() for k in eldest), default=0) > max(
                variants[k].total() for k in women):
            women = eldest
        elif len(women) == 1 and 10 * given[women[0]] >= variants[women[0]].total():
            continue
        mentions = sorted((sum(variants[k].values()), k) for k in women)
        if mentions and (len(mentions) == 1 or mentions[-1][0] >= 2 * mentions[-2][0]):
            variants[mentions[-1][1]].update(variants.pop(key))


def join_married_names(variants: dict[str, Counter], genders: dict[str, str]) -> None:
    """A woman's given name with a man's surname ("Jane Rochester", Mr. Rochester's) is her married name: it joins
    the character of her given name with another surname mentioned twice as often (Jane Eyre; not Mary Rivers and
    Mary Ingram, two women)."""
    men = {k.split()[-1] for k in variants if gender(variants[k], genders.get(k.split()[-1])) == "m"}
    for key in [k for k in variants if len(k.split()) == 2 and k.split()[0].rstrip(".") not in TITLES]:
        given, surname = key.split()
        if genders.get(given) != "f" or surname not in men:
            continue
        maiden = [k for k in variants if k != key and k.split()[0] == given and len(k.split()) == 2
                  and sum(variants[k].values()) >= 2 * sum(variants[key].values())]
        if len(maiden) == 1:
            variants[maiden[0]].update(variants.pop(key))


def join_lone_wives(variants: dict[str, Counter], genders: dict[str, str]) -> None:
    """"Mrs. Poole", where no man of the book bears the surname, is the one woman it writes with her given name and
    that surname ("Grace Poole") and never as "Miss" and that surname ("Miss Nelly", as Wuthering Heights's Mrs. Dean
    is teased, is no daughter): a widow, or a wife whose husband the story does not show
    ("Madame Karenina" is Anna; wrongly, Frankenstein's "Madame Moritz" is taken for Justine, her daughter)."""
    for wife in titled_keys(variants, MARRIED):
        surname = wife.split()[1]
        bearers = [k for k, forms in variants.items() if k != wife
                   and any(f.split()[-1] == surname for f in forms if " " in f)]
        women = [k for k in bearers if sex(variants, genders, k) != "m"
                 and any(f.split()[0].rstrip(".") not in TITLES for f in variants[k] if f.endswith(f" {surname}"))
                 and not any(f.split()[0] in UNMARRIED and f.split()[-1] == surname for f in variants[k])]
        if len(women) == 1 and all(sex(variants, genders, k) != "m" for k in bearers):
            variants[women[0]].update(variants.pop(wife))


def written_at(text: str) -> Callable[[str], tuple[float, float]]:
    """Where ``text`` first and second writes a name (infinity for each it does not), each name looked for once and
    only as far as its second writing."""
    @cache
    def at(name: str) -> tuple[float, float]:
        found = islice(re.finditer(rf"\b{written_as(as_written(name))}\b", text), 2)
        return (*(m.start() for m in found), math.inf, math.inf)[:2]

    return at


def join_wives(variants: dict[str, Counter], genders: dict[str, str], seen: Callable[[str], tuple[float, float]],
               sentences: list[str], starts: list[int]) -> None:
    """"Mrs. Lydgate" is the married name of a woman of another surname ("Rosamond Vincy") whom the book names
    beside that man (the surname's :func:`bearer`) and a word of marriage ("married", "wife", in one sentence)
    before it writes "Mrs. Lydgate" a second time (``starts``: where each sentence begins), three times at least and
    more often, for how often she is named, than any other such woman: twice as often, or she alone of them is
    written once with his surname ("Lydia Wickham"). (A wife married before the story, "Mrs. Hurst" before "Louisa",
    stays apart: her mother-in-law would pass the same test.)"""
    owner = {form: key for key, forms in variants.items() for form in forms}
    beside = {n: {owner[f] for form in FORM.finditer(sentence) for f in written_names(form) if f in owner}
              for n, sentence in enumerate(sentences) if MARRIAGE.search(sentence)}

    def second_seen(key: str) -> float:
        return sorted(at for form in variants[key] for at in seen(form))[1]  # among each form's first two

    def wed_after(husband: str, woman: str, wife: str) -> bool:
        """Whether the book writes ``wife`` a second time after a sentence naming ``husband`` and ``woman`` and a
        marriage (Mrs. Churchill, written from the start, is no wife the story gives Mr. Churchill; Emma's "a Mrs.
        Weston", written once before Miss Taylor's match is talked of, is Miss Taylor all the same)."""
        spoken = next((n for n, keys in beside.items() if husband in keys and woman in keys), len(sentences))
        return spoken < len(sentences) and starts[spoken] < second_seen(wife)

    for wife in titled_keys(variants, MARRIED):
        surname = wife.split()[1]
        husband = bearer(variants, genders, surname, wife)
        if husband is None or sex(variants, genders, husband) != "m":
            continue
        his = [keys for keys in beside.values() if husband in keys]
        together = Counter({k: sum(k in keys for keys in his) for k in variants
                            if k not in (wife, husband) and k.split()[0].rstrip(".") not in MARRIED
                            and sex(variants, genders, k) == "f"
                            and not any(f.split()[-1] == surname for f in variants[k] if " " in f)})
        ranked = sorted(((n / variants[k].total() ** 0.5, k) for k, n in together.items()
                         if n >= 3 and wed_after(husband, k, wife)), reverse=True)
        signed = [k for _, k in ranked if seen(f"{first_name(k)} {surname}")[0] < math.inf]  # "Lydia Wickham", once
        if len(signed) == 1:
            variants[signed[0]].update(variants.pop(wife))
        elif ranked and (len(ranked) == 1 or ranked[0][0] >= 2 * ranked[1][0]):
            variants[ranked[0][1]].update(variants.pop(wife))


SPEECH = r"(?:said|cried|replied|answered|returned|asked|exclaimed|continued|added|rejoined|observed|remarked)"
"""Verbs that say who speaks a paragraph of dialogue ("said Mr. Bingley", "Lydgate answered")."""
SPOKEN_NAME = rf"(?:{NAME_WORD}\.?\s+)?" + PARTICLE + NAME_WORD
SPEAKER = re.compile(rf"\b{SPEECH}\s+(?:the\s+)?({SPOKEN_NAME})|({SPOKEN_NAME})\s+{SPEECH}\b")
"""Who speaks: a name (with its title) after or before one of the :data:`SPEECH` verbs."""


def speakers(text: str) -> Iterator[str]:
    """The names :data:`SPEAKER` finds speaking in ``text``, in order, their spacing collapsed."""
    return (" ".join(name.split()) for m in SPEAKER.finditer(text) for name in m.groups() if name)
ADDRESSED = 3
"""The least times a given name must be said to one character (by whoever speaks the paragraph next to it)."""


def story_paragraphs(book: Book) -> list[str]:
    """The story's paragraphs as the book writes them (from a paragraph's first sentence to its last)."""
    first = book.first_read
    if first >= len(book):
        return []
    cuts = np.flatnonzero(np.diff(book.paragraph_of[first:])) + 1 + first
    return [book.span_text(a, b - 1) for a, b in zip([first, *cuts], [*cuts, len(book)], strict=True)]


def join_addressed(variants: dict[str, Counter], paragraphs: list[str]) -> None:
    """A given name the book writes only alone ("Tertius", "Susan", or "Harry" with the "Henry" it is a nickname
    of) joins the character it is said to in dialogue, when that character is only ever called by a title and a
    surname (Lydgate, Mrs. Garth) or has that given name (The Picture of Dorian Gray's "Lord Henry", whom Basil and
    Dorian call Harry; a title and a given name are kept apart from a nickname otherwise, :func:`join_nicknames`):
    in a paragraph that says it as a vocative ("'Do not go, Tertius'", "my dear Charles"), the one spoken to is most
    often who speaks the paragraph before or after it ("said Lydgate"); at least :data:`ADDRESSED` times, and two
    thirds of such speakers. (Charles, said to Mr. Bingley once by a speaker the book names, stays apart.)"""
    def titled_only(forms: Counter) -> bool:
        words = [f.split() for f in forms]
        surnames = {w[-1] for w in words if len(w) == 2}
        return bool(surnames) and all(w[0].rstrip(".") in TITLES if len(w) > 1 else w[0] in surnames for w in words)

    lone = {form: key for key, forms in variants.items() if " " not in "".join(forms) and "_" not in key
            for form in forms}
    if not lone:
        return
    owner = {as_written(form): key for key, forms in variants.items() for form in forms}
    untitled = {key for key, forms in variants.items() if titled_only(forms)}

    def spoken_to(key: str, given: str) -> bool:
        return key in untitled or (key not in lone.values() and first_name(key) in variants[given])

    @cache
    def speaker(n: int) -> str | None:
        if not 0 <= n < len(paragraphs):
            return None
        return next((owner[name] for name in speakers(paragraphs[n]) if name in owner), None)

    vocative = re.compile(rf"(?:[,'\"“‘!?—]\s*|\b[Dd]ear(?:est)?\s+|\b[Oo]h,?\s+)({'|'.join(map(re.escape, lone))})"
                          r"\s*[,!?.'\"”’—]")
    votes: dict[str, Counter] = {}
    for n, paragraph in enumerate(paragraphs):
        for given in {lone[m.group(1)] for m in vocative.finditer(paragraph)}:
            votes.setdefault(given, Counter()).update(
                speaker(j) for j in (n - 1, n + 1) if speaker(j) and spoken_to(speaker(j), given)
                and speaker(j) != speaker(n))
    for given, said_to in votes.items():
        (key, most), = said_to.most_common(1) or [("", 0)]
        if most >= ADDRESSED and 3 * most >= 2 * said_to.total():
            variants[key].update(variants.pop(given))


ALIAS = re.compile(rf"({NAME_WORD}(?:[ \t]+{NAME_WORD})?),[ \t]+(?:alias|called|known[ \t]+as)[ \t]+"
                   rf"({NAME_WORD}(?:[ \t]+{NAME_WORD})?)\b")
"""A name the book gives another by ("Charles Evrémonde, called Darnay", "Panchaud, alias Printanier")."""


def join_aliases(variants: dict[str, Counter], text: str) -> None:
    """Two characters the book gives one as the other's alias (:data:`ALIAS`) twice or more are one, listed under
    the more mentioned (A Tale of Two Cities's Charles Evrémonde is Charles Darnay)."""
    owner = {as_written(form): key for key, forms in variants.items() for form in forms}
    said = Counter(tuple(owner.get(" ".join(name.split())) for name in m.groups()) for m in ALIAS.finditer(text))
    for (one, other), n in said.items():
        if n >= 2 and one and other and one != other and one in variants and other in variants:
            keep, join = sorted((one, other), key=lambda k: -variants[k].total())
            variants[keep].update(variants.pop(join))


MARRIAGE = re.compile(r"\b(?:marr(?:y|ies|ied|ying|iage)|wife|husband|wedding|wedded|bride|engaged)\b", re.I)


def written_names(form: re.Match) -> list[str]:
    """A :data:`FORM` match as the name index writes it ("Mr. Darcy", "Miss Lydia"), else its two words apart (a
    sentence's first word before a name: "When Lydia")."""
    title, first, last = name_parts(form)
    whole = written_name(title, first, last)
    return [whole] if not last else [whole, written_name(title, first), last]


def gender(forms: Counter, said: str | None) -> str | None:
    """A character's sex, "m" or "f", from the titles it is written with, else as ``said`` by pronouns."""
    titles = {f.split()[0].rstrip(".") for f in forms if " " in f}
    if titles & MALE and not titles & FEMALE:
        return "m"
    if titles & FEMALE and not titles & MALE:
        return "f"
    return said


def sex(variants: dict[str, Counter], genders: dict[str, str], key: str) -> str | None:
    """The sex of character ``key`` (:func:`gender`), the pronouns after its first word speaking where its titles
    do not."""
    return gender(variants[key], genders.get(key.split()[0]))


def pronoun_genders(text: str, names: set[str]) -> dict[str, str]:
    """Each name's sex as the pronouns after it say: "m" or "f" where two thirds of them agree."""
    votes: dict[str, Counter] = {}
    for name, pronoun in PRONOUN.findall(text):
        if name in names:
            votes.setdefault(name, Counter())["f" if pronoun.startswith(("s", "her")) else "m"] += 1
    return {name: sex for name, counted in votes.items() for sex, n in counted.items() if n * 3 >= 2 * counted.total()}


def name_parts(form: re.Match) -> tuple[str, str, str]:
    """A :data:`FORM` match's title, name and surname, a particle joined to its name by "_" ("de_Bourgh": one word
    until :func:`character` lists it)."""
    title, first, last = ("_".join(part.split()) for part in form.groups(""))
    return title, first, last


def as_written(form: str) -> str:
    """A form the index keeps (:func:`name_parts`) as the book writes it ("Miss de Bourgh")."""
    return form.replace("_", " ")


def named_word(word: str) -> str:
    """The capitalised word of a name with its particle ("Bourgh" of "de_Bourgh")."""
    return word.rpartition("_")[2]


def written_forms(text: str, names: set[str], author: str) -> tuple[Counter, Counter]:
    """How often each (title, name, surname) is written, and each full name (given name, surname) written twice
    or more (a pair seen once, "London Lydia", counts as its first name alone; the author's name is no pair)."""
    written: Counter[tuple[str, str, str]] = Counter()
    for form in FORM.finditer(text):
        title, first, last = name_parts(form)
        if title and title not in ABBREVIATED and text[form.end(1)] == ".":
            title = ""  # "yes, Miss. Bessie said": a sentence ends after the title
        if named_word(first) in names:
            written[(title, first, last if named_word(last) in names else "")] += 1
    pairs = Counter()
    for (_, first, last), n in written.items():
        if last and [first, last] != author.split()[-2:]:
            pairs[(first, last)] += n
    for (title, first, last), n in list(written.items()):
        if last and pairs[(first, last)] < 2:
            del written[(title, first, last)]
            written[(title, first, "")] += n
    return written, +pairs


def character(key: str, counter: Counter) -> Character:
    """A character from its written forms: listed under its most written full name, else its commonest form."""
    forms = [v for v, _ in counter.most_common()]
    full = [v for v in forms if len(v.split()) == 2 and v.split()[0].rstrip(".") not in (*TITLES, *RANKED)]
    name = max(full, key=counter.get) if full else forms[0]
    return Character(as_written(name), list(dict.fromkeys(map(as_written, [name, *forms]))),
                     sum(counter.values()))


def written_name(title: str, *names: str) -> str:
    """A name as the index writes it: its title (:func:`with_stop`) and its words, those given ("Mr. Darcy")."""
    return " ".join(filter(None, [with_stop(title), *names]))


def with_stop(title: str) -> str:
    """A title as written: "Mr." takes a full stop, "Miss" does not."""
    return f"{title}." if title in ABBREVIATED else title


def nickname_parent(word: str, firsts: set[str], counts: Counter, genders: dict[str, str]) -> str | None:
    """The more mentioned given name ``word`` is a nickname or a diminutive of, if any."""
    parents = [w for w in firsts if w != word and counts[w] > counts[word] and nickname_of(word, w, genders)]
    return max(parents, key=lambda w: counts[w]) if parents else None


def nickname_of(word: str, name: str, genders: dict[str, str]) -> bool:
    """Whether ``word`` may be a nickname or a diminutive of the name ``name``: one of its :func:`nickname_targets`,
    or (of a sex the pronouns do not say differs, and not a name the ``nicknames`` table gives nicknames of its own)
    a longer name a short form of it begins (Rosy: Rosamond, Dodo: Dorothea; not Harry: Harriet, nor Mary or Marie:
    Marius)."""
    lowered = name.lower()
    if lowered in nickname_targets(word):
        return True
    return (any(lowered.startswith(stem) and len(lowered) > len(stem) + 1 for stem in short_forms(word))
            and not nick_namer().nicknames_of(word.lower())
            and genders.get(word, genders.get(name)) == genders.get(name, genders.get(word)))


@lru_cache(maxsize=4096)
def short_forms(word: str) -> frozenset[str]:
    """What a diminutive may shorten, of three letters or more (Rosy: "ros"), or a doubled syllable's one (Dodo:
    "do")."""
    word = word.lower()
    doubled = {word[:2]} if len(word) == 4 and word[:2] == word[2:] else set()
    return frozenset(doubled | {word.removesuffix(end) for end in ("y", "ie") if word.endswith(end)
                                and len(word) - len(end) >= 3})


@lru_cache(maxsize=4096)
def nickname_targets(word: str) -> frozenset[str]:
    """The names (lower-cased) ``word`` may be a nickname of (Lizzy: elizabeth, from the ``nicknames`` table) or a
    diminutive of (Ratty: rat, Toady: toad, Moly: mole, Janet: jane)."""
    word = word.lower()
    out = set(canonical_names(word))
    for end in ("y", "ie", "ey", "et", "kins"):
        stem = word.removesuffix(end)
        if stem != word and len(stem) >= 2:
            stems = {stem, stem[:-1]} if stem[-1] == stem[-2] else {stem}
            out |= stems | {f"{s}e" for s in stems}
    return frozenset(out)


@lru_cache(maxsize=4096)
def canonical_names(word: str) -> frozenset[str]:
    """The given names ``word`` is a nickname of (the ``nicknames`` table, in either spelling of a final -y/-ie:
    it lists "kittie" but not "kitty")."""
    spellings = {word, re.sub(r"ie$", "y", word), re.sub(r"y$", "ie", word)}
    return frozenset(name for spelled in spellings for name in nick_namer().canonicals_of(spelled))


@lru_cache(maxsize=1)
def nick_namer():
    from nicknames import NickNamer

    return NickNamer()
