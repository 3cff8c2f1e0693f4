"""How fast Stop takes effect in each stage, on the embedded model: ``python -m benchmarks.stop [--delay 0.5]``.

For each stage (ELITE's terms, importance, judge, breadth, depth and answer calls on the `paper` preset, and
M-RAG's extraction), a question is started and the cancel flag is set ``--delay`` seconds into that stage's first
model call; printed: the seconds from the flag to the question ending (llama.cpp reads prompts in slices of
PREFILL_SLICE tokens and checks the flag between slices and between generated tokens). Then the same on a model
server that holds each call ``--server-seconds`` (the loopback stand-in; a server reading a long prompt sends
nothing meanwhile): the default preset's terms call (a whole reply) and its answer (streamed).
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time

from benchmarks import ROOT, write_figures
from elite_ui.book import load_book
from elite_ui.errors import Cancelled
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.methods.mrag import PRESETS as MRAG_PRESETS
from elite_ui.methods.mrag import Mrag
from elite_ui.models import MiniLMEmbedder, Request
from elite_ui.models.llama_cpp import PREFILL_SLICE, LlamaCppLLM
from elite_ui.models.openai import OpenAICompatibleLLM
from elite_ui.testing.server import BatchingServer

STAGES = ["terms", "importance", "judge", "breadth", "depth", "answer", "extract"]


def stop_during(llm: LlamaCppLLM, stage: str, delay: float, run) -> float | None:
    """Seconds from setting the cancel flag, ``delay`` s into the first ``stage`` call, to ``run`` ending."""
    cancel = threading.Event()
    marks: dict[str, float] = {}
    generate = llm.generate

    def armed(request, stream):
        if request.purpose == stage and "armed" not in marks:
            marks["armed"] = time.perf_counter()
            threading.Timer(delay, lambda: (marks.setdefault("set", time.perf_counter()), cancel.set())).start()
        return generate(request, stream)

    llm.generate = armed
    try:
        run(cancel)
    except Cancelled:
        return time.perf_counter() - marks["set"]
    finally:
        llm.generate = generate
    return None


def stop_on_server(seconds: float, delay: float) -> dict[str, float]:
    """Seconds from the flag, ``delay`` s into the default preset's terms and answer calls, to the question ending,
    on a server that holds each call ``seconds``."""
    book = load_book(ROOT / "assets" / "the-wind-in-the-willows.txt")
    stopped = {}
    with BatchingServer(latency=seconds) as server:
        llm = OpenAICompatibleLLM(server.url, "stub")
        for stage, calls_before in (("terms", 0), ("answer", 1)):
            cancel, marks = threading.Event(), {}

            def arm(cancel=cancel, marks=marks, calls_before=calls_before):
                while server.requests <= calls_before:
                    time.sleep(0.01)
                time.sleep(delay)
                marks["set"] = time.perf_counter()
                cancel.set()

            server.reset()
            threading.Thread(target=arm, daemon=True).start()
            try:
                Elite(llm, PRESETS["laptop"], cancel=cancel).run(book, "Where does Toad live?")
            except Cancelled:
                stopped[stage] = round(time.perf_counter() - marks["set"], 2)
    return stopped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--server-seconds", type=float, default=10.0)
    args = parser.parse_args()
    book = load_book(ROOT / "assets" / "the-wind-in-the-willows.txt")
    llm, embed = LlamaCppLLM(n_ctx=4096), MiniLMEmbedder()
    cache = tempfile.mkdtemp(prefix="stop-")
    llm.complete(Request("warm-up", [{"role": "user", "content": "Say yes."}], 4))  # first call maps the weights
    embed(["warm up"])
    print(f"prompt slices of {PREFILL_SLICE} tokens; cancel set {args.delay} s into the stage's first call")
    figures = {"slice_tokens": PREFILL_SLICE, "delay_seconds": args.delay, "stopped_after": {}}
    for stage in STAGES:
        if stage == "extract":
            def run(cancel):
                for _ in Mrag(llm, MRAG_PRESETS["laptop"], embed=embed, cancel=cancel, cache_dir=cache).build(book):
                    pass
        else:
            def run(cancel):
                Elite(llm, PRESETS["paper"], embed=embed, cancel=cancel).run(book, "Who is Badger's friend?")
        seconds = stop_during(llm, stage, args.delay, run)
        print(f"{stage:10s} " + (f"stopped {seconds:.2f} s after the flag" if seconds is not None
                                 else "never reached (the question ended first)"), flush=True)
        figures["stopped_after"][stage] = None if seconds is None else round(seconds, 2)
    figures["server_seconds"] = args.server_seconds
    figures["server_stopped_after"] = stop_on_server(args.server_seconds, args.delay)
    print(f"a server holding each call {args.server_seconds} s: " + ", ".join(
        f"{stage} stopped {s:.2f} s after the flag" for stage, s in figures["server_stopped_after"].items()))
    write_figures("stop", figures)


if __name__ == "__main__":
    main()
