"""The marker store: the finished windows of one extraction, one JSON line each, appended and flushed as each
finishes, so a stopped extraction resumes where it stopped; a line torn by a crash (even inside a character) is
redone, the key vectors are written whole or not at all, and one process builds a book's index at a time."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

import numpy as np
from filelock import FileLock, Timeout

from ...errors import EliteError
from ..trace import Marker, Progress, Window


@contextlib.contextmanager
def unwritable():
    """A cache folder that cannot be written (read-only, full) as one sentence instead of an OSError."""
    try:
        yield
    except OSError as exc:
        raise EliteError(f"the M-RAG index cannot be kept: its cache folder cannot be written "
                         f"({exc.strerror or exc}).") from None


class Store:
    """The finished windows of one extraction, one JSON line each, appended and flushed as each finishes."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.path = folder / "windows.jsonl"
        self.build_lock = FileLock(folder / "build.lock")

    def load(self) -> dict[int, Window]:
        done: dict[int, Window] = {}
        if not self.path.exists():
            return done
        for line in self.path.read_bytes().splitlines():
            try:
                raw = json.loads(line.decode("utf-8"))
            except ValueError:
                continue  # a line torn by a crash mid-write (UnicodeDecodeError is one); its window is redone
            raw["markers"] = [Marker(**({"value": m["key"]} | m)) for m in raw["markers"]]
            done[raw["index"]] = Window(**raw)
        return done

    @staticmethod
    def line(window: Window) -> str:
        raw = asdict(window)
        for marker in raw["markers"]:
            if marker["source"] == "chunk":
                del marker["value"]  # the paragraph is both key and value: stored once
        return json.dumps(raw, ensure_ascii=False) + "\n"

    def append(self, window: Window) -> None:
        with unwritable(), self.path.open("a+b") as out:
            if out.tell() and (out.seek(-1, os.SEEK_END), out.read(1))[1] != b"\n":
                out.write(b"\n")  # end a line torn by a crash, so this window is not lost with it
            out.write(self.line(window).encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())


    def take(self, seconds: float = 1.0) -> bool:
        """Take the build lock (waiting up to ``seconds``), so a second process building the same index waits and
        then resumes from what the first wrote instead of redoing it; False while another holds it."""
        with unwritable():
            self.folder.mkdir(parents=True, exist_ok=True)
            try:
                self.build_lock.acquire(timeout=seconds)
            except Timeout:
                return False
        return True

    def release(self) -> None:
        self.build_lock.release()

    def write_meta(self, meta: dict) -> None:
        """What the index was built from (the book, the model, the prompt version, the extraction settings)."""
        with unwritable():
            (self.folder / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")

    def vectors(self, count: int) -> np.ndarray | None:
        """The stored key vectors when there are ``count`` of them and the file is whole, else None."""
        try:
            vectors = np.load(self.folder / "keys.npy")
        except (OSError, ValueError, EOFError):
            return None
        return vectors if len(vectors) == count else None

    def save_vectors(self, vectors: np.ndarray) -> None:
        """Write the key vectors whole (a temporary file of this writer's own renamed over the old one: readers who
        ask at once each write theirs), or not at all."""
        partial = None
        try:
            handle, name = tempfile.mkstemp(dir=self.folder, prefix="keys.", suffix=".partial.npy")
            partial = Path(name)
            with os.fdopen(handle, "wb") as out:
                np.save(out, vectors)
            partial.replace(self.folder / "keys.npy")
        except OSError:
            if partial is not None:
                with contextlib.suppress(OSError):
                    partial.unlink(missing_ok=True)


def progress(done: int, total: int, resumed: int, seconds: float) -> Progress:
    """Windows done and left, and the time left at this run's pace (None before the first window)."""
    fresh = done - resumed
    eta = round(seconds / fresh * (total - done), 1) if fresh else None
    return Progress(done, total, total - done, resumed, round(seconds, 1), eta)
