"""Errors a user can cause. Each carries one sentence meant for the reader, never a traceback."""


class EliteError(Exception):
    """Base of every error whose message is shown to the user as it is."""


class BookError(EliteError):
    """The file cannot be read as a book (empty, binary, unsupported, encrypted, too large...)."""


class ModelError(EliteError):
    """The language model cannot be loaded or reached."""


class QuestionError(EliteError):
    """The question cannot be asked (empty, or too long for the model's context)."""


class Cancelled(EliteError):
    """The user stopped the question (or the index being built)."""
