"""How fast the app responds, in a real headless Chromium, on the scripted model: ``python -m benchmarks.ui``.

Prints: page load; loading les-miserables.txt (3.2 MB) through the upload box until its card shows (as soon as
the file is read) and until the book is ready (sentences found, words indexed); the time from clicking Ask to the
first trace element; for a 5-iteration question (paper preset), the time to render its trace (Python: HTML and
both charts; browser: putting that HTML on the page and laying it out); and, on the sample book with a model
taking 1 s a call, the time to the first quote of what the book says on screen beside the time the engine places
the evidence (measured in Python).

``python -m benchmarks.ui --first-screen docs/first-screen.png`` instead photographs the page a first visitor
sees, on the embedded model, for the README.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks import CORPUS, write_figures
from elite_ui.app import render
from elite_ui.app.sample import EXAMPLES, SAMPLE
from elite_ui.book import load_book
from elite_ui.methods.elite import PRESETS, Elite
from elite_ui.methods.trace import Kind
from elite_ui.models import ScriptedLLM
from elite_ui.testing.browser import ARGS, CHROMIUM, start_app, stop_app

BOOK = CORPUS / "les-miserables.txt"
QUESTION = "What does the bishop give Jean Valjean?"
SLOW = {"delay": 1.0, "replies": {"terms": ["Toad\nHall\nlive"], "answer": ["Toad lives at Toad Hall."]}}
SCRIPT = {"replies": {"terms": ["Valjean\nbishop\ncandlesticks"], "judge": ["no, not yet"],
                      "breadth": ["Javert\nCosette", "Marius\nbarricade", "Thénardier\ninn", "Fantine\nMontreuil"],
                      "depth": ["Myriel"], "importance": ["He gave him the candlesticks.", "Nobody knows."],
                      "trim": ["S1"], "answer": ["The bishop gives Jean Valjean his silver candlesticks."]}}


def python_render_seconds() -> tuple[int, float]:
    book = load_book(BOOK)
    trace = Elite(ScriptedLLM(json.loads(json.dumps(SCRIPT["replies"]))), PRESETS["paper"],
                  embed=lambda texts: __import__("numpy").ones((len(texts), 4))).run(book, QUESTION)
    iterations = trace.totals().iterations
    times = []
    for _ in range(5):
        started = time.perf_counter()
        render.trace_html(book, trace.events)
        render.importance_figure(book, trace.events).to_json()
        render.book_map(book, trace.events).to_json()
        times.append(time.perf_counter() - started)
    print(f"render a {iterations}-iteration trace in Python (HTML + both charts): "
          f"median {statistics.median(times) * 1000:.0f} ms")
    return iterations, statistics.median(times)


def first_screen(path: Path) -> None:
    """The page as a first visitor sees it, on the embedded demo model."""
    process, url = start_app()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.goto(url)
            page.wait_for_selector("#model-note:has-text('demo model')")
            page.wait_for_function("document.activeElement?.id === 'sample'")  # the page's load event is done
            page.wait_for_function("!document.querySelector('.progress-text, .eta-bar')")
            page.screenshot(path=str(path))
            browser.close()
    finally:
        stop_app(process)
    print(f"first screen written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-screen", type=Path, help="write a screenshot of the first screen here and stop")
    args = parser.parse_args()
    if args.first_screen:
        first_screen(args.first_screen)
        return
    iterations, render_seconds = python_render_seconds()
    figures = {"iterations": iterations, "render_python_ms": round(render_seconds * 1000), "book": BOOK.name,
               "book_mb": round(BOOK.stat().st_size / 1e6, 1)}
    with scripted_page(SCRIPT, "paper") as (page, url):
        started = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("#question textarea")
        figures["page_load_s"] = round(time.perf_counter() - started, 2)
        print(f"page load: {figures['page_load_s']:.2f} s")
        started = time.perf_counter()
        page.set_input_files("#upload input[type=file]", str(BOOK))
        page.wait_for_selector("#book-info .book-card:has-text('Hugo')", timeout=60000)
        figures["upload_card_s"] = round(time.perf_counter() - started, 2)
        page.wait_for_selector("#book-info:has-text('sentences')", timeout=60000)
        figures["upload_s"] = round(time.perf_counter() - started, 2)
        print(f"upload {BOOK.name} ({BOOK.stat().st_size / 1e6:.1f} MB): its card shows after "
              f"{figures['upload_card_s']:.2f} s, the book is ready after {figures['upload_s']:.2f} s")
        page.fill("#question textarea", QUESTION)
        started = time.perf_counter()
        page.click("#ask")
        page.wait_for_selector("#trace .iteration .chip")
        figures["first_trace_s"] = round(time.perf_counter() - started, 2)
        print(f"first trace element visible after Ask: {figures['first_trace_s']:.2f} s")
        page.wait_for_selector("#status:has-text('Done')", timeout=300000)
        print(f"whole 5-iteration question on the scripted model: {time.perf_counter() - started:.2f} s, "
              f"{page.locator('#trace .iteration').count()} iteration blocks")
        browser_ms = page.evaluate("""() => {
            const el = document.querySelector('#trace .trace').parentElement;
            const html = el.innerHTML;
            const t = performance.now();
            el.innerHTML = html;
            el.getBoundingClientRect();
            document.body.offsetHeight;
            return performance.now() - t;
        }""")
        print(f"browser: put the 5-iteration trace HTML on the page and lay it out: {browser_ms:.0f} ms")
        figures["render_browser_ms"] = round(browser_ms)
    figures |= quotes_before_the_answer()
    write_figures("ui", figures)


@contextmanager
def scripted_page(script: dict, preset: str):
    """A browser page and the address of the app on a scripted model playing ``script``, its ELITE preset
    ``preset``; the app stops afterwards."""
    path = Path(tempfile.mkdtemp()) / "script.json"
    path.write_text(json.dumps(script))
    os.environ["ELITE_PRESET"] = preset
    process, url = start_app("--scripted", str(path))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            yield browser.new_page(viewport={"width": 1400, "height": 1000}), url
            browser.close()
    finally:
        stop_app(process)


def quotes_before_the_answer() -> dict:
    """The sample book's question on the default preset, each model call taking ``SLOW["delay"]`` seconds: when
    the engine places its evidence (in Python), and when the first quote and the answer show in the browser."""
    book = load_book(SAMPLE)
    started = time.perf_counter()
    for event in Elite(ScriptedLLM(**SLOW), PRESETS["laptop"]).ask(book, EXAMPLES[0]):
        if event.kind == Kind.QUOTES:
            evidence = time.perf_counter() - started
    with scripted_page(SLOW, "laptop") as (page, url):
        page.goto(url)
        page.click("#sample")
        page.wait_for_selector("#book-info:has-text('sentences')", timeout=60000)
        for asked in range(1, 3):  # the first question of a fresh app also loads what it loads once
            page.fill("#question textarea", EXAMPLES[0])
            started = time.perf_counter()
            page.click("#ask")
            page.wait_for_function(f"document.querySelectorAll('#chat .quotes').length >= {asked}",
                                   timeout=60000)
            quote = time.perf_counter() - started
            page.wait_for_selector("#stop:disabled", timeout=60000)
            done = time.perf_counter() - started
    print(f"{EXAMPLES[0]} asked again (sample book, default preset, {SLOW['delay']:.0f} s a model call): evidence "
          f"placed {evidence:.2f} s after the start (Python); in the browser the first quote shows {quote:.2f} s after "
          f"Ask ({quote - evidence:+.2f} s), the answer is done after {done:.2f} s")
    return {"evidence_placed_s": round(evidence, 2), "first_quote_s": round(quote, 2),
            "quote_after_evidence_s": round(quote - evidence, 2), "answer_done_s": round(done, 2)}


if __name__ == "__main__":
    main()
