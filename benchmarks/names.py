"""How many of the character names found are people: ``python -m benchmarks.names [--name F]``.

The names list of three corpus novels, each name checked by hand (``PEOPLE``: a person or an animal of the story,
or a person its characters speak of; ``NOT_PEOPLE``: places, languages, books, words, families, names from a
preface). Prints per novel the names listed, how many are people (precision) and any name not checked by hand
yet. To measure the name finder of another checkout, run this from it (``git worktree add /tmp/before HEAD~1``,
then ``cd /tmp/before && python -m benchmarks.names --name names_before``).
"""

from __future__ import annotations

import argparse

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book
from elite_ui.book.names import build_names

PEOPLE = {
    "pride-and-prejudice.txt": {
        "Elizabeth Bennet", "Mr. Darcy", "Jane", "Mr. Bingley", "Wickham", "Mrs. Bennet", "Lydia", "Lydia Bennet",
        "Mr. Collins", "Lady Catherine", "Miss Bingley", "Mr. Bennet", "Charlotte Lucas", "Kitty", "Miss Bennet",
        "Mrs. Gardiner", "Miss Darcy", "Mary", "Sir William", "Miss Lucas", "Mr. Gardiner", "Colonel Fitzwilliam",
        "Mrs. Collins", "Mrs. Philips", "Colonel Forster", "Mrs. Hurst", "Maria Lucas", "Lady Lucas", "Caroline",
        "Georgiana", "Mr. Hurst", "Catherine", "Sir William Lucas", "Mrs. Forster", "Mr. Denny", "George Wickham",
        "Mrs. Jenkinson", "Mrs. Reynolds", "Charles", "Louisa", "Fitzwilliam", "Mr. Philips", "Mr. Jones", "Anne",
        "Captain Carter", "Mrs. Younge", "Mr. Robinson", "Sir Lewis", "Mrs. Annesley", "Mrs. Wickham", "John"},
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
        "Frederick Lynn", "Sibyl", "Gibson", "Samson", "John Eyre", "Jesus", "Barbara", "Wilson", "Julia"},
    "the-wind-in-the-willows.txt": {"Toad", "Rat", "Mole", "Badger", "Otter", "Portly", "Billy", "Chairman"},
}
NOT_PEOPLE = {
    "pride-and-prejudice.txt": {"Miss Austen", "Lakes", "Tis", "Emma", "Lucases", "Bingleys", "Gardiners",
                                "Collinses", "Miss Bennets"},
    "jane-eyre.txt": {"Hindostanee", "Gytrash", "Leas", "Bible", "Maker", "Psalms", "Humph", "Marmion", "Rasselas",
                      "Christians", "Creole", "Aye", "Missis", "Publishers", "Rochesters", "Fielding"},
    "the-wind-in-the-willows.txt": set(),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="names", help="the results file's name")
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
