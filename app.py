"""ELITE Reader, the Gradio app (also a Hugging Face Space's app_file): ``python app.py [--help]``.

Every flag has an environment variable (``--max-upload-mb`` and ``ELITE_MAX_UPLOAD_MB``...), both described once in
``elite_ui/app/config.py``.
"""

from __future__ import annotations

import os
import sys
import threading

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from starlette.middleware import Middleware

from elite_ui.app.answering import RUNS
from elite_ui.app.config import from_args
from elite_ui.app.fetching import NoFetching
from elite_ui.app.logs import cap_output
from elite_ui.app.page import CSS, HEAD, compose
from elite_ui.app.reading_apps import ReadingAppsMiddleware
from elite_ui.app.state import Model
from elite_ui.book.lexicon import detect_language, forms
from elite_ui.errors import EliteError
from elite_ui.models.embedder import warm_up


def main(argv: list[str] | None = None) -> int:
    cap_output()
    try:
        config, hosting = from_args(argv)
        print(hosting, flush=True)
        model = Model(config)
        model.start()
    except EliteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    page, ctx = compose(config, model)
    demo = page.demo
    demo.queue(max_size=64 if config.hosted else None)
    # Gradio's workers: the runs' (questions and builds, in threads of their own) and, apart, the threads of every
    # other call
    demo.launch(server_name=config.host, server_port=config.port, css=CSS, head=HEAD,
                max_file_size=f"{config.max_upload_mb}mb", footer_links=["api"], mcp_server=config.mcp,
                max_threads=40 + RUNS,
                app_kwargs={"middleware": [Middleware(NoFetching), Middleware(ReadingAppsMiddleware, ctx=ctx)]},
                prevent_thread_lock=True)
    threading.Thread(target=warmed, args=(model,), name="warm-up", daemon=True).start()
    demo.block_thread()
    return 0


def warmed(model: Model) -> None:
    """What a first upload and question need, loaded once the page is served (not before it: the imports would
    hold it back, some 4 s on 2 cores): the language identifier, lemminflect's tables, then the sentence embedding
    (torch and sentence-transformers, some 10 s). Whatever needs one sooner loads it itself."""
    detect_language("the language identifier loads its model now, not at the first upload; " * 3)
    forms("walking")
    warm_up(model.embed)


if __name__ == "__main__":
    sys.exit(main())
