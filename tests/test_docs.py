"""The docs' generated parts (settings tables, flags, the trace's kinds, the module map, measured tables made from
benchmarks/results/) are what the code and the results say now. ``python -m tests.test_docs`` regenerates them."""

import sys
from pathlib import Path

from cogapp import Cog

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PROLOGUE = f"import sys; sys.path.insert(0, {str(ROOT)!r})"
"""The repository first: pysbd installs a top-level package also named ``benchmarks``."""


def cog(*options: str) -> int:
    return Cog().main(["cog", "-p", PROLOGUE, *options, *map(str, FILES)])


def test_the_generated_parts_of_the_docs_are_up_to_date():
    assert cog("--check", "--diff", "--check-fail-msg=run python -m tests.test_docs") == 0


if __name__ == "__main__":
    sys.exit(cog("-r"))
