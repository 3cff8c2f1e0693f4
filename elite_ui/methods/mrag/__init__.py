"""M-RAG, meta-marker RAG (arXiv 2603.26667), with the fidelity audit its reviewers asked for: ``engine`` (the
stages), ``markers`` (what the model writes, and the audit), ``index`` (paragraphs, windows, the marker index),
``store`` (the resumable marker store), ``settings`` (its settings and presets)."""

from ..trace import Marker, Window
from .engine import Mrag
from .index import KeyMatch, MarkerIndex
from .markers import audit, parse_markers
from .settings import ORDERS, PRESETS, MragSettings
from .store import Store

__all__ = ["ORDERS", "PRESETS", "KeyMatch", "Marker", "MarkerIndex", "Mrag", "MragSettings", "Store", "Window",
           "audit", "parse_markers"]
