"""The progress bar iolab shows on a terminal while it works (ingest, reports): one look for both."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def bar(label: str, console: Console, *, hidden: bool = False) -> Progress:
    """A transient bar (it goes when the work is done) named ``label``; none off a terminal or if ``hidden``."""
    return Progress(
        TextColumn(f"[bold]{label}[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}", markup=False),  # a file or study name: text, never markup or emoji
        console=console,
        transient=True,
        disable=hidden or not console.is_terminal,
    )
