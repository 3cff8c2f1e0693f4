"""A hosted app's memory under parallel uploads: ``python -m benchmarks.hosted_memory [--uploads N ...]``.

Starts the app in hosted mode on the scripted model, and for each upload limit given (default: 2, the default
setting, and 16, no limit for 16 visitors) has 16 API clients upload 16 different 20 MB books at once; samples
the server's resident memory every 0.2 s. Prints the memory before, at its peak, once every book is open, and
after the clients close (their sessions freed); and the slowest upload.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

import psutil
from gradio_client import Client, handle_file

from benchmarks import write_figures
from elite_ui.testing.browser import ROOT, start_app, stop_app

VISITORS, BOOK_MB = 16, 20


def books(folder: Path) -> list[Path]:
    """16 different 20 MB books: the sample book repeated, each with a line of its own."""
    sample = (ROOT / "assets" / "the-wind-in-the-willows.txt").read_text(encoding="utf-8")
    body = (sample * (BOOK_MB * 2**20 // len(sample) + 1))[: BOOK_MB * 2**20]
    paths = []
    for n in range(VISITORS):
        path = folder / f"book-{n}.txt"
        path.write_text(f"Copy {n} of the sample.\n\n{body}", encoding="utf-8")
        paths.append(path)
    return paths


def mb(process: psutil.Process) -> float:
    return round(process.memory_info().rss / 2**20)


def measure(uploads: int, paths: list[Path]) -> dict:
    app, url = start_app("--hosted", "--scripted", str(ROOT / "tests" / "data" / "scripted.json"),
                         "--max-upload-mb", str(BOOK_MB + 5), "--uploads", str(uploads))
    server, peak, done = psutil.Process(app.pid), [0.0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], mb(server))
            time.sleep(0.2)

    try:
        before = mb(server)
        threading.Thread(target=sample, daemon=True).start()
        clients = [Client(url, verbose=False) for _ in paths]
        seconds, failed = [], []

        def upload(client, path):
            start = time.perf_counter()
            try:
                said = client.predict(handle_file(str(path)), api_name="/on_upload")[-1]
            except Exception as exc:  # a timed-out or refused upload is a figure here, not a crash
                said = f"{type(exc).__name__}: {exc}"
            seconds.append(time.perf_counter() - start)
            if not said.startswith("Loaded"):
                failed.append(said[:120])

        threads = [threading.Thread(target=upload, args=pair) for pair in zip(clients, paths, strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        held = mb(server)
        for client in clients:
            client.close()
        time.sleep(40)  # the server notices a closed client at its next heartbeat (15 s)
        done.set()
        return {"uploads_at_once": uploads, "before_mb": before, "peak_mb": peak[0], "all_open_mb": held,
                "after_close_mb": mb(server), "slowest_upload_s": round(max(seconds), 1), "failed": len(failed),
                "first_failure": failed[0] if failed else ""}
    finally:
        done.set()
        stop_app(app)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, nargs="+", default=[2, VISITORS])
    args = parser.parse_args()
    paths = books(Path(tempfile.mkdtemp(prefix="hosted-memory-")))
    rows = []
    for uploads in args.uploads:
        rows.append(measure(uploads, paths))
        print(rows[-1], flush=True)
    write_figures("hosted_memory", {"visitors": VISITORS, "book_mb": BOOK_MB, "rows": rows})


if __name__ == "__main__":
    main()
