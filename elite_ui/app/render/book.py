"""The book card: title, author, chapters (by the book's own headings, with its parts and front matter),
paragraphs, sentences, words, language, format and how it opened; first, while its sentences are found, what
the file's first reading gives."""

from __future__ import annotations

from ...book import Book, Opening
from .common import esc

NO_BOOK = "<div class='book-card'>No book loaded.</div>"


def book_card(book: Book, *, hosted: bool = False) -> str:
    """The book's card; a hosted app's card does not say whether the book came from the cache (that would tell
    a visitor that someone uploaded the same file before)."""
    s = book.summary()
    author = f" by {esc(book.author)}" if book.author else ""
    parts = f" in {s['parts']} parts" if s["parts"] else ""
    front = f" · front matter: {esc(', '.join(s['front_matter'])[:120])}" if s["front_matter"] else ""
    note = "; ".join(filter(None, ("ready", book.missing_note()))) if hosted else book.load_note()
    return (f"<div class='book-card'><b>{esc(book.title)}</b>{author}<br>"
            f"{s['chapters']} chapters{parts}{front} · {s['paragraphs']:,} paragraphs · {s['sentences']:,} sentences · "
            f"{s['words']:,} words (about {len(book.text) // 4:,} tokens) · {esc(book.lexicon.name)} · {book.format} · "
            f"{esc(note)}</div>")


def reading_card(opening: Opening) -> str:
    """The card while the book's sentences are found and its words indexed (half a second for the longest)."""
    draft = opening.draft
    author = f" by {esc(draft.author)}" if draft.author else ""
    return (f"<div class='book-card reading'><b>{esc(draft.title or opening.path.stem)}</b>{author}<br>"
            f"{opening.chapters()} chapters · {len(draft.paragraphs):,} paragraphs · about {len(draft.text) // 4:,} "
            f"tokens · {opening.path.suffix.lower()[1:]} · <i>indexing its words…</i></div>")
