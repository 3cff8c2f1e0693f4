"""The reader's own reading apps, read (never written): a Calibre library (its books, where its viewer stopped,
its highlights and notes) and KOReader's sidecar files (position, highlights, notes). ``model`` holds what they
say, ``shelf`` finds a book in a Calibre library or a folder of books, ``calibre`` and ``koreader`` read each
app's files, ``places`` finds an EPUB place (a CFI, an xpointer) in our
book's text, and ``located`` turns all of it into sentences of the open book: the spoiler ceiling and the
notebook's highlights."""

from .calibre import CalibreLibrary
from .koreader import read_sidecar, sidecar_for
from .located import Located, locate
from .model import LibraryError, Marked, Position, Reading, Shelved
from .shelf import BookFolder, located_in, open_shelf, readings

__all__ = ["BookFolder", "CalibreLibrary", "LibraryError", "Located", "Marked", "Position", "Reading", "Shelved",
           "locate", "located_in", "open_shelf", "read_sidecar", "readings", "sidecar_for"]
