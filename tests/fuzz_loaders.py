"""Coverage-guided fuzzing (atheris, libFuzzer) of the txt, epub and pdf loaders.

``python -m tests.fuzz_loaders [libFuzzer flags, e.g. -runs=100000 -max_total_time=600] [CORPUS_DIR ...]``: the
first byte of each input picks the format, the rest is the file. Anything but a Book or a BookError is a crash:
libFuzzer stops and saves the input as crash-*.
"""

import contextlib
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["elite_ui", "zipfile", "ebooklib"]):
    from elite_ui.book import load_book
    from elite_ui.errors import BookError

SUFFIXES = (".txt", ".epub", ".pdf")
FOLDER = Path(tempfile.mkdtemp(prefix="fuzz-loaders-"))


def one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    path = FOLDER / f"input{SUFFIXES[data[0] % len(SUFFIXES)]}"
    path.write_bytes(data[1:])
    with contextlib.suppress(BookError):
        load_book(path)


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
