"""The book card: title, author, chapters (by the book's own headings, with its parts and front matter),
paragraphs, sentences, words, language, format and how it opened."""

from __future__ import annotations

from ...book import Book
from .common import esc


def book_card(book: Book, *, hosted: bool = False) -> str:
    """The book's card; a hosted app's card does not say whether the book came from the cache (that would tell
    a visitor that someone uploaded the same file before)."""
    s = book.summary()
    author = f" by {esc(book.author)}" if book.author else ""
    parts = f" in {s['parts']} parts" if s["parts"] else ""
    front = f" · front matter: {esc(', '.join(s['front_matter'])[:120])}" if s["front_matter"] else ""
    return (f"<div class='book-card'><b>{esc(book.title)}</b>{author}<br>"
            f"{s['chapters']} chapters{parts}{front} · {s['paragraphs']:,} paragraphs · {s['sentences']:,} sentences · "
            f"{s['words']:,} words (about {len(book.text) // 4:,} tokens) · {esc(book.lexicon.name)} · {book.format} · "
            f"{'ready' if hosted else esc(book.load_note())}</div>")
