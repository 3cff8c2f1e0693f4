"""How the app runs, described once: each option's flag (``--max-upload-mb``), environment variable
(``ELITE_MAX_UPLOAD_MB``) and help come from :class:`Config`'s fields; ``python app.py --help`` and the docs'
table are made from them."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

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
    hosted: bool | None = setting(None, "public hosting: the model is the host's (the model panel locked, no "
                                        "endpoint to change it), per-visitor limits (default: on when running on a "
                                        "Space or listening beyond loopback)", kind=bool, env="ELITE_HOSTED")
    max_upload_mb: int = setting(20, "the upload limit in MB", low=1, high=1024, env="ELITE_MAX_UPLOAD_MB")
    uploads: int = setting(2, "books read at once (more uploads wait their turn)", low=1, high=64,
                           env="ELITE_UPLOADS")
    idle_minutes: int = setting(30, "hosted mode: a session untouched this long is freed (a page reload brings it "
                                    "back from the browser's copy)", low=1, high=1440, env="ELITE_IDLE_MINUTES")
    parallel: int = setting(0, "a model server's calls at once, shared fairly by every reader's questions (0: as "
                                  "llama-server's /props says, else 4; the in-process model takes 1)", low=0,
                            high=1024, env="ELITE_PARALLEL")
    builds: int = setting(1, "M-RAG index builds and written recaps at once across visitors (0: visitors may "
                                "start none); each call of one waits its turn, so questions go in between", low=0,
                          high=64, env="ELITE_BUILDS")
    sessions_per_visitor: int = setting(4, "hosted mode: sessions with a book open per visitor (a network address)",
                                        low=1, high=10_000, env="ELITE_SESSIONS_PER_VISITOR")
    uploads_per_minute: int = setting(6, "hosted mode: books a visitor may open a minute", low=1, high=10_000,
                                      env="ELITE_UPLOADS_PER_MINUTE")
    views_per_visitor: int = setting(1, "hosted mode: X-Rays, shared passages and extractive recaps a visitor "
                                        "runs at once",
                                     low=1, high=64, env="ELITE_VIEWS_PER_VISITOR")
    views: int = setting(2, "X-Rays, shared passages and extractive recaps made at once across visitors (more "
                            "wait up to 10 s)",
                         low=1, high=64, env="ELITE_VIEWS")
    proxies: int = setting(0, "trusted proxies in front of the app: a visitor is the address the nearest one wrote "
                              "into X-Forwarded-For (1 on a Space), else the connection's", low=0, high=8,
                           env="ELITE_PROXIES")
    cache_mb: int = setting(2048, "the parsed-book cache's size cap in MB, the least recently used books evicted "
                                  "first (0: no cap)", low=0, high=1_048_576, env="ELITE_CACHE_MB")
    preset: str = setting("", "the settings preset the page and the API start with (empty: the loaded model's, "
                              "capable for a model of a billion parameters or more, else laptop)",
                          choices=("", *sorted(PRESETS)), env="ELITE_PRESET")
    scripted: str | None = setting(None, "a JSON script for the deterministic scripted model (tests, demos)",
                                   kind=str, env="ELITE_SCRIPTED")
    library: str | None = setting(None, "a Calibre library folder, or any folder of books (KOReader's sidecars beside "
                                        "them), that the Library panel opens books from, with where you are and "
                                        "your highlights (not in hosted mode), and whose books the reading apps' "
                                        "endpoint (/v1) serves as models", kind=str, env="ELITE_LIBRARY")
    api_key: str | None = setting(None, "the key reading apps send (Authorization: Bearer KEY) to the app's "
                                        "OpenAI and Ollama endpoints (/v1, /api/chat); required when the app "
                                        "listens beyond loopback", kind=str,
                                  env="ELITE_API_KEY")
    koreader: str | None = setting(None, "KOReader's settings folder (the one with docsettings/ and hashdocsettings/), "
                                         "for the sidecars KOReader keeps there rather than beside the book", kind=str,
                                   env="ELITE_KOREADER")
    cache_dir: str | None = setting(None, "where parsed books and M-RAG marker stores live (default: "
                                          "~/.cache/elite-reader)", kind=str, env="ELITE_CACHE")
    host: str = setting("127.0.0.1", "the address to listen on", env="GRADIO_SERVER_NAME")
    mcp: bool = setting(False, "serve the API (open_book, ask, search, passage, recap, xray) as MCP tools too, at "
                               "/gradio_api/mcp/", env="ELITE_MCP")
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


def from_args(argv: list[str] | None = None, environ: Mapping[str, str] = os.environ) -> tuple[Config, str]:
    """The configuration the flags and environment give, hosted mode decided (:func:`safe`), and the line that
    says how."""
    return safe(Config(**vars(parser(from_env(environ)).parse_args(argv))), environ)


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def safe(config: Config, environ: Mapping[str, str] = os.environ) -> tuple[Config, str]:
    """``config`` with hosted mode decided, and one line saying why: on when the app runs on a Space
    (``SPACE_ID``) or listens beyond loopback, unless the host said ``--no-hosted``; a Space's proxy is trusted
    for visitors' addresses."""
    on_space = bool(environ.get("SPACE_ID", "").strip())
    proxies = config.proxies or (1 if on_space and "ELITE_PROXIES" not in environ else 0)
    if config.hosted is not None:
        said = "on" if config.hosted else "off, as the host chose (--no-hosted)"
        return replace(config, proxies=proxies), f"Hosted mode: {said}."
    why = "running on a Space" if on_space else (f"listening on {config.host}" if config.host not in LOOPBACK
                                                  else "")
    hosted = bool(why)
    said = f"on ({why}; --no-hosted turns it off)" if hosted else "off (listening on loopback only)"
    return replace(config, hosted=hosted, proxies=proxies), f"Hosted mode: {said}."
