"""The Gradio reading assistant: load a book, ask, watch every iteration of the loop live.

Each visitor's book, conversation and traces live in their own :class:`Session` (Gradio session state). The model
is shared and guarded by a lock; questions queue with a concurrency limit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import gradio as gr

from . import notebook, render
from .baselines import BM25, ChunkRag, Embedding, Prepared
from .documents import Book, default_cache_dir, load_book, load_cached, reading_ceiling
from .elite import PRESETS, Edit, Elite, Settings, with_overrides
from .engine import Cancelled, Engine
from .errors import EliteError, ModelError
from .importance import Embed, MiniLMEmbedder
from .llm import LLM, ScriptedLLM, open_llm
from .mrag import ORDERS, MarkerIndex, Mrag, MragSettings
from .mrag import PRESETS as MRAG_PRESETS
from .names import NameIndex, names_for, save_names
from .trace import Trace

MILESTONES = {"terms", "collection", "count", "judge", "exploration", "answer", "done"}
"""Events that always refresh the trace and charts; others (importance, chunks...) refresh at most every
REFRESH_SECONDS (the trace) and FIGURE_SECONDS (the charts), so a long question stays smooth."""
REFRESH_SECONDS = 0.3
FIGURE_SECONDS = 1.0
TOGGLES = ["trim", "question_words", "name_variants"]
TUNABLE = ["recall_index", "neighbor_num", "deep_search_index", "deep_search_num", "voter_num", "iter_max",
           "importance_samples", "importance_chunks", "evidence_tokens"]
STRATEGIES = {"ELITE": "elite", "M-RAG": "mrag", "Chunk embedding (MiniLM)": "embedding", "BM25 chunks": "bm25"}
"""What the reader may compare, by label; ELITE and M-RAG may also be the main strategy."""
LANGUAGES = ["en", "fr", "de", "es", "zh", "it", "pt", "nl", "ru"]
"""Languages the reader may read a book as (any Snowball language works; these are offered)."""
KEPT_TURNS, KEPT_NOTES = 50, 200
"""How much of a session the browser keeps for a page reload."""
LIMITS = {"recall_index": (1, 100), "neighbor_num": (0, 10), "deep_search_index": (1, 20), "deep_search_num": (1, 30),
          "voter_num": (1, 20), "iter_max": (1, 10), "importance_samples": (0, 10), "importance_chunks": (0, 50),
          "evidence_tokens": (200, 8000)}


@dataclass
class Config:
    """How the app runs; from flags or ELITE_* environment variables (see app.py)."""

    model: str | None = None
    server: str | None = None
    model_name: str | None = None
    n_ctx: int = 4096
    scripted: str | None = None
    hosted: bool = False
    allowed_servers: tuple[str, ...] = ()
    max_upload_mb: int = 20
    concurrency: int = 1
    preset: str = "laptop"
    cache_dir: str | None = None
    """Where parsed books and M-RAG marker stores live (None: $ELITE_CACHE or ~/.cache/elite-reader)."""


class Model:
    """The shared model: which one is loaded, a lock so one question uses it at a time, and its status."""

    def __init__(self, config: Config):
        self.config = config
        self.lock = threading.Lock()
        self.llm: LLM | None = None
        self.embed: Embed = MiniLMEmbedder()
        self.status = "no model loaded"

    def load(self, kind: str, path: str = "", server: str = "", name: str = "") -> str:
        cfg = self.config
        if cfg.hosted and kind == "GGUF file":
            raise ModelError("this hosted app does not load model files from paths.")
        if cfg.hosted and kind == "server" and server.rstrip("/") not in cfg.allowed_servers:
            raise ModelError("this hosted app only uses its approved model servers.")
        with self.lock:
            if kind == "scripted":
                try:
                    script = json.loads(Path(cfg.scripted).read_text(encoding="utf-8"))
                except (OSError, ValueError) as exc:
                    raise ModelError(f"the script {cfg.scripted} could not be read ({exc}).") from None
                self.llm = ScriptedLLM(script.get("replies", {}), default=script.get("default", ""),
                                       delay=float(script.get("delay", 0.0)), logprobs=script.get("logprobs"))
            elif kind == "server":
                if not server.strip():
                    raise ModelError("enter the server's base URL, e.g. http://localhost:8080.")
                self.llm = open_llm(name.strip() or None, server=server.strip(), n_ctx=cfg.n_ctx)
            else:
                self.llm = open_llm(path.strip() or None if kind == "GGUF file" else None, n_ctx=cfg.n_ctx)
            self.status = f"ready: {self.llm.name} (context {self.llm.n_ctx} tokens)"
        return self.status

    def start(self) -> None:
        cfg = self.config
        if cfg.scripted:
            self.load("scripted")
        elif cfg.server:
            self.load("server", server=cfg.server, name=cfg.model_name or cfg.model or "")
        else:
            self.load("GGUF file" if cfg.model else "embedded", path=cfg.model or "")


class Session:
    """One visitor: their book, their conversation (turns) and each question's trace. Gradio copies the
    initial value for every new visitor, which here means a fresh, empty session."""

    def __init__(self):
        self.book: Book | None = None
        self.turns: list[dict] = []
        self.traces: list[Trace] = []
        self.indexes: dict[str, MarkerIndex] = {}
        self.prepared: dict[tuple[str, str], tuple[Embedding | BM25, Prepared]] = {}
        """Chunk indexes of the side-by-side baselines, by book and method."""
        self.ceiling: int | None = None
        """The last sentence of the reader's spoiler ceiling at their latest question (the reader stops there)."""
        self.names: NameIndex | None = None
        self.notebook: list[dict] = []
        self.reading: int | None = None
        """The sentence the Reader tab shows (what "Save this passage" saves)."""
        self.shown = -1
        """The run (index into ``traces``) the trace panel shows."""
        self.cancel = threading.Event()

    def __deepcopy__(self, memo):
        return Session()

    def labels(self) -> list[str]:
        """One label per run: its number, question, strategy, and the run it edits."""
        return [run_label(n, trace) for n, trace in enumerate(self.traces, 1)]

    def saved(self) -> dict:
        """What the browser keeps so the session survives a page reload: the book's hash (the book itself is in
        the parsed-book cache), the conversation and the notebook."""
        return {"book": self.book.digest if self.book else None,
                "turns": [notebook.turn_record(t) for t in self.turns[-KEPT_TURNS:]],
                "notebook": self.notebook[-KEPT_NOTES:]}

    def stop_unfinished(self) -> None:
        """Mark every question still without an answer or an error as stopped."""
        for turn in self.turns:
            if turn.get("answer") is None and not turn.get("error"):
                turn["error"] = "stopped."


CSS = """
#reader-target, #reader-go {display: none !important;}
.chat {display: flex; flex-direction: column; gap: 8px; max-height: 520px; overflow-y: auto;}
.msg {padding: 8px 12px; border-radius: 10px; max-width: 95%; white-space: pre-wrap;}
.msg.user {align-self: flex-end; background: var(--color-accent-soft);}
.msg.bot {align-self: flex-start; background: var(--background-fill-secondary);}
.error {color: #b91c1c;}
.chip {display: inline-block; padding: 1px 8px; margin: 2px; border-radius: 12px; font-size: 0.9em;
       border: 1px solid #999;}
.chip.question {background: #dbeafe;} .chip.breadth {background: #dcfce7;} .chip.depth {background: #fef3c7;}
.chip.fallback {background: #f3f4f6;} .chip.names {background: #ede9fe;} .chip.reader {background: #fce7f3;}
.chip.tried {opacity: 0.55;} .chip.absent {text-decoration: line-through;}
.trace table {border-collapse: collapse; width: 100%; font-size: 0.9em; margin: 4px 0;}
.trace td, .trace th {border-bottom: 1px solid #ddd; padding: 2px 6px; vertical-align: top; text-align: left;}
.trace mark, .reader mark {background: #fde68a; padding: 0 1px;}
.verdict.yes {color: #166534;} .verdict.no {color: #9a3412;}
.warning {color: #9a3412;} .imp {margin-right: 8px;}
.reader p {margin: 0 0 8px 0;} .reader .where {font-weight: bold; margin-bottom: 6px;}
.iteration summary {font-weight: bold; cursor: pointer;} .ceiling {background: #ede9fe; padding: 2px 6px;}
.budget-bar {display: flex; height: 14px; background: #f1f5f9; border: 1px solid #cbd5e1; margin: 4px 0;}
.budget-bar .seg {height: 100%; border-right: 1px solid #fff;} .seg.model {background: #2563eb;}
.seg.chunk {background: #64748b;} .seg.flagged {background: #f97316;}
.audit {padding: 0 6px; border-radius: 8px; font-size: 0.85em;} .audit.supported {background: #dcfce7;}
.audit.flagged {background: #ffedd5;} .audit.chunk {background: #e2e8f0;} tr.key.unplaced {opacity: 0.7;}
.side-by-side {display: grid; grid-template-columns: 1fr 1fr; gap: 12px;}
.side-by-side .column {border: 1px solid #ddd; border-radius: 8px; padding: 8px;}
.side-by-side .cost {color: #475569; font-size: 0.9em; margin: 4px 0;}
.edit-note {background: #fce7f3; padding: 2px 6px;}
a.pin {font-size: 0.8em; cursor: pointer;} .notebook .entry {border-bottom: 1px solid #ddd; padding: 6px 0;}
.notebook blockquote {margin: 4px 0 4px 12px; color: #334155;}
"""

HEAD = """
<script>
// Links in the trace and the conversation write into a Gradio textbox: the same steps for every kind.
function clicked(event, selector, box, write) {
  const link = event.target.closest(selector);
  if (!link) return false;
  event.preventDefault();
  const field = document.querySelector(`${box} textarea, ${box} input`);
  if (!field) return false;
  field.value = write(link.dataset.sid, field.value);
  field.dispatchEvent(new Event('input', {bubbles: true}));
  return true;
}
document.addEventListener('click', (event) => {
  if (clicked(event, 'a.cite', '#reader-target', (sid) => sid)) {
    setTimeout(() => document.querySelector('#reader-go').click(), 50);
  }
  clicked(event, 'a.pin', '#pins', (sid, value) => {
    const listed = value.split(/[ ,]+/).filter(Boolean);
    return listed.includes('S' + sid) ? value : listed.concat(['S' + sid]).join(', ');
  });
});
</script>
"""


def settings_from(values: list) -> Settings:
    """Settings from the panel's sliders (TUNABLE) followed by its checkboxes (TOGGLES)."""
    base = asdict(PRESETS["laptop"])
    base.update({name: int(v) for name, v in zip(TUNABLE, values) if v is not None})
    base.update({name: bool(v) for name, v in zip(TOGGLES, values[len(TUNABLE):]) if v is not None})
    return Settings(**base)


def mrag_settings(preset: str, order: str, budget, few_shot, audit_llm, replace_flagged) -> MragSettings:
    """M-RAG settings from its panel: the preset's extraction settings with the reader's choices."""
    return with_overrides(MRAG_PRESETS[preset], order=order, budget_tokens=int(budget), few_shot=bool(few_shot),
                          audit_llm=bool(audit_llm), replace_flagged=bool(replace_flagged))


def export(session: Session, kind: str) -> str | None:
    """Write the shown run's trace as Markdown or JSON, or (``notebook``) the reading notebook as Markdown."""
    if kind == "notebook":
        return written(notebook.markdown(session.notebook), "notebook", "md") if session.notebook else None
    if not session.traces or session.book is None:
        return None
    trace = session.traces[session.shown]
    text = trace.to_json(indent=1) if kind == "json" else render.markdown_export(session.book, trace)
    return written(text, "trace", "json" if kind == "json" else "md")


def written(text: str, stem: str, suffix: str) -> str:
    """``text`` saved for download under a name made from its hash, never from user input."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / "elite-reader" / f"{stem}-{digest}.{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def run_label(number: int, trace: Trace) -> str:
    start = trace.of("start")[0].data if trace.of("start") else {}
    name = render.STRATEGY_NAMES.get(start.get("strategy", "elite"), "ELITE")
    edits = trace.of("edit")
    note = f", edited from run {edits[0].data['run']}" if edits else ""
    question = trace.question if len(trace.question) <= 60 else trace.question[:57] + "…"
    return f"{number}. {question} ({name}{note})"


def editable(trace: Trace) -> dict[int, list[str]]:
    """The terms of each iteration of an ELITE search (none for counting, M-RAG or chunk RAG runs)."""
    out: dict[int, list[str]] = {}
    for event in trace.of("terms"):
        out.setdefault(event.iteration, []).extend(t.text for t in event.data["new"])
    return out


def browser_secret(cache_dir: Path) -> str:
    """The key the browser's copy of a session is encrypted with, kept in the cache so it outlives a restart."""
    path = Path(cache_dir) / "browser-secret"
    try:
        if path.exists():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_hex(16)
        path.write_text(secret)
        return secret
    except OSError:
        return secrets.token_hex(16)


def build(config: Config, model: Model | None = None) -> gr.Blocks:
    """The page. ``model`` is loaded by the caller (app.py) so that start-up errors are reported there."""
    model = model or Model(config)
    docs = settings_docs(Settings)
    cache_dir = Path(config.cache_dir or default_cache_dir())

    with gr.Blocks(title="ELITE Reader") as demo:
        session = gr.State(Session())
        stored = gr.BrowserState(None, storage_key="elite-reader-session", secret=browser_secret(cache_dir))
        gr.Markdown("# ELITE Reader\nAsk questions of a whole novel and watch how the answer is found.")
        with gr.Row():
            with gr.Column(scale=2):
                upload = gr.File(label="Book (.txt, .epub, .pdf)", file_types=[".txt", ".epub", ".pdf"],
                                 elem_id="upload")
                book_info = gr.HTML("<div class='book-card'>No book loaded.</div>", elem_id="book-info")
                language = gr.Dropdown(["detected", *LANGUAGES], value="detected", label="Book language",
                                       elem_id="language", info="how the book is cut into words and matched; "
                                       "change it if the detected language is wrong")
                with gr.Accordion("Model", open=False):
                    kinds = ["embedded", "GGUF file", "server"] + (["scripted"] if config.scripted else [])
                    kind = gr.Radio(kinds, value="scripted" if config.scripted else "server" if config.server
                                    else "GGUF file" if config.model else "embedded", label="Model",
                                    interactive=not config.hosted)
                    path = gr.Textbox(label="GGUF path", value=config.model or "", interactive=not config.hosted)
                    url = gr.Textbox(label="Server URL (OpenAI-compatible)", value=config.server or "",
                                     interactive=not config.hosted)
                    name = gr.Textbox(label="Model name on the server", value=config.model_name or "",
                                      interactive=not config.hosted)
                    load_model = gr.Button("Load model", interactive=not config.hosted)
                    model_status = gr.Markdown(model.status, elem_id="model-status")
                strategy = gr.Radio(["ELITE", "M-RAG"], value="ELITE", label="Strategy", elem_id="strategy",
                                    info="ELITE: term search, no index; M-RAG: LLM-written markers, built once "
                                         "per book and model")
                compare = gr.Dropdown(["none", *STRATEGIES], value="none", label="Side by side with",
                                      elem_id="compare", info="answer each question a second way too, and show "
                                      "both answers with their evidence, cost and time")
                with gr.Accordion("Character names", open=False, elem_id="names-panel"):
                    names_box = gr.Textbox(label="One character per line: name: variant, variant", lines=8,
                                           max_lines=20, elem_id="names",
                                           info="found in the book when it loads; a term naming a character "
                                                "also searches its other names (name_variants)")
                    apply_names = gr.Button("Use these names", size="sm", elem_id="apply-names")
                with gr.Accordion("M-RAG index and settings", open=False, elem_id="mrag-panel"):
                    mdocs = settings_docs(MragSettings)
                    mrag_controls = [
                        gr.Dropdown(sorted(MRAG_PRESETS), value="laptop", label="Extraction preset",
                                    info="paper: 4,096-token windows; laptop: about 20 s per window on a CPU"),
                        gr.Radio(list(ORDERS), value="position", label="order", info=mdocs["order"]),
                        gr.Slider(128, 8000, value=800, step=32, label="budget_tokens", info=mdocs["budget_tokens"]),
                        gr.Checkbox(value=True, label="few_shot", info=mdocs["few_shot"]),
                        gr.Checkbox(value=False, label="audit_llm", info=mdocs["audit_llm"]),
                        gr.Checkbox(value=False, label="replace_flagged", info=mdocs["replace_flagged"]),
                    ]
                    build_button = gr.Button("Build M-RAG index", elem_id="build-index")
                    index_status = gr.HTML("<div class='index-card'>No M-RAG index yet.</div>",
                                           elem_id="index-status")
                with gr.Accordion("Settings", open=False):
                    preset = gr.Dropdown(sorted(PRESETS), value=config.preset, label="Preset",
                                         info="paper: the paper's settings; laptop: about half a minute on a CPU")
                    knobs = [gr.Slider(*LIMITS[n], value=getattr(PRESETS[config.preset], n), step=1, label=n,
                                       info=docs.get(n, "")) for n in TUNABLE]
                    knobs += [gr.Checkbox(value=getattr(PRESETS[config.preset], n), label=n, info=docs.get(n, ""))
                              for n in TOGGLES]
                with gr.Accordion("Multiple-choice options (optional)", open=False):
                    options = [gr.Textbox(label=letter, elem_id=f"option-{letter}") for letter in "ABCD"]
            with gr.Column(scale=5):
                conversation = gr.HTML(render.chat(None, []), elem_id="chat")
                ceiling = gr.Textbox(label="I have read up to (spoiler ceiling)", elem_id="ceiling",
                                     placeholder="chapter 12, page 80 or 40%; empty: the whole book")
                with gr.Row():
                    question = gr.Textbox(label="Question", placeholder="Who does Elizabeth marry?", scale=5,
                                          elem_id="question")
                    ask_button = gr.Button("Ask", variant="primary", scale=1, elem_id="ask")
                    stop_button = gr.Button("Stop", variant="stop", scale=1, elem_id="stop")
                status = gr.Markdown("", elem_id="status")
                with gr.Row():
                    md_button = gr.Button("Export Markdown", size="sm", elem_id="export-md")
                    json_button = gr.Button("Export JSON", size="sm", elem_id="export-json")
                    download = gr.File(label="Export", interactive=False, height=90, elem_id="download")
                with gr.Tabs() as tabs:
                    with gr.Tab("Trace", id="trace-tab"):
                        run_select = gr.Dropdown([], label="Show the trace of run", elem_id="run-select")
                        with gr.Accordion("Edit the search and run again", open=False, elem_id="edit-panel"):
                            edit_iteration = gr.Dropdown([], label="Search again from iteration",
                                                         elem_id="edit-iteration")
                            edit_terms = gr.Textbox(label="Terms of that iteration (one per line: remove or add)",
                                                    lines=4, elem_id="edit-terms")
                            pins = gr.Textbox(label="Pinned passages (click \"pin\" beside a retrieved sentence, "
                                                    "or type S1234)", elem_id="pins")
                            rerun = gr.Button("Search again", elem_id="rerun")
                        trace_panel = gr.HTML("", elem_id="trace")
                        importance_plot = gr.Plot(render.importance_figure([]), label="Importance",
                                                  elem_id="importance-plot")
                        map_plot = gr.Plot(label="Book map", elem_id="book-map")
                    with gr.Tab("Side by side", id="side-tab", elem_id="side-tab"):
                        side_panel = gr.HTML("<div class='side-by-side'>Choose a strategy under \"Side by side "
                                             "with\", then ask.</div>", elem_id="side-by-side")
                    with gr.Tab("Reader", id="reader-tab", elem_id="reader-tab"):
                        reader_view = gr.HTML("<div class='reader'>Click a citation to read it in place.</div>",
                                              elem_id="reader")
                        save_quote = gr.Button("Save this passage to the notebook", size="sm", elem_id="save-quote")
                    with gr.Tab("Notebook", id="notebook-tab", elem_id="notebook-tab"):
                        notebook_view = gr.HTML(render.notebook_html(None, []), elem_id="notebook")
                        notebook_button = gr.Button("Export the notebook as Markdown", size="sm",
                                                    elem_id="export-notebook")
                reader_target = gr.Textbox(elem_id="reader-target", visible="hidden")
                reader_go = gr.Button("go", elem_id="reader-go", visible="hidden")

        def on_upload(file, state: Session, progress=gr.Progress()):
            if file is None:
                return state, gr.skip(), gr.skip(), gr.skip(), gr.skip()
            progress(0.1, desc="Reading the book")
            try:
                book = load_book(file if isinstance(file, str) else file.name,
                                 max_bytes=config.max_upload_mb * 1024 * 1024, cache_dir=cache_dir)
            except EliteError as exc:
                kept = f" The book already loaded, *{state.book.title}*, stays." if state.book else ""
                return state, gr.skip(), f"**Could not load the book:** {exc}{kept}", None, gr.skip()
            progress(1.0, desc="Ready")
            if state.book is None or state.book.digest != book.digest:
                state.traces, state.shown = [], -1  # runs point into their book's sentences
            state.book, state.names = book, None
            return state, render.book_card(book), f"Loaded *{book.title}*. Ask a question.", gr.skip(), ""

        def on_book(state: Session):
            """After the card shows: the book's character names (0.5 s for the longest novel)."""
            if state.book is None or state.names is not None:
                return state, gr.skip()
            state.names = names_for(state.book, cache_dir)
            return state, state.names.as_text()

        def on_language(code, state: Session):
            book = state.book
            if book is None:
                return state, gr.skip(), gr.skip(), gr.skip()
            wanted = book.stats.get("detected", book.language) if code == "detected" else code
            if wanted != book.language:
                state.book = book.read_as(wanted)
                state.book.stats["detected"] = book.stats.get("detected", book.language)
                state.names = None
            state.names = state.names or names_for(state.book, cache_dir)
            return (state, render.book_card(state.book), state.names.as_text(),
                    f"*{state.book.title}* is read as {state.book.lexicon.name}.")

        language.input(on_language, [language, session], [session, book_info, names_box, status],
                       concurrency_limit=None)

        def on_apply_names(text, state: Session):
            if state.book is None:
                return state, "Load a book first."
            try:
                state.names = NameIndex.from_text(text)
            except EliteError as exc:
                return state, f"**Names not changed:** {exc}"
            if not config.hosted:
                save_names(state.book, state.names, cache_dir)
            kept = "for this visit" if config.hosted else "for this book"
            return state, (f"{len(state.names.characters)} characters; a term naming one also searches its other "
                           f"names. Kept {kept}.")

        apply_names.click(on_apply_names, [names_box, session], [session, status], concurrency_limit=None)

        def on_load_model(kind_value, path_value, url_value, name_value):
            try:
                return model.load(kind_value, path_value, url_value, name_value)
            except EliteError as exc:
                return f"**Model not loaded:** {exc} ({model.status})"

        load_model.click(on_load_model, [kind, path, url, name], model_status)

        def on_preset(name_value):
            chosen = PRESETS[name_value]
            return [getattr(chosen, n) for n in TUNABLE + TOGGLES]

        preset.change(on_preset, preset, knobs)

        def out(state, chat=None, trace=None, importance=None, where=None, note=None, side=None):
            """The outputs of a question in order; None leaves a component as it is."""
            return tuple(gr.skip() if v is None else v for v in (state, chat, trace, importance, where, note, side))

        def engine_for(label: str, state: Session, knob_values, mrag_values) -> tuple[Engine, dict]:
            """The engine answering as ``label`` (its index built or loaded if it needs one)."""
            kind = STRATEGIES[label]
            if kind == "elite":
                return Elite(model.llm, settings_from(list(knob_values)), embed=model.embed, cancel=state.cancel,
                             names=state.names), {}
            if kind == "mrag":
                engine = Mrag(model.llm, mrag_settings(*mrag_values), embed=model.embed, cancel=state.cancel,
                              cache_dir=config.cache_dir)
                return engine, {"index": session_index(state, engine)}
            key = (state.book.digest, kind)
            if key not in state.prepared:
                method = (Embedding if kind == "embedding" else BM25)(model.llm, model.embed)
                state.prepared[key] = method, method.prepare(state.book)
            method, prepared = state.prepared[key]
            return ChunkRag(model.llm, settings_from(list(knob_values)), method, prepared, cancel=state.cancel), {}

        def stream(state: Session, turn: dict, trace: Trace, book: Book, steps):
            """Run a question's steps under the model lock, showing the answer and the trace as they grow."""
            shown = {"trace": 0.0, "figures": 0.0}
            with model.lock:
                for event in steps:
                    trace.add(event)
                    if event.kind == "answer_delta":
                        turn["partial"] += event.data["text"]
                        yield out(state, render.chat(book, state.turns))
                        continue
                    if event.kind == "llm_call":
                        continue
                    if event.kind == "answer":
                        turn["answer"] = event.data
                    now = time.monotonic()
                    if event.kind not in MILESTONES and now - shown["trace"] < REFRESH_SECONDS:
                        continue
                    figures = event.kind in MILESTONES or now - shown["figures"] >= FIGURE_SECONDS
                    shown["trace"] = now
                    shown["figures"] = now if figures else shown["figures"]
                    yield out(state, render.chat(book, state.turns), render.trace_html(book, trace.events),
                              render.importance_figure(trace.events) if figures else None,
                              render.book_map(book, trace.events) if figures else None,
                              f"Iteration {event.iteration}: {event.kind}" if event.iteration else None)

        def keep(state: Session, trace: Trace, book: Book) -> None:
            """A finished run: kept in the session's runs and written into the notebook."""
            state.traces.append(trace)
            state.notebook.append(notebook.answer_entry(book, trace, run_label(len(state.traces), trace)))

        def answer_turn(state: Session, book: Book, said: str, question: str, note: str, steps_of):
            """A new turn of the conversation (``said``), answered by the steps ``steps_of()`` makes once the
            session's cancel flag is renewed, shown as they come; the finished run is kept and shown. Returns its
            trace, or None when it ended in an error (then said in the conversation)."""
            state.stop_unfinished()
            state.cancel = threading.Event()
            turn = {"question": said, "partial": ""}
            state.turns.append(turn)
            trace = Trace(question)
            yield out(state, render.chat(book, state.turns), "", None, None, note)
            try:
                yield from stream(state, turn, trace, book, steps_of())
            except EliteError as exc:
                turn["error"] = str(exc)
                yield out(state, render.chat(book, state.turns), note=f"**{exc}**")
                return None
            keep(state, trace, book)
            state.shown = len(state.traces) - 1
            return trace

        def on_ask(question_value, strategy_value, compare_value, ceiling_value, state: Session, *values):
            option_values = values[:4]
            knob_values, mrag_values = values[4 : 4 + len(knobs)], values[4 + len(knobs) :]
            book = state.book
            if book is None:
                yield out(state, note="Load a book first.")
                return
            if model.llm is None:
                yield out(state, note=f"No model: {model.status}")
                return
            opts = {k: v for k, v in zip("ABCD", option_values) if v and v.strip()} or None
            asked = book

            def steps():
                nonlocal asked
                read = reading_ceiling(book, ceiling_value or "")
                asked = book.up_to(*read) if read else book
                state.ceiling = read[0] if read else None
                engine, extra = engine_for(strategy_value, state, knob_values, mrag_values)
                return engine.ask(asked, question_value, opts, **extra)

            said = question_value.strip()
            trace = yield from answer_turn(state, book, said, said, "Searching the book…", steps)
            if trace is None:
                return
            if compare_value in (None, "none", strategy_value):
                yield out(state, note="Done.")
                return
            first = STRATEGIES[compare_value] in {"embedding", "bm25"} and (book.digest, STRATEGIES[compare_value]) \
                not in state.prepared
            yield out(state, note=f"Answering again with {compare_value} for the side-by-side view"
                                  + (" (building its chunk index first, once per book)…" if first else "…"))
            try:
                engine, extra = engine_for(compare_value, state, knob_values, mrag_values)
                with model.lock:
                    other = engine.run(asked, said, opts, **extra)
            except EliteError as exc:
                yield out(state, note=f"**No side-by-side answer from {compare_value}:** {exc}")
                return
            keep(state, other, book)
            yield out(state, side=render.side_by_side(book, [trace, other]),
                      note="Done: both answers are in the Side by side tab.")

        def on_rerun(iteration, terms_text, pins_text, state: Session):
            book = state.book
            if book is None or not state.traces:
                yield out(state, note="Ask a question first; then edit its search.")
                return
            base = state.traces[state.shown]
            if iteration not in editable(base):
                yield out(state, note="Only an ELITE search with terms can be edited (not counting, M-RAG or "
                                      "chunk RAG runs).")
                return
            terms = [t.strip() for t in re.split(r"[\n,;]+", terms_text or "") if t.strip()]
            pinned = [int(n) for n in re.findall(r"\d+", pins_text or "")]
            if not terms and not pinned:
                yield out(state, note="Give at least one term, or pin a passage.")
                return
            start = base.of("start")[0].data
            settings = Settings(**{k: v for k, v in start["settings"].items() if k in Settings.__dataclass_fields__})
            number = state.shown + 1

            def steps():
                limit = start.get("ceiling")
                asked = book.up_to(limit["sentence"], limit["label"]) if limit else book
                engine = Elite(model.llm, settings, embed=model.embed, cancel=state.cancel, names=state.names)
                return engine.ask(asked, base.question, start.get("options"),
                                  edit=Edit(base.events, iteration, terms, pinned, run=number))

            said = f"{base.question} (search edited from run {number}, iteration {iteration})"
            if (yield from answer_turn(state, book, said, base.question, "Searching again…", steps)) is not None:
                yield out(state, note=f"Done. Run {number} stays in the list of runs above the trace.")

        def after_run(state: Session):
            """Refresh what follows a run: the list of runs, the edit panel, the notebook, the browser's copy."""
            labels = state.labels()
            chosen = labels[state.shown] if labels else None
            iterations, terms = edit_choices(state)
            return (gr.Dropdown(choices=labels, value=chosen), iterations, terms,
                    render.notebook_html(state.book, state.notebook), state.saved())

        def edit_choices(state: Session, iteration=None):
            by = editable(state.traces[state.shown]) if state.traces else {}
            if not by:
                return gr.Dropdown(choices=[], value=None), ""
            iteration = iteration if iteration in by else max(by)
            return gr.Dropdown(choices=sorted(by), value=iteration), "\n".join(by[iteration])

        ask_inputs = [question, strategy, compare, ceiling, session, *options, *knobs, *mrag_controls]
        ask_outputs = [session, conversation, trace_panel, importance_plot, map_plot, status, side_panel]
        after_outputs = [run_select, edit_iteration, edit_terms, notebook_view, stored]
        ask_event = ask_button.click(on_ask, ask_inputs, ask_outputs, concurrency_limit=config.concurrency,
                                     concurrency_id="model")
        submit_event = question.submit(on_ask, ask_inputs, ask_outputs, concurrency_limit=config.concurrency,
                                       concurrency_id="model")
        rerun_event = rerun.click(on_rerun, [edit_iteration, edit_terms, pins, session], ask_outputs,
                                  concurrency_limit=config.concurrency, concurrency_id="model")
        for event in (ask_event, submit_event, rerun_event):
            event.then(after_run, session, after_outputs, concurrency_limit=None)
        upload.upload(on_upload, [upload, session], [session, book_info, status, upload, names_box],
                      concurrency_limit=None).then(on_book, session, [session, names_box], concurrency_limit=None).then(
            after_run, session, after_outputs, concurrency_limit=None).then(
            lambda: "detected", None, language, concurrency_limit=None)

        def on_iteration(iteration, state: Session):
            return edit_choices(state, iteration)[1]

        edit_iteration.input(on_iteration, [edit_iteration, session], edit_terms, concurrency_limit=None)

        def on_run_select(label, state: Session):
            labels = state.labels()
            if label not in labels:
                return state, gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
            state.shown = labels.index(label)
            trace, book = state.traces[state.shown], state.book
            iterations, terms = edit_choices(state)
            return (state, render.trace_html(book, trace.events), render.importance_figure(trace.events),
                    render.book_map(book, trace.events), iterations, terms)

        run_select.input(on_run_select, [run_select, session],
                         [session, trace_panel, importance_plot, map_plot, edit_iteration, edit_terms],
                         concurrency_limit=None)

        def on_stop(state: Session):
            state.cancel.set()
            state.stop_unfinished()
            return render.chat(state.book, state.turns), "Stopped. Ask another question."

        def session_index(state: Session, engine: Mrag) -> MarkerIndex:
            """The session's index of its book for this model and these extraction settings, loaded once from the
            marker store (built in this visit or an earlier one)."""
            key = str(engine.folder(state.book))
            if key not in state.indexes:
                state.indexes[key] = engine.index(state.book)
            return state.indexes[key]

        def on_build(state: Session, *values):
            if state.book is None:
                yield state, gr.skip(), "Load a book first."
                return
            if model.llm is None:
                yield state, gr.skip(), f"No model: {model.status}"
                return
            state.cancel = threading.Event()
            engine = Mrag(model.llm, mrag_settings(*values), embed=model.embed, cancel=state.cancel,
                          cache_dir=config.cache_dir)
            steps, done = engine.build(state.book), {}
            yield state, gr.skip(), "Building the M-RAG index…"
            try:
                while True:
                    with model.lock:  # held for one window at a time: other visitors' questions go in between
                        event = next((e for e in steps if e.kind == "index_progress"), None)
                    if event is None:
                        break
                    done = event.data
                    yield state, render.build_progress(done), gr.skip()
                index = session_index(state, engine)
            except Cancelled:
                yield (state, render.build_progress(done), f"Stopped after {done.get('done', 0)} of "
                       f"{done.get('total', '?')} windows; build again to resume where it stopped.")
                return
            except EliteError as exc:
                yield state, gr.skip(), f"**Could not build the index:** {exc}"
                return
            kept = (f" ({done['resumed']} of {done['total']} windows kept from an earlier run)"
                    if done.get("resumed") else "")
            yield state, render.index_card(index.stats()), f"The M-RAG index is ready{kept}; choose M-RAG and ask."

        build_button.click(on_build, [session, *mrag_controls], [session, index_status, status],
                           concurrency_limit=config.concurrency, concurrency_id="model")

        # a build is stopped through the session's cancel flag alone, so that it can say how far it got
        stop_button.click(on_stop, session, [conversation, status], cancels=[ask_event, submit_event, rerun_event],
                          concurrency_limit=None)

        def on_cite(sid, state: Session):
            if state.book is None or not str(sid).strip().isdigit():
                return state, gr.skip(), gr.skip()
            state.reading = int(sid)
            return (state, render.reader(state.book, int(sid), ceiling=state.ceiling),
                    gr.Tabs(selected="reader-tab"))

        reader_go.click(on_cite, [reader_target, session], [session, reader_view, tabs], concurrency_limit=None)

        def on_save_quote(state: Session):
            if state.book is None or state.reading is None or state.reading >= len(state.book):
                return state, gr.skip(), "Open a passage in the Reader first (click a citation)."
            state.notebook.append(notebook.quote_entry(state.book, state.reading))
            return (state, render.notebook_html(state.book, state.notebook),
                    f"Saved S{state.reading} to the notebook.")

        save_quote.click(on_save_quote, session, [session, notebook_view, status],
                         concurrency_limit=None).then(lambda s: s.saved(), session, stored)

        def on_page_load(saved, state: Session):
            """Bring back the session the browser kept: the book (from the parsed-book cache), the conversation
            and the notebook."""
            if not isinstance(saved, dict) or state.turns or state.book:
                return state, gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
            try:
                state.turns = [notebook.turn_from(r) for r in saved.get("turns", []) if isinstance(r, dict)]
            except (TypeError, ValueError, KeyError, IndexError):
                state.turns = []
            state.notebook = notebook.entries_from(saved.get("notebook"))
            book = load_cached(saved.get("book") or "", cache_dir)
            if book is not None:
                state.book, state.names = book, names_for(book, cache_dir)
            found = (f"*{book.title}* reopened from the cache" if book else
                     "the book is no longer in the cache; load it again" if saved.get("book") else "no book")
            return (state, render.book_card(book) if book else gr.skip(), render.chat(book, state.turns),
                    render.notebook_html(book, state.notebook), state.names.as_text() if book else gr.skip(),
                    f"Session restored: {found}; questions: {len(state.turns)}, notebook entries: "
                    f"{len(state.notebook)}.")

        demo.load(on_page_load, [stored, session], [session, book_info, conversation, notebook_view, names_box,
                                                    status])

        md_button.click(lambda s: export(s, "md"), session, download, concurrency_limit=None)
        json_button.click(lambda s: export(s, "json"), session, download, concurrency_limit=None)
        notebook_button.click(lambda s: export(s, "notebook"), session, download, concurrency_limit=None)
    return demo


def settings_docs(kind: type) -> dict[str, str]:
    """The one-line help of each setting: the docstring under its field in the settings class ``kind``."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(kind)))
    docs, last = {}, None
    for node in tree.body[0].body:
        if isinstance(node, ast.AnnAssign):
            last = node.target.id
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and last:
            docs[last] = node.value.value
            last = None
    return docs


def config_from_env() -> Config:
    env = os.environ.get
    return Config(
        model=env("ELITE_MODEL"),
        server=env("ELITE_SERVER"),
        model_name=env("ELITE_MODEL_NAME"),
        n_ctx=int(env("ELITE_N_CTX", "4096")),
        scripted=env("ELITE_SCRIPTED"),
        hosted=env("ELITE_HOSTED", "").lower() in {"1", "true", "yes"},
        allowed_servers=tuple(s.strip().rstrip("/") for s in env("ELITE_ALLOWED_SERVERS", "").split(",") if s.strip()),
        max_upload_mb=int(env("ELITE_MAX_UPLOAD_MB", "20")),
        concurrency=int(env("ELITE_CONCURRENCY", "1")),
        preset=env("ELITE_PRESET", "laptop"),
        cache_dir=env("ELITE_CACHE"),
    )
