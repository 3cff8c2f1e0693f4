"""Upload receipts: a book's content hash is not a password. When a visitor opens a book, the server issues a
receipt for it (an HMAC of the hash under a key that never leaves the server); the browser's copy of the session
carries the receipts, and a page reload reopens only the books whose receipts check. The key the browser's copy
is encrypted with is another matter: Gradio serves it to every page, so it protects nothing on its own."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path


def kept_secret(cache_dir: Path, name: str) -> str:
    """A random key kept in the cache folder so that it outlives a restart (a fresh one, not kept, when the
    folder cannot be written)."""
    path = Path(cache_dir) / name
    try:
        if path.exists():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_hex(32)
        path.write_text(secret)
        return secret
    except OSError:
        return secrets.token_hex(32)


class Receipts:
    """Issues and checks the receipts of books opened in this app."""

    def __init__(self, cache_dir: Path):
        self._key = kept_secret(cache_dir, "receipt-key").encode()

    def issue(self, digest: str) -> str:
        return hmac.new(self._key, digest.encode(), hashlib.sha256).hexdigest()

    def valid(self, digest: str, receipt) -> bool:
        return isinstance(receipt, str) and hmac.compare_digest(self.issue(digest), receipt)
