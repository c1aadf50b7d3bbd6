"""Compressed and archived inputs: a gzip file is read as the file inside it; archives holding
several files (zip, tar, 7z, and any of them compressed) are refused with "unpack it", before any
parser can claim the text of their first member.

A .gz is decompressed in a stream to a temporary file (``inflate``: in the cache folder, never
named on Linux, removed when the parse's result is done with), which its parser reads as it would
the plain file: a capture streams from it, a small file is read whole. Memory is then what the
plain file takes, whatever the ratio; the .gz's own bytes are hashed as they are decompressed, so
the file is "changed" only when the .gz changed.

The hooks: ``registry.sniff`` and ``registry.unsupported_hint`` look through ``peek``;
``parsing.read_and_parse`` parses through ``inflate``; ``storing._write`` calls ``record`` after the
file's place is recorded (schemas/V070__source_archives.sql).
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .errors import ParseError

GZIP = b"\x1f\x8b"
# the most a .gz may inflate to (on disk, in the cache folder): past it, a small file that inflates
# without end (a decompression bomb) would fill the disk. Stated in docs/formats.md.
MAX_INFLATED = 4 << 30
CHUNK = 1 << 20  # decompressed and written a MiB at a time
PEEK_BYTES = 64 * 1024  # what sniffing sees of the file inside (registry.HEAD_BYTES)

_UNPACK = "unpack it ({how}) and ingest the folder: iolab reads the files inside, one result file each"
CONTAINERS = [  # (test on the first bytes, what it is, how to unpack it)
    (lambda h: h.startswith(b"PK\x03\x04"), "ZIP archive", "`unzip FILE -d FOLDER`"),
    (lambda h: h[257:262] == b"ustar", "tar archive", "`tar -xf FILE -C FOLDER`"),
    (lambda h: h.startswith(b"7z\xbc\xaf\x27\x1c"), "7-Zip archive", "`7z x FILE -oFOLDER`"),
    (lambda h: h.startswith(b"BZh") and h[3:4].isdigit(), "bzip2 file", "`bunzip2 -k FILE`"),
    (lambda h: h.startswith(b"\xfd7zXZ\x00"), "xz file", "`unxz -k FILE`"),
    (lambda h: h.startswith(b"\x28\xb5\x2f\xfd"), "zstd file", "`unzstd FILE`"),
]


@dataclass
class Peek:
    """What sniffing sees of a file: its first bytes and name, through a gzip layer if there is one."""

    head: bytes
    name: str
    member: str | None = None  # the name inside a .gz


def peek(head: bytes, name: str) -> Peek:
    """The start of the file inside a .gz (as much as ``head`` inflates to), else ``head`` itself."""
    if not head.startswith(GZIP):
        return Peek(head, name)
    try:
        inner = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, PEEK_BYTES)
    except zlib.error:
        return Peek(head, name)  # not gzip after all: the parsers decide
    member = member_name(head, name)
    return Peek(inner, member, member)


def refusal(head: bytes, name: str) -> str | None:
    """Why no parser may claim the file (an archive of files, or one inside a .gz), else None."""
    p = peek(head, name)
    for test, what, how in CONTAINERS:
        if test(p.head):
            inside = f" inside the gzip file {name!r}" if p.member else ""
            return f"a {what}{inside}: " + _UNPACK.format(how=("`gunzip -k FILE`, then " if p.member else "") + how)
    return None


def member_name(data: bytes, name: str) -> str:
    """The name of the file inside a .gz: the header's original name (RFC 1952 FNAME), else the
    archive's own name without .gz/.gzip (a .tgz is a .tar)."""
    flags = data[3] if len(data) > 3 else 0
    pos = 10
    if flags & 0x04 and len(data) >= 12:  # FEXTRA
        pos += 2 + int.from_bytes(data[10:12], "little")
    if flags & 0x08:  # FNAME, zero-terminated, ISO 8859-1
        end = data.find(b"\x00", pos)
        if end > pos:
            original = data[pos:end].decode("latin-1").replace("\\", "/").rsplit("/", 1)[-1]
            if original.strip(". "):
                return original
    lower = name.lower()
    for suffix, becomes in ((".tgz", ".tar"), (".gz", ""), (".gzip", "")):
        if lower.endswith(suffix):
            return name[: -len(suffix)] + becomes
    return name


@contextmanager
def inside(member: str) -> Iterator[None]:
    """A parser's ParseError about the file inside a .gz, saying so (its lines are the member's)."""
    try:
        yield
    except ParseError as e:
        raise ParseError(
            f"in {member!r}, the file inside this gzip file (its lines are counted): {e.reason}", e.line
        ) from None


class ScratchFault(OSError):
    """The decompressed copy could not be written (disk full, read-only cache): the environment's
    fault, never the file's."""


@dataclass
class Inflated:
    """The file inside a .gz, decompressed: ``path`` reads it while this object lives; ``close`` (or
    its collection) removes it. ``sha256`` is the .gz's own, hashed as it was read."""

    file: IO[bytes]
    path: Path
    sha256: str
    size: int

    def close(self) -> None:
        self.file.close()


class _Hashing(io.RawIOBase):
    """A reader that hashes what passes through it (the .gz, as gzip reads it)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw, self.sha = raw, hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self.raw.readinto(b)  # type: ignore[attr-defined]
        self.sha.update(memoryview(b)[:n])
        return n


def inflate(fh: IO[bytes], folder: Path) -> Inflated:
    """Decompress the gzip file open in ``fh`` (every member) into a temporary file in ``folder``,
    a MiB at a time; a ParseError a person can act on for a damaged file or one past MAX_INFLATED,
    ScratchFault when the copy cannot be written."""
    out, path = _scratch(folder)
    reader = _Hashing(fh)
    size = 0
    try:
        with gzip.GzipFile(fileobj=reader) as g:
            while chunk := g.read(CHUNK):
                size += len(chunk)
                if size > MAX_INFLATED:
                    raise ParseError(
                        f"the file inside this gzip file is over {MAX_INFLATED >> 20} MiB: decompress it "
                        "(`gunzip -k FILE`) and ingest the file itself (the limit keeps a small .gz that "
                        "inflates without end from filling the disk)"
                    )
                _write(out, chunk, folder, size)
        while reader.read(CHUNK):  # what gzip left unread: the hash is the whole file's
            pass
        _write(out, b"", folder, size, flush=True)
    except (ParseError, ScratchFault):
        out.close()
        raise
    except (OSError, EOFError, zlib.error) as e:
        out.close()
        raise ParseError(
            f"the gzip file is damaged or cut short ({e}): decompress what is left by hand, or copy it again"
        ) from None
    return Inflated(out, path, reader.sha.hexdigest(), size)


def _scratch(folder: Path) -> tuple[IO[bytes], Path]:
    """A temporary file and a path that opens it: on Linux an unnamed file (nothing is left behind
    whatever happens to the process), read through /proc/self/fd; elsewhere a named one."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.path.isdir("/proc/self/fd"):
            fh: IO[bytes] = tempfile.TemporaryFile(dir=folder, prefix="inflated-")  # noqa: SIM115 (Inflated closes it)
            return fh, Path(f"/proc/self/fd/{fh.fileno()}")
        named = tempfile.NamedTemporaryFile(dir=folder, prefix="inflated-")  # noqa: SIM115 (Inflated closes it)
        return named, Path(named.name)
    except OSError as e:
        raise ScratchFault(
            e.errno, f"cannot write the decompressed copy of a .gz: {e.strerror or e}", str(folder)
        ) from e


def _write(out: IO[bytes], chunk: bytes, folder: Path, size: int, flush: bool = False) -> None:
    """Write a chunk of the decompressed copy (``size`` bytes so far). The copy itself filling the
    disk is the file's refusal, not the environment's fault: a small .gz that inflates to more than the
    cache folder holds (a decompression bomb) must not stop the files after it, at every ingest."""
    try:
        out.write(chunk)
        if flush:
            out.flush()
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT) and size > CHUNK:
            raise ParseError(
                f"decompressing it filled the disk of the cache folder {folder} after {size >> 20:,} MiB, so it "
                "was not read (its decompressed copy is removed): decompress it by hand onto a larger disk, or "
                "set IOLAB_CACHE_DIR to a folder with room for the file inside"
            ) from None
        raise ScratchFault(
            e.errno, f"cannot write the decompressed copy of a .gz: {e.strerror or e}", str(folder)
        ) from e


def record(con: Any, source_id: int, result: Any) -> None:
    """Write what was unwrapped (``result.archive``) on the file's place (source_history, shown in source_files)."""
    if archive := getattr(result, "archive", None):
        con.execute(
            "UPDATE source_history SET archive = ?, archive_member = ? WHERE source_id = ?", [*archive, source_id]
        )
