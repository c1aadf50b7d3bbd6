"""The render's temporary folders: the database snapshot (``iolab-report-*``), the print edition's
parts (``iolab-pdf-*``), the kernels' sockets and connection files (``iolab-kernel-*``: a connection
file holds the kernel's HMAC key) and Chromium's profile and temporary files (``iolab-chrome-*``),
under the system's temporary folder.

Each is a ``TemporaryDirectory``, removed when the render ends, fails or is stopped: ``stopped_by_sigterm``
turns SIGTERM (``kill``, a service manager, a CI timeout) into ``SystemExit``, so the ``with`` blocks
that hold them unwind as they do on Ctrl-C (Python's default for SIGTERM ends the process at once and
left a full copy of the database behind). SIGKILL cannot be caught: each folder's name carries its
owner's process id and start time (``iolab-report-<pid>.<start>-…``), and ``sweep``, at the start of
every command, removes those whose owner is gone (another render still running keeps its folders),
and those of an older iolab, named without their owner, once they are a day old.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from ..processes import started, tag

KINDS = ("report", "pdf", "kernel", "chrome")
_NAME = re.compile(rf"iolab-(?:{'|'.join(KINDS)})-(\d+)\.(\d+)-")
# a folder of an iolab that did not name the owner (``iolab-report-<8 random characters>``): removed
# once a day old, which no render lasts
_OLD_NAME = re.compile(rf"iolab-(?:{'|'.join(KINDS)})-[a-z0-9_]{{8}}")
OLD_AFTER_S = 24 * 3600


def folder(kind: str) -> tempfile.TemporaryDirectory:
    """A temporary folder of ``kind`` (KINDS) named for this process, removed when its ``with`` ends."""
    return tempfile.TemporaryDirectory(prefix=f"iolab-{kind}-{tag()}-")


def sweep(where: Path | None = None) -> list[Path]:
    """Remove the temporary folders a render killed with SIGKILL left (their owner is gone, and they
    are this user's); the folders removed."""
    root = Path(where or tempfile.gettempdir())
    removed = []
    for p in sorted(q for kind in KINDS for q in root.glob(f"iolab-{kind}-*")):
        m = _NAME.match(p.name)
        if not (m or _OLD_NAME.fullmatch(p.name)) or not p.is_dir() or p.is_symlink():
            continue
        st = p.stat()
        if st.st_uid != os.getuid():
            continue
        if m and started(m.group(1)) == m.group(2):
            continue  # its render is still running
        if not m and time.time() - st.st_mtime < OLD_AFTER_S:
            continue  # named before owners were: left alone until no render could still be using it
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    return removed


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM raises SystemExit(143) in the main thread, so every ``with`` and
    ``finally`` on the way out runs (temporary folders removed, Chromium and the kernels stopped).
    Elsewhere than the main thread, or where a handler is already set, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous not in (signal.SIG_DFL, None):
        yield
        return

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: the way out is not interrupted again
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
