"""Format discovery: every module in ingest/formats with FORMAT, VERSION, sniff() and parse().

Adding a format = adding one module (and its fixtures); nothing here changes.
"""

from __future__ import annotations

import codecs
import functools
import importlib
import pkgutil
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from . import archives, bounds, formats
from .model import ParseError

HEAD_BYTES = 64 * 1024


class IncompleteFormat(TypeError):
    """A module in ingest/formats that is not a complete format (a programming error)."""


# attribute -> (what it must be, check)
REQUIRED = {
    "FORMAT": ("a non-empty str", lambda v: isinstance(v, str) and bool(v)),
    "VERSION": ("a non-empty str", lambda v: isinstance(v, str) and bool(v)),
    "sniff": ("a function sniff(head_text, name) -> bool", callable),
    "parse": ("a function parse(data: bytes, name) -> ParseResult", callable),
}


def check_module(m: ModuleType) -> ModuleType:
    """``m`` itself, or IncompleteFormat naming the module and the attribute that is missing or wrong."""
    for attr, (what, ok) in REQUIRED.items():
        if not hasattr(m, attr):
            raise IncompleteFormat(
                f"format module {m.__name__} has no {attr} (it must be {what}); "
                f"helper modules that are not formats start with '_'"
            )
        if not ok(getattr(m, attr)):
            raise IncompleteFormat(f"format module {m.__name__}: {attr} is {getattr(m, attr)!r}, it must be {what}")
    return m


def load(package: ModuleType = formats) -> tuple[ModuleType, ...]:
    """Every format module of ``package`` (names starting with '_' are helpers), checked, by name."""
    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            found.append(check_module(importlib.import_module(f"{package.__name__}.{info.name}")))
    names = [m.FORMAT for m in found]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        raise IncompleteFormat(f"FORMAT names used by more than one module: {', '.join(dup)}")
    return tuple(found)


@functools.cache  # the package's modules do not change while a process runs
def modules() -> tuple[ModuleType, ...]:
    return load()


def head_text(data: bytes) -> str:
    """The first 64 KiB as a person sees them: decoded once (see ``head_encoding``), without a
    byte-order mark, every line end a LF, every tab expanded to spaces and the blank lines before
    the first text dropped, so that neither a BOM, an encoding, CRLF, tabs nor a blank first line
    decide whether a file is recognised. Never fails on odd bytes."""
    head = data[:HEAD_BYTES]
    text = codecs.getincrementaldecoder(head_encoding(head))("replace").decode(head)  # a cut last char waits
    text = _LINE_END.sub("\n", text.lstrip("\ufeff")).expandtabs()
    return _BLANK_START.sub("", text, count=1)  # a file that begins with blank lines is sniffed from its first text


_BLANK_START = re.compile(r"\A(?:[ \t]*\n)+")


_LINE_END = re.compile(r"\r\n|\r")
_XML_ENCODING = re.compile(rb"^<\?xml[^>]*encoding=[\"']([A-Za-z0-9_.-]+)[\"']")


def head_encoding(head: bytes) -> str:
    """The encoding of a file by its first bytes: a BOM, UTF-16 without one (an ASCII character
    then NUL), an XML encoding declaration, then UTF-8 when it decodes, else cp1252."""
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if head.startswith(bom):
            return enc
    if len(head) >= 2 and head[0] and not head[1]:
        return "utf-16-le"
    if len(head) >= 2 and not head[0] and head[1]:
        return "utf-16-be"
    if (m := _XML_ENCODING.match(head)) and _known(m.group(1).decode("ascii")):
        return m.group(1).decode("ascii")
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head)
        return "utf-8"
    except UnicodeDecodeError:
        return "cp1252"


def _known(encoding: str) -> bool:
    try:
        codecs.lookup(encoding)
    except LookupError:
        return False
    return not encoding.lower().replace("-", "").startswith("utf16")  # declared, but the bytes say otherwise


def sniff(data: bytes, name: str) -> list[ModuleType]:
    """Every format module that claims the content (``name`` only breaks ties a format documents).
    A .gz is sniffed as the file inside it; an archive of files is claimed by none (see archives)."""
    if archives.refusal(data, name):
        return []
    inner = archives.peek(data, name)
    head = head_text(inner.head)
    claimed = []
    for m in modules():
        try:
            if m.sniff(head, inner.name):
                claimed.append(m)
        except Exception:  # a sniffer that chokes on odd bytes does not claim the file
            pass
    return claimed


def parse(mod: ModuleType, data: bytes, name: str) -> Any:
    """``mod.parse`` of the file (a .gz is decompressed before: parsing.read_and_parse), with a
    number too large for any column refused at its line rather than left to crash the parser."""
    with _refusing_huge(data):
        result = mod.parse(data, name)
        result.samples.flush()  # packing the samples is where Arrow meets an integer it cannot hold
        bounds.check_runs(result, data)
        bounds.check_tables(result, data)
        return result


def parse_path(mod: ModuleType, path: Path, name: str) -> Any:
    """``mod.parse_path`` (a capture read as it goes), with the same refusal of huge numbers. The
    parse may leave work until its points stream (ParseResult.pending): it is checked alike, then."""
    with _refusing_huge(b""):
        result = mod.parse_path(path, name, finish=False)
    rest = result.pending

    def checked(result: Any) -> None:
        with _refusing_huge(b""):
            if rest is not None:
                rest(result)
            result.samples.flush()
            bounds.check_runs(result, b"")

    result.pending = checked
    return result


@contextmanager
def _refusing_huge(data: bytes) -> Iterator[None]:
    """A number too large for its column (OverflowError, or pyarrow's ArrowInvalid: a ValueError) as
    a ParseError at its line in ``data``; any other error as it is."""
    try:
        yield
    except (OverflowError, ValueError) as e:
        if (why := bounds.too_large(e, data)) is None:
            raise
        raise ParseError(*why) from None


# Files we know of but whose shape no public example shows: say so instead of "not recognised".
KNOWN_UNSUPPORTED = {
    "_hist.txt": "ORION latency histograms (_hist.txt): no public example of this file was found, so iolab "
    "does not read it yet; the 12c+ summary's histogram lines are read (orion_histograms)",
    "_trace.txt": "ORION trace (_trace.txt): no public example of this file was found, so iolab does not read it yet",
    ".blg": "binary perfmon log (.blg): convert it with `relog file.blg -f csv -o file.csv` and ingest the CSV",
}


# Containers recognised by their first bytes: what to do instead.
_OFFICE = (
    "a {what}: iolab reads the tools' own result files, not documents. Export the results table "
    "to CSV (in the office program: Save As / Download as CSV) and ingest the CSV, or type the "
    "numbers into a published-results CSV (see docs/formats)"
)
MAGIC = {
    b"PK\x03\x04": (
        "ZIP archive",
        "unpack it (`unzip FILE -d FOLDER`) and ingest the folder; if it holds a "
        "spreadsheet or report, export the results to CSV first",
    ),
    b"\xd0\xcf\x11\xe0": ("legacy Office file (.doc/.xls)", ""),
    b"%PDF": ("PDF", ""),
}
OFFICE_SUFFIXES = {
    ".docx": "Word document",
    ".xlsx": "Excel workbook",
    ".odt": "OpenDocument text",
    ".ods": "OpenDocument spreadsheet",
    ".pptx": "PowerPoint deck",
}


def unsupported_hint(name: str, head: bytes = b"") -> str | None:
    """What to do with a file no parser reads but whose kind we know (by name or first bytes)."""
    lower = name.lower()
    if hint := next((why for suffix, why in KNOWN_UNSUPPORTED.items() if lower.endswith(suffix)), None):
        return hint
    for magic, (what, advice) in MAGIC.items():
        if head.startswith(magic):
            office = next((kind for suffix, kind in OFFICE_SUFFIXES.items() if lower.endswith(suffix)), None)
            if office or not advice:
                return _OFFICE.format(what=office or what)
            return f"a {what}: {advice}"
    return archives.refusal(head, name)


@dataclass(frozen=True)
class Claim:
    """Which parser reads a file, decided from its first 64 KiB and its name (``module``), and why
    in words (``reason``); or, with no module, why none does. ``unrecognised``: no parser and no
    known kind, the one case where adding a format is the advice."""

    module: ModuleType | None
    reason: str
    candidates: tuple[ModuleType, ...] = ()
    unrecognised: bool = False


def claim(head: bytes, name: str) -> Claim:
    """The decision `iolab ingest` makes before parsing a file, and `iolab detect` shows."""
    if not head.strip():
        return Claim(None, "the file is empty")
    candidates = tuple(sniff(head, name))
    if len(candidates) == 1:
        m = candidates[0]
        return Claim(m, getattr(m, "SNIFF_RULE", f"{m.FORMAT}'s sniffer accepts it"), candidates)
    if candidates:
        rules = "; ".join(f"{m.FORMAT}: {getattr(m, 'SNIFF_RULE', 'its sniffer accepts it')}" for m in candidates)
        return Claim(None, f"more than one parser claims it, so it is not read ({rules})", candidates)
    if hint := unsupported_hint(name, head):
        return Claim(None, hint)
    return Claim(
        None,
        "no iolab parser recognises this content (supported: "
        + ", ".join(m.FORMAT for m in modules())
        + "); if it is a result file of a tool iolab does not read yet, see CONTRIBUTING.md 'Add a format'",
        unrecognised=True,
    )
