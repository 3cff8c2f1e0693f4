"""The page, composed from its panels: each module of ``panels`` makes its components (``create_ui``) and wires
its events (``create_event_handlers``); this module places them and hands every panel the :class:`Page`, the
small dataclasses of all panels' components. Styles and scripts are real files in ``static/``."""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields
from pathlib import Path

import gradio as gr

from ..book import default_cache_dir
from .api import API_NAMES, Api
from .config import Config
from .panels import (
    book,
    chat,
    exports,
    library,
    model_panel,
    names,
    notebook,
    options,
    reader,
    session,
    settings,
    side,
    story,
    trace,
)
from .panels import method as method_panel
from .panels import mrag as mrag_panel
from .receipts import Receipts
from .state import Model
from .visitors import Visitors

PANELS = f"{__package__}.panels."
STATIC = Path(__file__).parent / "static"
CSS = (STATIC / "style.css").read_text(encoding="utf-8")
HEAD = f"<script>\n{(STATIC / 'links.js').read_text(encoding='utf-8')}</script>\n"


@dataclass
class Context:
    """What every handler may use: how the app runs, the shared model, the cache folder, the books' upload
    receipts and the visitors (their open sessions and what each may take)."""

    config: Config
    model: Model
    cache_dir: Path
    receipts: Receipts
    visitors: Visitors


@dataclass(kw_only=True)
class Page:
    """Every panel's components, by panel: one field a panel, in the order their events are wired."""

    demo: gr.Blocks
    tabs: gr.Tabs
    session: session.SessionUI
    book: book.BookUI
    library: library.LibraryUI
    model: model_panel.ModelUI
    method: method_panel.MethodUI
    names: names.NamesUI
    mrag: mrag_panel.MragUI
    settings: settings.SettingsUI
    options: options.OptionsUI
    exports: exports.ExportsUI
    trace: trace.TraceUI
    chat: chat.ChatUI
    side: side.SideUI
    reader: reader.ReaderUI
    story: story.StoryUI
    links: reader.LinksUI
    notebook: notebook.NotebookUI

    def panels(self) -> list:
        """The panel modules, each once, in the order of the fields that hold their components."""
        found = [sys.modules[type(getattr(self, f.name)).__module__] for f in fields(self)]
        return list(dict.fromkeys(m for m in found if m.__name__.startswith(PANELS)))


def build(config: Config, model: Model | None = None) -> gr.Blocks:
    """The page. ``model`` is loaded by the caller (app.py) so that start-up errors are reported there."""
    return compose(config, model)[0].demo


def compose(config: Config, model: Model | None = None) -> tuple[Page, Context]:
    """The page's panels, wired, with what every handler is given (a test calls a handler with these)."""
    model = model or Model(config)
    cache_dir = Path(config.cache_dir or default_cache_dir())
    ctx = Context(config, model, cache_dir, Receipts(cache_dir), Visitors(config))
    # Gradio's own cleaning of its upload and download copies (every 15 minutes, those over 15 minutes old)
    with gr.Blocks(title="ELITE Reader", delete_cache=(900, 900)) as demo:
        kept = session.create_ui(ctx)
        gr.Markdown("# ELITE Reader\nAsk questions of a whole novel and watch how the answer is found.")
        with gr.Row(elem_classes="page-row"):
            with gr.Column(scale=2, elem_classes="side-column"):
                book_ui = book.create_ui(ctx)
                library_ui = library.create_ui(ctx)
                model_ui = model_panel.create_ui(ctx)
                method_ui = method_panel.create_ui(ctx)
                names_ui = names.create_ui(ctx)
                mrag_ui = mrag_panel.create_ui(ctx)
                settings_ui = settings.create_ui(ctx)
                options_ui = options.create_ui(ctx)
            with gr.Column(scale=5, elem_classes="main-column"):
                chat_ui = chat.create_ui(ctx)
                exports_ui = exports.create_ui(ctx)
                links_ui = reader.create_links()
                with gr.Tabs() as tabs:
                    trace_ui = trace.create_ui(ctx)
                    side_ui = side.create_ui(ctx)
                    reader_ui = reader.create_ui(ctx)
                    story_ui = story.create_ui(ctx)
                    notebook_ui = notebook.create_ui(ctx)
        page = Page(demo=demo, tabs=tabs, session=kept, book=book_ui, library=library_ui, model=model_ui,
                    method=method_ui, names=names_ui, mrag=mrag_ui, settings=settings_ui, options=options_ui,
                    chat=chat_ui, exports=exports_ui, trace=trace_ui, side=side_ui, reader=reader_ui, story=story_ui,
                    links=links_ui, notebook=notebook_ui)
        for panel in page.panels():
            if hasattr(panel, "create_event_handlers"):
                panel.create_event_handlers(page, ctx)
        Api(ctx).register()
    for fn in demo.fns.values():  # the page's own handlers: callable, but no part of the API's description
        if fn.api_name not in API_NAMES:
            fn.api_visibility = "undocumented"
    return page, ctx

