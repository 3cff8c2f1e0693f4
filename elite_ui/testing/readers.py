"""Many readers at once, as outsiders: each a ``gradio_client`` visitor of a running app (its own session) who
opens the sample book and asks through the page's own endpoint, all at the same moment. The concurrency test and
``benchmarks/many_readers.py`` use these."""

from __future__ import annotations

import statistics
import threading
import time
from concurrent.futures import CancelledError
from dataclasses import dataclass

import httpx


def every_endpoint(url: str) -> dict:
    """Every named endpoint of the app at ``url``: the API's and the page's own (which the API's description leaves
    out, and which stay callable)."""
    return httpx.get(f"{url.rstrip('/')}/gradio_api/info", params={"all_endpoints": "true"}).json()["named_endpoints"]


def page_values(client, api_name: str, typed: dict[str, object]) -> list:
    """A page endpoint's arguments as the page starts (each at its default), with ``typed`` (by the label of
    its component) changed, as a reader would; in order (a page endpoint, left out of the API's description,
    takes no named arguments)."""
    endpoint = every_endpoint(client.src)[api_name]
    return [typed.get(p["label"], p["parameter_default"]) for p in endpoint["parameters"]]


def ask_values(client, question: str) -> list:
    """``/on_ask``'s parameters with ``question`` typed."""
    return page_values(client, "/on_ask", {"Question": question})


def finished(jobs: list, send) -> list:
    """Each of gradio_client's ``jobs`` (each sent by ``send()``) waited for. A run the client cancelled by itself is
    sent again, alone: its session's event stream closed as the run was sent (the client's race, seen on CI with 70
    quick runs from one session), which says nothing of what the app answered."""
    for n, job in enumerate(jobs):
        try:
            job.result(timeout=120)
        except CancelledError:
            jobs[n] = send()
            jobs[n].result(timeout=120)
    return jobs


def shown(outputs: list, marker: str) -> str:
    """The last text among a run's streamed outputs that holds ``marker`` (the conversation: "class='chat'")."""
    return next((v for values in reversed(outputs) for v in values if isinstance(v, str) and marker in v), "")


@dataclass
class Visitor:
    """One reader with the sample book open, ready to ask."""

    client: object
    question: str
    seconds: float = 0.0
    said: str = ""

    def submit(self, question: str | None = None):
        """The reader's question (``question``, else their own) sent, not waited for: gradio_client's job."""
        return self.client.submit(*ask_values(self.client, question or self.question), api_name="/on_ask")

    def build(self):
        """The M-RAG index of the reader's book built with the page's settings, not waited for."""
        return self.client.submit(*page_values(self.client, "/on_build", {}), api_name="/on_build")

    def ask(self, values: list) -> None:
        started = time.perf_counter()
        job = self.client.submit(*values, api_name="/on_ask")
        job.result()
        self.seconds = time.perf_counter() - started
        self.said = shown(job.outputs(), "class='chat'")


def visitors(url: str, count: int) -> list[Visitor]:
    """``count`` visitors of the app at ``url``, each with the sample book open and a question of their own."""
    from gradio_client import Client

    out = []
    for n in range(count):
        client = Client(url, verbose=False)
        said = str(client.predict(api_name="/on_sample"))
        if "Loaded" not in said:
            raise RuntimeError(f"visitor {n + 1} could not open the sample book: {said[-300:]}")
        out.append(Visitor(client, f"Where does Toad live? (reader {n + 1})"))
    return out


def ask_at_once(readers: list[Visitor]) -> float:
    """Every reader asks at the same moment; the seconds until the last answer."""
    values = [ask_values(r.client, r.question) for r in readers]
    start = threading.Barrier(len(readers))

    def asking(reader: Visitor, given: list) -> None:
        start.wait()
        reader.ask(given)

    threads = [threading.Thread(target=asking, args=pair) for pair in zip(readers, values, strict=True)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began


def figures(readers: list[Visitor], wall: float) -> dict:
    """Latency percentiles and questions per second of one round."""
    times = sorted(r.seconds for r in readers)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return {"visitors": len(readers), "p50": round(statistics.median(times), 2), "p95": round(p95, 2),
            "last": round(times[-1], 2), "per_second": round(len(readers) / wall, 2)}
