"""What the app prints, capped: a line longer than :data:`LINE_LIMIT` characters is cut, saying how much was left
out. Gradio prints a value it refused in full, so without this one 5 MB request would add 5 MB to the log."""

from __future__ import annotations

import io
import sys

LINE_LIMIT = 2000


class CappedLines(io.TextIOBase):
    """A text stream that passes at most ``limit`` characters of each line on to ``stream``."""

    def __init__(self, stream, limit: int = LINE_LIMIT):
        self.stream, self.limit = stream, limit
        self.column = 0
        self.dropped = 0

    def write(self, text: str) -> int:
        out = []
        for piece in text.splitlines(keepends=True):
            body = piece.rstrip("\r\n")
            room = max(0, self.limit - self.column)
            out.append(body[:room])
            self.column += min(len(body), room)
            self.dropped += max(0, len(body) - room)
            if body != piece:
                if self.dropped:
                    out.append(f" … ({self.dropped:,} characters left out)")
                out.append("\n")
                self.column = self.dropped = 0
        self.stream.write("".join(out))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.stream.isatty()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", "utf-8")


def cap_output(limit: int = LINE_LIMIT) -> None:
    """Cap every line the process prints (standard output and error) at ``limit`` characters."""
    sys.stdout, sys.stderr = CappedLines(sys.stdout, limit), CappedLines(sys.stderr, limit)
