"""ELITE Reader: ask questions of a whole novel and watch how the answer was found."""

__version__ = "0.1.0"
