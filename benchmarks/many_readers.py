"""Many readers at once: ``python -m benchmarks.many_readers [--visitors 1 8 32 64] [--latency 1.0]``.

1. The app in hosted mode in front of a loopback stand-in for a batching server (``elite_ui/testing/server.py``: 64
   slots, ``--latency`` seconds a call, ``/props`` saying so): for each number of visitors, every visitor (a
   gradio_client session with the sample book open) asks "Where does Toad live?" (2 model calls) at the same
   moment. Prints p50, p95 and the last answer's seconds, questions per second, the most requests the server
   held at once, and the CPU seconds a question cost the app and the benchmark's own clients (both share this
   machine's cores). Then the same with a 0 s server: the app's own ceiling on this machine.
2. Fairness under the heaviest work a visitor can start: one visitor's question alone, then while another visitor
   builds the sample book's M-RAG index (a call per window, many windows), on a model that answers one call at a
   time: the stand-in server with ``--parallel 1``, the scripted model and the embedded one.

``--app DIR`` starts the app of another checkout (``git worktree add /tmp/before HEAD~1``) with ``--app-flags``,
to measure the same figures before a change.
"""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path

import psutil

from benchmarks import write_figures
from elite_ui.testing.browser import ROOT, start_app, stop_app
from elite_ui.testing.readers import ask_at_once, figures, visitors
from elite_ui.testing.server import BatchingServer

OPEN = ["--sessions-per-visitor", "1000", "--uploads-per-minute", "10000"]
"""Every visitor here comes from one address (loopback): the per-visitor limits are lifted."""


def rounds(latency: float, counts: list[int], root: Path, flags: list[str]) -> list[dict]:
    rows = []
    with BatchingServer(latency=latency, slots=64) as server:
        process, url = start_app("--hosted", "--server", server.url, "--model-name", "stub", *flags, root=root)
        try:
            app, clients = psutil.Process(process.pid), psutil.Process()
            for count in counts:
                readers = visitors(url, count)
                server.reset()
                used = cpu(app), cpu(clients)
                wall = ask_at_once(readers)
                answered = sum("Toad Hall" in r.said and r.question in r.said for r in readers)
                rows.append({"latency": latency, **figures(readers, wall), "server_peak": server.peak,
                             "answered": answered,
                             "app_cpu_s_per_question": round((cpu(app) - used[0]) / count, 3),
                             "clients_cpu_s_per_question": round((cpu(clients) - used[1]) / count, 3)})
                print(rows[-1], flush=True)
                for reader in readers:
                    reader.client.close()
        finally:
            stop_app(process)
    return rows


def cpu(process: psutil.Process) -> float:
    """CPU seconds a process has used, its threads' user and system time together."""
    times = process.cpu_times()
    return times.user + times.system


BACKENDS = {"server": ["--server", "{url}", "--model-name", "stub", "--parallel", "1"],
            "scripted": ["--scripted", str(ROOT / "tests" / "data" / "scripted.json")], "embedded": []}
"""The models the fairness figure is measured on: the stand-in server taking one call at a time (0.5 s each),
the scripted model (0.5 s a call, in-process) and the embedded SmolLM2-135M."""


def during_build(backend: str, root: Path, flags: list[str]) -> dict:
    """One visitor's question alone, then while another visitor builds the M-RAG index."""
    with BatchingServer(latency=0.5, slots=64) as server:
        model = [flag.replace("{url}", server.url) for flag in BACKENDS[backend]]
        process, url = start_app("--hosted", *model, *flags, root=root)
        try:
            reader, builder = visitors(url, 2)
            alone = ask_at_once([reader])
            build = builder.build()
            time.sleep(3)
            during = ask_at_once([reader])
            building = not build.done()
            builder.client.predict(api_name="/on_stop")
            out = {"model": backend, "question_alone_s": round(alone, 2), "question_during_build_s": round(during, 2),
                   "build_still_running": building, "ratio": round(during / alone, 2)}
            print(out, flush=True)
            return out
        finally:
            stop_app(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout whose app.py is measured")
    parser.add_argument("--app-flags", default="", help="more flags for that app (quoted)")
    parser.add_argument("--name", default="many_readers", help="the results file's name")
    parser.add_argument("--fairness", nargs="*", default=list(BACKENDS), choices=list(BACKENDS),
                        help="the models a question is timed on during another visitor's build")
    args = parser.parse_args()
    flags = shlex.split(args.app_flags) or OPEN
    figures_ = {"server": rounds(args.latency, args.visitors, args.app, flags),
                "app_ceiling": rounds(0.0, args.visitors, args.app, flags),
                "during_build": [during_build(backend, args.app, flags) for backend in args.fairness]}
    write_figures(args.name, figures_)


if __name__ == "__main__":
    main()
