"""How the app runs, described once: each option's flag (``--max-upload-mb``), environment variable
(``ELITE_MAX_UPLOAD_MB``) and help come from :class:`Config`'s fields; ``python app.py --help`` and the docs'
table are made from them."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass

from ..methods.elite import PRESETS
from ..settings import as_flag, described, setting


@dataclass(frozen=True)
class Config:
    """How the app runs; from flags, else ELITE_* environment variables, else the defaults."""

    model: str | None = setting(None, "a GGUF file or a downloaded catalogue model's name (default: the model "
                                      "used last, else the embedded SmolLM2-135M)", kind=str, env="ELITE_MODEL")
    server: str | None = setting(None, "an OpenAI-compatible server's base URL", kind=str, env="ELITE_SERVER")
    model_name: str | None = setting(None, "the model's name on that server", kind=str, env="ELITE_MODEL_NAME")
    n_ctx: int = setting(4096, "model context in tokens", low=512, high=1_048_576, env="ELITE_N_CTX")
    hosted: bool = setting(False, "public hosting: the model is the host's (the model panel locked, no endpoint to "
                                  "change it), the queue capped at 64", env="ELITE_HOSTED")
    max_upload_mb: int = setting(20, "the upload limit in MB", low=1, high=1024, env="ELITE_MAX_UPLOAD_MB")
    uploads: int = setting(2, "books read at once (more uploads wait their turn)", low=1, high=64,
                           env="ELITE_UPLOADS")
    idle_minutes: int = setting(30, "hosted mode: a session untouched this long is freed (a page reload brings it "
                                    "back from the browser's copy)", low=1, high=1440, env="ELITE_IDLE_MINUTES")
    concurrency: int = setting(1, "questions answered at once (1: one model)", low=1, high=64,
                               env="ELITE_CONCURRENCY")
    preset: str = setting("laptop", "the settings preset the page starts with", choices=tuple(sorted(PRESETS)),
                          env="ELITE_PRESET")
    scripted: str | None = setting(None, "a JSON script for the deterministic scripted model (tests, demos)",
                                   kind=str, env="ELITE_SCRIPTED")
    cache_dir: str | None = setting(None, "where parsed books and M-RAG marker stores live (default: "
                                          "~/.cache/elite-reader)", kind=str, env="ELITE_CACHE")
    host: str = setting("127.0.0.1", "the address to listen on", env="GRADIO_SERVER_NAME")
    port: int = setting(7860, "the port to listen on", low=1, high=65535, env="GRADIO_SERVER_PORT")


def from_env(environ: Mapping[str, str] = os.environ) -> Config:
    """The configuration the environment variables give (a variable left empty keeps the default)."""
    given = {}
    for d in described(Config):
        raw = environ.get(d.extra["env"], "").strip()
        if raw:
            given[d.name] = d.parse(raw)
    return Config(**given)


def parser(defaults: Config) -> argparse.ArgumentParser:
    """``python app.py``'s flags, one per field, each defaulting to its environment variable."""
    parser = argparse.ArgumentParser(prog="python app.py", description="ELITE Reader: ask questions of a whole "
                                     "novel, and watch how the answer is found.")
    for d in described(Config):
        default, variable = getattr(defaults, d.name), d.extra["env"]
        if d.kind is bool:
            parser.add_argument(d.flag, action=argparse.BooleanOptionalAction, default=default,
                                help=f"{d.help} (${variable})")
        else:
            parser.add_argument(d.flag, type=as_flag(d), default=default, metavar=d.metavar,
                                help=f"{d.help} (${variable})")
    return parser


def from_args(argv: list[str] | None = None, environ: Mapping[str, str] = os.environ) -> Config:
    return Config(**vars(parser(from_env(environ)).parse_args(argv)))
