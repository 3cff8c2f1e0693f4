"""The page, composed from its panels: each module of ``panels`` makes its components (``create_ui``) and wires
its events (``create_event_handlers``); this module places them and hands every panel the :class:`Page`, the
small dataclasses of all panels' components. Styles and scripts are real files in ``static/``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from weakref import WeakValueDictionary

import gradio as gr

from ..book import default_cache_dir
from .config import Config
from .panels import (
    book,
    chat,
    exports,
    model_panel,
    names,
    notebook,
    options,
    reader,
    session,
    settings,
    side,
    story,
    strategy,
    trace,
)
from .panels import mrag as mrag_panel
from .receipts import Receipts
from .state import Model, Session

STATIC = Path(__file__).parent / "static"
CSS = (STATIC / "style.css").read_text(encoding="utf-8")
HEAD = f"<script>\n{(STATIC / 'links.js').read_text(encoding='utf-8')}</script>\n"


@dataclass
class Context:
    """What every handler may use: how the app runs, the shared model, the cache folder, the books' upload
    receipts and the open pages' sessions."""

    config: Config
    model: Model
    cache_dir: Path
    receipts: Receipts
    sessions: WeakValueDictionary = field(default_factory=WeakValueDictionary)
    """The sessions that opened a book or a page, by Gradio's session hash (freed when their tab or API client
    closes)."""

    def track(self, request: gr.Request, session: Session) -> None:
        self.sessions[request.session_hash] = session


@dataclass
class Page:
    """Every panel's components, by panel."""

    demo: gr.Blocks
    tabs: gr.Tabs
    session: session.SessionUI
    book: book.BookUI
    model: model_panel.ModelUI
    strategy: strategy.StrategyUI
    names: names.NamesUI
    mrag: mrag_panel.MragUI
    settings: settings.SettingsUI
    options: options.OptionsUI
    chat: chat.ChatUI
    exports: exports.ExportsUI
    trace: trace.TraceUI
    side: side.SideUI
    reader: reader.ReaderUI
    story: story.StoryUI
    links: reader.LinksUI
    notebook: notebook.NotebookUI


def build(config: Config, model: Model | None = None) -> gr.Blocks:
    """The page. ``model`` is loaded by the caller (app.py) so that start-up errors are reported there."""
    model = model or Model(config)
    cache_dir = Path(config.cache_dir or default_cache_dir())
    ctx = Context(config, model, cache_dir, Receipts(cache_dir))
    with gr.Blocks(title="ELITE Reader") as demo:
        kept = session.create_ui(ctx)
        gr.Markdown("# ELITE Reader\nAsk questions of a whole novel and watch how the answer is found.")
        with gr.Row():
            with gr.Column(scale=2):
                book_ui = book.create_ui(ctx)
                model_ui = model_panel.create_ui(ctx)
                strategy_ui = strategy.create_ui(ctx)
                names_ui = names.create_ui(ctx)
                mrag_ui = mrag_panel.create_ui(ctx)
                settings_ui = settings.create_ui(ctx)
                options_ui = options.create_ui(ctx)
            with gr.Column(scale=5):
                chat_ui = chat.create_ui(ctx)
                exports_ui = exports.create_ui(ctx)
                links_ui = reader.create_links()
                with gr.Tabs() as tabs:
                    trace_ui = trace.create_ui(ctx)
                    side_ui = side.create_ui(ctx)
                    reader_ui = reader.create_ui(ctx)
                    story_ui = story.create_ui(ctx)
                    notebook_ui = notebook.create_ui(ctx)
        page = Page(demo, tabs, kept, book_ui, model_ui, strategy_ui, names_ui, mrag_ui, settings_ui, options_ui,
                    chat_ui, exports_ui, trace_ui, side_ui, reader_ui, story_ui, links_ui, notebook_ui)
        for panel in (session, book, model_panel, names, mrag_panel, settings, trace, chat, reader, story):
            panel.create_event_handlers(page, ctx)
    return demo

