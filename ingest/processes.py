"""Which process owns a folder: its id and start time, in the folder's name, tell whether it is still
running (a process id is reused; the pair is not). The render's temporary folders
(iolab.reports.scratch) and DuckDB's spill folders (iolab.store.connect) are named so, and removed by
the next run once their owner is gone, however it ended."""

from __future__ import annotations

import os
from pathlib import Path


def started(pid: int | str = "self") -> str | None:
    """When process ``pid`` started (clock ticks since boot, field 22 of /proc/<pid>/stat), None if it
    is gone. Without /proc: "0" while the process id is in use."""
    if not Path("/proc/self/stat").exists():
        if pid == "self":
            return "0"
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return None
        except PermissionError:  # in use, by another user
            pass
        return "0"
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # the fields after the command's name start at field 3


def tag() -> str:
    """This process as a folder's name says it: ``<pid>.<start>``."""
    return f"{os.getpid()}.{started() or 0}"


def gone(pid: str, start: str) -> bool:
    """Whether the process of ``tag`` ``<pid>.<start>`` has ended."""
    return started(pid) != start
