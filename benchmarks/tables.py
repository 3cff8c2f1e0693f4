"""The docs' measured tables, made from what the benchmark scripts wrote in ``benchmarks/results/`` (cog runs
these from the Markdown files: ``cog -r -I . README.md docs/*.md``; a test fails when a table drifts)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import ROOT

RESULTS = ROOT / "benchmarks" / "results"


def latest(name: str) -> Path:
    """The newest ``<date>/<name>.json`` of the results."""
    found = sorted(RESULTS.glob(f"*/{name}.json"))
    if not found:
        raise FileNotFoundError(f"no benchmarks/results/*/{name}.json: run the benchmark that writes it")
    return found[-1]


def figures(name: str) -> dict:
    return json.loads(latest(name).read_text(encoding="utf-8"))


def where(name: str) -> str:
    """Where a table's figures come from, as a link from docs/."""
    path = latest(name).relative_to(ROOT)
    return f"[`{path}`](../{path})"


def rows(head: list[str], body: list[list]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join("—" if v is None else str(v) for v in row) + " |" for row in body]
    return "\n".join(lines)


def num(value, digits: int = 2) -> str | None:
    return None if value is None else f"{value:,.{digits}f}"


def difference(value: float, interval: list[float], digits: int = 3) -> str:
    """A paired difference with its interval: "+0.047 (-0.054 to +0.150)"."""
    return f"{value:+.{digits}f} ({interval[0]:+.{digits}f} to {interval[1]:+.{digits}f})"


def runs_table(names: list[str]) -> str:
    """Benchmark runs (``python -m elite_ui.bench run``), one row per summary."""
    body = []
    for name in names:
        s = figures(name)
        generation = None if s["run"]["retrieval_only"] else num(s["generation_seconds"])
        body.append([name, s["questions"], num(s["accuracy"]), num(s["evidence_recall"]), num(s["context_tokens"], 0),
                     f"{round(s['llm_calls'], 1):g}", num(s["prepare_seconds_per_book"]), num(s["retrieval_seconds"]),
                     generation, num(s["storage_bytes"] / 1e6), num(s["expansion_ratio"])])
    return rows(["run", "questions", "accuracy", "evidence recall", "context tokens", "LLM calls", "prepare s/book",
                 "retrieval s", "generation s", "stored MB", "expansion"], body)


def engine_table() -> str:
    f = figures("engine")
    load, collect, memory = f["loading"], f["collection"], f["memory"]
    return rows(["what", "target", "measured"], [
        [f"read + segment + index {load['book']} ({load['mb']} MB, {load['sentences']:,} sentences)", "≤ 1.0 s",
         f"median {load['load_median_s']} s of 5 ({load['load_min_s']}-{load['load_max_s']})"],
        ["opening it again (its parsed structure from the cache)", "instant",
         f"median {load['cached_median_ms']} ms of 5 (cache file {load['cache_mb']} MB)"],
        ["one collection step on it (8 terms, top 25, widening 2)", "≤ 20 ms median",
         f"median {collect['median_ms']} ms, p95 {collect['p95_ms']} ms"],
        ["memory held by the loaded book", "≤ 10x text",
         f"{memory['held_mb']} MB, {memory['held_x']}x the file (peak while loading {memory['peak_mb']} MB)"],
    ])


def questions_table() -> str:
    """Per question on the embedded model (``python -m benchmarks.engine``)."""
    body = [[q["book"], q["question"], q["iterations"], q["calls"], f"{q['evaluated_tokens']:,}",
             f"{q['cached_tokens']:,}", q["generated_tokens"], q["seconds"], f"{q['outside_share']:.1%}"]
            for q in figures("engine").get("questions", [])]
    return rows(["book", "question", "iterations", "LLM calls", "prompt tokens evaluated", "reused", "generated",
                 "seconds", "outside the LLM"], body)


def ui_table() -> str:
    f = figures("ui")
    return rows(["what", "target", "measured"], [
        ["page load (headless Chromium)", "≤ 3 s", f"{f['page_load_s']} s"],
        [f"uploading {f['book']} ({f['book_mb']} MB) until its card shows (the file read)", "≤ 0.5 s",
         f"{f['upload_card_s']} s"],
        [f"uploading {f['book']} until the book is ready (sentences found, words indexed)", "≤ 3 s",
         f"{f['upload_s']} s"],
        ["first trace element visible after Ask (scripted model)", "≤ 2 s", f"{f['first_trace_s']} s"],
        ["first quote of what the book says on screen, after the engine places the evidence (1 s model calls)",
         "≤ 0.5 s", f"{f['quote_after_evidence_s']:+} s (first quote {f['first_quote_s']} s after Ask, answer done "
                    f"after {f['answer_done_s']} s)"],
        [f"rendering a {f['iterations']}-iteration trace (paper preset)", "≤ 1 s",
         f"{f['render_python_ms']} ms in Python (HTML and both charts), {f['render_browser_ms']} ms in the browser"],
    ])


def segmenters_table() -> str:
    f = figures("segmenters")
    return rows(["segmenter", "boundary F1 vs pysbd, median (worst book)", "seconds per MB"],
                [[r["segmenter"], "reference" if r["f1_median"] is None else f"{r['f1_median']} ({r['f1_worst']})",
                  r["seconds_per_mb"]] for r in f["rows"]])


def languages_table() -> str:
    names = {"fr": "French", "de": "German", "es": "Spanish", "zh": "Chinese"}
    f = figures("languages")
    body = []
    for code, name in names.items():
        r = f[code]
        own = sum(rank == 1 for rank in r["ranks_own"])
        english = sum(rank == 1 for rank in r["ranks_as_english"])
        body.append([name, r["detected"], f"{own}/{len(r['ranks_own'])} / {english}/{len(r['ranks_as_english'])}",
                     f"{r['candidate_share_own']:.0%} / {r['candidate_share_as_english']:.0%}",
                     f"{r['load_s_per_mb']} s/MB"])
    return rows(["language", "detected", "fact ranked first: own / as English",
                 "sentences sharing a word with the question: own / as English", "load (better of two)"], body)


def side_by_side_table() -> str:
    f = figures("side-by-side")
    body = []
    for q in f["questions"]:
        for method in ("elite", "embedding", "bm25"):
            r = q[method]
            body.append([q["question"], method, r["calls"], f"{r['prompt_tokens']:,}", r["generated"], r["seconds"],
                         r["evidence"]])
    build = ", ".join(f"{name} {p['seconds']} s ({p['bytes'] / 1e6:.1f} MB)" for name, p in f["preparation"].items())
    return rows(["question", "method", "LLM calls", "prompt tokens", "generated", "seconds", "evidence sentences"],
                body) + f"\n\nChunk index build on *{f['book']}*: {build}."


def stop_line() -> str:
    f = figures("stop")
    stages = ", ".join(f"{stage} {'—' if s is None else f'{s:.2f}'}" for stage, s in f["stopped_after"].items())
    server = ", ".join(f"{stage} {s:.2f}" for stage, s in f.get("server_stopped_after", {}).items())
    return (f"the flag set {f['delay_seconds']} s into each stage's first call, prompts read in slices of "
            f"{f['slice_tokens']} tokens; seconds from the flag to the question ending: {stages}"
            + (f"; on a model server holding each call {f['server_seconds']:g} s (nothing sent meanwhile, as while "
               f"it reads a long prompt): {server}" if server else ""))


def soak_line() -> str:
    f = figures("soak")
    return (f"{f['questions']} questions in a row on one book, {f['errors']} without an answer, resident memory "
            f"{f['rss_before_mb']} MB -> {f['rss_after_mb']} MB ({f['rss_growth']:+.1%}), Python heap "
            f"+{f['heap_growth_mb']} MB")


def hostile_line() -> str:
    found = figures("hostile")["rows"]
    ran = [r for r in found if r["seconds"] is not None]
    slowest = max(ran, key=lambda r: r["seconds"])
    heaviest = max(ran, key=lambda r: r["peak_mb"])
    return (f"{len(found)} inputs: {sum(r['outcome'].startswith('book') for r in ran)} load, "
            f"{sum(r['outcome'].startswith('error') for r in ran)} are refused with one sentence, "
            f"{len(found) - len(ran)} crash; the slowest takes {slowest['seconds']:.2f} s ({slowest['name']}), the "
            f"highest peak memory is {heaviest['peak_mb']:.0f} MB ({heaviest['name']}; "
            f"{min(r['peak_mb'] for r in ran):.0f} MB is the interpreter with its libraries)")


def one_sentence_line() -> str:
    found = figures("trace_size")
    return (f"a book of one {found['book_mb']:g} MB sentence loads as {found['sentences']:,} pieces of at most "
            f"{found['longest']:,} characters, and a question's trace is {found['trace_mb_laptop']} MB of HTML "
            f"with the default preset, {found['trace_mb_paper']} MB with `paper`")


def hosted_memory_line() -> str:
    """The hosted app's memory under parallel uploads (``python -m benchmarks.hosted_memory``)."""
    found = figures("hosted_memory")
    rows = {r["uploads_at_once"]: r for r in found["rows"]}
    limited, free = rows[2], rows[max(rows)]
    return (f"{found['visitors']} API clients uploading {found['visitors']} different {found['book_mb']} MB books "
            f"at once: with the default limit of 2 books read at once, all {found['visitors']} opened "
            f"(the slowest after {limited['slowest_upload_s']:g} s), memory {limited['before_mb']:,} MB before, "
            f"{limited['peak_mb']:,.0f} MB at the peak, {limited['all_open_mb']:,} MB with every book open; with no "
            f"limit ({max(rows)} at once) the peak was {free['peak_mb']:,.0f} MB and {free['failed']} of the "
            f"{found['visitors']} uploads timed out, the server too busy to take them")


def whole_book_table() -> str:
    """Whole-book mode against ELITE and BM25 chunks on FairytaleQA (``python -m benchmarks.whole_book``)."""
    rows = ["| method | questions (answered) | accuracy | F1 | calls | evaluated tokens | median s |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in figures("whole_book").items():
        rows.append(f"| {name} | {r['questions']} ({r['answered']}) | {num(r['accuracy'])} | {num(r['f1'])} | "
                    f"{round(r['llm_calls'], 1):g} | {num(r['evaluated_tokens'], 0)} | {num(r['seconds_median'])} |")
    return "\n".join(rows)


def story_line() -> str:
    """The story so far and the X-Ray, measured (``python -m benchmarks.story``)."""
    found = figures("story")
    books, xr = found["books"], found["xray"]
    slowest = max(books, key=lambda b: b["recap_s"])
    within = min(b["before_ceiling"] for b in books)
    pairs = "; ".join(f"{x['character']}: " + ", ".join(f"{name} ({count})" for name, count in x["companions"])
                      for x in xr.values() if x["book"] != "les-miserables")
    fastest = min(b["recap_s"] for b in books)
    return (f"the extractive recap of a whole novel takes {fastest:g}-{slowest['recap_s']:g} s "
            f"({slowest['book']}, {slowest['chapters']} chapters, the slowest) on {len(books)} corpus novels; with the "
            f"ceiling at half the book, {within:.0%} of the recap's extracts lie before it, in every book; the "
            f"X-Ray of {xr['Valjean']['character']} in Les Misérables takes {xr['Valjean']['xray_s']:g} s. Top "
            f"companions by shared paragraphs: {pairs}")


ABLATION_SETS = {"nd": "novels-dev", "nv": "tests/data novels", "ft": "FairytaleQA", "ft150": "FairytaleQA",
                 "fth": "FairytaleQA held out"}


def ablation_set(key: str, questions: int) -> str:
    """A set's name in the ablation table: ``nd-same`` are novels-dev's rows on the questions every row took."""
    base, _, same = key.partition("-")
    return f"{ABLATION_SETS.get(base, base)} ({questions}{', the same for every row' if same else ''})"


def ablation_table() -> str:
    """ELITE stage by stage (``python -m benchmarks.ablation``): one row per stage added, per question set."""
    body = []
    for key, by_row in figures("ablation").items():
        for name, r in by_row.items():
            body.append([ablation_set(key, r["questions"]), name, num(r["evidence_recall"]), num(r["quote_hit"]),
                         f"{round(r['llm_calls'], 1):g}", num(r["evaluated_tokens"], 0), num(r["seconds_median"]),
                         num(r.get("accuracy"))])
    return rows(["questions", "row", "evidence recall", "hit@3", "LLM calls", "prompt tokens evaluated",
                 "median s", "accuracy"], body)


def evidence_ranks_table() -> str:
    """Where each view ranks the gold evidence (``python -m benchmarks.evidence_ranks``)."""
    body = [[f"{name} ({r['evidence_sentences']} sentences)", view, *(num(r[key][k]) for k in ("5", "10", "20"))]
            for name, r in figures("evidence_ranks").items()
            for view, key in (("sentences (ELITE's ranking)", "sentence"), ("100-word chunks (BM25)", "chunk"))]
    return rows(["gold evidence of", "ranked as", "in the top 5", "top 10", "top 20"], body)


def many_readers_table() -> str:
    """Visitors asking at once, against the stand-in batching server and a 0 s one (``benchmarks.many_readers``)."""
    found = figures("many_readers")
    body = [[f"{r['latency']:g} s", r["visitors"], f"{r['p50']:g}", f"{r['p95']:g}", f"{r['last']:g}",
             f"{r['per_second']:g}", r["server_peak"], f"{r['app_cpu_s_per_question']:g}"]
            for r in found["server"] + found["app_ceiling"]]
    return rows(["server's seconds a call", "visitors at once", "p50 s", "p95 s", "last answer s", "questions/s",
                 "server's requests in flight (most)", "app CPU s a question"], body)


def during_build_line() -> str:
    """One visitor's question while another builds the M-RAG index (``benchmarks.many_readers``)."""
    names = {"server": "the stand-in server taking one call at a time (0.5 s a call)",
             "scripted": "the scripted model (0.5 s a call)", "embedded": "the embedded SmolLM2-135M"}
    return "; ".join(f"on {names[r['model']]}, {r['question_alone_s']:g} s alone and {r['question_during_build_s']:g}"
                     f" s during the build ({r['ratio']:g}x)" for r in figures("many_readers")["during_build"])


def many_readers_before_line() -> str:
    """The same benchmark on the commit before the shared capacity (one lock for the whole question)."""
    found = {r["visitors"]: r for r in figures("many_readers_before")["server"]}
    return "; ".join(f"{n} visitors asking at once waited until {r['last']:g} s for the last answer (p50 "
                     f"{r['p50']:g} s), the server never holding more than {r['server_peak']} request"
                     for n, r in sorted(found.items()) if n > 1)


def default_against_bm25_line() -> str:
    """The default preset's evidence recall against BM25 chunks on every set of the ablation, and the previous
    default's (``python -m benchmarks.ablation``)."""
    found = figures("ablation")
    sets = [key for key in found if "-" not in key]

    def recall(key: str, row: str) -> float:
        return found[key][row]["evidence_recall"]

    pairs = "; ".join(f"{ablation_set(key, found[key]['default preset']['questions'])} "
                      f"{recall(key, 'default preset'):.3f} against {recall(key, 'bm25 chunks'):.3f} "
                      f"({recall(key, 'default preset') - recall(key, 'bm25 chunks'):+.3f})" for key in sets)
    before = ", ".join(f"{recall(key, 'previous default preset (windows only)'):.3f}" for key in sets)
    return f"{pairs}. The previous default (the same terms, 5-sentence windows, no fusion) had {before}"


def leaks_line() -> str:
    """The leak harness over the corpus (``benchmarks.leaks``)."""
    found = figures("leaks")
    surfaces = ", ".join(f"{name} {n}" for name, n in found["scanned"].items())
    beyond = sum(found["beyond"].values())
    return (f"{found['questions']} questions at {found['places']} ceilings (six novels, each at 20%, 40% and 60%), "
            f"surfaces scanned: {surfaces}; surfaces showing a sentence, a name or a chapter title from beyond the "
            f"ceiling: {beyond}")


def grounding_line() -> str:
    """The grounding check on the novels-dev questions (``benchmarks.grounding``)."""
    found = figures("grounding")
    lexical, both = found["lexical"], found["with MiniLM"]
    line = (f"of {both['questions']} correct options stated as answers, {both['correct_kept']:.0%} kept "
            f"({lexical['correct_kept']:.0%} without MiniLM's second opinion); of the wrong options, "
            f"{both['wrong_left_out']:.0%} left out ({lexical['wrong_left_out']:.0%})")
    model = found.get("embedded model")
    if model:
        line += (f". The embedded model's own free-form answers: {model['supported']} of {model['answer_sentences']}"
                 f" sentences supported ({model['supported_share']:.0%}); {model['correct_answers']} answers correct"
                 f" (token F1 at least 0.5 against the correct option), of which {model['correct_answers_cut']} lost"
                 " a sentence to the check")
    return line


def names_table() -> str:
    """The names list's precision against hand-checked lists, before and after (``benchmarks.names``)."""
    now, before = figures("names"), figures("names_before")
    return rows(["novel", "names listed (before)", "people (before)", "precision (before)", "not people now"],
                [[novel.removesuffix(".txt"), f"{r['listed']} ({before[novel]['listed']})",
                  f"{r['people']} ({before[novel]['people']})",
                  f"{r['precision']:.3f} ({before[novel]['precision']:.3f})", ", ".join(r["not_people"]) or "none"]
                 for novel, r in now.items()])


def aliases_table() -> str:
    """The merged names' pairs against hand-made lists, before and after (``benchmarks.names``)."""
    now, before = figures("names_aliases"), figures("names_before_aliases")
    return rows(["novel", "names listed by hand", "pairs alike", "precision (before)", "recall (before)",
                 "wrongly merged now"],
                [[novel.removesuffix(".txt") + (" (held out)" if r["held_out"] else ""), r["names"], r["alike"],
                  *(f"{r[f]:.3f} ({before[novel][f]:.3f})" if novel in before else f"{r[f]:.3f} (new list)"
                    for f in ("precision", "recall")),
                  "withheld" if r["held_out"] else "; ".join(r["wrongly_merged"]) or "none"]
                 for novel, r in now.items()])


def paper_cost_table() -> str:
    f = figures("paper_cost")
    stages = list(dict.fromkeys([*f["every_iteration"]["by_stage"], *f["one_iteration"]["by_stage"]]))
    body = [[f"**{when}**", *(f[key]["by_stage"].get(stage, 0) for stage in stages), f[key]["calls"],
             f"{f[key]['seconds'] / 60:.1f} min"]
            for when, key in (("judge satisfied at once", "one_iteration"), ("every iteration", "every_iteration"))]
    body.append(["seconds a call", *(f["seconds_a_call"].get(stage, "—") for stage in stages), "", ""])
    return rows(["paper preset", *stages, "calls", f"on {f['model']}"], body)


def library_table() -> str:
    f = figures("library")
    total = {kind: [sum(r["places"][kind][k] for r in f["rows"]) for k in ("chapter", "sentence")]
             for kind in f["rows"][0]["places"]}
    n = f["places_each"] * len(f["rows"])
    names = {"calibre": "Calibre's viewer (its CFI)", "standard": "an EPUB CFI (standard form)",
             "koreader": "KOReader (xpointer)", "fraction": "the share read alone (a txt's or pdf's position)"}
    body = [[names[k], f"{c} of {n}", f"{s} of {n}"] for k, (c, s) in total.items()]
    marked = {how: sum(r["highlights"][how]["matched"] for r in f["rows"])
              for how in ("placed", "text alone", "text and chapter")}
    h = f["highlights_each"] * len(f["rows"])
    body += [[f"highlights with their place ({len(f['rows'])} novels)", "", f"{marked['placed']} of {h} matched"],
             ["highlights by their text alone", "", f"{marked['text alone']} of {h} matched"],
             ["highlights by their text and chapter title", "", f"{marked['text and chapter']} of {h} matched"]]
    return rows(["position written by", "right chapter", "exact sentence"], body)


def feedback_table() -> str:
    """ELITE's retrieval variants beside BM25 with bootstrap intervals (``python -m benchmarks.feedback``)."""
    f = figures("feedback")
    names = {"nd": "novels-dev", "ft150": "FairytaleQA's 150", "nn": "novels-300"}
    body = []
    for key, found in f.items():
        for name, row in found.items():
            versus = difference(row["minus_bm25"], row["minus_bm25_interval"]) if "minus_bm25" in row else ""
            body.append([f"{names.get(key, key)} ({row['questions']})", name,
                         f"{row['evidence_recall']:.3f} ({row['interval'][0]:.3f}-{row['interval'][1]:.3f})", versus,
                         row["llm_calls"], row.get("evaluated_tokens", "")])
    return rows(["questions", "row", "evidence recall (95% interval)", "minus BM25 (paired interval)",
                 "model calls", "prompt tokens evaluated"], body)


def answers_table(name: str) -> str:
    """The answers a reader sees with a real model, row by row (``python -m benchmarks.answers``): accuracy with
    its interval and against BM25 chunks, and under ceilings what was answered within and what beyond."""
    f = figures(name)
    body = []
    for row, s in f["rows"].items():
        versus = s.get("vs_bm25")
        body.append([row, s["questions"], f"{s['accuracy']:.2f} ({s['interval'][0]:.2f}-{s['interval'][1]:.2f})",
                     difference(versus["difference"], versus["interval"], 2) if versus else "",
                     num(s.get("within", {}).get("accuracy")),
                     num(s.get("beyond", {}).get("abstained")), s.get("beyond", {}).get("answered_from_beyond", ""),
                     num(s.get("evidence_recall")), num(s.get("key_in_evidence")), num(s.get("seconds_median"), 1),
                     num(s.get("first_answer_after_quotes"), 1), num(s.get("llm_calls"), 1),
                     num(s.get("evaluated_tokens"), 0)])
    return rows(["row", "questions", "right (95% interval)", "minus BM25 (paired)", "right, answer read",
                 "says 'does not say', answer beyond", "answered from beyond", "evidence recall",
                 "key in the evidence", "median s", "first answer word after the quotes, s", "model calls",
                 "prompt tokens evaluated"], body)


def pooled_table(names: list[str], row: str = "default", base: str = "bm25") -> str:
    """Row ``row`` against ``base`` on each of the answers files ``names`` and on all their questions together,
    paired question by question (each file's ``right_by_question``)."""
    from elite_ui.bench.scoring import bootstrap_interval

    def line(label: str, both: list[tuple[int, int]]) -> list:
        ours, theirs = [p[0] for p in both], [p[1] for p in both]
        mine, its = sum(ours) / len(ours), sum(theirs) / len(theirs)
        return [label, len(both), f"{its:.3f}", f"{mine:.3f}", difference(mine - its, bootstrap_interval(ours, theirs)),
                sum(x > y for x, y in both), sum(x < y for x, y in both)]

    pairs = {}
    for name in names:
        found = figures(name)["rows"]
        ours, theirs = found[row]["right_by_question"], found[base]["right_by_question"]
        pairs[name] = [(ours[q], theirs[q]) for q in ours if q in theirs]
    body = [line(f"`{name}`", both) for name, both in pairs.items()]
    body.append(line("all together", [p for both in pairs.values() for p in both]))
    return rows(["questions of", "questions", base, row, f"{row} minus {base} (paired)", "won", "lost"], body)


def evidence_table(name: str) -> str:
    """The evidence each row places for a real model's search terms (``python -m benchmarks.answers
    --evidence-only``): the share of the gold evidence held and of questions whose key it holds, each paired
    against BM25 chunks (and against the default, where a run paired them)."""
    def versus(s: dict, figure: str, of: str = "bm25") -> str:
        d = (s.get(f"evidence_vs_{of}") or {}).get(figure)
        return difference(d["difference"], d["interval"]) if d else ""
    found = figures(name)["rows"]
    against_default = any("evidence_vs_default" in s for s in found.values())
    body = [[row, s["questions"], num(s.get("evidence_recall"), 3), versus(s, "evidence_recall"),
             num(s.get("key_in_evidence"), 3), versus(s, "key_in_evidence")]
            + ([versus(s, "evidence_recall", "default"), versus(s, "key_in_evidence", "default")]
               if against_default else []) for row, s in found.items()]
    return rows(["row", "questions", "evidence recall", "minus BM25 (paired, 95% interval)", "key in the evidence",
                 "minus BM25 (paired)"] + (["evidence recall minus the default (paired)", "key minus the default"]
                                           if against_default else []), body)


def grounding_real_table(name: str = "grounding-real") -> str:
    """The grounding check on a real model's own answers (``python -m benchmarks.grounding --answers``), with the
    labels as the model wrote them and moved to the evidence sentence that supports the claim."""
    body = [[row, s["questions"], s["right_answers"], num(s["right_kept"]), s["wrong_answers"],
             num(s["wrong_caught"]), num(s["right_after_the_check"]),
             f"{round(s['beyond_not_said'] * s['beyond'])} of {s['beyond']}" if s.get("beyond") else "—"]
            for row, s in figures(name).items()]
    return rows(["check", "questions", "right answers (check off)", "of those, kept whole", "wrong answers",
                 "of those, a sentence left out", "right after the check", "'does not say', answer beyond"], body)


def passage_check_table(name: str) -> str:
    """The model's passage check after the grounding check, at each threshold of its log-odds (``python -m
    benchmarks.grounding --answers SET:FILE --passage-check``), each paired against the check alone."""
    body = [[at if at == "off" else f"log-odds {at}", s["questions"], num(s["right"], 3),
             "" if at == "off" else difference(*s["minus_off"]), f"{s['within_right']} of {s['within']}",
             "" if at == "off" else difference(*s["within_minus_off"]), s["within_wrong"],
             f"{s['beyond_right']} of {s['beyond']}",
             "" if at == "off" else difference(*s["beyond_minus_off"]), s["from_beyond"]]
            for at, s in figures(name).items() if at not in ("odds", "sentences", "check")]
    return rows(["passage check", "questions", "right", "minus the check alone (paired)", "right, answer within",
                 "minus the check alone", "wrong answers stated, answer within", "'does not say', answer beyond",
                 "minus the check alone",
                 "answered from beyond"], body)


def answer_step_table(name: str) -> str:
    """The answer step alone, tried several ways on the evidence one row placed (``python -m
    benchmarks.answer_step``), each variant paired against the first."""
    body = [[row or "default", s["questions"], f"{num(s['right'], 3)} ({num(s['interval'][0], 3)}-"
             f"{num(s['interval'][1], 3)})", "" if n == 0 else difference(s["vs_first"]["difference"],
                                                                         s["vs_first"]["interval"]),
             num(s["right_kept"]), num(s["wrong_caught"]),
             f"{round(s['beyond_abstained'] * s['beyond'])} of {s['beyond']}", num(s["seconds_mean"], 1)]
            for n, (row, s) in enumerate(figures(name).items())]
    return rows(["answer step", "questions", "right after the check (95% interval)", "minus the first (paired)",
                 "right answers kept whole", "wrong ones caught", "'does not say', answer beyond", "mean s"], body)


def library_index_table() -> str:
    """The library's index at scale (``python -m benchmarks.library_index``), against issue 37's goals."""
    f = figures("library_index")
    memory = f["memory_mb"]
    return rows(["measured", "figure", "goal"], [
        ["books (text)", f"{f['books']:,} ({f['text_mb']:,} MB)", "1,000"],
        ["index built from nothing", f"{f['build_seconds']:,.0f} s", "at most 600 s"],
        ["index on disk", f"{f['index_mb']:,} MB", "at most 1,024 MB"],
        ["a search, as far as the reader has read (p50 / p95)",
         f"{f['search_ms_read']['p50']} / {f['search_ms_read']['p95']} ms", "p95 at most 200 ms"],
        ["a search, unread books too (p50 / p95)",
         f"{f['search_ms_unread_too']['p50']} / {f['search_ms_unread_too']['p95']} ms", "p95 at most 200 ms"],
        ["memory: one book open, then after the build and 200 searches (peak)",
         f"{memory['one_book']:,} MB, {memory['after']:,} MB ({memory['peak']:,} MB)", "at most 500 MB more"],
        *([["the app's memory: one book opened, then after 200 searches through search_library",
            f"{f['app_memory_mb']['one_book']:,} MB, {f['app_memory_mb']['after_searches']:,} MB",
            "at most 500 MB more"]] if "app_memory_mb" in f else []),
        ["a restart, nothing changed", f"{f['restart_seconds']} s", "at most 2 s"],
        ["one book added", f"{f['add_one_seconds']} s", "at most 5 s"],
    ])


def library_engines_table() -> str:
    """SQLite FTS5 against bm25s on the same books (``python -m benchmarks.library_index --bm25s``)."""
    f = figures("library_index_engines")
    other = f["bm25s"]
    return rows(["engine", "build", "on disk", "search p50 / p95", "add one book", "memory while building"], [
        [f"SQLite FTS5 ({f['books']} books, {f['text_mb']} MB)", f"{f['build_seconds']} s", f"{f['index_mb']} MB",
         f"{f['search_ms_unread_too']['p50']} / {f['search_ms_unread_too']['p95']} ms", f"{f['add_one_seconds']} s",
         f"{f['memory_mb']['peak'] - f['memory_mb']['one_book']} MB"],
        ["bm25s (mmap)", f"{other['build_seconds']} s", f"{other['index_mb']} MB",
         f"{other['search_ms']['p50']} / {other['search_ms']['p95']} ms",
         f"{other['add_one_seconds']} s (all built again)", f"{other['memory_mb_while_building']} MB"],
    ])


def examples_table(name: str = "examples") -> str:
    """The sample book's candidate questions (``python -m benchmarks.examples``: on the embedded model with the
    default preset; ``examples_capable``, with ``--model``, on a real model with its own): the key in the evidence,
    the answer right (it says the key) and unmarked (in a sentence the checks keep unmarked); the examples the page
    offers with that model marked."""
    from elite_ui.app.sample import CAPABLE_EXAMPLES, EXAMPLES

    f = figures(name)
    offered = CAPABLE_EXAMPLES if f.get("preset") == "capable" else EXAMPLES
    return rows(["question", "on the page", "key in the evidence", "answer right", "unmarked", "seconds"], [
        [c["question"], "yes" if c["question"] in offered else "", "yes" if c["key_in_evidence"] else "no",
         "yes" if c["right"] else "no", "yes" if c["unmarked"] else "no", num(c["seconds"], 1)]
        for c in f["candidates"]])


def demo_table() -> str:
    """The page's example questions with the ``demo`` preset on the embedded model: seconds, calls, stages shown."""
    f = figures("examples")
    return rows(["question", "seconds", "first quotes after, s", "model calls", "stages shown", "answer right"], [
        [d["question"], num(d["seconds"], 1), num(d["first_quotes_s"], 1), d["llm_calls"], ", ".join(d["stages"]),
         "yes" if d["right"] else "no"] for d in f["demo"]])


def story_written_line() -> str:
    """A real model's written recaps (``python -m benchmarks.story --written``), in one sentence."""
    f = figures("story-written")
    kept = f["sentences"]
    return (f"{f['model']}, Pride and Prejudice up to {f['up_to']}: {sum(f['seconds']):.0f} s for {f['chapters']} "
            f"chapters ({min(f['seconds']):.0f}-{max(f['seconds']):.0f} s each); {f['written']} of {f['chapters']} "
            f"chapters with a recap sentence kept, {kept} sentence{'s' * (kept != 1)} in all ({f['cited_by_labels']} "
            f"cited by the model's labels, {f['cited_by_words']} by their words); {f['dropped']} left out, "
            f"{f['copied']} of them copied out of the chapter")


def about_passage_table() -> str:
    """Questions about a highlighted passage (``python -m benchmarks.about_passage``), before the model was told
    which passage is meant and now."""
    runs = [("before (6def204)", figures("about-passage-before")), ("now", figures("about-passage"))]
    return rows(["code", "answers", "cite only the passage", "cite nothing", "first quote from the passage"], [
        [name, f["answers"], f["cite_only_the_passage"], f["cite_nothing"], f["first_quote_in_the_passage"]]
        for name, f in runs])
