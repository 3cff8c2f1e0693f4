"""Books: files read into chapters, paragraphs and sentences, their words indexed, their characters named.

One module a step: ``load`` (checks, then the steps below), ``formats`` (txt, epub, pdf), ``text`` (decoding,
repair, Gutenberg licence), ``segment`` (paragraphs, sentences), ``headings`` (chapters, title, author),
``index`` (the word index), ``lexicon`` (words per language), ``model`` (the :class:`Book`), ``cache`` (parsed
books by content hash), ``ceiling`` (the spoiler ceiling), ``names`` (the character-name index).
"""

from .cache import default_cache_dir, load_cached
from .ceiling import reading_ceiling
from .load import Opening, load_book, open_file
from .model import Book, Ceiling, Chapter, Sentence

__all__ = ["Book", "Ceiling", "Chapter", "Opening", "Sentence", "default_cache_dir", "load_book", "load_cached",
           "open_file", "reading_ceiling"]
