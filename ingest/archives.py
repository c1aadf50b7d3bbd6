"""Compressed and archived inputs: a gzip file is read as the file inside it; archives holding
several files (zip, tar, 7z, and any of them compressed) are refused with "unpack it", before any
parser can claim the text of their first member.

The hooks: ``registry.sniff`` and ``registry.unsupported_hint`` look through ``peek``;
``parsing.read_and_parse`` hands the bytes to ``parse`` instead of the format module; ``batch._write``
calls ``record`` after the file's place is recorded (schemas/V070__source_archives.sql).
"""

from __future__ import annotations

import gzip
import io
import zlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .model import ParseError

GZIP = b"\x1f\x8b"
# the most a .gz may inflate to: it is parsed in memory (a streamed capture is read from disk only
# when decompressed first), and a small file that inflates past this is a decompression bomb
MAX_INFLATED = 512 << 20
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


def parse(mod: ModuleType, data: bytes, name: str) -> Any:
    """``mod.parse`` of the file inside a .gz (the result says so in ``archive``), else of ``data``."""
    if not data.startswith(GZIP):
        return mod.parse(data, name)
    member = member_name(data, name)
    inner = gunzip(data)
    try:
        result = mod.parse(inner, member)
    except ParseError as e:
        raise ParseError(
            f"in {member!r}, the file inside this gzip file (its lines are counted): {e.reason}", e.line
        ) from None
    result.archive = ("gzip", member)
    return result


def gunzip(data: bytes) -> bytes:
    """The whole content of a gzip file (every member), or a ParseError a person can act on."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as g:
            inner = g.read(MAX_INFLATED + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise ParseError(
            f"the gzip file is damaged or cut short ({e}): decompress what is left by hand, or copy it again"
        ) from None
    if len(inner) > MAX_INFLATED:
        raise ParseError(
            f"the file inside this gzip file is over {MAX_INFLATED >> 20} MiB: decompress it (`gunzip -k FILE`) "
            "and ingest the file itself, which iolab reads as it goes"
        )
    return inner


def record(con: Any, source_id: int, result: Any) -> None:
    """Write what was unwrapped (``result.archive``) on the file's place (source_history, shown in source_files)."""
    if archive := getattr(result, "archive", None):
        con.execute(
            "UPDATE source_history SET archive = ?, archive_member = ? WHERE source_id = ?", [*archive, source_id]
        )
