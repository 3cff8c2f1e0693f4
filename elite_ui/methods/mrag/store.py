"""The marker store: the finished windows of one extraction, one JSON line each, appended and flushed as each
finishes, so a stopped extraction resumes where it stopped."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

from ..trace import Progress
from .markers import Marker, Window


class Store:
    """The finished windows of one extraction, one JSON line each, appended and flushed as each finishes."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.path = folder / "windows.jsonl"

    def load(self) -> dict[int, Window]:
        done: dict[int, Window] = {}
        if not self.path.exists():
            return done
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                raw = json.loads(line)
            except ValueError:
                continue  # a line torn by a crash mid-write; its window is redone
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
        self.folder.mkdir(parents=True, exist_ok=True)
        with self.path.open("a+b") as out:
            if out.tell() and (out.seek(-1, os.SEEK_END), out.read(1))[1] != b"\n":
                out.write(b"\n")  # end a line torn by a crash, so this window is not lost with it
            out.write(self.line(window).encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())


def progress(done: int, total: int, resumed: int, seconds: float) -> Progress:
    """Windows done and left, and the time left at this run's pace (None before the first window)."""
    fresh = done - resumed
    eta = round(seconds / fresh * (total - done), 1) if fresh else None
    return Progress(done, total, total - done, resumed, round(seconds, 1), eta)
