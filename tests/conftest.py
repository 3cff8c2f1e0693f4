"""Shared fixtures: the shipped books, small books written on the fly, a private cache, a cheap embedder."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from elite_ui.book import load_book

ROOT = Path(__file__).resolve().parents[1]
BOOKS = {"pride-and-prejudice.txt": ROOT / "tests" / "data" / "books" / "pride-and-prejudice.txt",
         "jane-eyre-excerpt.txt": ROOT / "tests" / "data" / "books" / "jane-eyre-excerpt.txt",
         "the-wind-in-the-willows.txt": ROOT / "assets" / "the-wind-in-the-willows.txt"}
"""The real books the tests read, all inside the repository (tests/data/books/README.md says what each is)."""


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report kept on its test (``item.rep_call``), for a fixture to tell whether the test failed."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """M-RAG marker stores go to a temporary folder, never the user's ~/.cache."""
    monkeypatch.setenv("ELITE_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def pride():
    return load_book(BOOKS["pride-and-prejudice.txt"])


@pytest.fixture(scope="session")
def willows():
    return load_book(BOOKS["the-wind-in-the-willows.txt"])


@pytest.fixture
def write_book(tmp_path):
    """Write ``text`` to a .txt file and load it."""
    def write(text: str, name: str = "book.txt"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return load_book(path)
    return write


def trigram_embed(texts):
    """A deterministic stand-in for MiniLM: hashed character trigrams, L2-normalised."""
    out = np.zeros((len(texts), 256))
    for i, text in enumerate(texts):
        t = f"  {text.lower()} "
        for j in range(len(t) - 2):
            out[i, int(hashlib.md5(t[j:j + 3].encode()).hexdigest(), 16) % 256] += 1
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)
