"""Nothing beyond the reader's ceiling, on any surface: ``python -m benchmarks.leaks [--questions 500]``.

The leak harness (:mod:`elite_ui.testing.leaks`) over six novels of the corpus, each at three ceilings (20%, 40%
and 60% of the book), asked questions until ``--questions`` in all by a scripted model that knows the whole novel
(its terms and answers name the characters the reader has not met). Prints, per surface, how many were scanned
and how many showed a sentence or a character name from beyond the ceiling.
"""

from __future__ import annotations

import argparse
import itertools

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book
from elite_ui.book.names import found_names
from elite_ui.testing.leaks import Leaks, scan

NOVELS = ["pride-and-prejudice.txt", "jane-eyre.txt", "emma.txt", "the-wind-in-the-willows.txt",
          "a-tale-of-two-cities.txt", "wuthering-heights.txt"]
ASKED = ["Who does {a} marry?", "What happens to {a} in the end?", "Where does {a} live?",
         "What does {a} think of {b}?", "Why does {a} leave?", "Who is {b}?", "What secret does {a} keep?",
         "How does {a} meet {b}?", "What does {b} give {a}?", "Who dies?"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=500)
    args = parser.parse_args()
    leaks = Leaks()
    places = [(novel, share) for novel in NOVELS for share in (0.2, 0.4, 0.6)]
    per_place = -(-args.questions // len(places))
    asked = 0
    for novel, share in places:
        book = load_book(CORPUS / novel)
        ceiling = f"{share:.0%}"
        people = [c.name for c in found_names(book).characters[:6]] or ["the hero", "the heroine"]
        pairs = itertools.cycle(itertools.permutations(people, 2))
        templates = itertools.islice(itertools.cycle(ASKED), per_place)
        questions = [template.format(a=a, b=b) for template, (a, b) in zip(templates, pairs, strict=False)]
        scan(book, ceiling, questions[: args.questions - asked], leaks)
        asked += len(questions[: args.questions - asked])
        print(novel, ceiling, dict(leaks.beyond), flush=True)
    figures = {"questions": asked, "places": len(places), "scanned": dict(leaks.scanned),
               "beyond": dict(leaks.beyond), "examples": leaks.examples}
    print(figures)
    write_figures("leaks", figures)


if __name__ == "__main__":
    main()
