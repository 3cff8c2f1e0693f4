"""ELITE Reader, the Gradio app (also a Hugging Face Space's app_file): ``python app.py [--help]``.

Every flag has an ELITE_* environment variable (ELITE_MODEL, ELITE_SERVER, ELITE_MODEL_NAME, ELITE_N_CTX,
ELITE_SCRIPTED, ELITE_HOSTED, ELITE_ALLOWED_SERVERS, ELITE_MAX_UPLOAD_MB, ELITE_CONCURRENCY, ELITE_PRESET,
ELITE_CACHE).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from elite_ui.errors import EliteError  # noqa: E402
from elite_ui.lexicon import detect_language  # noqa: E402
from elite_ui.ui import CSS, HEAD, Model, build, config_from_env  # noqa: E402


def parse_args(argv: list[str] | None = None):
    config = config_from_env()
    parser = argparse.ArgumentParser(description="ELITE Reader: ask questions of a whole novel.")
    parser.add_argument("--model", default=config.model, help="a GGUF file (default: the embedded SmolLM2-135M)")
    parser.add_argument("--server", default=config.server, help="an OpenAI-compatible server's base URL")
    parser.add_argument("--model-name", default=config.model_name, help="the model's name on that server")
    parser.add_argument("--n-ctx", type=int, default=config.n_ctx)
    parser.add_argument("--scripted", default=config.scripted, help="a JSON script for the scripted test model")
    parser.add_argument("--hosted", action="store_true", default=config.hosted,
                        help="public hosting: no model paths, approved servers only, per-visitor sessions")
    parser.add_argument("--max-upload-mb", type=int, default=config.max_upload_mb)
    parser.add_argument("--concurrency", type=int, default=config.concurrency, help="questions answered at once")
    parser.add_argument("--cache-dir", default=config.cache_dir,
                        help="where parsed books and M-RAG marker stores live (default: ~/.cache/elite-reader)")
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    args = parser.parse_args(argv)
    return args, replace(config, model=args.model, server=args.server, model_name=args.model_name, n_ctx=args.n_ctx,
                         scripted=args.scripted, hosted=args.hosted, max_upload_mb=args.max_upload_mb,
                         concurrency=args.concurrency, cache_dir=args.cache_dir)


def main(argv: list[str] | None = None) -> int:
    args, config = parse_args(argv)
    model = Model(config)
    try:
        model.start()
        model.embed(["warm up"])
        detect_language("the language identifier loads its model now, not at the first upload; " * 3)
    except EliteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    demo = build(config, model)
    demo.queue(default_concurrency_limit=config.concurrency, max_size=64 if config.hosted else None)
    demo.launch(server_name=args.host, server_port=args.port, css=CSS, head=HEAD,
                max_file_size=f"{config.max_upload_mb}mb", footer_links=[])
    return 0


if __name__ == "__main__":
    sys.exit(main())
