"""A place's identity as a path: the helpers both the store (ingest/store/places.py, which
re-exports them) and the output folders (ingest/outputs.py) use, below both of them so that
neither imports the other for them."""

from __future__ import annotations

import os
from pathlib import Path


def canonical(path: Path) -> Path:
    """The place's identity: absolute, every folder's links resolved. A folder (or a link to one)
    resolves whole; a file keeps its own name, so a symlinked file is the link, labelled where it sits."""
    p = Path(os.path.abspath(path))
    if p.is_dir():
        return p.resolve()
    return p.parent.resolve() / p.name


def text(path: Path) -> str:
    """A path as text DuckDB stores: a name that is not UTF-8 keeps its bytes as \\xNN escapes
    (distinct names stay distinct)."""
    return os.fsencode(path).decode("utf-8", errors="backslashreplace")


def inside(path: Path | str, folder: Path | str) -> bool:
    """Whether ``path`` is ``folder`` or below it (both canonical)."""
    path, folder = str(path), str(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")
