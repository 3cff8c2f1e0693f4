"""The book card: title, author, chapters, paragraphs, sentences, words, language, format and how it opened."""

from __future__ import annotations

from ...book import Book
from .common import esc


def book_card(book: Book) -> str:
    s = book.summary()
    author = f" by {esc(book.author)}" if book.author else ""
    return (f"<div class='book-card'><b>{esc(book.title)}</b>{author}<br>"
            f"{s['chapters']} chapters · {s['paragraphs']:,} paragraphs · {s['sentences']:,} sentences · "
            f"{s['words']:,} words (about {len(book.text) // 4:,} tokens) · {esc(book.lexicon.name)} · {book.format} · "
            f"{esc(book.load_note())}</div>")
