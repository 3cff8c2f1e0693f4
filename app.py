"""ELITE Reader, the Gradio app (also a Hugging Face Space's app_file): ``python app.py [--help]``.

Every flag has an environment variable (``--max-upload-mb`` and ``ELITE_MAX_UPLOAD_MB``...), both described once in
``elite_ui/app/config.py``.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from starlette.middleware import Middleware

from elite_ui.app.config import from_args
from elite_ui.app.fetching import NoFetching
from elite_ui.app.logs import cap_output
from elite_ui.app.page import CSS, HEAD, build
from elite_ui.app.state import Model
from elite_ui.book.lexicon import detect_language, forms
from elite_ui.errors import EliteError


def main(argv: list[str] | None = None) -> int:
    cap_output()
    try:
        config, hosting = from_args(argv)
        print(hosting, flush=True)
        model = Model(config)
        model.start()
        model.embed(["warm up"])
        detect_language("the language identifier loads its model now, not at the first upload; " * 3)
        forms("walking")  # lemminflect's tables load now, not at the first question
    except EliteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    demo = build(config, model)
    demo.queue(max_size=64 if config.hosted else None)
    # a thread per model call in flight (each waits on the model's answer), and some for everything else
    demo.launch(server_name=config.host, server_port=config.port, css=CSS, head=HEAD,
                max_file_size=f"{config.max_upload_mb}mb", footer_links=["api"], mcp_server=config.mcp,
                max_threads=max(40, model.capacity.slots + 16), app_kwargs={"middleware": [Middleware(NoFetching)]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
