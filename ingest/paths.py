"""A place's identity as a path: the helpers both the store (ingest/store/places.py, which
re-exports them) and the output folders (ingest/outputs.py) use, below both of them so that
neither imports the other for them."""

from __future__ import annotations

import os
from pathlib import Path

# never a data root, nor anything below them: the system's programs, settings and runtime state
SYSTEM = ("/proc", "/sys", "/dev", "/run", "/boot", "/etc", "/usr", "/bin", "/sbin", "/snap", "/System", "/Library")
# folders that hold other folders, never results themselves (below them is fine)
TOP = ("/", "/home", "/root", "/var", "/tmp", "/opt", "/srv", "/mnt", "/media", "/Users", "/Volumes", "/private")


def shared(folder: Path) -> bool:
    """Whether ``folder`` (canonical) is the file system's top, a folder that holds others (TOP) or a
    system folder (SYSTEM, or below one): nothing of a user's results lives there, and nothing in it
    speaks for them (a sidecar there is never read; /tmp is anyone's to write in)."""
    return str(folder) in TOP or folder.parent == folder or any(inside(folder, s) for s in SYSTEM)


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
