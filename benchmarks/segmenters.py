"""How the sentence segmenters compare on ../shared/corpus: ``python -m benchmarks.segmenters``.

For each novel, a 40,000-character sample from its middle is cut into the loader's paragraphs, line breaks inside
a paragraph become spaces (hard-wrapped lines are not sentences), and each paragraph is segmented by raw
blingfire, syntok and pysbd; the loader's own result (blingfire with its repairs) is taken as it is. pysbd
(rule-based, tested on the "Golden Rules" set) is the reference: boundary F1 of the others against it, and
seconds per MB of sample.
"""

from __future__ import annotations

import statistics
import time

import blingfire
import pysbd
import syntok.segmenter

from benchmarks import CORPUS, write_figures
from elite_ui.book.segment import paragraph_spans, sentence_bounds
from elite_ui.book.text import repair, strip_gutenberg

SAMPLE = 40_000


def loader(text: str) -> set[int]:
    bounds, _ = sentence_bounds(text, paragraph_spans(text))
    return set(bounds[:, 0].tolist())


def per_paragraph(segment):
    """Run ``segment`` (text -> start offsets) on each paragraph, line breaks made spaces."""
    def run(text: str) -> set[int]:
        out = set()
        for start, end in paragraph_spans(text):
            out.update(start + offset for offset in segment(text[start:end].replace("\n", " ")))
        return out
    return run


@per_paragraph
def raw_blingfire(text: str) -> list[int]:
    return [start for start, _ in blingfire.text_to_sentences_and_offsets(text)[1]]


@per_paragraph
def syntok_starts(text: str) -> list[int]:
    return [sentence[0].offset for paragraph in syntok.segmenter.analyze(text) for sentence in paragraph]


PYSBD = pysbd.Segmenter(language="en", clean=False, char_span=True)


@per_paragraph
def pysbd_starts(text: str) -> list[int]:
    return [span.start for span in PYSBD.segment(text)]


SEGMENTERS = {"loader (blingfire + repairs)": loader, "blingfire": raw_blingfire, "syntok": syntok_starts}


def first_word(text: str, offsets: set[int]) -> set[int]:
    """Offsets moved to the next non-space character, so that segmenters agree on where a sentence starts."""
    out = set()
    for offset in offsets:
        while offset < len(text) and text[offset].isspace():
            offset += 1
        out.add(offset)
    return out


def main() -> None:
    scores = {name: [] for name in SEGMENTERS}
    speed = {name: [] for name in [*SEGMENTERS, "pysbd"]}
    for path in sorted(CORPUS.glob("*.txt")):
        text, _ = strip_gutenberg(repair(path.read_text(encoding="utf-8-sig", errors="replace")))
        middle = len(text) // 2
        sample = text[middle : middle + SAMPLE]
        sample = sample[sample.find("\n\n") + 2 :] if "\n\n" in sample[:5000] else sample
        started = time.perf_counter()
        reference = first_word(sample, pysbd_starts(sample))
        speed["pysbd"].append((time.perf_counter() - started) / len(sample) * 1e6)
        for name, segment in SEGMENTERS.items():
            started = time.perf_counter()
            found = first_word(sample, segment(sample))
            speed[name].append((time.perf_counter() - started) / len(sample) * 1e6)
            hits = len(found & reference)
            precision, recall = hits / max(len(found), 1), hits / max(len(reference), 1)
            scores[name].append(2 * precision * recall / max(precision + recall, 1e-9))
    print(f"{'segmenter':32s} boundary F1 vs pysbd (median, min)   seconds per MB")
    for name in SEGMENTERS:
        print(f"{name:32s} {statistics.median(scores[name]):.3f}, {min(scores[name]):.3f}"
              f"{'':22s}{statistics.median(speed[name]):.2f}")
    print(f"{'pysbd':32s} (reference){'':27s}{statistics.median(speed['pysbd']):.2f}")
    write_figures("segmenters", {"books": len(scores[next(iter(SEGMENTERS))]), "sample_chars": SAMPLE, "rows": [
        {"segmenter": name, "f1_median": round(statistics.median(scores[name]), 3),
         "f1_worst": round(min(scores[name]), 3), "seconds_per_mb": round(statistics.median(speed[name]), 2)}
        for name in SEGMENTERS] + [{"segmenter": "pysbd", "f1_median": None, "f1_worst": None,
                                    "seconds_per_mb": round(statistics.median(speed["pysbd"]), 2)}]})


if __name__ == "__main__":
    main()
