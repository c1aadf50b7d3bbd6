"""Faults of the machine, not of a file nor of the user: a disk full, over quota or read-only, a
folder iolab may not write, DuckDB out of memory. Each is said once, in one line that names the
folder it hit and what it is to iolab (the database's folder, the output folder, the cache folder,
the temporary folder), and ends the command with exit 3 (iolab.cli.requires).

The folder comes from the error itself when it names a path (an OSError's file name, the path
DuckDB quotes); when it does not (a write to an open file), from the folders iolab was using that the
file system now says are full or read-only (``os.statvfs``); else from the caller, which knows what
it was writing. A fault is never blamed on a folder it did not hit: the cache folder full is not
"the disk holding the database".
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from .config import cache_dir

# (errno, what the OS or DuckDB says in words, what it means: "{what}" is the folder's role)
KINDS = [
    (errno.ENOSPC, "No space left on device", "the disk holding {what} is full"),
    (errno.EDQUOT, "Disk quota exceeded", "the disk quota for {what} is used up"),
    (errno.EROFS, "Read-only file system", "{what} is on a read-only file system"),
    (errno.EACCES, "Permission denied", "iolab may not write {what} (permissions)"),
    (errno.EPERM, "Operation not permitted", "iolab may not write {what} (permissions)"),
    (errno.EIO, "Input/output error", "the disk holding {what} reported an input/output error"),
]
FULL_BELOW = 1 << 20  # a file system with less free than this (for iolab's user) is full
MEMORY = (
    "DuckDB ran out of memory{where}: it may use IOLAB_DB_MEMORY when iolab writes (default 512MB) and "
    "most of the machine's memory when it reads. Set IOLAB_DB_MEMORY to more (e.g. IOLAB_DB_MEMORY=4GB), "
    "close what else uses the memory, or run it on a larger machine"
)

# folders a command uses, by their role ("the database", "the output folder"): set by the command
# line for the paths it was given; the cache and temporary folders are always known
_watched: dict[str, Path] = {}


def watch(what: str, folder: Path | str | None) -> None:
    """Name ``folder`` by its role ``what`` in what is said of a fault there."""
    if folder:
        _watched[what] = Path(os.path.abspath(folder))


def watched() -> dict[str, Path]:
    """Every folder a fault may be said to hit, by its role (the cache and temporary folders too)."""
    import tempfile

    return {**_watched, "the cache folder": cache_dir(), "the temporary folder": Path(tempfile.gettempdir())}


def kind(e: BaseException) -> tuple[int, str] | None:
    """(errno, meaning) when ``e`` is the machine refusing a write (else None)."""
    code = getattr(e, "errno", None)
    text = str(e).lower()
    for no, words, meaning in KINDS:
        if code == no or words.lower() in text:
            return no, meaning
    return None


_QUOTED = re.compile(r"""["']((?:/|[A-Za-z]:\\)[^"']+)["']""")


def named_path(e: BaseException) -> Path | None:
    """The path the error names: an OSError's file name, else the first absolute path quoted in it."""
    for attr in ("filename", "filename2"):
        if isinstance(name := getattr(e, attr, None), (str, bytes, os.PathLike)):
            return Path(os.fsdecode(name))
    m = _QUOTED.search(str(e))
    return Path(m.group(1)) if m else None


def _probe(no: int) -> list[Path]:
    """The folders iolab uses whose file system is now full (ENOSPC, EDQUOT) or read-only (EROFS)."""
    found = []
    for folder in watched().values():
        probe = next((p for p in (folder, *folder.parents) if p.exists()), None)
        if probe is None:
            continue
        try:
            st = os.statvfs(probe)
        except OSError:
            continue
        full = st.f_bavail * st.f_frsize < FULL_BELOW
        if (no in (errno.ENOSPC, errno.EDQUOT) and full) or (no == errno.EROFS and st.f_flag & os.ST_RDONLY):
            found.append(folder)
    return found


def role(folder: Path) -> str:
    """What ``folder`` is to iolab: the role of the deepest watched folder holding it, else "the folder"."""
    holding = [(len(str(f)), what) for what, f in watched().items() if folder == f or f in folder.parents]
    return max(holding)[1] if holding else "the folder"


def describe(e: BaseException, what: str | None = None, folder: Path | None = None) -> str | None:
    """One line saying which folder the fault hit and why, when ``e`` is the machine's fault (else None).
    ``what`` and ``folder``: what the caller was writing, said when the error names no path and no
    folder iolab uses is now full or read-only."""
    if (found := kind(e)) is None:
        return None
    no, meaning = found
    path = named_path(e)
    where = [path if path.is_dir() else path.parent] if path else _probe(no)
    if not where and folder is not None:
        where = [Path(folder)]
    role_of = role(where[0]) if where else what or "the folder"
    if role_of == "the folder" and what:
        role_of = what
    said = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
    named = f": {', '.join(map(str, where))}" if where else ""
    return f"{meaning.format(what=role_of)}{named} ({errno.errorcode[no]}; {said})"


def out_of_memory(e: BaseException) -> str | None:
    """The line to say when ``e`` is DuckDB (or Python) out of memory, else None."""
    name = type(e).__name__
    if name != "OutOfMemoryException" and not isinstance(e, MemoryError):
        return None
    said = str(e).strip().splitlines()[0][:200] if str(e).strip() else name
    return MEMORY.format(where="") + f" ({said})"
