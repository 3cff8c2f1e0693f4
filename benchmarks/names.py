"""How many of the character names found are people, and how well their variants are merged:
``python -m benchmarks.names [--name F]``.

The names list of four corpus novels, each name checked by hand (``PEOPLE``: a person or an animal of the story,
or a person its characters speak of; ``NOT_PEOPLE``: places, languages, books, words, families, names from a
preface). Prints per novel the names listed, how many are people (precision) and any name not checked by hand
yet. To measure the name finder of another checkout, run this from it (``git worktree add /tmp/before HEAD~1``,
then ``cd /tmp/before && python -m benchmarks.names --name names_before``).

Merged names: ``benchmarks/names/<novel>.txt`` lists a novel's characters by hand, one a line with the names the
book calls them by (the app's own format, :meth:`NameIndex.from_text`), each name a reader of the novel knows is
that character's. Of every two of those names the book writes at least :data:`WRITTEN` times on their own (not as
part of a longer name: "Collins" alone, not in "Mr. Collins"), the pair is *alike* when one character has both; the
name index found merges a pair when one of its characters lists both. Precision: of the pairs merged, how many are
alike; recall: of the pairs alike, how many are merged. Pride and Prejudice and Jane Eyre were read while the
merging rules were written; Middlemarch's list was written before its names were looked at, and its misses were read
for the rules of stop 47 (the short forms, a bare surname a man's, the wives); Emma's list was written before its
names were read (stop 47), held out until stop 51, and read for that stop's rules; Les Misérables's was written
before its names were read (stop 75: precision 0.889, recall 0.170), then read; A Tale of Two Cities's and The
Picture of Dorian Gray's, held out from stop 51, were read for stop 79's rules. Frankenstein's and Huckleberry Finn's
(held out from stop 79) and Wuthering Heights's (from stop 80) were read in stop 82. The lists of :data:`HELD_OUT`
were written from the novels before any of their merged names were read (stop 82): for them only the figures are
printed and kept, never which pairs were missed or wrongly merged, so that no rule is made from them.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from itertools import combinations
from pathlib import Path

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book
from elite_ui.book.names import FORM, LEAST, NameIndex, build_names, story_text, written_as

LISTS = Path(__file__).with_name("names")
WRITTEN = LEAST
"""A hand-listed name counts when the book writes it this often (the name finder's own least)."""
HELD_OUT = {"anna-karenina.txt", "the-scarlet-letter.txt", "the-wind-in-the-willows.txt", "white-fang.txt"}

PEOPLE = {
    "pride-and-prejudice.txt": {
        "Elizabeth Bennet", "Mr. Darcy", "Jane", "Mr. Bingley", "Wickham", "Mrs. Bennet", "Lydia", "Lydia Bennet",
        "Mr. Collins", "Lady Catherine", "Miss Bingley", "Mr. Bennet", "Charlotte Lucas", "Kitty", "Miss Bennet",
        "Mrs. Gardiner", "Miss Darcy", "Mary", "Sir William", "Miss Lucas", "Mr. Gardiner", "Colonel Fitzwilliam",
        "Mrs. Collins", "Mrs. Philips", "Colonel Forster", "Mrs. Hurst", "Maria Lucas", "Lady Lucas", "Caroline",
        "Georgiana", "Mr. Hurst", "Catherine", "Sir William Lucas", "Mrs. Forster", "Mr. Denny", "George Wickham",
        "Mrs. Jenkinson", "Mrs. Reynolds", "Charles", "Louisa", "Fitzwilliam", "Mr. Philips", "Mr. Jones", "Anne",
        "Captain Carter", "Mrs. Younge", "Mr. Robinson", "Sir Lewis", "Mrs. Annesley", "Mrs. Wickham", "John",
        "Philips", "Miss de Bourgh", "Sir Lewis de Bourgh"},
    "jane-eyre.txt": {
        "Mr. Rochester", "Jane Eyre", "John Reed", "Fairfax Rochester", "Bessie Leaven", "Mrs. Reed", "Mary Ingram",
        "Diana", "Helen Burns", "Miss Ingram", "Miss Temple", "Mason", "Mr. Brocklehurst", "Miss Eyre",
        "Georgiana Reed", "Mr. Rivers", "Hannah", "Eliza", "Rosamond Oliver", "Leah", "Sophie", "Pilot",
        "Miss Miller", "Miss Scatcherd", "Edward Fairfax", "Janet", "Colonel Dent", "Blanche Ingram",
        "Louisa Eshton", "Mr. Briggs", "Carter", "Mr. Lloyd", "Robert Leaven", "Mrs. Poole", "Sam", "Richard",
        "Mr. Oliver", "Sir George Lynn", "Amy Eshton", "Mrs. Dent", "Mrs. Rochester", "Varens", "Mr. Eshton",
        "Lady Lynn", "Misses Eshton", "John Rivers", "Lord Ingram", "Bertha Mason", "Carlo", "Mr. Reed",
        "Aunt Reed", "Miss Smith", "Mr. Eyre", "Miss Varens", "Mrs. Eshton", "Lady Ingram", "Henry Lynn",
        "Madame Pierrot", "Alice", "Mary Ann", "Miss Reed", "Mr. Rowland", "Mesrour", "Jane Rochester",
        "Jane Elliott", "Mary Rivers", "Gulliver", "Temple", "Charles", "Mr. Bates", "Mrs. Leaven",
        "Frederick Lynn", "Sibyl", "Gibson", "Samson", "John Eyre", "Jesus", "Barbara", "Wilson", "Julia",
        "Mrs. Fairfax", "Mary", "John", "Reed", "Grace Poole", "Adèle", "Adela", "Céline Varens"},
    "the-wind-in-the-willows.txt": {"Toad", "Rat", "Mole", "Badger", "Otter", "Portly", "Billy", "Chairman"},
    "the-scarlet-letter.txt": {"Hester Prynne", "Pearl", "Arthur Dimmesdale", "Roger Chillingworth", "John Wilson",
                               "Mistress Hibbins", "Prynne", "Bellingham", "Isaac Johnson", "Master Brackett"},
}
NOT_PEOPLE = {
    "pride-and-prejudice.txt": {"Miss Austen", "Lakes", "Tis", "Emma", "Lucases", "Bingleys", "Gardiners",
                                "Collinses", "Miss Bennets", "St. James"},
    "jane-eyre.txt": {"Hindostanee", "Gytrash", "Leas", "Bible", "Maker", "Psalms", "Humph", "Marmion", "Rasselas",
                      "Christians", "Creole", "Aye", "Missis", "Publishers", "Rochesters", "Fielding"},
    "the-wind-in-the-willows.txt": set(),
    "the-scarlet-letter.txt": {"Puritan", "Puritanic", "Sabbath", "Indians", "Rev", "Massachusetts", "Elizabethan",
                               "European", "Atlantic", "Hebrew"},
}


def merged_pairs(index: NameIndex, names: set[str]) -> set[frozenset[str]]:
    """The pairs of ``names`` one character of ``index`` lists both of."""
    return {frozenset(pair) for c in index.characters for pair in combinations(sorted(set(c.variants) & names), 2)}


def aliases(novel: str) -> dict:
    """Precision and recall of the name index's merged pairs against the hand-made list of ``novel``."""
    book = load_book(CORPUS / novel)
    text = story_text(book)
    listed = NameIndex.from_text((LISTS / novel).read_text(encoding="utf-8"))
    alone = Counter(" ".join(m.group(0).split()) for m in FORM.finditer(text))
    written = {v for c in listed.characters for v in c.variants
               if (alone[v] if len(v.split()) < 3 else len(re.findall(rf"\b{written_as(v)}\b", text))) >= WRITTEN}
    alike = merged_pairs(listed, written)
    merged = merged_pairs(build_names(book), written)
    right = alike & merged
    figures = {"held_out": novel in HELD_OUT, "names": len(written), "alike": len(alike), "merged": len(merged),
               "precision": round(len(right) / max(len(merged), 1), 3),
               "recall": round(len(right) / max(len(alike), 1), 3)}
    if novel in HELD_OUT:
        return figures
    said = lambda pairs: sorted(" = ".join(sorted(p)) for p in pairs)  # noqa: E731
    return figures | {"wrongly_merged": said(merged - alike), "missed": said(alike - merged)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="names", help="the results file's name (the merged names': its _aliases)")
    args = parser.parse_args()
    merging = {novel: aliases(novel) for novel in sorted(p.name for p in LISTS.glob("*.txt"))}
    for novel, figures in merging.items():
        print(novel, figures, flush=True)
    figures = {}
    for novel, people in PEOPLE.items():
        listed = [c.name for c in build_names(load_book(CORPUS / novel)).characters]
        right = [n for n in listed if n in people]
        wrong = [n for n in listed if n in NOT_PEOPLE[novel]]
        figures[novel] = {"listed": len(listed), "people": len(right), "not_people": wrong,
                          "precision": round(len(right) / max(len(right) + len(wrong), 1), 3),
                          "unchecked": [n for n in listed if n not in people and n not in NOT_PEOPLE[novel]]}
        print(novel, figures[novel], flush=True)
    write_figures(args.name, figures)
    write_figures(f"{args.name}_aliases", merging)


if __name__ == "__main__":
    main()
