"""The benchmark's command line: ``python -m elite_ui.bench convert|run|report``.

``run`` answers a question set with one method and writes DIR/results.jsonl (one line per question, appended as
it goes, so an interrupted run resumes where it stopped) and DIR/summary.json. ``report`` compares runs in one
self-contained HTML page. ``convert`` turns a third-party QA set into our format.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..errors import EliteError
from ..methods.elite import PRESETS
from ..models import DEFAULT_CONTEXT
from . import datasets
from .harness import run
from .methods import NAMES


def convert(args: argparse.Namespace) -> Path:
    out = Path(args.out)
    source = Path(args.source)
    if args.format == "novelqa":
        if not args.book:
            raise EliteError("novelqa needs --book, the novel's text file.")
        questions = datasets.from_novelqa(source, Path(args.book), out)
    else:
        questions = datasets.CONVERTERS[args.format](source, out)
    path = datasets.write(out / "dataset.jsonl", questions)
    print(f"{len(questions)} questions written to {path}")
    return path


def report(args: argparse.Namespace) -> Path:
    from .report import write_report

    path = write_report([Path(d) for d in args.runs], Path(args.out))
    print(f"report written to {path}")
    return path


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="python -m elite_ui.bench", description=__doc__)
    commands = main.add_subparsers(dest="command", required=True)
    c = commands.add_parser("convert", help="convert a third-party QA set into our JSONL format")
    c.add_argument("format", choices=sorted(datasets.CONVERTERS))
    c.add_argument("source", help="leval: a .jsonl file; fairytaleqa: its folder; novelqa: a book's .json")
    c.add_argument("--book", help="novelqa: the novel's text file")
    c.add_argument("--out", required=True)
    c.set_defaults(func=convert)
    r = commands.add_parser("run", help="answer a question set with one method")
    r.add_argument("dataset")
    r.add_argument("--method", "--strategy", choices=NAMES, required=True)
    r.add_argument("--model")
    r.add_argument("--server")
    r.add_argument("--model-name")
    r.add_argument("--n-ctx", type=int, default=DEFAULT_CONTEXT)
    r.add_argument("--preset", choices=sorted(PRESETS), default="laptop", help="the method's preset")
    r.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="override one of the method's settings (ELITE's or M-RAG's), e.g. --set trim=false "
                        "--set recall_index=25 --set order=similarity")
    r.add_argument("--budget", type=int, default=1000, help="context tokens given to the generator")
    r.add_argument("--limit", type=int, default=0)
    r.add_argument("--skip", type=int, default=0, metavar="N",
                   help="leave out the first N questions of the order (a held-out sample after a tuned one)")
    r.add_argument("--shuffle", action="store_true", help="take a seeded random sample instead of the first N")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--retrieval-only", action="store_true", help="skip answering: compare retrievers only")
    r.add_argument("--own-answer", action="store_true",
                   help="answer with the method's own answer step (calls, tokens and seconds then include it) "
                        "instead of the shared generator")
    r.add_argument("--out", required=True)
    r.set_defaults(func=run)
    p = commands.add_parser("report", help="compare runs in one HTML page")
    p.add_argument("runs", nargs="+")
    p.add_argument("--out", default="report.html")
    p.set_defaults(func=report)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        started = time.perf_counter()
        args.func(args)
        print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    except EliteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError) as exc:
        # third-party files (converters) and run folders (report) that are missing or not in the expected form
        print(f"error: {args.command}: could not read the input ({type(exc).__name__}: {exc}).", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
