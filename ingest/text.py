"""Text as parsers read it: decoding (BOM, UTF-16, strict UTF-8, a fallback code page), lines,
numbers that name their line when they are not numbers, CSV headers and records, and Polars'
parse errors said in words."""

from __future__ import annotations

import array
import codecs
import math
import re
from collections.abc import Collection, Iterator

from .errors import ParseError


def decode_text(data: bytes, fallback: str = "cp1252") -> str:
    """Decode a text file: BOM first (UTF-8/UTF-16), then strict UTF-8, then ``fallback``.

    Windows tools write ANSI code pages; which one is not recorded in the file, so callers that
    know better (perfmon: cp1251 is common) pass their own fallback.
    """
    if data.startswith(codecs.BOM_UTF8):
        return _strict(data, 3, "utf-8", "it starts with a UTF-8 byte-order mark")
    if data.startswith(codecs.BOM_UTF16_LE) or data.startswith(codecs.BOM_UTF16_BE):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as e:
            raise ParseError(
                f"file starts with a UTF-16 byte-order mark but is not valid UTF-16 ({e.reason})"
            ) from None
    if b"\x00" in data[:4096]:
        if enc := _utf16_without_bom(data[:4096]):
            return _strict(data, 0, enc, "every other byte of its start is NUL")
        raise ParseError("file contains NUL bytes: binary data, or UTF-16 without a byte-order mark")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _strict(data, 0, fallback, "it is not UTF-8")


def _utf16_without_bom(head: bytes) -> str | None:
    """UTF-16 of mostly-ASCII text saved without a BOM (an XML file declaring encoding="utf-16"):
    its start alternates character and NUL. None for anything else (binary data)."""
    even, odd = head[0::2], head[1::2]
    if len(head) >= 8 and len(head) % 2 == 0:
        if not odd.strip(b"\x00") and b"\x00" not in even:
            return "utf-16-le"
        if not even.strip(b"\x00") and b"\x00" not in odd:
            return "utf-16-be"
    return None


def _strict(data: bytes, start: int, encoding: str, why: str) -> str:
    """``data[start:]`` decoded, or a ParseError naming the line and the byte that is not text."""
    try:
        return data[start:].decode(encoding)
    except UnicodeDecodeError as e:
        at = start + e.start
        line = data.count(b"\n", 0, at) + 1
        raise ParseError(
            f"byte 0x{data[at]:02x} is not text in {encoding} (read as {encoding} because {why}): "
            "the file is damaged, or was saved in an encoding iolab cannot tell from its bytes; "
            "save it as UTF-8",
            line,
        ) from None


_LINE_END = re.compile(r"\r\n|\r|\n")
_BACKSLASHES = re.compile(r"\\+")


def undouble_backslashes(text: str) -> str:
    r"""A tool's text as it wrote it when a log that JSON-escaped it doubled every backslash
    (``C:\\data\\x.dat`` for ``C:\data\x.dat``). The rule: every run of backslashes in the text
    has an even length, and one is 4 long or more or a pair stands inside a path (``dir\\file``);
    then each pair is one backslash. Text with any single backslash (a Windows path as written,
    a UNC ``\\host\share``) is returned as it is. Only for formats that are not JSON themselves."""
    for _ in range(4):  # a log of a log escapes twice: each pass undoes one escaping
        runs = [len(m.group()) for m in _BACKSLASHES.finditer(text)]
        if not runs or any(n % 2 for n in runs) or not _doubled_path(text, runs):
            return text
        text = _BACKSLASHES.sub(lambda m: "\\" * (len(m.group()) // 2), text)
    return text


_PAIR_IN_PATH = re.compile(r"[\w.$:]\\\\[\w.$]")


def _doubled_path(text: str, runs: list[int]) -> bool:
    r"""A doubled separator inside a path (``dir\\file``), not only a UNC host prefix."""
    return any(n >= 4 for n in runs) or bool(_PAIR_IN_PATH.search(text))


def split_lines(text: str) -> list[str]:
    """Split on CRLF, CR or LF (mixed endings happen after spreadsheet edits); drop one final empty."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


_LINE_END_B = re.compile(rb"\r\n|\r|\n")


class TextLines:
    """``split_lines(decode_text(data))`` without either copy: an index of line ends in ``data``,
    each line decoded when asked for (a 200 MB file costs 200 MB, not three times that)."""

    def __init__(self, data: bytes, start: int, encoding: str):
        self.data, self.encoding = data, encoding
        self.bounds = array.array("q")  # start, end of each line
        pos = start
        for m in _LINE_END_B.finditer(data, start):
            self.bounds.extend((pos, m.start()))
            pos = m.end()
        if pos < len(data):
            self.bounds.extend((pos, len(data)))

    def __len__(self) -> int:
        return len(self.bounds) // 2

    def __getitem__(self, i: int) -> str:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return self.data[self.bounds[2 * i] : self.bounds[2 * i + 1]].decode(self.encoding)

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))


def text_lines(data: bytes, fallback: str = "cp1252") -> tuple[TextLines | list[str], bool]:
    """(lines, whether the text ends with a line end) as ``split_lines(decode_text(data))`` gives
    them, with the same errors; UTF-8 and ``fallback`` files are indexed, not copied (see TextLines)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = decode_text(data, fallback)
        return split_lines(text), text.endswith(("\n", "\r"))
    start = 3 if data.startswith(codecs.BOM_UTF8) else 0
    if not start and b"\x00" in data[:4096]:
        decode_text(data[:4096], fallback)  # raises its ParseError
    encoding = "utf-8"
    if not _decodes(data, start, "utf-8"):
        if start:
            _strict(data, start, "utf-8", "it starts with a UTF-8 byte-order mark")
        encoding = fallback
        if not _decodes(data, start, fallback):
            _strict(data, start, fallback, "it is not UTF-8")
    return TextLines(data, start, encoding), data.endswith((b"\n", b"\r"))


def _decodes(data: bytes, start: int, encoding: str, chunk: int = 1 << 20) -> bool:
    """Whether ``data[start:]`` decodes strictly, checked a chunk at a time (no full-size copy)."""
    dec = codecs.getincrementaldecoder(encoding)("strict")
    view = memoryview(data)
    try:
        for i in range(start, len(data), chunk):
            dec.decode(view[i : i + chunk])
        dec.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


_GROUPED = re.compile(r"-?\d{1,3}(,\d{3})+(\.\d+)?")  # 1,234,567.8: a thousands separator, not a decimal comma


def number(
    text: str | None,
    what: str,
    line: int | None,
    *,
    missing: Collection[str] = ("",),
    strip: str = "",
    grouped: bool = False,
) -> float | None:
    """A number as the tool printed it: None for a ``missing`` token (after trimming spaces and the
    ``strip`` characters, such as a trailing %), thousands separators read when ``grouped``,
    anything else that is not a finite number a ParseError naming ``what`` and the line."""
    t = (text or "").strip()
    bare = t.strip(strip).strip() if strip else t
    if bare in missing or t in missing:
        return None
    if grouped and _GROUPED.fullmatch(bare):
        bare = bare.replace(",", "")
    try:
        v = float(bare)
    except ValueError:
        raise ParseError(f"{what}: {t!r} is not a number", line) from None
    if not math.isfinite(v):
        raise ParseError(f"{what}: {t!r} is not a finite number", line)
    return v


def parse_float(text: str, what: str, line: int | None) -> float | None:
    """A number as the tool printed it; empty is missing (None); anything else is an error."""
    return number(text, what, line)


def parse_int(text: str, what: str, line: int | None) -> int | None:
    t = text.strip()
    if t == "":
        return None
    try:
        return int(t)
    except ValueError:
        raise ParseError(f"{what}: {t!r} is not an integer", line) from None


_POLARS_PARSE = re.compile(r"could not parse `(.*?)` as dtype `(\w+)` at column '?c?(\d+)'?")


def polars_reason(e: BaseException) -> str:
    """A colleague's wording of a Polars CSV error (our frames name file column i 'c<i>')."""
    msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    m = _POLARS_PARSE.search(msg)
    if m:
        return f"column {int(m.group(3)) + 1} of the file holds {m.group(1)!r}, which is not a number"
    if "more fields" in msg or "ragged" in msg.lower():
        return f"a data row has more cells than the header ({msg})"
    return f"a data row could not be read: {msg}"


def csv_header(head: str) -> list[str]:
    """The first row of a CSV text (for sniffers: any line end, BOM dropped, never raises on odd text)."""
    import csv

    first = _LINE_END.split(head.lstrip("\ufeff"), maxsplit=1)[0]
    return next(csv.reader([first]), [])


def csv_records(data: bytes) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """(header, (line number, row dict) of each row as it is read) of an RFC 4180 CSV; blank rows
    skipped. A row whose field count differs from the header's is an error naming its line.

    Rows are read as the caller asks for them: a 32 MB published table held as lists and dicts
    took ~500 MB before its first row was used."""
    import csv

    reader = csv.reader(_lines_with_ends(decode_text(data).lstrip("\ufeff")))
    try:
        header = next(reader, None)
    except csv.Error as e:
        raise ParseError(f"not readable as CSV ({e})") from None
    if header is None:
        raise ParseError("empty file")
    if len(set(header)) != len(header):
        raise ParseError("duplicate column names in the header", 1)
    return header, _csv_rows(reader, header)


def _csv_rows(reader: Iterator[list[str]], header: list[str]) -> Iterator[tuple[int, dict[str, str]]]:
    import csv

    ln = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise ParseError(f"not readable as CSV ({e})") from None
        ln += 1
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise ParseError(f"row has {len(cells)} fields, the header has {len(header)} (an unquoted comma?)", ln)
        yield ln, dict(zip(header, cells))


def _lines_with_ends(text: str) -> Iterator[str]:
    """The text's lines with their ends, split at \\n only, as io.StringIO gives them to csv (which
    holds the text again at 4 bytes a character); not ``text_lines``, which splits at CR too."""
    start = 0
    while (end := text.find("\n", start)) != -1:
        yield text[start : end + 1]
        start = end + 1
    if start < len(text):
        yield text[start:]
