"""PDH-CSV time series: VMware `esxtop -b` / `resxtop -b` batch output and Windows perfmon CSV
(relog, Data Collector Sets, Jetstress performance logs).

See docs/formats/esxtop-jetstress-profile.md sections 1 and 2. Header cell 0 is
`(PDH-CSV 4.0) (<zone>)(<bias>)`; the others are `\\\\host\\Object(instance)\\Counter`. One row
per sample. Stored as:
  series          one row per counter column: host, object, instance (+ its parts), counter,
                  the original name; a canonical metric/unit where one applies (values as written)
  series_samples  one row per sample line: sample_no, time stamp (and its text)
  points          (series_key, sample_no, value), streamed by Polars into the Parquet store;
                  a blank cell (" " on perfmon's first sample) is absent, never zero

Real-file traps handled: headers over 1 MB and 17,000+ columns (the header is read by itself,
the data streamed with an explicit schema); a trailing comma on every line (empty last column:
no series); the per-PCPU power section's unquoted `   -` tokens glued to the next quoted cell
(the glued column is split: the quoted part is the named counter's value; the bare `-` column has
no name and is skipped, reported in pdh_skipped_columns); repeated counter names; names with
?, %, (), double spaces; cp1251/localized perfmon headers; a truncated time-zone cell; values
near 2.4e14 (float64); spreadsheet re-saves with CR line ends, unquoted cells, minute-resolution
or time-only stamps (a time with no date gets no invented date: ts is NULL, ts_text keeps it).
"""

from __future__ import annotations

import csv
import io
import mmap
import os
import re
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from ..model import ParseError, ParseResult, Run, Series
from ..text import undouble_backslashes

if TYPE_CHECKING:  # imported where a capture is read: a render imports every format (the views' checksum, 0.11 s less)
    import polars as pl

FORMAT = "pdh-csv"
VERSION = "1"
_ZONE = re.compile(r"^\(PDH-CSV 4\.0\)\s*\((?P<zone>.*?)\)\s*\((?P<bias>-?\d+)\)\s*$")
_NAME = re.compile(r"^\\\\(?P<host>[^\\]+)\\(?P<object>[^\\(]+?)(?:\((?P<instance>.*)\))?\\(?P<counter>[^\\]+)$")
_EOL = re.compile(rb"\r\n|\r|\n")
_GLUED = re.compile(r'^\s*-"(?P<name>.*)"$')
TS_FORMATS = [  # (polars format, has date)
    ("%m/%d/%Y %H:%M:%S%.f", True),
    ("%m/%d/%Y %H:%M:%S", True),
    ("%m/%d/%Y %H:%M", True),
    ("%Y-%m-%d %H:%M:%S%.f", True),
    ("%H:%M:%S", False),
    ("%H:%M", False),
]
# counter -> (metric, unit of the value as written); MBytes are left as esxtop prints them
COUNTERS = {
    "Commands/sec": ("iops", "IO/s"),
    "Reads/sec": ("read_iops", "IO/s"),
    "Writes/sec": ("write_iops", "IO/s"),
    "MBytes Read/sec": ("mbytes_read_per_s", "MBytes/s"),
    "MBytes Written/sec": ("mbytes_written_per_s", "MBytes/s"),
    "Average Device MilliSec/Command": ("davg_ms", "ms"),
    "Average Kernel MilliSec/Command": ("kavg_ms", "ms"),
    "Average Guest MilliSec/Command": ("gavg_ms", "ms"),
    "Average Queue MilliSec/Command": ("qavg_ms", "ms"),
    "Average Driver MilliSec/Command": ("davg_ms", "ms"),
    "Average Device MilliSec/Read": ("davg_read_ms", "ms"),
    "Average Device MilliSec/Write": ("davg_write_ms", "ms"),
    "Average Guest MilliSec/Read": ("gavg_read_ms", "ms"),
    "Average Guest MilliSec/Write": ("gavg_write_ms", "ms"),
    "Average Kernel MilliSec/Read": ("kavg_read_ms", "ms"),
    "Average Kernel MilliSec/Write": ("kavg_write_ms", "ms"),
    "Average Queue MilliSec/Read": ("qavg_read_ms", "ms"),
    "Average Queue MilliSec/Write": ("qavg_write_ms", "ms"),
    "Average MilliSec/Read": ("avg_read_latency_ms", "ms"),
    "Average MilliSec/Write": ("avg_write_latency_ms", "ms"),
    "% Used": ("cpu_used_pct", "%"),
    "% Ready": ("cpu_ready_pct", "%"),
    "% Util Time": ("cpu_util_pct", "%"),
    "% Processor Time": ("cpu_processor_time_pct", "%"),
    # perfmon LogicalDisk / PhysicalDisk
    "Disk Transfers/sec": ("iops", "IO/s"),
    "Disk Reads/sec": ("read_iops", "IO/s"),
    "Disk Writes/sec": ("write_iops", "IO/s"),
    "Avg. Disk sec/Read": ("avg_read_latency_s", "s"),
    "Avg. Disk sec/Write": ("avg_write_latency_s", "s"),
    "Avg. Disk sec/Transfer": ("avg_latency_s", "s"),
    "Disk Read Bytes/sec": ("read_bytes_per_s", "bytes/s"),
    "Disk Write Bytes/sec": ("write_bytes_per_s", "bytes/s"),
    "Current Disk Queue Length": ("queue_length", "count"),
}
HEADER_LIMIT = 64 * 1024 * 1024


def _cells(line: str, line_no: int | None = None) -> list[str]:
    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        raise ParseError(
            "a bare carriage return inside a line: the file mixes line ends (CR within LF lines)", line_no
        ) from None


def _first_cell(line: str) -> str:
    try:
        return next(csv.reader([line[:200]]), [""])[0] if line else ""
    except csv.Error:
        return ""


SNIFF_RULE = "the first header cell starts '(PDH-CSV 4.0)'"


def sniff(head: str, name: str) -> bool:
    lines = re.split(r"\r\n|\r|\n", head[:200_000], maxsplit=2)
    return any(_first_cell(l).startswith("(PDH-CSV 4.0)") for l in lines[:2])


def _decode_header(raw: bytes) -> str:
    """UTF-8 (BOM or not); else an ANSI code page: cp1251 when the non-ASCII letters read as
    Cyrillic words (Russian perfmon), cp1252 otherwise."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    high = sum(b >= 0x80 for b in raw)
    letters = sum(c.isascii() and c.isalpha() for c in raw.decode("latin-1"))
    return raw.decode("cp1251" if high > 0.3 * max(letters, 1) else "cp1252", errors="strict")


def _head(path: Path) -> bytes:
    """The file's start, up to its third line end (the header may be the second line), read in
    growing steps: a header is rarely more than 1 MB, and reading HEADER_LIMIT outright cost 40 ms."""
    with open(path, "rb") as fh:
        head = fh.read(1 << 20)
        while len(head) < HEADER_LIMIT and len(list(islice(_EOL.finditer(head), 3))) < 3:
            more = fh.read(len(head))
            if not more:
                break
            head += more
    return head[:HEADER_LIMIT]


def _header_and_layout(head: bytes) -> tuple[str, int, str, int]:
    """(header text, 0-based line index of the header, eol char, byte offset where data begins)."""
    m = re.search(rb"\r\n|\r|\n", head)
    if not m:
        raise ParseError("no line end in the first 64 MiB: not a PDH-CSV file, or a header line that never ends")
    eol = m.group(0)
    first = head[: m.start()]
    if _first_cell(_decode_header(first[:400]) if first else "").startswith("(PDH-CSV 4.0)"):
        return _decode_header(first), 0, eol.decode(), m.end()
    m2 = re.search(re.escape(eol), head[m.end() :])  # resxtop: one junk line before the header
    if not m2:
        raise ParseError("the (PDH-CSV 4.0) header is missing", 1)
    second = head[m.end() : m.end() + m2.start()]
    if not _first_cell(_decode_header(second[:400])).startswith("(PDH-CSV 4.0)"):
        raise ParseError("neither line 1 nor line 2 is a (PDH-CSV 4.0) header", 1)
    return _decode_header(second), 1, eol.decode(), m.end() + m2.end()


def split_name(name: str, key: int) -> Series | None:
    """The counter in column ``key`` named ``\\\\host\\Object(instance)\\Counter``, its instance split
    into name, id and sub-instance where the object's naming is known; None if it is not such a name."""
    m = _NAME.match(name)
    if not m:
        return None
    host, obj, inst, counter = m.group("host", "object", "instance", "counter")
    obj = obj.strip()
    metric, unit = COUNTERS.get(counter, (None, None))
    inst_name, inst_id, sub = inst, None, None
    if inst is not None:
        parts = inst.split(":")
        if obj == "Vcpu" and len(parts) >= 4:  # gid:group name:world id:world name
            inst_id, inst_name, sub = parts[0], parts[1], ":".join(parts[2:])
        elif obj in ("Group Cpu", "Group Memory") and len(parts) >= 2 and parts[0].isdigit():  # gid:name
            inst_id, inst_name = parts[0], ":".join(parts[1:])
        elif obj == "Network Port" and len(parts) >= 3:  # vSwitch:port id:client
            inst_name, inst_id, sub = parts[0], parts[1], ":".join(parts[2:])
        elif obj in ("Virtual Disk", "Interrupt Cookie") and len(parts) >= 2:  # vm:scsi0:0
            inst_name, sub = parts[0], ":".join(parts[1:])
        elif obj == "Physical Disk" and len(parts) >= 2:  # adapter:path
            inst_name, sub = parts[0], ":".join(parts[1:])
        elif "#" in inst and inst.rsplit("#", 1)[1].isdigit():  # perfmon duplicate instances: svchost#85
            inst_name, inst_id = inst.rsplit("#", 1)
    return Series(key, name, host, obj, inst, counter, metric, unit, inst_name, inst_id, sub)


def _columns(cells: list[str]) -> tuple[list[dict], str | None, int | None, list[str], list[str | None]]:
    """(skipped columns, time zone, bias, each column's kind: ts, value, glued or skip, and each
    column's counter name: None for the time stamp and a skipped column)."""
    zone = _ZONE.match(cells[0])
    tz_name = zone.group("zone") if zone else cells[0][len("(PDH-CSV 4.0)") :].strip().removeprefix("(") or None
    bias = int(zone.group("bias")) if zone else None
    skipped: list[dict] = []
    kinds: list[str] = ["ts"]  # the time stamp's column: no counter
    names: list[str | None] = [None]
    for i, cell in enumerate(cells[1:], start=1):
        glued = '-"' in cell and _GLUED.match(cell)
        name = glued.group("name") if glued else cell
        if name.strip() in ("", "-"):
            skipped.append(
                {
                    "column_no": i,
                    "header_text": cell,
                    "reason": "no counter name (trailing comma)"
                    if not cell.strip()
                    else "unquoted '-' token of esxtop's PCPU power section: no counter name",
                }
            )
            kinds.append("skip")
            names.append(None)
        else:
            kinds.append("glued" if glued else "value")
            names.append(name)
    return skipped, tz_name, bias, kinds, names


def _series(names: list[str | None], line_no: int) -> list[Series]:
    """A series per counter column, its key the column number; ParseError at a name that is no counter's."""
    series = []
    for i, name in enumerate(names):
        if name is not None:
            if (found := split_name(name, i)) is None:
                raise ParseError(f"column {i + 1}: {name[:80]!r} is not \\\\host\\Object(instance)\\Counter", line_no)
            series.append(found)
    return series


def _column(i: int) -> str:
    """The frame's name for column ``i``: ``c0`` holds the time stamp; a counter's column is named by
    its number, which is its series key (a point's key is then its column's name cast to a number)."""
    return str(i) if i else "c0"


def _frame(source, kinds: list[str], skip: int, eol: str) -> pl.LazyFrame:
    import polars as pl

    schema = {_column(i): (pl.Float64 if k == "value" else pl.String) for i, k in enumerate(kinds)}
    opts = dict(
        has_header=False,
        skip_rows=skip,
        schema=schema,
        quote_char='"',
        null_values=[" ", ""],
        eol_char="\r" if eol == "\r" else "\n",
        truncate_ragged_lines=False,
        encoding="utf8",
    )
    if isinstance(source, (bytes, bytearray)):
        return pl.read_csv(io.BytesIO(source), **opts).lazy()
    # glob=False: a folder named "run [2]" or "*" is a name, not a pattern (found by the attack harness)
    return pl.scan_csv(source, **{k: v for k, v in opts.items() if k != "encoding"}, low_memory=True, glob=False)


def _check_tail(source, n_cells: int, eol: str) -> None:
    """A last line without its line end must still be whole: a cut inside a quoted cell or a row
    with fewer cells than the header is rejected here (Polars' reader would panic or misread)."""
    if isinstance(source, (bytes, bytearray)):
        tail = bytes(source[-(1 << 20) :])
    else:
        with open(source, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - (1 << 20)))
            tail = fh.read()
    if tail.endswith(eol.encode()) or tail.endswith(b"\n"):
        return
    last = tail.rsplit(eol.encode(), 1)[-1].rstrip(b"\r")
    if not last.strip():
        return
    text = last.decode("utf-8", errors="replace")
    if text.count('"') % 2:
        raise ParseError("the file ends inside a quoted cell: it was cut")
    cells = len(_cells(text))
    if cells < n_cells:
        raise ParseError(f"the last line has {cells} of the header's {n_cells} cells: the file was cut")


def _first_cells(source, start: int, eol: str) -> list[str]:
    """The time-stamp cell of every data line, read as raw bytes (no CSV parse of the wide rows).

    The file is mapped, not read: each line's end and first comma are found in place, so only the
    stamps are copied (splitting a 1 GB capture into its lines copied it twice); pages already
    passed are released, so the mapping does not grow the process."""
    if isinstance(source, (bytes, bytearray)):
        return _stamps_in(bytes(source), start, eol.encode())
    with open(source, "rb") as fh:
        if os.fstat(fh.fileno()).st_size <= start:
            return []
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            return _stamps_in(buf, start, eol.encode())


def _stamps_in(buf, pos: int, sep: bytes) -> list[str]:
    out: list[str] = []
    end = len(buf)
    done = 0  # a mapped file's pages read so far are let go every 64 MiB: memory stays flat
    while pos < end:
        if isinstance(buf, mmap.mmap) and pos - done >= 64 << 20:
            upto = pos - pos % mmap.PAGESIZE
            buf.madvise(mmap.MADV_DONTNEED, done, upto - done)
            done = upto
        nl = buf.find(sep, pos)
        nl = end if nl == -1 else nl
        comma = buf.find(b",", pos, nl)
        cell = buf[pos : nl if comma == -1 else comma].rstrip(b"\r").strip()
        if cell or buf[pos:nl].strip():  # a blank line has no sample
            out.append(cell.strip(b'"').decode("ascii", errors="replace"))
        pos = nl + len(sep)
    return out


def _ts_expr(sample: list[str]) -> tuple[pl.Expr, bool, str]:
    import polars as pl

    probe = next((s for s in sample if s and s.strip()), None)
    if probe is None:
        raise ParseError("no time stamps in the first data rows", 2)
    for fmt, has_date in TS_FORMATS:
        try:
            datetime.strptime(probe.strip(), fmt.replace("%.f", ".%f"))
        except ValueError:
            continue
        return pl.col("c0").str.strip_chars().str.strptime(pl.Datetime("us"), fmt, strict=False), has_date, fmt
    raise ParseError(f"time stamp {probe!r} is in no known format (MM/DD/YYYY HH:MM:SS[.mmm])", 2)


def parse_source(source: bytes | Path, name: str, finish: bool = True) -> ParseResult:
    """The capture's points as a LazyFrame (the writer streams them into the store), and the rest.
    Without ``finish`` the rest (the counters' names, every sample's time: a pass of their own) is
    left pending, to be done while the points stream (ParseResult.pending)."""
    capture = _Capture(source)
    res = ParseResult(tool_version=None, points=capture.points(), pending=capture.describe)
    if finish:
        res.finish()
    return res


class _Capture:
    """A capture's layout, read from its head: the header's columns, the line ends, the time stamps'
    format; and whether its last line is whole."""

    def __init__(self, source: bytes | Path) -> None:
        self.source = source
        head = bytes(source[:HEADER_LIMIT]) if isinstance(source, (bytes, bytearray)) else _head(source)
        header, self.hline, self.eol, self.data_start = _header_and_layout(head)
        header = undouble_backslashes(header)  # a log that JSON-escaped the capture: '\\\\host\\Object'
        self.skipped, self.tz_name, self.bias, self.kinds, self.names = _columns(_cells(header, self.hline + 1))
        if "value" not in self.kinds and "glued" not in self.kinds:
            raise ParseError("the header names no counters", self.hline + 1)
        self.tool = "esxtop" if self.tz_name == "UTC" and self.bias == 0 else "perfmon"
        _check_tail(source, len(self.kinds), self.eol)
        # the time stamps' format, from the first lines of the head (the head holds fewer: the file's)
        stamps = _stamps_in(head[: head.rfind(self.eol.encode()) + len(self.eol)], self.data_start, self.eol.encode())
        if len(stamps) < 5:
            stamps = _first_cells(source, self.data_start, self.eol)
        if not stamps:
            raise ParseError("the header has no data rows under it (a cut file?)")
        self.ts, self.has_date, self.ts_format = _ts_expr(stamps[:5])

    def points(self) -> pl.LazyFrame:
        """(series_key, sample_no, ts, value), in one streaming pass: the series key is the column
        number, the name each point's column has in the frame, cast to a number (a short name is held
        inside its string view, so the cast reads no other memory: 6 % of the pass less than looking
        "c<i>" up in an Enum of every name, which was itself a third less than parsing the number out
        of "c<i>"); each point carries its sample's time (parsed once per line, as in ``describe``)."""
        import polars as pl

        lf = _frame(self.source, self.kinds, self.hline + 1, self.eol).with_row_index("sample_no")
        # a glued cell, `    73.1"8.93"`: the quoted part is the counter's value
        if glued := [_column(i) for i, k in enumerate(self.kinds) if k == "glued"]:
            value = pl.col(glued).str.extract(r'"([^"]*)"\s*$').str.strip_chars().replace("", None)
            lf = lf.with_columns(value.cast(pl.Float64, strict=True))
        stamp = (self.ts if self.has_date else pl.lit(None, pl.Datetime("us"))).alias("ts")
        return (  # the value columns by type, not 5,000 names (0.03 s of planning): the rest are text
            lf.select("sample_no", stamp, pl.col(pl.Float64))
            .unpivot(index=["sample_no", "ts"], variable_name="col", value_name="value")
            .drop_nulls("value")
            .select(pl.col("col").cast(pl.Int32).alias("series_key"), pl.col("sample_no").cast(pl.Int32), "ts", "value")
        )

    def describe(self, res: ParseResult) -> None:
        """The rest of the parse: the counters' names, every sample's time, the run and the capture."""
        series = _series(self.names, self.hline + 1)
        smp = self.samples()
        hosts = sorted({s.host for s in series if s.host})
        res.runs.append(
            Run(
                key="capture",
                tool=self.tool,
                started_at=smp["ts"].min() if self.has_date else None,
                ended_at=smp["ts"].max() if self.has_date else None,
                workload=f"{self.tool} capture",
                description=f"{len(series)} counters x {smp.height} samples from {', '.join(hosts)[:200]}",
                status="complete",
                test_type="time series",
            )
        )
        res.series = series
        res.tables["series_samples"] = smp
        res.tables["pdh_captures"] = [
            {
                "tool": self.tool,
                "time_zone": self.tz_name,
                "bias_minutes": self.bias,
                "columns": len(self.kinds),
                "series": len(series),
                "samples": smp.height,
                "has_date": self.has_date,
                "header_line": self.hline + 1,
                "hosts": hosts,
            }
        ]
        res.tables["pdh_skipped_columns"] = self.skipped

    def samples(self) -> pl.DataFrame:
        """(sample_no, ts, ts_text) of every data line; ParseError at a stamp not in the file's format."""
        import polars as pl

        smp = (
            pl.DataFrame({"ts_text": _first_cells(self.source, self.data_start, self.eol)})
            .with_row_index("sample_no")
            .with_columns(pl.col("ts_text").alias("c0"))
            .with_columns(self.ts.alias("ts"))
            .drop("c0")
        )
        if smp["ts"].null_count():
            bad = smp.filter(pl.col("ts").is_null())
            raise ParseError(
                f"time stamp {bad['ts_text'][0]!r} does not match the file's format {self.ts_format}",
                self.hline + 2 + bad["sample_no"][0],
            )
        smp = smp.with_columns(pl.col("sample_no").cast(pl.Int32))
        if not self.has_date:
            smp = smp.with_columns(pl.lit(None, pl.Datetime("us")).alias("ts"))
        return smp.select("sample_no", "ts", "ts_text")


def parse(data: bytes, name: str) -> ParseResult:
    return parse_source(data, name)


def parse_path(path: Path, name: str, finish: bool = True) -> ParseResult:
    return parse_source(path, name, finish)
