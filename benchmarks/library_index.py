"""The library's index at scale: ``python -m benchmarks.library_index [--books 1000]``.

The library is made from the 15 corpus novels: book ``n`` is novel ``n mod 15`` with a first line of its own
("Copy n of ...") and, in its middle, a sentence naming a word no other book has (``zq<n>x``), so that every
book's content is its own (nothing is parsed once for many) and a search can aim at one book. Half the books
(seeded) have a KOReader sidecar saying how far the reader is (a share from 5% to 100%); the others no app has
opened. Measured in one process on this machine: building the index from nothing (seconds, and its size on disk);
a restart (a new index object over the same file, brought up to date with nothing changed); adding one book;
searches (100 of them: the word of one book, a character's name, two common words, a phrase; each as far as the
reader has read, and with the unread books too), their median and 95th percentile; and the process's memory
with one book open against after the build and the searches. With ``--bm25s``, the other engine issue 37 named is
measured on the same books: one bm25s index of every sentence, saved and read back memory-mapped (it has no
update of one book: adding one is building it again). With ``--app``, the app itself is measured too: started on
the library (its index already built, in its cache), its resident memory with one book opened through the API,
then after the same searches through ``search_library``.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

import psutil

from benchmarks import CORPUS, write_figures
from elite_ui.book import load_book
from elite_ui.library.index import LibraryIndex
from elite_ui.testing.reading_apps import koreader_sidecar

NAMES = ["Elizabeth", "Darcy", "Heathcliff", "Marius", "Jean Valjean", "Levin", "Dorothea", "Huck", "Hester",
         "Toad", "Emma", "Victor", "Dorian", "Jane", "Buck"]
COMMON = ["letter morning", "dear friend", "door window", "money father", "river night"]
PHRASES = ['"my dear"', '"at last"', '"in the morning"', '"I am sure"', '"said the"']


def make_library(folder: Path, books: int, seed: int = 0) -> list[Path]:
    """``books`` books made from the corpus novels (the module's docstring says how)."""
    novels = sorted(CORPUS.glob("*.txt"))
    texts = [n.read_text(encoding="utf-8", errors="replace") for n in novels]
    rng = random.Random(seed)
    paths = []
    for n in range(books):
        text, novel = texts[n % len(texts)], novels[n % len(novels)]
        middle = text.find("\n\n", len(text) // 2)
        path = folder / f"{novel.stem}-copy-{n:04d}.txt"
        path.write_text(f"Copy {n} of {novel.stem}.\n\n{text[:middle]}\n\nThe word zq{n}x is written here.\n\n"
                        f"{text[middle:]}", encoding="utf-8")
        if rng.random() < 0.5:
            koreader_sidecar(path, {"percent_finished": round(rng.uniform(0.05, 1.0), 3)})
        paths.append(path)
    return paths


def searches(books: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    kinds = [lambda: f"zq{rng.randrange(books)}x", lambda: rng.choice(NAMES), lambda: rng.choice(COMMON),
             lambda: rng.choice(PHRASES)]
    return [kinds[i % len(kinds)]() for i in range(100)]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def with_bm25s(paths: list[Path], folder: Path, books: int) -> dict:
    """The same books in one bm25s index of their sentences: build seconds, size, searches, memory."""
    import bm25s

    me = psutil.Process()
    before = me.memory_info().rss / 2**20
    began = time.perf_counter()
    texts = []
    for path in paths:
        book = load_book(path)
        texts += [book.sentence(i).text for i in range(len(book))]
    model = bm25s.BM25()
    model.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    model.save(folder, show_progress=False)
    build_s = time.perf_counter() - began
    peak = me.memory_info().rss / 2**20
    del model, texts
    loaded = bm25s.BM25.load(folder, mmap=True, show_progress=False)
    timings = []
    for words in searches(books):
        began = time.perf_counter()
        query = bm25s.tokenize([words.strip('"')], stopwords="en", return_ids=False, show_progress=False)
        if query[0]:
            loaded.retrieve(query, k=400, show_progress=False)
        timings.append((time.perf_counter() - began) * 1000)
    return {"build_seconds": round(build_s, 1), "add_one_seconds": round(build_s, 1),
            "index_mb": round(sum(f.stat().st_size for f in folder.iterdir()) / 2**20),
            "search_ms": {"p50": round(statistics.median(timings), 1), "p95": round(percentile(timings, 0.95), 1)},
            "memory_mb_while_building": round(peak - before)}


def in_the_app(folder: Path, cache: Path, books: int) -> dict:
    """The app's resident memory on the library: one book opened through the API, then after the searches."""
    from gradio_client import Client, handle_file

    from elite_ui.testing.browser import ROOT, start_app, stop_app

    process, url = start_app("--scripted", str(ROOT / "tests" / "data" / "scripted.json"), "--library",
                             str(folder), cache=cache)
    try:
        app = psutil.Process(process.pid)
        client = Client(url, verbose=False)
        client.predict(file=handle_file(str(CORPUS / "pride-and-prejudice.txt")), api_name="/open_book")
        one_book = app.memory_info().rss / 2**20
        for unread in (False, True):
            for words in searches(books):
                client.predict(words=words, unread=unread, api_name="/search_library")
        return {"one_book": round(one_book), "after_searches": round(app.memory_info().rss / 2**20)}
    finally:
        stop_app(process)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", type=int, default=1000)
    parser.add_argument("--bm25s", action="store_true", help="measure bm25s on the same books too")
    parser.add_argument("--app", action="store_true", help="measure the app's memory on the library too")
    args = parser.parse_args(argv)
    me = psutil.Process()
    with tempfile.TemporaryDirectory() as tmp:
        folder, cache = Path(tmp) / "library", Path(tmp) / "cache"
        folder.mkdir()
        paths = make_library(folder, args.books + 1)
        extra = paths.pop()
        moved = extra.rename(Path(tmp) / extra.name)
        load_book(CORPUS / "pride-and-prejudice.txt")
        one_book_mb = me.memory_info().rss / 2**20
        began = time.perf_counter()
        index = LibraryIndex(folder, cache)
        built = index.update()
        build_s = time.perf_counter() - began
        size_mb = index.path.stat().st_size / 2**20
        began = time.perf_counter()
        restarted = LibraryIndex(folder, cache).update()
        restart_s = time.perf_counter() - began
        moved.rename(folder / extra.name)
        began = time.perf_counter()
        added = index.update()
        add_s = time.perf_counter() - began
        timings = {False: [], True: []}
        found = 0
        for unread in (False, True):
            for words in searches(args.books):
                began = time.perf_counter()
                result = index.search(words, unread=unread)
                timings[unread].append((time.perf_counter() - began) * 1000)
                found += bool(result.books)
        after_mb = me.memory_info().rss / 2**20
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        text_mb = sum(p.stat().st_size for p in folder.glob("*.txt")) / 2**20
        other = with_bm25s(sorted(folder.glob("*.txt")), Path(tmp) / "bm25s", args.books) if args.bm25s else None
        app = in_the_app(folder, cache, args.books) if args.app else None
    figures = {
        "books": args.books, "text_mb": round(text_mb), "indexed": built.added, "skipped": len(built.skipped),
        "build_seconds": round(build_s, 1), "index_mb": round(size_mb), "restart_seconds": round(restart_s, 2),
        "restart_kept": restarted.kept, "add_one_seconds": round(add_s, 2), "add_one_added": added.added,
        "search_ms_read": {"p50": round(statistics.median(timings[False]), 1),
                           "p95": round(percentile(timings[False], 0.95), 1)},
        "search_ms_unread_too": {"p50": round(statistics.median(timings[True]), 1),
                                 "p95": round(percentile(timings[True], 0.95), 1)},
        "searches_with_results": found, "memory_mb": {"one_book": round(one_book_mb), "after": round(after_mb),
                                                      "peak": round(peak_mb)},
    }
    if other:
        figures["bm25s"] = other
    if app:
        figures["app_memory_mb"] = app
    print(figures)
    write_figures("library_index" if not args.bm25s else "library_index_engines", figures)


if __name__ == "__main__":
    main()
