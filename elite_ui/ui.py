"""The Gradio reading assistant: load a book, ask, watch every iteration of the loop live.

Each visitor's book, conversation and traces live in their own :class:`Session` (Gradio session state). The model
is shared and guarded by a lock; questions queue with a concurrency limit.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import gradio as gr

from . import render
from .documents import Book, default_cache_dir, load_book, reading_ceiling
from .elite import PRESETS, Elite, Settings, with_overrides
from .engine import Cancelled
from .errors import EliteError, ModelError
from .importance import Embed, MiniLMEmbedder
from .llm import LLM, ScriptedLLM, open_llm
from .mrag import ORDERS, MarkerIndex, Mrag, MragSettings
from .mrag import PRESETS as MRAG_PRESETS
from .trace import Trace

MILESTONES = {"terms", "collection", "count", "judge", "exploration", "answer", "done"}
"""Events that always refresh the trace and charts; others (importance, chunks...) refresh at most every
REFRESH_SECONDS (the trace) and FIGURE_SECONDS (the charts), so a long question stays smooth."""
REFRESH_SECONDS = 0.3
FIGURE_SECONDS = 1.0
TOGGLES = ["trim", "question_words"]
TUNABLE = ["recall_index", "neighbor_num", "deep_search_index", "deep_search_num", "voter_num", "iter_max",
           "importance_samples", "importance_chunks", "evidence_tokens"]
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
        self.ceiling: int | None = None
        """The last sentence of the reader's spoiler ceiling at their latest question (the reader stops there)."""
        self.cancel = threading.Event()

    def __deepcopy__(self, memo):
        return Session()

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
.chip.fallback {background: #f3f4f6;} .chip.tried {opacity: 0.55;} .chip.absent {text-decoration: line-through;}
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
"""

HEAD = """
<script>
document.addEventListener('click', (event) => {
  const link = event.target.closest('a.cite');
  if (!link) return;
  event.preventDefault();
  const box = document.querySelector('#reader-target textarea, #reader-target input');
  if (!box) return;
  box.value = link.dataset.sid;
  box.dispatchEvent(new Event('input', {bubbles: true}));
  setTimeout(() => document.querySelector('#reader-go').click(), 50);
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
    """Write the last question's trace as Markdown or JSON; the file name comes from a hash, never user input."""
    if not session.traces or session.book is None:
        return None
    trace = session.traces[-1]
    text = trace.to_json(indent=1) if kind == "json" else render.markdown_export(session.book, trace)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / "elite-reader" / f"trace-{digest}.{'json' if kind == 'json' else 'md'}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def build(config: Config, model: Model | None = None) -> gr.Blocks:
    """The page. ``model`` is loaded by the caller (app.py) so that start-up errors are reported there."""
    model = model or Model(config)
    docs = settings_docs(Settings)

    with gr.Blocks(title="ELITE Reader") as demo:
        session = gr.State(Session())
        gr.Markdown("# ELITE Reader\nAsk questions of a whole novel and watch how the answer is found.")
        with gr.Row():
            with gr.Column(scale=2):
                upload = gr.File(label="Book (.txt, .epub, .pdf)", file_types=[".txt", ".epub", ".pdf"],
                                 elem_id="upload")
                book_info = gr.HTML("<div class='book-card'>No book loaded.</div>", elem_id="book-info")
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
                        trace_panel = gr.HTML("", elem_id="trace")
                        importance_plot = gr.Plot(render.importance_figure([]), label="Importance",
                                                  elem_id="importance-plot")
                        map_plot = gr.Plot(label="Book map", elem_id="book-map")
                    with gr.Tab("Reader", id="reader-tab", elem_id="reader-tab"):
                        reader_view = gr.HTML("<div class='reader'>Click a citation to read it in place.</div>",
                                              elem_id="reader")
                reader_target = gr.Textbox(elem_id="reader-target", visible="hidden")
                reader_go = gr.Button("go", elem_id="reader-go", visible="hidden")

        def on_upload(file, state: Session, progress=gr.Progress()):
            if file is None:
                return state, gr.skip(), gr.skip(), gr.skip()
            progress(0.1, desc="Reading the book")
            try:
                book = load_book(file if isinstance(file, str) else file.name,
                                 max_bytes=config.max_upload_mb * 1024 * 1024,
                                 cache_dir=config.cache_dir or default_cache_dir())
            except EliteError as exc:
                kept = f" The book already loaded, *{state.book.title}*, stays." if state.book else ""
                return state, gr.skip(), f"**Could not load the book:** {exc}{kept}", None
            progress(1.0, desc="Ready")
            state.book = book
            return state, render.book_card(book), f"Loaded *{book.title}*. Ask a question.", gr.skip()

        upload.upload(on_upload, [upload, session], [session, book_info, status, upload], concurrency_limit=None)

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

        def on_ask(question_value, strategy_value, ceiling_value, state: Session, *values):
            option_values = values[:4]
            knob_values, mrag_values = values[4 : 4 + len(knobs)], values[4 + len(knobs) :]
            book = state.book
            if book is None:
                yield state, gr.skip(), gr.skip(), gr.skip(), gr.skip(), "Load a book first."
                return
            if model.llm is None:
                yield state, gr.skip(), gr.skip(), gr.skip(), gr.skip(), f"No model: {model.status}"
                return
            state.stop_unfinished()
            state.cancel = threading.Event()
            turn = {"question": question_value.strip(), "partial": ""}
            state.turns.append(turn)
            opts = {k: v for k, v in zip("ABCD", option_values) if v and v.strip()} or None
            trace = Trace(turn["question"])
            yield state, render.chat(book, state.turns), "", None, None, "Searching the book…"
            shown = {"trace": 0.0, "figures": 0.0}
            try:
                read = reading_ceiling(book, ceiling_value or "")
                asked = book.up_to(*read) if read else book
                state.ceiling = read[0] if read else None
                if strategy_value == "M-RAG":
                    engine = Mrag(model.llm, mrag_settings(*mrag_values), embed=model.embed, cancel=state.cancel,
                                  cache_dir=config.cache_dir)
                    steps = engine.ask(asked, question_value, opts, index=session_index(state, engine))
                else:
                    engine = Elite(model.llm, settings_from(list(knob_values)), embed=model.embed,
                                   cancel=state.cancel)
                    steps = engine.ask(asked, question_value, opts)
                with model.lock:
                    for event in steps:
                        trace.add(event)
                        if event.kind == "answer_delta":
                            turn["partial"] += event.data["text"]
                            yield state, render.chat(book, state.turns), gr.skip(), gr.skip(), gr.skip(), gr.skip()
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
                        yield (state, render.chat(book, state.turns), render.trace_html(book, trace.events),
                               render.importance_figure(trace.events) if figures else gr.skip(),
                               render.book_map(book, trace.events) if figures else gr.skip(),
                               f"Iteration {event.iteration}: {event.kind}" if event.iteration else gr.skip())
            except EliteError as exc:
                turn["error"] = str(exc)
                yield state, render.chat(book, state.turns), gr.skip(), gr.skip(), gr.skip(), f"**{exc}**"
                return
            state.traces.append(trace)
            yield state, gr.skip(), gr.skip(), gr.skip(), gr.skip(), "Done."

        ask_inputs = [question, strategy, ceiling, session, *options, *knobs, *mrag_controls]
        ask_outputs = [session, conversation, trace_panel, importance_plot, map_plot, status]
        ask_event = ask_button.click(on_ask, ask_inputs, ask_outputs, concurrency_limit=config.concurrency,
                                     concurrency_id="model")
        submit_event = question.submit(on_ask, ask_inputs, ask_outputs, concurrency_limit=config.concurrency,
                                       concurrency_id="model")

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
        stop_button.click(on_stop, session, [conversation, status], cancels=[ask_event, submit_event],
                          concurrency_limit=None)

        def on_cite(sid, state: Session):
            if state.book is None or not str(sid).strip().isdigit():
                return gr.skip(), gr.skip()
            return render.reader(state.book, int(sid), ceiling=state.ceiling), gr.Tabs(selected="reader-tab")

        reader_go.click(on_cite, [reader_target, session], [reader_view, tabs], concurrency_limit=None)

        md_button.click(lambda s: export(s, "md"), session, download, concurrency_limit=None)
        json_button.click(lambda s: export(s, "json"), session, download, concurrency_limit=None)
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
