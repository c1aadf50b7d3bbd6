"""Iometer results CSV (2001 -> 1.1.0), including multi-session files and cycling runs.

See docs/formats/iometer-orion.md. The file is not CSV in the RFC sense: Iometer joins fields
with commas and never quotes, so a double quote in a disk name (`1: "( ATP ENG SAMPLE SSD`) is
just a character. Lines starting with `'` are section markers; everything else is data.

Layouts are told apart by the header row, not the version string: 56 columns (MBps = 2^20 B/s),
59 columns (Binary/Decimal MBps), 80 columns (59 + 21 latency bins). PROCESSOR rows are mapped by
their own field count (56-field PROCESSOR rows in 59-column rc1 files are the old layout).

A 'Results block is one run (one test point: an access spec, or one step of a cycling test).
Every writer but 2001.07.19 closes a block with 'Time Stamp, so a block still open at the end of
the file or of its session, or one without rows or without its ALL row, is a cut file: rejected.

Sentinels: 1.1.0 writes -1 and 2^64-1 for "not applicable" (Transactions per Connection, Queue
Depth of ALL/MANAGER rows): no sample, no signature; kept as written in iometer_results.sentinels.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache
from math import isfinite, nan
from typing import Any

from ..model import (
    MB_PER_MIB,
    PackedTable,
    ParseError,
    ParseResult,
    Run,
    parse_float,
    parse_int,
    split_lines,
    text_lines,
)
from . import _checks
from ._rows import Rows

FORMAT = "iometer-results-csv"
VERSION = "1"
TOOL = "Iometer"

# header text -> (column, kind); kind: i = unsigned integer, s = signed integer, f = float, t = text
COLUMNS: dict[str, tuple[str, str]] = {
    "Target Type": ("row_type", "t"),
    "Target Name": ("target_name", "t"),
    "Access Specification Name": ("access_spec", "t"),
    "# Managers": ("n_managers", "i"),
    "# Workers": ("n_workers", "i"),
    "# Disks": ("n_disks", "i"),
    "IOps": ("iops", "f"),
    "Read IOps": ("read_iops", "f"),
    "Write IOps": ("write_iops", "f"),
    "MBps": ("mbps_binary", "f"),
    "Read MBps": ("read_mbps_binary", "f"),
    "Write MBps": ("write_mbps_binary", "f"),
    "MBps (Binary)": ("mbps_binary", "f"),
    "Read MBps (Binary)": ("read_mbps_binary", "f"),
    "Write MBps (Binary)": ("write_mbps_binary", "f"),
    "MiBps (Binary)": ("mbps_binary", "f"),
    "Read MiBps (Binary)": ("read_mbps_binary", "f"),
    "Write MiBps (Binary)": ("write_mbps_binary", "f"),
    "MBps (Decimal)": ("mbps_decimal", "f"),
    "Read MBps (Decimal)": ("read_mbps_decimal", "f"),
    "Write MBps (Decimal)": ("write_mbps_decimal", "f"),
    "Transactions per Second": ("transactions_per_s", "f"),
    "Connections per Second": ("connections_per_s", "f"),
    "Average Response Time": ("avg_response_ms", "f"),
    "Average Read Response Time": ("avg_read_response_ms", "f"),
    "Average Write Response Time": ("avg_write_response_ms", "f"),
    "Average Transaction Time": ("avg_transaction_ms", "f"),
    "Average Connection Time": ("avg_connection_ms", "f"),
    "Maximum Response Time": ("max_response_ms", "f"),
    "Maximum Read Response Time": ("max_read_response_ms", "f"),
    "Maximum Write Response Time": ("max_write_response_ms", "f"),
    "Maximum Transaction Time": ("max_transaction_ms", "f"),
    "Maximum Connection Time": ("max_connection_ms", "f"),
    "Errors": ("errors", "i"),
    "Read Errors": ("read_errors", "i"),
    "Write Errors": ("write_errors", "i"),
    "Bytes Read": ("bytes_read", "i"),
    "Bytes Written": ("bytes_written", "i"),
    "Read I/Os": ("read_ios", "i"),
    "Write I/Os": ("write_ios", "i"),
    "Connections": ("connections", "i"),
    "Transactions per Connection": ("transactions_per_connection", "s"),
    "Total Raw Read Response Time": ("total_raw_read_response_ticks", "i"),
    "Total Raw Write Response Time": ("total_raw_write_response_ticks", "i"),
    "Total Raw Transaction Time": ("total_raw_transaction_ticks", "i"),
    "Total Raw Connection Time": ("total_raw_connection_ticks", "i"),
    "Maximum Raw Read Response Time": ("max_raw_read_response_ticks", "i"),
    "Maximum Raw Write Response Time": ("max_raw_write_response_ticks", "i"),
    "Maximum Raw Transaction Time": ("max_raw_transaction_ticks", "i"),
    "Maximum Raw Connection Time": ("max_raw_connection_ticks", "i"),
    "Total Raw Run Time": ("total_raw_run_ticks", "i"),
    "Starting Sector": ("starting_sector", "i"),
    "Maximum Size": ("maximum_size", "i"),
    "Queue Depth": ("queue_depth", "i"),
    "% CPU Utilization": ("cpu_util_pct", "f"),
    "% User Time": ("cpu_user_pct", "f"),
    "% Privileged Time": ("cpu_privileged_pct", "f"),
    "% DPC Time": ("cpu_dpc_pct", "f"),
    "% Interrupt Time": ("cpu_interrupt_pct", "f"),
    "Processor Speed": ("timer_resolution_hz", "f"),
    "Interrupts per Second": ("interrupts_per_s", "f"),
    "CPU Effectiveness": ("cpu_effectiveness", "f"),
    "Packets/Second": ("packets_per_s", "f"),
    "Packet Errors": ("packet_errors", "f"),
    "Segments Retransmitted/Second": ("segments_retransmitted_per_s", "f"),
}
OLD_LAYOUT = [  # the 56-column header of 2001-2010 (PROCESSOR rows of rc1 files still use it)
    "Target Type",
    "Target Name",
    "Access Specification Name",
    "# Managers",
    "# Workers",
    "# Disks",
    "IOps",
    "Read IOps",
    "Write IOps",
    "MBps",
    "Read MBps",
    "Write MBps",
    "Transactions per Second",
    "Connections per Second",
    "Average Response Time",
    "Average Read Response Time",
    "Average Write Response Time",
    "Average Transaction Time",
    "Average Connection Time",
    "Maximum Response Time",
    "Maximum Read Response Time",
    "Maximum Write Response Time",
    "Maximum Transaction Time",
    "Maximum Connection Time",
    "Errors",
    "Read Errors",
    "Write Errors",
    "Bytes Read",
    "Bytes Written",
    "Read I/Os",
    "Write I/Os",
    "Connections",
    "Transactions per Connection",
    "Total Raw Read Response Time",
    "Total Raw Write Response Time",
    "Total Raw Transaction Time",
    "Total Raw Connection Time",
    "Maximum Raw Read Response Time",
    "Maximum Raw Write Response Time",
    "Maximum Raw Transaction Time",
    "Maximum Raw Connection Time",
    "Total Raw Run Time",
    "Starting Sector",
    "Maximum Size",
    "Queue Depth",
    "% CPU Utilization",
    "% User Time",
    "% Privileged Time",
    "% DPC Time",
    "% Interrupt Time",
    "Processor Speed",
    "Interrupts per Second",
    "CPU Effectiveness",
    "Packets/Second",
    "Packet Errors",
    "Segments Retransmitted/Second",
]
# latency-bin header text -> (lower, upper) in microseconds (upper None = open-ended)
_BIN = re.compile(r"^\s*(?:([\d.]+) to ([\d.]+)|>= ([\d.]+))\s*(uS|mS|S|s)\s*$")
_SCALE = {"uS": 1, "mS": 1000, "S": 1_000_000, "s": 1_000_000}

ROW_SCOPES = {
    "ALL": "all",
    "MANAGER": "manager",
    "PROCESSOR": "processor",
    "WORKER": "worker",
    "DISK": "target",
    "NETWORK": "target",
    "UNKNOWN": "target",
}
TEST_TYPES = {
    0: "normal",
    1: "cycle targets",
    2: "cycle workers",
    3: "increment targets parallel",
    4: "increment targets serial",
    5: "cycle workers and targets",
    6: "cycle outstanding I/Os",
    7: "cycle outstanding I/Os and targets",
}

# tool column -> (canonical metric, unit, factor); MB/s are 10^6 bytes/s
METRICS: list[tuple[str, str, str, float]] = [
    ("iops", "iops", "IO/s", 1),
    ("read_iops", "read_iops", "IO/s", 1),
    ("write_iops", "write_iops", "IO/s", 1),
    ("transactions_per_s", "transactions_per_s", "1/s", 1),
    ("connections_per_s", "connections_per_s", "1/s", 1),
    ("avg_response_ms", "avg_latency_ms", "ms", 1),
    ("avg_read_response_ms", "avg_read_latency_ms", "ms", 1),
    ("avg_write_response_ms", "avg_write_latency_ms", "ms", 1),
    ("avg_transaction_ms", "avg_transaction_ms", "ms", 1),
    ("avg_connection_ms", "avg_connection_ms", "ms", 1),
    ("max_response_ms", "max_latency_ms", "ms", 1),
    ("max_read_response_ms", "max_read_latency_ms", "ms", 1),
    ("max_write_response_ms", "max_write_latency_ms", "ms", 1),
    ("max_transaction_ms", "max_transaction_ms", "ms", 1),
    ("errors", "errors", "count", 1),
    ("read_errors", "read_errors", "count", 1),
    ("write_errors", "write_errors", "count", 1),
    ("bytes_read", "bytes_read", "bytes", 1),
    ("bytes_written", "bytes_written", "bytes", 1),
    ("read_ios", "read_ios", "count", 1),
    ("write_ios", "write_ios", "count", 1),
    ("cpu_util_pct", "cpu_util_pct", "%", 1),
    ("cpu_user_pct", "cpu_user_pct", "%", 1),
    ("cpu_privileged_pct", "cpu_privileged_pct", "%", 1),
    ("cpu_dpc_pct", "cpu_dpc_pct", "%", 1),
    ("cpu_interrupt_pct", "cpu_interrupt_pct", "%", 1),
    ("interrupts_per_s", "interrupts_per_s", "1/s", 1),
    ("cpu_effectiveness", "cpu_effectiveness", "IO/s per %CPU", 1),
    ("packets_per_s", "packets_per_s", "1/s", 1),
    ("packet_errors", "packet_errors", "count", 1),
    ("segments_retransmitted_per_s", "segments_retransmitted_per_s", "1/s", 1),
]
MBPS = [
    ("mbps", "mbps_decimal", "mbps_binary"),
    ("read_mbps", "read_mbps_decimal", "read_mbps_binary"),
    ("write_mbps", "write_mbps_decimal", "write_mbps_binary"),
]

# Iometer 1.1.0 writes -1 and 2^64-1 for "not applicable" (Queue Depth of ALL and MANAGER rows, ...).
# Such a cell is a missing value: no sample, no signature; the tool table keeps 2^64-1 as written
# (UBIGINT holds it), NULL for -1, and every sentinel as written in its `sentinels` column.
SENTINELS: dict[str, int | None] = {"-1": None, str(2**64 - 1): 2**64 - 1}
RESULT_FIELDS = [(c, k) for c, k in dict.fromkeys(COLUMNS.values())]
BIN_COLUMNS = {
    "line_no": "i32",
    "bin_no": "i32",
    "bin_label": "str",
    "lower_us": "f64",
    "upper_us": "f64",
    "io_count": "u64",
}


@cache
def results_schema() -> Any:
    """The iometer_results table as Arrow batches hold it (pyarrow is imported on the first Iometer
    file, not by every command that loads the parsers)."""
    import pyarrow as pa

    arrow = {"t": pa.string(), "i": pa.uint64(), "s": pa.int64(), "f": pa.float64()}
    fixed = [("session_no", pa.int32()), ("block_no", pa.int32()), ("line_no", pa.int32()), ("layout", pa.int32())]
    names = [("manager_name", pa.string()), ("worker_name", pa.string())]
    times = [("ended_at", pa.timestamp("us")), ("ts", pa.timestamp("us"))]
    values = [(c, arrow[k]) for c, k in RESULT_FIELDS]
    return pa.schema(fixed + names + times + values + [("sentinels", pa.string())])


SNIFF_RULE = 'the first line starts "\'Test Type,Test Description" and there are no instantaneous-result rows'


def sniff(head: str, name: str) -> bool:
    lines = split_lines(head[:4096])
    return bool(lines) and lines[0].startswith("'Test Type,Test Description") and not _is_instantaneous(head)


def _is_instantaneous(head: str) -> bool:
    return "\nTimeStamp,'Target Type" in head.replace("\r", "\n")


def parse_timestamp(text: str, line: int) -> datetime:
    t = text.strip()
    for fmt in ("%Y-%m-%d %H:%M:%S:%f", "%Y-%m-%d %H:%M:%S", "%a %b %d %H:%M:%S %Y"):
        try:
            return datetime.strptime(t, fmt)
        except ValueError:
            pass
    raise ParseError(f"time stamp {t!r} is not in a known Iometer format (YYYY-MM-DD HH:MM:SS:mmm)", line)


def bin_bounds(label: str) -> tuple[float, float | None]:
    m = _BIN.match(label)
    if not m:
        raise ValueError(label)
    scale = _SCALE[m.group(4)]
    if m.group(3):
        return float(m.group(3)) * scale, None
    return float(m.group(1)) * scale, float(m.group(2)) * scale


class _Header:
    """Column layout of one 'Results block, learned from its header row."""

    def __init__(self, cells: list[str], line: int, prefix: int = 0):
        self.prefix = prefix
        self.cells = [c.strip() for c in cells[prefix:]]
        if not self.cells or self.cells[0].lstrip("'") != "Target Type":
            raise ParseError("a 'Results section must start with the 'Target Type,... header row", line)
        self.cells[0] = "Target Type"
        self.named: list[str] = []
        self.bins: list[tuple[str, float, float | None]] = []
        for c in self.cells:
            if c in COLUMNS:
                if self.bins:
                    raise ParseError(f"column {c!r} after the latency-bin columns", line)
                self.named.append(c)
                continue
            try:
                lo, hi = bin_bounds(c)
            except ValueError:
                raise ParseError(f"unknown Iometer column {c!r} in the results header", line) from None
            self.bins.append((c, lo, hi))
        self.width = len(self.cells)


def _float_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return nan


def _typed(kind: str, text: str, what: str, line: int):
    if kind == "t":
        return text
    if kind == "f":
        return parse_float(text, what, line)
    v = parse_int(text, what, line)
    if v is not None and kind == "i" and not 0 <= v < 2**64:
        raise ParseError(f"{what}: {v} is outside 0..2^64-1", line)
    return v


_END_STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}")


def _whole_last_line(line: str) -> bool:
    """Whether a last line without its line end is whole (a copy that lost only the final line
    end): a marker line, 'Aborted test', or the end-of-test time stamp with its three-digit
    milliseconds (Iometer writes 2010-07-26 10:32:06:571; one cut short lacks digits)."""
    return line.startswith("'") or line == "Aborted test" or bool(_END_STAMP.fullmatch(line.strip()))


class _Parser:
    CHUNK = 2_000  # iometer_results rows per Arrow batch (~5 KB a row as a dict; a session waits for the next)

    def __init__(self, data: bytes, instantaneous: bool):
        self.lines, self.ends_with_newline = text_lines(data)  # lines decoded one at a time
        self.inst = instantaneous
        self.result = ParseResult()
        self.sessions: list[dict] = []
        self.specs: list[dict] = []
        self.spec_index: dict[tuple[int, str], dict] = {}  # (session, name) -> its last spec
        self.comma_specs: dict[str, int] = {}  # spec names holding commas -> their count, first seen first
        self.results = PackedTable(results_schema())  # iometer_results, a batch per CHUNK rows
        self.result_rows: list[dict] = []  # finished sessions' rows, not in a batch yet
        self.bins = Rows(BIN_COLUMNS)
        self.i = 0
        self.session: dict | None = None
        self.header: _Header | None = None
        self.block_rows: list[dict] = []
        self.block_no = self.spec_block = self.block_line = self.timed_blocks = 0
        self.in_specs = False
        self.cur_spec: dict | None = None

    # -- helpers
    def next_value_line(self, marker: str) -> tuple[str, int]:
        if self.i + 1 >= len(self.lines):
            raise ParseError(f"file ends right after {marker}; the value line is missing (truncated file?)", self.i + 1)
        self.i += 1
        return self.lines[self.i], self.i + 1

    def parse(self) -> ParseResult:
        lines = self.lines
        while self.i < len(lines) and not lines[self.i].strip():
            self.i += 1  # blank lines before the first are no damage (a copy, an editor)
        if self.i >= len(lines) or not lines[self.i].startswith("'Test Type"):
            raise ParseError("an Iometer results file starts with 'Test Type,Test Description", self.i + 1)
        if not self.ends_with_newline and not _whole_last_line(lines[-1]):
            raise ParseError(
                "the file ends in the middle of a data row (truncated?); Iometer ends every line", len(lines)
            )
        while self.i < len(lines):
            self.step(lines[self.i], self.i + 1)
            self.i += 1
        self.end_of_file()
        return self.finish()

    def step(self, line: str, ln: int) -> None:
        """One line: a section marker moves the state on, anything else is a data row."""
        s = line.strip()
        if s == "":
            return
        if line.startswith("'Test Type"):
            return self.on_test_type(ln)
        if self.session is None:
            raise ParseError("data before the first 'Test Type line", ln)
        for marker, handler in _MARKERS:
            if line.startswith(marker):
                return handler(self, ln)
        if s == "Aborted test":
            return self.end_session("aborted")
        if line.startswith("'"):
            raise ParseError(f"unknown section marker {line[:40]!r}", ln)
        if self.in_specs:
            raise ParseError("unexpected line inside the access specifications", ln)
        if self.header is None:
            raise ParseError("data row outside a 'Results section", ln)
        self.block_rows.append(
            self.data_row(line, ln, self.header, self.session["session_no"], self.block_no, self.block_rows)
        )

    # -- blocks: a 'Results header opens one; 'Time Stamp, the next 'Results or 'End Test closes it
    def close_block(self, ended: datetime | None) -> None:
        if self.header is None:
            return
        if not self.block_rows:
            raise ParseError("this 'Results block has no rows (cut file?)", self.block_line)
        if not any(r["row_type"] == "ALL" for r in self.block_rows):
            raise ParseError("this 'Results block has no ALL row (cut file?)", self.block_line)
        if not self.inst:
            check_block(self.block_rows)
        for r in self.block_rows:
            r["ended_at"] = ended
        self.session["blocks"].append((self.block_no, self.block_rows, self.session["last_ts"], ended))
        self.timed_blocks += ended is not None
        self.header, self.block_rows = None, []

    def refuse_open_block(self, where: str) -> None:
        """Iometer closes every results block with a 'Time Stamp (all but 2001.07.19, docs/formats):
        one still open was cut short."""
        untimed_writer = (self.session["version"] or "").startswith("2001") and not self.timed_blocks
        if self.header is not None and (not self.block_rows or not untimed_writer):
            raise ParseError(
                f"{where} inside the 'Results block started here, before its closing "
                "'Time Stamp (a cut file: its last rows may be missing)",
                self.block_line,
            )

    def end_of_file(self) -> None:
        if self.session:
            self.refuse_open_block("the file ends")
            self.close_block(None)
            self.session["status"] = "unterminated"
            self.flush_session(self.session)
        if not any(s["n_blocks"] for s in self.sessions):
            raise ParseError("the file has no results rows (empty session or truncated file)", len(self.lines))

    def end_session(self, status: str) -> None:
        self.close_block(None)
        self.session["status"] = status
        self.flush_session(self.session)
        self.session = None

    # -- section markers
    def on_test_type(self, ln: int) -> None:
        if self.session:
            self.refuse_open_block("the session ends")
            self.close_block(None)
            self.session["status"] = "unterminated"
            self.flush_session(self.session)
        val, vln = self.next_value_line("'Test Type")
        tt, _, desc = val.partition(",")
        tnum = parse_int(tt, "test type", vln)
        self.session = {
            "session_no": len(self.sessions) + 1,
            "line_no": ln,
            "test_type": tnum,
            "test_type_name": TEST_TYPES.get(tnum) if tnum is not None else None,
            "test_description": desc,
            "version": None,
            "started_at": None,
            "status": None,
            "last_ts": None,
            "blocks": [],
        }
        self.sessions.append(self.session)
        self.header, self.block_rows, self.block_no, self.spec_block = None, [], 0, 0

    def on_version(self, ln: int) -> None:
        self.session["version"] = self.next_value_line("'Version")[0].strip()

    def on_time_stamp(self, ln: int) -> None:
        val, vln = self.next_value_line("'Time Stamp")
        ts = parse_timestamp(val, vln)
        if self.header is not None:
            self.close_block(ts)
        elif self.session["started_at"] is None:
            self.session["started_at"] = ts
        self.session["last_ts"] = ts

    def on_specs(self, ln: int) -> None:
        self.in_specs = True
        self.spec_block += 1

    def on_end_specs(self, ln: int) -> None:
        self.in_specs, self.cur_spec = False, None

    def on_spec_name(self, ln: int) -> None:
        val, vln = self.next_value_line("'Access specification name")
        name, sep, assign = val.rpartition(",")
        if not sep:
            raise ParseError("access specification line needs '<name>,<default assignment>'", vln)
        self.cur_spec = {
            "session_no": self.session["session_no"],
            "spec_block_no": self.spec_block,
            "spec_name": name,
            "default_assignment": parse_int(assign, "default assignment", vln),
            "lines": [],
        }
        self.specs.append(self.cur_spec)
        self.spec_index[(self.session["session_no"], name)] = self.cur_spec
        if "," in name:
            self.comma_specs.setdefault(name, name.count(","))

    def on_spec_lines(self, ln: int) -> None:
        if self.cur_spec is None:
            raise ParseError("'size,... line outside an access specification", ln)
        lines = self.lines
        while self.i + 1 < len(lines) and lines[self.i + 1] and not lines[self.i + 1].startswith("'"):
            self.i += 1
            cells = lines[self.i].split(",")
            if len(cells) == 9 and cells[8].strip() == "":
                cells = cells[:8]
            if len(cells) != 8:
                raise ParseError(
                    f"access-spec line has {len(cells)} fields, expected 8 "
                    "(size,% of size,% reads,% random,delay,burst,align,reply)",
                    self.i + 1,
                )
            vals = [parse_int(c, "access-spec value", self.i + 1) for c in cells]
            self.cur_spec["lines"].append((self.i + 1, vals))

    def on_results(self, ln: int) -> None:
        self.close_block(None)  # a block without its closing 'Time Stamp (2001 files): closed untimed
        hdr, hln = self.next_value_line("'Results")
        self.header = _Header(hdr.split(","), hln, prefix=1 if self.inst else 0)
        if self.inst and hdr.split(",")[0] != "TimeStamp":
            raise ParseError("instantaneous file: header must start with TimeStamp", hln)
        self.block_no += 1
        self.block_rows, self.block_line = [], ln

    def on_end_test(self, ln: int) -> None:
        self.end_session("complete")

    def data_row(self, line: str, ln: int, h: _Header, session_no: int, block_no: int, prev: list[dict]) -> dict:
        ts, names, cells, bins = self.split_row(line, ln, h)
        row: dict = {
            "session_no": session_no,
            "block_no": block_no,
            "line_no": ln,
            "layout": h.width,
            "ended_at": None,
            "ts": ts,
        }
        sentinels: dict[str, str] = {}
        for name, text in zip(names, cells):
            col, kind = COLUMNS[name]
            if kind == "t":
                row[col] = text
                continue
            t = text.strip()
            if t in SENTINELS:  # Iometer's "not applicable": a missing value
                sentinels[col] = f"{name}={t}"
                row[col] = SENTINELS[t] if kind == "i" else None  # 2^64-1 fits the table as written
            elif kind == "f" and isfinite(v := _float_or_nan(t)):  # the common cases, converted once
                row[col] = v
            elif kind != "f" and t.isdecimal() and len(t) < 20:  # below 2^64 (int() reads what isdecimal says)
                row[col] = int(t)
            else:  # an empty cell (missing), or the error that names the cell
                row[col] = _typed(kind, t, name, ln)
        row["sentinel_cols"] = set(sentinels)
        row["sentinels"] = "; ".join(sentinels.values()) or None
        _names_carried(row, prev)
        self.latency_bins(h, bins, ln)
        return row

    def split_row(self, line: str, ln: int, h: _Header) -> tuple[datetime | None, list[str], list[str], list[str]]:
        """(timestamp of an instantaneous row, the column names the row's fields stand under, the fields,
        the latency-bin fields past them)."""
        cells = line.split(",")
        ts = None
        if h.prefix:
            ts = parse_timestamp(cells[0], ln)
            cells = cells[1:]
        row_type = cells[0].strip()
        if row_type not in ROW_SCOPES:
            raise ParseError(
                f"unknown row type {row_type!r} (expected ALL, MANAGER, PROCESSOR, WORKER, DISK, NETWORK)", ln
            )
        if len(cells) > h.width:
            cells = self.rejoin(cells, h.width, row_type, ln)
        if row_type == "PROCESSOR" and len(cells) != h.width:
            if len(cells) == len(OLD_LAYOUT):
                return ts, OLD_LAYOUT, cells, []
            if len(cells) == 59 and h.width > 59:
                return ts, h.named[:59], cells, []
            raise ParseError(f"PROCESSOR row has {len(cells)} fields; the header has {h.width}", ln)
        if len(cells) != h.width:
            raise ParseError(
                f"{row_type} row has {len(cells)} fields; the header has {h.width} "
                "(a cut line, or a name containing a comma?)",
                ln,
            )
        return ts, h.named, cells, cells[len(h.named) :]

    def latency_bins(self, h: _Header, bins: list[str], ln: int) -> None:
        for bin_no, ((label, lo, hi), text) in enumerate(zip(h.bins, bins), start=1):
            t = text.strip()  # a count, converted here; anything else goes to _typed, which names the error
            v = int(t) if t.isdecimal() and len(t) < 20 else _typed("i", t, label, ln)
            if v is not None:
                self.bins.append(
                    {
                        "line_no": ln,
                        "bin_no": bin_no,
                        "bin_label": label.strip(),
                        "lower_us": lo,
                        "upper_us": hi,
                        "io_count": v,
                    }
                )

    def rejoin(self, cells: list[str], width: int, row_type: str, ln: int) -> list[str]:
        """Iometer never quotes: a comma inside a name splits the row. Undo it only where the
        split is unambiguous: an access-spec name the spec section declares (ALL/MANAGER/WORKER
        rows), or a target name (DISK/NETWORK rows, whose only free text is the name). A single
        empty field past the header is the trailing comma some versions write."""
        if row_type in ("ALL", "MANAGER", "WORKER"):
            for name, n in self.comma_specs.items():
                if ",".join(cells[2 : 3 + n]) == name:
                    cells = cells[:2] + [name] + cells[3 + n :]
                    break
        if len(cells) == width + 1 and cells[-1].strip() == "":
            cells = cells[:-1]
        extra = len(cells) - width
        if extra > 0 and row_type in ("DISK", "NETWORK", "UNKNOWN"):
            cells = [cells[0], ",".join(cells[1 : 2 + extra])] + cells[2 + extra :]
        elif extra > 0 and row_type != "PROCESSOR":
            raise ParseError(
                f"{row_type} row has {len(cells)} fields; the header has {width} "
                "(a cut line, or a name containing a comma that cannot be told apart)",
                ln,
            )
        return cells

    # -- output
    def spec_for(self, session_no: int, name: str | None) -> dict | None:
        return self.spec_index.get((session_no, name)) if name is not None else None

    def flush_session(self, s: dict) -> None:
        """A finished session: its runs and samples, and its rows as one Arrow batch (bounded memory)."""
        res = self.result
        nblocks = len(s["blocks"])
        for idx, (block_no, rows, started, ended) in enumerate(s["blocks"]):
            key = f"s{s['session_no']}/r{block_no}"
            all_row = next((r for r in rows if r["row_type"] == "ALL"), rows[0])
            spec = self.spec_for(s["session_no"], all_row.get("access_spec"))
            bs = rd = rnd = None
            if spec and len(spec["lines"]) == 1 and spec["lines"][0][1][1] == 100:
                bs, _, rd, rnd = spec["lines"][0][1][:4]
            qd, workers, outstanding = _load(rows, all_row)
            status = "complete"
            if ended is None:
                status = "unterminated"
            if idx == nblocks - 1 and s["status"] == "aborted":
                status = "aborted"
            res.runs.append(
                Run(
                    key=key,
                    tool=TOOL,
                    tool_version=s["version"],
                    started_at=started,
                    ended_at=ended,
                    workload=all_row.get("access_spec"),
                    description=s["test_description"],
                    status=status,
                    test_type=s["test_type_name"],
                    block_size_bytes=bs,
                    read_pct=rd,
                    random_pct=rnd,
                    queue_depth=qd,
                    workers=workers,
                    outstanding_ios=outstanding,
                )
            )
            for r in rows:
                self.add_samples(key, r)
        rows = [r for _, block, _, _ in s["blocks"] for r in block]
        self.session_rows(rows)
        self.result_rows += rows
        if len(self.result_rows) >= self.CHUNK:
            self.pack_results()
        s["n_blocks"], s["blocks"] = nblocks, []

    def session_rows(self, rows: list[dict]) -> None:
        """A finished session's rows, in file order (the instantaneous parser reads its intervals here)."""

    def pack_results(self) -> None:
        """The waiting iometer_results rows as one compressed Arrow batch (from_pylist takes the schema's keys)."""
        if self.result_rows:
            import pyarrow as pa

            self.results.append(pa.RecordBatch.from_pylist(self.result_rows, schema=results_schema()))
            self.result_rows = []

    def finish(self) -> ParseResult:
        res = self.result
        res.tool_version = next((s["version"] for s in self.sessions if s["version"]), None)
        res.tables["iometer_sessions"] = [
            {
                k: s[k]
                for k in (
                    "session_no",
                    "line_no",
                    "test_type",
                    "test_type_name",
                    "test_description",
                    "version",
                    "started_at",
                    "status",
                )
            }
            for s in self.sessions
        ]
        res.tables["iometer_access_specs"] = [
            {
                "session_no": sp["session_no"],
                "spec_block_no": sp["spec_block_no"],
                "spec_name": sp["spec_name"],
                "default_assignment": sp["default_assignment"],
                "line_no": ln,
                "size_bytes": v[0],
                "pct_of_size": v[1],
                "pct_reads": v[2],
                "pct_random": v[3],
                "delay_ms": v[4],
                "burst": v[5],
                "align_bytes": v[6],
                "reply_bytes": v[7],
            }
            for sp in self.specs
            for ln, v in sp["lines"]
        ]
        self.pack_results()
        res.tables["iometer_results"] = self.results
        res.tables["iometer_latency_bins"] = self.bins.table()
        return res

    def add_samples(self, key: str, r: dict) -> None:
        scope = ROW_SCOPES[r["row_type"]]
        target = None if scope == "all" else r["target_name"]
        skip = r.get("sentinel_cols", set())
        qd = r["outstanding"] if "outstanding" in r else None if "queue_depth" in skip else r.get("queue_depth")
        items = [
            (metric, v * factor, unit)
            for col, metric, unit, factor in METRICS
            if (v := r.get(col)) is not None and col not in skip
        ]
        for metric, dec, binary in MBPS:
            if dec in skip or binary in skip:
                continue
            if r.get(dec) is not None:
                items.append((metric, r[dec], "MB/s"))
            elif r.get(binary) is not None:
                items.append((metric, r[binary] * MB_PER_MIB, "MB/s"))
        self.result.add_many(key, scope, items, target=target, outstanding_ios=qd, line_no=r["line_no"])


def _names_carried(row: dict, prev: list[dict]) -> None:
    """The access spec, manager and worker a row belongs to: PROCESSOR and DISK rows leave the access
    spec empty, and a target row names neither its worker nor its manager (the rows above it do)."""
    row["access_spec"] = row.get("access_spec") or next(
        (r["access_spec"] for r in reversed(prev) if r.get("access_spec")), None
    )
    row_type = row["row_type"].strip()
    mgr = wkr = None
    for r in reversed(prev):
        if mgr is None and r["row_type"] == "MANAGER":
            mgr = r["target_name"]
        if wkr is None and r["row_type"] == "WORKER":
            wkr = r["target_name"]
    if row_type == "MANAGER":
        mgr, wkr = row["target_name"], None
    elif row_type == "WORKER":
        wkr = row["target_name"]
    elif row_type in ("ALL",):
        mgr = wkr = None
    row["manager_name"] = mgr if row_type != "ALL" else None
    row["worker_name"] = wkr if row_type in ("WORKER", "DISK", "NETWORK", "UNKNOWN") else None


def _own_qd(r: dict) -> int | None:
    return None if "queue_depth" in r.get("sentinel_cols", ()) else r.get("queue_depth")


def _load(rows: list[dict], all_row: dict) -> tuple[int | None, int | None, int | None]:
    """(queue depth per target, workers, total outstanding I/Os) of one result block.

    Iometer writes each target's own outstanding I/Os in its DISK (or NETWORK) row; the ALL, MANAGER
    and WORKER rows repeat one target's value, not the total. A worker's, manager's and the run's
    load is therefore the sum over its target rows (rows follow each other: MANAGER, WORKER, its
    targets, next WORKER...). Each summed row gets it as ``outstanding``; the run gets the ALL total.
    """
    groups: dict[str, dict | None] = {"ALL": None, "MANAGER": None, "WORKER": None}
    for r in rows:
        kind = r["row_type"]
        if kind in groups:
            groups[kind] = r
            if kind == "MANAGER":
                groups["WORKER"] = None
            r["outstanding"] = 0
        elif kind in ("DISK", "NETWORK"):
            own = _own_qd(r)
            for g in groups.values():
                if g is not None and "outstanding" in g:
                    g["outstanding"] = None if own is None or g["outstanding"] is None else g["outstanding"] + own
    for r in rows:  # a summary row without targets below it keeps what it says
        if r.get("outstanding") == 0:
            del r["outstanding"]
    targets = {_own_qd(r) for r in rows if r["row_type"] in ("DISK", "NETWORK")}
    qd = targets.pop() if len(targets) == 1 else None
    return qd, all_row.get("n_workers"), all_row.get("outstanding", _own_qd(all_row))


# what a summary row sums over its parts (Iometer's results: each MANAGER the WORKERs under it, the ALL row
# the MANAGERs, each WORKER its DISK or NETWORK targets): counts, summed exactly; rates, printed `%f`
SUMMED_COUNTS = ("read_ios", "write_ios", "bytes_read", "bytes_written", "errors", "read_errors", "write_errors")
SUMMED_RATES = (
    "iops",
    "read_iops",
    "write_iops",
    "mbps_binary",
    "read_mbps_binary",
    "write_mbps_binary",
    "mbps_decimal",
    "read_mbps_decimal",
    "write_mbps_decimal",
)
_PARENT = {"MANAGER": "ALL", "WORKER": "MANAGER", "DISK": "WORKER", "NETWORK": "WORKER"}


def check_block(rows: list[dict]) -> None:
    """A results block against itself: the ALL row is its MANAGERs summed, a MANAGER its WORKERs, a
    WORKER its targets (rows follow each other: MANAGER, its PROCESSORs, WORKER, its DISKs, next WORKER),
    I/O and byte counts exactly and the rates to their printed six decimals (a unit of each row's). A
    row deleted, repeated or edited leaves a sum the file does not state: refused at the summary row."""
    current: dict[str, dict | None] = {}
    parts: dict[int, list[dict]] = {}
    for r in rows:
        kind = r["row_type"]
        if (p := _PARENT.get(kind)) and (parent := current.get(p)) is not None:
            parts.setdefault(id(parent), []).append(r)
        if kind == "ALL":
            current = {"ALL": r}
        elif kind == "MANAGER":
            current.update(MANAGER=r, WORKER=None)
        elif kind == "WORKER":
            current["WORKER"] = r
    for r in rows:
        below = parts.get(id(r))
        if not below:
            continue
        what = f"{r['row_type']} row {r['target_name']!r}"
        for col in SUMMED_COUNTS + SUMMED_RATES:
            if r.get(col) is None or col in r["sentinel_cols"] or any(x.get(col) is None for x in below):
                continue
            total, said = sum(x[col] for x in below), f"{what}: {col} of the {len(below)} rows under it"
            if col in SUMMED_COUNTS:
                _checks.equal(r[col], total, said, r["line_no"])
            else:
                _checks.agree(
                    r[col], total, 1e-6 * (len(below) + 1), said, r["line_no"]
                )  # a unit of each's 6th decimal


_MARKERS = [
    ("'Version", _Parser.on_version),
    ("'Time Stamp", _Parser.on_time_stamp),
    ("'Access specifications", _Parser.on_specs),
    ("'End access specifications", _Parser.on_end_specs),
    ("'Access specification name", _Parser.on_spec_name),
    ("'size,% of size", _Parser.on_spec_lines),
    ("'Results", _Parser.on_results),
    ("'End Test", _Parser.on_end_test),
]


def parse(data: bytes, name: str) -> ParseResult:
    return _Parser(data, instantaneous=False).parse()
