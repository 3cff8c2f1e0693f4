"""Upload receipts: a book's content hash is not a password. When a visitor opens a book, the server issues a
receipt for it (an HMAC of the hash under a key that never leaves the server); the browser's copy of the session
carries the receipts, and a page reload reopens only the books whose receipts check. The key the browser's copy
is encrypted with is another matter: Gradio serves it to every page, so it protects nothing on its own."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
import secrets
from pathlib import Path

SECRET = re.compile(r"[0-9a-f]{64}")
"""A kept key: 32 random bytes as hex. Anything else found in its file (empty after a crash or a full disk,
short, edited) is never trusted: a fresh key replaces it."""


def kept_secret(cache_dir: Path, name: str) -> str:
    """A random key kept in the cache folder so that it outlives a restart, written whole or not at all (a fresh
    one, not kept, when the folder cannot be written)."""
    path = Path(cache_dir) / name
    with contextlib.suppress(OSError):
        kept = path.read_text().strip()
        if SECRET.fullmatch(kept):
            return kept
    secret = secrets.token_hex(32)
    partial = path.with_name(f"{name}.{secrets.token_hex(4)}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(secret)
        partial.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
    return secret


class Receipts:
    """Issues and checks the receipts of books opened in this app."""

    def __init__(self, cache_dir: Path):
        self._key = kept_secret(cache_dir, "receipt-key").encode()

    def issue(self, digest: str) -> str:
        return hmac.new(self._key, digest.encode(), hashlib.sha256).hexdigest()

    def valid(self, digest: str, receipt) -> bool:
        return isinstance(receipt, str) and hmac.compare_digest(self.issue(digest), receipt)
