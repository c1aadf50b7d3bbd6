"""The one error a parser raises. It lives below every other module (text helpers, archives, the
records of ``iolab.model``, which re-exports it) so that each of them can raise it without
importing the others: the import test (tests/test_layers.py) keeps that graph free of circles."""

from __future__ import annotations


class ParseError(Exception):
    """A file that cannot be read as its format. ``line`` is 1-based, or None for whole-file faults."""

    def __init__(self, reason: str, line: int | None = None):
        self.reason = reason
        self.line = line
        super().__init__(f"line {line}: {reason}" if line else reason)
