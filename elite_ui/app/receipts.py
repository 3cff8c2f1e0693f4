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

HEX64 = re.compile(r"[0-9a-f]{64}")
"""A book's content hash (SHA-256 as hex), and a kept key (32 random bytes as hex). Anything else found in a key's
file (empty after a crash or a full disk, short, edited) is never trusted: a fresh key replaces it."""


def kept_secret(cache_dir: Path, name: str) -> str:
    """A random key kept in the cache folder so that it outlives a restart, written whole or not at all (a fresh
    one, not kept, when the folder cannot be written)."""
    path = Path(cache_dir) / name
    with contextlib.suppress(OSError):
        kept = path.read_text().strip()
        if HEX64.fullmatch(kept):
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

    def valid(self, digest, receipt) -> bool:
        """Whether ``receipt`` is this server's for the content hash ``digest`` (anything sent checked here)."""
        return (isinstance(digest, str) and bool(HEX64.fullmatch(digest)) and isinstance(receipt, str)
                and hmac.compare_digest(self.issue(digest), receipt))
