"""Files iolab writes for people to read (pages, print editions, chart images, exports, and the
markers, manifests and scripts of its output folders and lakes): whole or not at all, and with the
permissions the user's umask gives any new file. Every such file is written here: ``replacing`` for a
writer with a file, ``replacing_by_name`` for one that needs a name (DuckDB's COPY, a file copy).

``tempfile.mkstemp`` makes its file 0600 whatever the umask, and a rename keeps the mode: every page
written through it was private (``-rw-------`` under umask 022), so a reports folder copied to a web
server or a shared drive could not be read by anyone else. Here the temporary file is created with
mode 0666 and the umask applied by the kernel, as ``open(path, "w")`` would (0644 under 022): nothing
is private unless the user's umask asks for it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def _temporary(path: Path, suffix: str) -> tuple[int, Path]:
    """A new file beside ``path`` (hidden, never an existing one), open for writing, mode 0666 & ~umask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}{suffix}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


@contextlib.contextmanager
def _becoming(tmp: Path, path: Path) -> Iterator[None]:
    """``tmp`` becomes ``path`` (a rename over it) once the block ends without an error; on an error
    it is removed and ``path`` is as it was."""
    try:
        yield
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
