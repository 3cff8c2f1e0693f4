"""What a handler may be sent: every page handler is also a public API endpoint, so a value can be of any JSON
type, not only what its component would send. Handlers read their inputs through these."""

from __future__ import annotations

from collections.abc import Collection


def text(value) -> str:
    """A text box's value: the text, or "" for anything that is not text."""
    return value if isinstance(value, str) else ""


def choice(value, allowed: Collection):
    """A choice among ``allowed`` (text or numbers), or None for anything else (a list, a stranger's value)."""
    return value if isinstance(value, str | int) and not isinstance(value, bool) and value in allowed else None


def number(value) -> int | None:
    """A whole number (not a bool, a float or text), or None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
