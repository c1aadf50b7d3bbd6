"""Regular files only: what iolab opens to read, whether a raw file, a sidecar or a marker.

A FIFO blocks the open (or the first read) until a writer comes; a device reads without end
(/dev/zero) or acts when opened (a tape rewinds); a file on a special file system holds the kernel's
state, and reading some of them consumes it or blocks for ever (/proc/kmsg). None of them is a
result file, a sidecar or an output marker: ``open_regular`` opens only a regular file on an ordinary
file system, checked before the open and again on the opened descriptor (a file swapped for a FIFO
in between is still caught), and ``read_small`` reads one whole only up to a size limit.
"""

from __future__ import annotations

import functools
import io
import os
import stat
from pathlib import Path

# file systems that hold the kernel's or a device's state, not files of results: never read
# (reading /proc/kmsg consumes the kernel log), whatever path they are mounted at
SPECIAL_FS = frozenset(
    {"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "pstore", "bpf"}
    | {"configfs", "fusectl", "mqueue", "hugetlbfs", "binfmt_misc", "efivarfs", "selinuxfs", "rpc_pipefs", "nsfs"}
)

NOT_REGULAR = {
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


class NotRegular(OSError):
    """Only regular files are read: a FIFO or a device could block the read or never end."""


class TooBig(OSError):
    """A file read whole (a sidecar, a marker) is past the size any real one has."""


@functools.cache
def special_devices() -> dict[int, str]:
    """The device number (st_dev) of every mounted special file system, and its type, from
    /proc/self/mountinfo (none where there is no such file)."""
    try:
        lines = Path("/proc/self/mountinfo").read_text(errors="replace").splitlines()
    except OSError:
        return {}
    out = {}
    for line in lines:  # id parent major:minor root mount-point options [optional...] - type source ...
        left, sep, right = line.partition(" - ")  # a space inside a mount point is written \040
        cells, kind = left.split(), (right.split() or [""])[0]
        if sep and len(cells) > 2 and kind in SPECIAL_FS:
            major, _, minor = cells[2].partition(":")
            if major.isdigit() and minor.isdigit():
                out[os.makedev(int(major), int(minor))] = kind
    return out


def special_fs(path: Path, st: os.stat_result | None = None) -> str | None:
    """The type of the special file system ``path`` (or what it links to) lies on, else None."""
    try:
        st = st or os.stat(path)
    except OSError:
        return None
    return special_devices().get(st.st_dev)


def check_regular(st: os.stat_result) -> None:
    """A device, FIFO or socket is named as what it is; a regular-looking file on a special file system
    (/proc/kmsg: reading it consumes the kernel log) by its file system."""
    if not stat.S_ISREG(st.st_mode):
        mode = st.st_mode
        raise NotRegular(f"{NOT_REGULAR.get(stat.S_IFMT(mode), 'not a regular file')}, not a regular file: never read")
    if kind := special_fs(Path(), st):
        raise NotRegular(f"on a {kind} file system (the kernel's or a device's state, not results): never read")


def open_regular(path: Path) -> io.BufferedReader:
    """Open for reading only if it is a regular file (a symlink counts as what it points to).

    The kind is checked with stat before opening (a device or a socket is never opened: opening a
    tape rewinds it, a socket cannot be opened at all); O_NONBLOCK keeps a FIFO from blocking the
    open, and the check runs again on the opened descriptor, so a file swapped for a FIFO between
    the stat and the open is still caught.
    """
    check_regular(os.stat(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        check_regular(os.fstat(fd))
    except NotRegular:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_small(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (NotRegular, TooBig, or the
    OSError of the open); never more than ``limit`` + 1 bytes are read."""
    with open_regular(path) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TooBig(f"larger than {limit:,} bytes")
    return data


def read_small_text(path: Path, limit: int) -> str | None:
    """``read_small`` as text (undecodable bytes replaced), or None when ``path`` is missing, not a
    regular file, too big or cannot be read: for files iolab writes and reads back (markers, records)."""
    try:
        return read_small(path, limit).decode("utf-8", errors="replace")
    except OSError:
        return None
