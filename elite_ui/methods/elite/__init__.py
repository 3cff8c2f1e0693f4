"""ELITE, embedding-free retrieval with iterative text exploration (arXiv 2505.11908): ``loop`` (the stages),
``retrieval`` (collection, the paper's Eq. 1), ``importance`` (Eq. 3 and 4), ``counting`` (the counting path),
``edit`` (a reader's edited search), ``settings`` (its settings and presets)."""

from .edit import Edit
from .loop import Elite
from .settings import PRESETS, Settings

__all__ = ["PRESETS", "Edit", "Elite", "Settings"]
