"""Files iolab writes for people to read (pages, print editions, chart images, exports, and the
markers, manifests and scripts of its output folders and lakes): whole or not at all, and with the
permissions the user's umask gives any new file. Every such file is written here: ``replacing`` for a
writer with a file, ``replacing_by_name`` for one that needs a name (DuckDB's COPY, a file copy).

``tempfile.mkstemp`` makes its file 0600 whatever the umask, and a rename keeps the mode: every page
written through it was private (``-rw-------`` under umask 022), so a reports folder copied to a web
server or a shared drive could not be read by anyone else. Here the temporary file is created with
mode 0666 and the umask applied by the kernel, as ``open(path, "w")`` would (0644 under 022): nothing
is private unless the user's umask asks for it.

A temporary file's name says whose it is (``.<name>.<pid>-<start>-<random>.tmp``: the process and its
start): ``sweep`` removes those whose process is gone (a SIGKILL, a power cut), never another running
command's. An output folder's owner (iolab.outputs) hears of every file before it takes its name
(``recording``): its marker lists the file, with its hash, before the file is there to be seen, so a
run killed at any point leaves no file in the folder that iolab cannot prove it wrote.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from .processes import started

SUFFIXES = (".tmp", ".part")
_OWNED = re.compile(r"\..+\.(\d+)-(\d+)-[0-9a-f]{8}(?:\.tmp|\.part)")


_me: dict[int, str] = {}


def owner() -> str:
    """This process, as temporary names carry it: ``<pid>-<start>``."""
    pid = os.getpid()
    if pid not in _me:  # a forked child is another owner
        _me[pid] = f"{pid}-{started() or 0}"
    return _me[pid]


def _temporary(path: Path, suffix: str) -> tuple[int, Path]:
    """A new file beside ``path`` (hidden, never an existing one, named for this process), open for
    writing, mode 0666 & ~umask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{owner()}-{secrets.token_hex(4)}{suffix}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def sweep(folder: Path, recursive: bool = False) -> list[Path]:
    """Remove the temporary files in ``folder`` (and below, if ``recursive``) whose process is gone
    (killed before it could remove them); those removed. Another running command's are left."""
    removed = []
    try:
        walked = os.walk(folder) if recursive else [(str(folder), [], os.listdir(folder))]
        for top, dirs, names in walked:
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
            for name in names:
                if (m := _OWNED.fullmatch(name)) and started(m.group(1)) != m.group(2):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(top, name))
                        removed.append(Path(top) / name)
    except OSError:  # a folder that cannot be listed has nothing to sweep that iolab could remove
        pass
    return removed


# output folder -> called with (the file's path, its temporary file) before the temporary file takes
# the path: iolab.outputs lists it in the folder's marker first
_recorders: dict[Path, Callable[[Path, Path], None]] = {}
_lock = threading.Lock()


@contextlib.contextmanager
def recording(folder: Path, record: Callable[[Path, Path], None]) -> Iterator[None]:
    """Within the block, ``record(path, tmp)`` runs before any file written here below ``folder``
    takes its name (``path``) from its temporary file (``tmp``)."""
    key = Path(os.path.abspath(folder))
    with _lock:
        _recorders[key] = record
    try:
        yield
    finally:
        with _lock:
            _recorders.pop(key, None)


def _record(tmp: Path, path: Path) -> None:
    where = Path(os.path.abspath(path))
    with _lock:
        found = [(folder, fn) for folder, fn in _recorders.items() if folder in where.parents]
    if found:
        max(found, key=lambda f: len(str(f[0])))[1](where, tmp)


@contextlib.contextmanager
def _becoming(tmp: Path, path: Path) -> Iterator[None]:
    """``tmp`` becomes ``path`` (a rename over it) once the block ends without an error; on an error
    it is removed and ``path`` is as it was."""
    try:
        yield
        _record(tmp, path)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def replacing(path: Path, *, binary: bool = False, suffix: str = ".tmp") -> Iterator[IO[Any]]:
    """A file to write that becomes ``path`` once the ``with`` block ends without an error (a rename
    over it, never a write through it); on an error the temporary file is removed and ``path`` is as
    it was. Text is UTF-8 with newlines as written."""
    fd, tmp = _temporary(path, suffix)
    with _becoming(tmp, path), os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        yield f


@contextlib.contextmanager
def replacing_by_name(path: Path, *, suffix: str = ".tmp") -> Iterator[Path]:
    """As ``replacing``, for a writer that takes a file name rather than a file (DuckDB's COPY, a
    copy of a file): the name of a new empty file beside ``path``, made as ``replacing`` makes it."""
    fd, tmp = _temporary(path, suffix)
    os.close(fd)
    with _becoming(tmp, path):
        yield tmp


def write_text(path: Path, text: str) -> None:
    """``path`` holds ``text`` (UTF-8), whole or not at all."""
    with replacing(path) as f:
        f.write(text)


def write_bytes(path: Path, data: bytes) -> None:
    """``path`` holds ``data``, whole or not at all."""
    with replacing(path, binary=True) as f:
        f.write(data)
