"""The sample book's example questions, and the ``demo`` preset, on the embedded model: ``python -m
benchmarks.examples [--demo N]``.

Each candidate question about The Wind in the Willows is asked through the app's front door with the default
preset (``laptop``) on the embedded demo model: is the answer's key in the evidence the model read, and does the
answer say it (and in a sentence the checks do not mark)? The example questions the page offers with the demo model
(:data:`elite_ui.app.sample.EXAMPLES`) are chosen from the candidates by that measure, and docs/settings.md shows
their hit rate. Then the page's examples are asked with the ``demo`` preset, which shows every stage of the paper
(the judge, breadth- and depth-wise terms, importance, the trim): how long each takes on the embedded model, how
many calls, and which stages showed. With ``--model`` (a real model: ``python -m benchmarks.examples --model
~/.cache/elite-reader/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf``) the candidates are asked with the preset
that model gets (``capable``): those it answers right, unmarked, are the examples offered with such a model
(:data:`elite_ui.app.sample.CAPABLE_EXAMPLES`).
"""

from __future__ import annotations

import argparse
import functools
import re
import time

from benchmarks import write_figures
from elite_ui.app.sample import CAPABLE_EXAMPLES, EXAMPLES, SAMPLE
from elite_ui.bench.scoring import keyed
from elite_ui.book import load_book
from elite_ui.methods import Kind, Tools
from elite_ui.models import MiniLMEmbedder, open_llm
from elite_ui.reading import Asked, preset, preset_for, reading

CANDIDATES = {
    "Where does Toad live?": [["Toad Hall"]],
    "Who is Mole's friend who lives by the river?": [["Rat"]],
    "What happens to Toad after he steals the motor-car?": [["prison", "gaol", "dungeon", "twenty years"]],
    "How many times is Toad Hall mentioned?": None,
    "What is the name of Toad's house?": [["Toad Hall"]],
    "What does Toad buy after the caravan?": [["motor", "car"]],
    "How does Toad escape from prison?": [["washerwoman", "washer-woman", "washing"]],
    "Who helps Toad escape from prison?": [["daughter"]],
    "Where does Badger live?": [["Wild Wood", "wood"]],
    "Who takes over Toad Hall while Toad is in prison?": [["weasel", "stoat", "Wild Wooders"]],
    "What was Mole doing at the start of the story?": [["spring-cleaning", "spring cleaning", "whitewash"]],
    "What does the Rat love most?": [["river", "boat"]],
    "Who is the Water Rat's friend?": [["Mole"]],
    "Who is Toad's friend who lives in the Wild Wood?": [["Badger"]],
    "Who lives in the Wild Wood?": [["Badger", "weasel", "stoat"]],
    "Who is the Otter's son?": [["Portly"]],
    "What did Toad steal?": [["motor-car", "car", "motor"]],
    "Where is Toad sent after he steals the car?": [["prison", "gaol", "dungeon"]],
    "Who is the wise old animal who lives in the Wild Wood?": [["Badger"]],
    "What is the name of the Otter's little son?": [["Portly"]],
}
"""Questions a first visitor might ask of the sample book, each with its key (the name, place or thing that
answers it; None for the counting question, whose answer is checked against the book's own count)."""
STAGES = {"judge": Kind.JUDGE, "importance": Kind.IMPORTANCE, "next terms": Kind.EXPLORATION, "trim": Kind.TRIM}


def asked(llm, embed, book, question: str, key, name: str) -> dict:
    """``question`` asked with preset ``name``: right (the answer says the key), unmarked too (in a sentence the
    checks do not mark), the key in the evidence, seconds, calls, stages shown."""
    ready = reading(book, Asked(question, settings=preset("elite", name)), llm, Tools(embed))
    started, quotes_at = time.perf_counter(), []
    trace = ready.answer(on_event=lambda e: e.kind == Kind.QUOTES and not quotes_at and quotes_at.append(
        time.perf_counter() - started))
    seconds = time.perf_counter() - started
    answer = trace.answer
    evidence = " ".join(book.sentence(sid).text for sid in answer.evidence)
    if key is None:  # the counting path: the number the book itself gives
        count = len(re.findall(r"\bToad\s+Hall\b", " ".join(book.sentence(s).text for s in range(len(book)))))
        right = unmarked = str(count) in answer.text
        found = True
    else:
        stated = functools.reduce(lambda text, marked: text.replace(marked, " "), answer.unsupported, answer.text)
        right, unmarked, found = bool(keyed(answer.text, key)), bool(keyed(stated, key)), bool(keyed(evidence, key))
    return {"question": question, "preset": name, "right": right, "unmarked": unmarked, "key_in_evidence": found,
            "seconds": round(seconds, 1), "first_quotes_s": round(quotes_at[0], 1) if quotes_at else None,
            "llm_calls": trace.totals().llm_calls, "answer": answer.text[:200],
            "stages": [stage for stage, kind in STAGES.items()
                       if any(kind != Kind.TRIM or e.data.enabled for e in trace.of(kind))]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=int, default=len(EXAMPLES), help="how many of the page's examples the demo "
                                                                          "preset answers")
    parser.add_argument("--model", help="a real model (a GGUF file, a catalogue name): the candidates asked with "
                                        "its preset choose the examples offered with such a model")
    args = parser.parse_args()
    llm, embed, book = open_llm(args.model), MiniLMEmbedder(), load_book(SAMPLE)
    name = preset_for(llm)[0]
    candidates = []
    for question, key in CANDIDATES.items():
        candidates.append(asked(llm, embed, book, question, key, name))
        print(candidates[-1], flush=True)
    if args.model:
        shown = [c for c in candidates if c["question"] in CAPABLE_EXAMPLES]
        write_figures(f"examples_{name}", {"model": llm.name, "preset": name, "candidates": candidates,
                                            "examples_right": sum(c["unmarked"] for c in shown),
                                            "examples": len(shown)})
        return
    demo = []
    for question in EXAMPLES[: args.demo]:
        demo.append(asked(llm, embed, book, question, CANDIDATES[question], "demo"))
        print(demo[-1], flush=True)
    shown = [c for c in candidates if c["question"] in EXAMPLES]
    write_figures("examples", {
        "model": llm.name, "candidates": candidates, "demo": demo,
        "examples_right": sum(c["right"] for c in shown), "examples": len(shown),
        "candidates_right": sum(c["right"] for c in candidates), "candidates_key_found": sum(
            c["key_in_evidence"] for c in candidates)})


if __name__ == "__main__":
    main()
