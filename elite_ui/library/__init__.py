"""The reader's own reading apps, read (never written): a Calibre library (its books, where its viewer stopped,
its highlights and notes) and KOReader's sidecar files (position, highlights, notes). ``model`` holds what they
say, ``calibre`` and ``koreader`` read each app's files, ``places`` finds an EPUB place (a CFI, an xpointer) in our
book's text, and ``located`` turns all of it into sentences of the open book: the spoiler ceiling and the
notebook's highlights."""

from .calibre import CalibreLibrary
from .koreader import read_sidecar, sidecar_for
from .located import Located, locate
from .model import LibraryError, Marked, Position, Reading, Shelved

__all__ = ["CalibreLibrary", "LibraryError", "Located", "Marked", "Position", "Reading", "Shelved", "locate",
           "read_sidecar", "sidecar_for"]
