"""What the ``paper`` preset costs a question: ``python -m benchmarks.paper_cost``.

The sample book's first example question ("Where does Toad live?") is asked with the paper preset of a model that
answers at once (the scripted model), twice: with a judge that finds the evidence enough at once (one iteration,
the least the preset does) and with one that never does (every iteration up to ``iter_max``, the most). Each
stage's calls are counted from the trace. Then a sample of those same requests, a few of each stage, is sent to the
embedded model (SmolLM2-135M on this machine's CPU) and timed: each stage's calls times its mean seconds a call is
the question's time on that model. The settings panel quotes these figures.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter, defaultdict

from benchmarks import write_figures
from elite_ui.app.sample import EXAMPLES, SAMPLE
from elite_ui.book import load_book
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.methods.trace import Kind
from elite_ui.models import ScriptedLLM, open_llm
from elite_ui.models.embedder import MiniLMEmbedder

QUESTION = EXAMPLES[0]
TIMED = 3
"""Requests of each stage sent to the embedded model to time it."""


def counted(judge: str) -> tuple[Counter, ScriptedLLM]:
    """The paper preset's calls per stage on the question, the judge always replying ``judge``."""
    llm = ScriptedLLM({"terms": ["Toad\nHall\nriver"], "judge": [judge], "breadth": ["Badger\nMole"],
                       "depth": ["Rat"], "importance": ["Toad lives at Toad Hall."], "trim": ["S1"],
                       "answer": ["Toad lives at Toad Hall."]})
    trace = Elite(llm, PRESETS["paper"], embed=MiniLMEmbedder()).run(load_book(SAMPLE), QUESTION)
    return Counter(e.data.purpose for e in trace.events if e.kind == Kind.LLM_CALL), llm


def seconds_a_call(requests) -> dict[str, float]:
    """Mean seconds of a call of each stage on the embedded model, over up to :data:`TIMED` of its requests."""
    model = open_llm()
    by_stage = defaultdict(list)
    for request in requests:
        if len(by_stage[request.purpose]) < TIMED:
            started = time.perf_counter()
            model.complete(request)
            by_stage[request.purpose].append(time.perf_counter() - started)
    return {stage: statistics.mean(times) for stage, times in by_stage.items()}


def main() -> None:
    fewest, _ = counted("Yes, the evidence says where Toad lives.")
    most, llm = counted("No, not yet.")
    per_call = seconds_a_call(llm.log)
    figures = {"question": QUESTION, "model": "SmolLM2-135M-Instruct Q4_1 (embedded), CPU",
               "seconds_a_call": {k: round(v, 2) for k, v in per_call.items()}}
    for name, calls in (("one_iteration", fewest), ("every_iteration", most)):
        seconds = sum(n * per_call.get(stage, 0.0) for stage, n in calls.items())
        figures[name] = {"calls": sum(calls.values()), "by_stage": dict(calls), "seconds": round(seconds)}
        stages = ", ".join(f"{k} {v}" for k, v in calls.items())
        print(f"{name.replace('_', ' ')}: {sum(calls.values())} calls ({stages}), about {seconds / 60:.1f} min on "
              "the embedded model")
    print("seconds a call on the embedded model: " + ", ".join(f"{k} {v:.2f}" for k, v in per_call.items()))
    write_figures("paper_cost", figures)


if __name__ == "__main__":
    main()
