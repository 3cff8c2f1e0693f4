"""Command line: ``python -m elite_ui.ask BOOK "QUESTION"`` prints the answer with citations and a trace summary."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .baselines import STRATEGIES, ChunkRag
from .documents import Book, default_cache_dir, load_book, reading_ceiling
from .elite import PRESETS, Elite, with_overrides
from .errors import EliteError
from .lexicon import STEMMERS
from .llm import DEFAULT_CONTEXT, open_llm
from .mrag import PRESETS as MRAG_PRESETS
from .mrag import Mrag
from .names import names_for
from .parsing import SENTENCE_LABEL
from .trace import Event, Trace


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m elite_ui.ask", description=__doc__)
    parser.add_argument("book", help="a .txt, .epub or .pdf file")
    parser.add_argument("question")
    parser.add_argument("--option", action="append", default=[], metavar='A="text"',
                        help="a multiple-choice option; repeat for each (A, B, C...)")
    parser.add_argument("--model", help="a GGUF file (default: the embedded SmolLM2-135M), or with --server the "
                                        "server's model name")
    parser.add_argument("--server", help="base URL of an OpenAI-compatible server (llama-server, Ollama, vLLM...)")
    parser.add_argument("--model-name", help="model name on the server (same as --model with --server)")
    parser.add_argument("--strategy", choices=["elite", "mrag", "embedding", "bm25"], default="elite",
                        help="mrag builds the book's marker index first (resumable; stored in ~/.cache/elite-reader); "
                             "embedding and bm25 are plain chunk RAG")
    parser.add_argument("--up-to", metavar="WHERE", default="",
                        help='spoiler ceiling: "chapter 12", "page 80" or "40%%"; nothing after it is used')
    parser.add_argument("--language", help="read the book as this language (ISO code: en, fr, de, es, zh...) "
                                           "instead of the detected one")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="laptop")
    parser.add_argument("--n-ctx", type=int, default=DEFAULT_CONTEXT, help="model context in tokens")
    parser.add_argument("--n-gpu-layers", type=int, default=-1, help="layers offloaded to a GPU (-1: all)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", metavar="TRACE.json", help="write the full trace as JSON")
    parser.add_argument("--quiet", action="store_true", help="print only the answer")
    for name in ("recall_index", "neighbor_num", "deep_search_index", "deep_search_num", "voter_num", "iter_max",
                 "importance_samples"):
        parser.add_argument("--" + name.replace("_", "-"), type=int, default=None)
    return parser.parse_args(argv)


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
    data = event.data
    if event.kind == "terms":
        return f"  iteration {event.iteration}: terms " + ", ".join(f"{t.text} ({t.origin})" for t in data["new"])
    if event.kind == "collection":
        return f"  iteration {event.iteration}: {len(data['hits'])} sentences retrieved"
    if event.kind == "importance":
        return f"  iteration {event.iteration}: chunk S{data.first}-S{data.last} importance {data.importance:.2f}"
    if event.kind == "judge":
        verdict = "sufficient" if data.sufficient else "not sufficient"
        return f"  iteration {event.iteration}: judge says {verdict}: {data.reason[:100]}"
    if event.kind == "count":
        return f"  counting \"{data.phrase}\" in the forms {', '.join(data.forms)}: {data.total}"
    if event.kind == "warning":
        return f"  warning: {data['message']}"
    if event.kind == "index_progress":
        eta = f", about {data['eta_seconds'] / 60:.1f} min left" if data["eta_seconds"] is not None else ""
        return f"  M-RAG index: {data['done']} of {data['total']} windows{eta}"
    if event.kind == "retrieval":
        return (f"  {data['method']}: {len(data['chunks'])} chunks placed: "
                + ", ".join(f"S{c['first']}-S{c['last']} ({c['score']:.2f})" for c in data["chunks"][:6]))
    if event.kind == "assembly":
        by = {m.marker: m for m in data["matches"]}
        return (f"  M-RAG placed {len(data['placed'])} values ({data['spent']} of {data['budget']} tokens): "
                + "; ".join(f"{by[n].key[:60]} ({by[n].similarity:.2f})" for n in data["placed"][:5]))
    return None


def report(trace: Trace, book: Book) -> str:
    answer = trace.answer
    lines = [with_citations(answer.text, book), ""]
    if answer.vote_shares:
        lines.append("Votes: " + ", ".join(f"{k} {v:.0%}" for k, v in answer.vote_shares.items()))
    if answer.citations:
        lines.append("Citations" + (" (chosen by word overlap)" if answer.citations[0].automatic else "") + ":")
        for c in answer.citations[:10]:
            lines.append(f"  [{c.label}] {' '.join(c.text.split())[:160]}")
    totals = trace.totals()
    lines.append("")
    lines.append(f"{totals['iterations']} iteration(s), {totals['llm_calls']} LLM calls, "
                 f"{totals['evaluated_tokens']} prompt tokens evaluated ({totals['cached_tokens']} reused), "
                 f"{totals['completion_tokens']} generated, {totals.get('seconds', 0):.1f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        options = parse_options(args.option)
        book = load_book(args.book, cache_dir=default_cache_dir())
        if args.language:
            book = book.read_as(language_code(args.language))
        print(f"{book.title} by {book.author or 'unknown'}: {len(book)} sentences, {len(book.chapters)} chapters, "
              f"{book.lexicon.name}, {book.load_note()}", file=sys.stderr)
        read = reading_ceiling(book, args.up_to)
        asked = book.up_to(*read) if read else book
        llm = open_llm(args.model_name or args.model, server=args.server, n_ctx=args.n_ctx,
                       n_gpu_layers=args.n_gpu_layers, n_threads=args.threads)
        show = None if args.quiet else (lambda e: (line := summary_line(e)) and print(line, file=sys.stderr))
        settings = with_overrides(PRESETS[args.preset], **{k: getattr(args, k) for k in (
            "recall_index", "neighbor_num", "deep_search_index", "deep_search_num", "voter_num", "iter_max",
            "importance_samples")})
        if args.strategy == "mrag":
            engine = Mrag(llm, MRAG_PRESETS[args.preset])
            for event in engine.build(book):
                if show:
                    show(event)
            trace = engine.run(asked, args.question, options, index=engine.index(book), on_event=show)
        elif args.strategy in ("embedding", "bm25"):
            method = STRATEGIES[args.strategy](llm)
            trace = ChunkRag(llm, settings, method, method.prepare(book)).run(asked, args.question, options,
                                                                              on_event=show)
        else:
            names = names_for(book, default_cache_dir())
            trace = Elite(llm, settings, names=names).run(asked, args.question, options, on_event=show)
    except EliteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("stopped.", file=sys.stderr)
        return 130
    print(report(trace, book))
    if args.json:
        Path(args.json).write_text(trace.to_json(indent=1), encoding="utf-8")
        print(f"trace written to {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
