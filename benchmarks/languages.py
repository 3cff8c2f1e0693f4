"""Books beyond English: ``python -m benchmarks.languages [--paragraphs N]``.

For each generated sample novel (tests/languages.py: French, German, Spanish, Chinese), every question's own
content words are searched (no model) and the rank of the sentence holding its answer is reported, once with the
book read as English (English stopwords, lemminflect, words cut at spaces: what the app did before) and once with
its own lexicon; hit@1 and hit@8 are the share of questions whose fact ranks first or in the top 8 (the laptop
preset's recall_index), and the candidate share is the share of the book's sentences that share a word with the
question (stopwords read as content make it large). Also: load time per MB (the better of two loads, so the
first load's imports do not count), and the size of the word index.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from benchmarks import write_figures
from elite_ui.book import load_book
from elite_ui.methods.elite.retrieval import collect
from elite_ui.methods.elite.settings import RetrievalSettings
from elite_ui.testing.languages import SAMPLES, sample_text


def rank(book, question: str, fact: str) -> tuple[int | None, int]:
    """The fact's rank and how many sentences share a word with the question."""
    hits = collect(book, book.lexicon.content_words(question), RetrievalSettings(recall_index=len(book)))
    return next((h.rank for h in hits if h.text == fact), None), len(hits)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=400, help="filler paragraphs per chapter")
    args = parser.parse_args()
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        for language in sorted(SAMPLES):
            text, sample = sample_text(language, paragraphs=args.paragraphs)
            path = Path(folder) / f"{language}.txt"
            path.write_text(text, encoding="utf-8")
            seconds = []
            for _ in range(2):
                started = time.perf_counter()
                book = load_book(path)
                seconds.append(time.perf_counter() - started)
            seconds = min(seconds)
            english = book.read_as("en")
            own, own_candidates = zip(*(rank(book, q, fact) for fact, q, _ in sample.facts), strict=True)
            as_english, english_candidates = zip(*(rank(english, q, fact) for fact, q, _ in sample.facts), strict=True)
            mb = path.stat().st_size / 2**20

            def hit(ranks, k):
                return round(sum(r is not None and r <= k for r in ranks) / len(ranks), 3)

            figures[language] = {
                "detected": book.language, "sentences": len(book), "mb": round(mb, 2),
                "load_s_per_mb": round(seconds / mb, 2), "vocabulary": len(book.index.vocabulary),
                "english_vocabulary": len(english.index.vocabulary),
                "ranks_own": own, "ranks_as_english": as_english,
                "candidate_share_own": round(sum(own_candidates) / len(own) / len(book), 3),
                "candidate_share_as_english": round(sum(english_candidates) / len(own) / len(book), 3),
                "hit1_own": hit(own, 1), "hit8_own": hit(own, 8),
                "hit1_as_english": hit(as_english, 1), "hit8_as_english": hit(as_english, 8),
            }
            print(f"{language}: detected {book.language}, {len(book):,} sentences, {mb:.2f} MB, "
                  f"{seconds / mb:.2f} s/MB; fact ranks own {own} (hit@1 {figures[language]['hit1_own']}), "
                  f"as English {as_english} (hit@1 {figures[language]['hit1_as_english']}); sentences sharing a word "
                  f"with the question {figures[language]['candidate_share_own']:.0%} vs "
                  f"{figures[language]['candidate_share_as_english']:.0%} as English; vocabulary "
                  f"{len(book.index.vocabulary):,} vs {len(english.index.vocabulary):,} as English")
    write_figures("languages", figures)


if __name__ == "__main__":
    main()
