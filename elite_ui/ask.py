"""Command line: ``python -m elite_ui.ask BOOK "QUESTION"`` prints the answer with citations and a trace summary."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

from .across import ask_across
from .book import Book, default_cache_dir, load_book, reading_ceiling
from .book.lexicon import STEMMERS
from .book.names import names_for
from .book.story import recap, xray
from .errors import EliteError
from .library import located_in, open_shelf
from .library.index import LibraryIndex
from .methods import METHODS, Tools
from .methods.parsing import SENTENCE_LABEL
from .methods.recap import Recaps
from .methods.trace import Event, Kind, Trace
from .models import DEFAULT_CONTEXT, open_llm
from .reading import Asked, part, preset, preset_for, reading
from .settings import add_flags, from_flags, given_elsewhere


def setting_groups() -> dict[str, type]:
    """Each settings class by the methods it sets ("embedding/bm25": chunk RAG's)."""
    by_class: dict[type, list[str]] = {}
    for method in METHODS.values():
        by_class.setdefault(method.settings, []).append(method.name)
    return {"/".join(names): cls for cls, names in by_class.items()}


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m elite_ui.ask", description=__doc__)
    parser.add_argument("book", nargs="?", default="",
                        help="a .txt, .epub or .pdf file (with --library: words of its title or author)")
    parser.add_argument("question", nargs="?", default="", help="the question (not needed with --recap or --xray)")
    parser.add_argument("--option", action="append", default=[], metavar='A="text"',
                        help="a multiple-choice option; repeat for each (A, B, C...)")
    parser.add_argument("--model", help="a GGUF file (default: the embedded SmolLM2-135M), or with --server the "
                                        "server's model name")
    parser.add_argument("--server", help="base URL of an OpenAI-compatible server (llama-server, Ollama, vLLM...)")
    parser.add_argument("--model-name", help="model name on the server (same as --model with --server)")
    parser.add_argument("--method", "--strategy", choices=list(METHODS), default="elite",
                        help="; ".join(f"{m.name}: {m.summary}" for m in METHODS.values()))
    parser.add_argument("--up-to", metavar="WHERE", default="",
                        help='spoiler ceiling: "chapter 12", "book 2, chapter 10", a chapter\'s title, "page 80", '
                             '"40%%" or "S5210", or as a reader says it ("I\'m on chapter 13", "the first 12 '
                             'chapters"); nothing after it is used, nor the front matter (preface, introduction) '
                             "before the story")
    parser.add_argument("--library", metavar="FOLDER", default=os.environ.get("ELITE_LIBRARY", ""),
                        help="find the book in this Calibre library (or folder of books) and take the spoiler "
                             "ceiling from where Calibre's viewer or KOReader left you, unless --up-to says "
                             "otherwise ($ELITE_LIBRARY)")
    parser.add_argument("--across", metavar="QUESTION",
                        help="with --library: ask QUESTION across the whole library (its index kept beside the "
                             "cache): the books whose sentences hold its words best, each up to where you are")
    parser.add_argument("--unread", action="store_true",
                        help="with --across: search the books no reading app has opened too (whole)")
    parser.add_argument("--koreader", metavar="FOLDER", default=os.environ.get("ELITE_KOREADER", ""),
                        help="KOReader's settings folder, for the sidecars it keeps there ($ELITE_KOREADER)")
    parser.add_argument("--with-front-matter", action="store_true",
                        help="under --up-to, search the front matter too")
    parser.add_argument("--language", help="read the book as this language (ISO code: en, fr, de, es, zh...) "
                                           "instead of the detected one")
    parser.add_argument("--preset", choices=sorted(METHODS["elite"].presets), default="",
                        help="the method's preset (default: the model's, capable for a model of a billion "
                             "parameters or more, else laptop); the settings flags below change single settings")
    parser.add_argument("--n-ctx", type=int, default=DEFAULT_CONTEXT, help="model context in tokens")
    parser.add_argument("--n-gpu-layers", type=int, default=-1, help="layers offloaded to a GPU (-1: all)")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads for an in-process model (default: the CPUs this process may use, a "
                             "container's CPU quota counted)")
    parser.add_argument("--recap", action="store_true",
                        help="print the story so far instead (with --up-to: up to there), extracts of each chapter")
    parser.add_argument("--last-chapters", type=int, default=0, metavar="N", help="with --recap, only the last N")
    parser.add_argument("--written", action="store_true",
                        help="with --recap, chapters recapped by the model (kept in the cache) instead of extracts")
    parser.add_argument("--xray", metavar="NAME", help="print a character's X-Ray instead (with --up-to: up to there)")
    parser.add_argument("--json", metavar="ANSWER.json", help="write the answer as JSON: its text, quotes, "
                        "citations and costs, as the app's API gives it (elite_ui/records.py)")
    parser.add_argument("--trace", metavar="TRACE.json", help="write the full trace as JSON")
    parser.add_argument("--quiet", action="store_true", help="print only the answer")
    add_flags(parser, setting_groups())
    return parser


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    return parser().parse_intermixed_args(argv)


def language_code(code: str) -> str:
    """A language the app can read a book as, or a one-line error."""
    code = code.strip().lower()
    if code not in {"en", "zh", *STEMMERS}:
        raise EliteError(f"unknown language {code!r}; use one of {', '.join(sorted({'en', 'zh', *STEMMERS}))}.")
    return code


def parse_options(items: list[str]) -> dict[str, str] | None:
    options = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise EliteError(f'option "{item}" must look like A="text".')
        options[key.strip().upper()] = text.strip().strip('"')
    return options or None


def with_citations(text: str, book: Book) -> str:
    """``[S12]`` in an answer becomes ``[S12, ch. 3]`` (and the page, for PDFs)."""
    def label(m: re.Match) -> str:
        sid = int(m.group(1))
        return book.sentence(sid).citation if 0 <= sid < len(book) else m.group(0)
    return SENTENCE_LABEL.sub(label, text)


def summary_line(event: Event) -> str | None:
    """The line the command line prints as ``event`` comes (its payload's ``said()``), if it says anything."""
    said = getattr(event.data, "said", None)
    if said is None:
        return None
    where = f"iteration {event.iteration}: " if event.iteration and event.kind in PER_ITERATION else ""
    return f"  {where}{said()}"


PER_ITERATION = {Kind.TERMS, Kind.COLLECTION, Kind.IMPORTANCE, Kind.JUDGE}
"""The kinds whose lines name their iteration."""


def report(trace: Trace, book: Book) -> str:
    """What the book says (the best evidence, quoted), the model's answer with the page's notes on it (the judge's
    caveat, what the grounding check did), votes, citations and totals."""
    answer = trace.answer
    lines = []
    if answer.quotes:
        lines.append("What the book says:")
        lines += [f"  \"{' '.join(q.text.split())}\" [{q.label}]" for q in answer.quotes]
        lines += ["", f"{answer.heading}:"]
    lines += [with_citations(answer.text, book)]
    lines += [f"({note})" for note in answer.notes]
    lines.append("")
    if answer.vote_shares:
        lines.append("Votes: " + ", ".join(f"{k} {v:.0%}" for k, v in answer.vote_shares.items()))
    if answer.citations:
        lines.append("Citations" + (" (chosen by word overlap)" if answer.citations[0].automatic else "") + ":")
        for c in answer.citations[:10]:
            lines.append(f"  [{c.label}] {' '.join(c.text.split())[:160]}")
    totals = trace.totals()
    lines.append("")
    lines.append(f"{totals.iterations} iteration(s), {totals.llm_calls} LLM calls, "
                 f"{totals.evaluated_tokens} prompt tokens evaluated ({totals.cached_tokens} reused), "
                 f"{totals.completion_tokens} generated, {totals.seconds:.1f} s")
    return "\n".join(lines)


def story(book: Book, args: argparse.Namespace, until: str, llm=None) -> str:
    """The story so far (``--recap``: extracts, or with ``--written`` the model's recaps) or a character's X-Ray
    (``--xray``) as text, every sentence cited."""
    def cited(sid: int) -> str:
        sentence = book.sentence(sid)
        return f"{' '.join(sentence.text.split())} [{sentence.citation}]"

    if args.recap and llm is not None:
        writer = Recaps(llm, book, default_cache_dir())
        steps, lines = writer.build(args.last_chapters or None), []
        while True:
            try:
                done, total = next(steps)
                print(f"chapter {done} of {total}", file=sys.stderr)
            except StopIteration as finished:
                recaps = finished.value
                break
        for chapter in [writer.so_far(recaps), *recaps]:
            lines += [f"\n{chapter.ref} {chapter.title}".rstrip()]
            lines += [f"  {text} [{'; '.join(book.sentence(s).citation for s in ids)}]" for text, ids in chapter.lines]
        return "\n".join([f"The story so far, {until}, written by {llm.name}:", *lines])
    if args.recap:
        lines = [f"The story so far, {until} (extracts of each chapter):"]
        for chapter in recap(book, last_chapters=args.last_chapters or None):
            lines += [f"\n{chapter.ref} {chapter.title}".rstrip()] + [f"  - {cited(sid)}" for sid in chapter.sentences]
        return "\n".join(lines)
    names = names_for(book, default_cache_dir())
    character = names.find(args.xray)
    if character is None:
        raise EliteError(f"no character named {args.xray!r} {until}; "
                         f"some are {', '.join(c.name for c in names.characters[:8])}.")
    x = xray(book, names, character)
    lines = [f"{x.name} ({', '.join(x.variants[1:]) or 'no other name'}): named in {x.mentions} sentences {until}.",
             f"First appearance: {cited(x.first)}" if x.first is not None else "Not named yet.",
             "Mentions per chapter: " + ", ".join(f"{ref} {n}" for ref, n in x.by_chapter if n),
             "Described:", *([f"  - {cited(sid)}" for sid in x.described] or ["  none found"]),
             "Their story so far (extracts):", *(f"  - {cited(sid)}" for sid in x.story),
             "Appears with (shared paragraphs):",
             *([f"  - {name}: {count} ({'; '.join(book.sentence(s).citation for s in sids)})"
                for name, count, sids in x.companions] or ["  no one"])]
    return "\n".join(lines)


def from_library(folder: str, words: str):
    """The library at ``folder`` and its one book whose title or author holds ``words``."""
    shelf = open_shelf(folder)
    found = shelf.search(words, limit=10)
    if len(found) != 1:
        listed = "; ".join(b.label() for b in found[:5])
        raise EliteError(f"{len(found)} books of the library match “{words}”" + (f": {listed}." if found else "."))
    return shelf, found[0]


def across(args: argparse.Namespace, method) -> int:
    """``--across``: the question asked across the library, the books found and the one answer printed."""
    if not args.library:
        raise EliteError("--across asks a library: give it with --library FOLDER.")
    index = LibraryIndex(args.library, default_cache_dir(), args.koreader or None)
    print(index.update().said(), file=sys.stderr)
    llm = open_llm(args.model_name or args.model, server=args.server, n_ctx=args.n_ctx,
                   n_gpu_layers=args.n_gpu_layers, n_threads=args.threads)
    chosen = args.preset or preset_for(llm)[0]
    settings = from_flags(preset(method.name, chosen), args)

    def answer(book: Book, asked: Asked):
        ready = reading(book, replace(asked, method=method.name, settings=settings), llm,
                        Tools(cache_dir=default_cache_dir()))
        return ready.record(ready.answer())

    answered = ask_across(index, args.across, answer, unread=args.unread, cache_dir=default_cache_dir())
    for found in answered["searched"]["books"]:
        print(f"{found['title']} ({found['up_to']}): " + " | ".join(
            f"{s['chapter']}: {s['text'][:100]}" for s in found["sentences"]), file=sys.stderr)
    print(answered["answer"])
    if args.json:
        Path(args.json).write_text(json.dumps(answered, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"answer written to {args.json}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    method = METHODS[args.method]
    try:
        elsewhere = given_elsewhere(method.settings, args, setting_groups())
        if elsewhere:
            raise EliteError(f"{', '.join(elsewhere)} do nothing with --method {method.name}.")
        options = parse_options(args.option)
        if args.across is not None:
            return across(args, method)
        if not args.book:
            raise EliteError("give a book (or --across QUESTION with --library).")
        shelf, entry = from_library(args.library, args.book) if args.library else (None, None)
        book = load_book(entry.file() if entry else args.book, cache_dir=default_cache_dir())
        if args.language:
            book = book.read_as(language_code(args.language))
        print(f"{book.title} by {book.author or 'unknown'}: {len(book)} sentences, {len(book.chapters)} chapters, "
              f"{book.lexicon.name}, {book.load_note()}", file=sys.stderr)
        if entry and not args.up_to:
            located, problems = located_in(book, shelf, entry, args.koreader or None)
            print(" ".join([located.said(book) or "Your reading apps say nothing of where you are.", *problems]),
                  file=sys.stderr)
            args.up_to = f"S{located.sentence}" if located.sentence is not None else ""
        reading_ceiling(book, args.up_to)  # a ceiling that is no place in the book is said before a model loads
        if not (args.question.strip() or args.recap or args.xray):
            raise EliteError("give a question (or --recap, or --xray NAME).")
        llm = open_llm(args.model_name or args.model, server=args.server, n_ctx=args.n_ctx,
                       n_gpu_layers=args.n_gpu_layers, n_threads=args.threads) if args.written or not (
            args.recap or args.xray) else None
        if args.recap or args.xray:
            seen = part(book, args.up_to, args.with_front_matter)
            print(story(seen.book, args, seen.where, llm))
            return 0
        chosen, why = (args.preset, "as asked") if args.preset else preset_for(llm)
        settings = from_flags(preset(method.name, chosen), args)
        print(f"Settings preset {chosen} ({why}).", file=sys.stderr)
        show = None if args.quiet else (lambda e: (line := summary_line(e)) and print(line, file=sys.stderr))
        ready = reading(book, Asked(args.question, args.up_to, args.with_front_matter, method.name, settings,
                                    options), llm, Tools(cache_dir=default_cache_dir()))
        for event in ready.engine.build(book, through=len(ready.part.book) if args.up_to else None):
            if show:
                show(event)
        trace = ready.answer(on_event=show)
    except EliteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("stopped.", file=sys.stderr)
        return 130
    print(report(trace, book))
    if args.json:
        Path(args.json).write_text(json.dumps(ready.record(trace), ensure_ascii=False, indent=1),
                                   encoding="utf-8")
        print(f"answer written to {args.json}", file=sys.stderr)
    if args.trace:
        Path(args.trace).write_text(trace.to_json(indent=1), encoding="utf-8")
        print(f"trace written to {args.trace}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
