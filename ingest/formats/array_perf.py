"""Storage Manager / Dell MDSM array performance statistics (the array's own per-volume counters).

Two dialects, both CSV, both one block per controller then a row per volume:

* ``monitor``: "Save Performance Statistics" of the Performance Monitor (IBM DS Storage Manager,
  SANtricity, Dell MDSM; also ``SMcli -c "show allVirtualDisks performanceStats;"``). A title
  "Performance Monitor Statistics for Storage Array|Subsystem: <name>" (one line with " - Date/Time: ...
  - Polling interval in seconds: N", or three lines), a header (one row, or two rows split as
  "Total,Read,..." / "IOs,Percentage,..."), then per "Capture Iteration: N" a "Date/Time:" row and rows
  "CONTROLLER IN SLOT A|0", "Virtual Disk|Logical Drive|Volume <name>", "STORAGE ARRAY|SUBSYSTEM TOTALS"
  with Total IOs, Read %, Cache Hit %, Current KB/s, Maximum KB/s, Current IO/s, Maximum IO/s.
  No public saved file was found: the structure is the one printed in SMcli documentation and users'
  notes; tests use a hand-made fixture (tests/fixtures/array-perf/handmade-*).
* ``counters``: performanceStatistics.csv of a Dell MD support bundle (real files from an MD3000i and an
  MD3200i): "<array>, Slot N" then "virtual disk,Time, Total Requests Serviced, Total Blocks
  Requested, ..., Total Cache Read Checks, Total Cache Read Check Hits, ..." and a row per virtual disk
  owned by that controller, or "No Performance data to gather". Cumulative counters since the
  controller's last reset, printed as signed 32-bit integers: a negative count has wrapped, so it is
  missing (None) in samples (kept as written in the tool table); with no interval, no rate is derived.

Every cell is kept in array_perf_values (long form: one row per object and column, as written).
Samples (scope 'volume', target = the volume's name; the array totals as scope 'all'): monitor ``ios``,
``read_pct``, ``cache_hit_pct``, ``iops``, ``max_iops``, ``mbps``, ``max_mbps``; counters ``ios``,
``read_ios``, ``write_ios``, ``read_pct`` (a sample is a number the file prints: the read cache hit
ratio, Total Cache Read Check Hits / Total Cache Read Checks, is left to queries over array_perf_values).
KB/second: Storage Manager's KB is 2^10 bytes, so MB/s (10^6 B/s) = KB/s x 1024 / 10^6 = x 0.001024.
Controller rows stay in the tool table only (no controller scope in samples).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from itertools import chain

from ..model import ParseError, ParseResult, Run, decode_text, parse_float, split_lines
from ._rows import Rows

FORMAT = "array-perf-stats"
VERSION = "1"
# array_perf_values (schemas/V031__array_perf.sql), as Rows packs it
VALUES = dict.fromkeys(
    ("dialect", "captured_at_text", "controller", "object_kind", "object_name", "column_name", "value_text"), "str"
) | {"iteration": "i32", "line_no": "i32"}
KB_PER_S_TO_MBPS = 1024 / 1_000_000  # SANtricity/MDSM KB = 2^10 bytes; MB/s = 10^6 bytes/s

_TITLE = re.compile(r"^Performance Monitor Statistics for Storage (?:Array|Subsystem):\s*(.*?)\s*$", re.IGNORECASE)
_SLOT = re.compile(r"^(.+?),\s*(Slot \w+)\s*$")
_COUNTER_HEAD = re.compile(
    r"^(virtual disk|volume|logical drive)\s*,\s*Time\s*,\s*Total Requests Serviced", re.IGNORECASE
)
_OBJECT = re.compile(r"^(Virtual Disk|Logical Drive|Volume)\s+(.+?)\s*$", re.IGNORECASE)
_CONTROLLER = re.compile(r"^CONTROLLER IN SLOT\s+(\w+)\s*$", re.IGNORECASE)
_TOTALS = re.compile(r"^STORAGE (ARRAY|SUBSYSTEM) TOTALS\s*$", re.IGNORECASE)
MONITOR_COLUMNS = [
    "Total IOs",
    "Read Percentage",
    "Cache Hit Percentage",
    "Current KB/second",
    "Maximum KB/second",
    "Current IO/second",
    "Maximum IO/second",
]
_MONITOR_METRICS = [
    ("ios", "count", 1.0),
    ("read_pct", "%", 1.0),
    ("cache_hit_pct", "%", 1.0),
    ("mbps", "MB/s", KB_PER_S_TO_MBPS),
    ("max_mbps", "MB/s", KB_PER_S_TO_MBPS),
    ("iops", "IO/s", 1.0),
    ("max_iops", "IO/s", 1.0),
]


SNIFF_RULE = 'a first line "Performance Monitor Statistics for Storage Array|Subsystem: <name>", or "<array>, Slot N" followed by a "virtual disk|volume|logical drive,Time,Total Requests Serviced" header'


def sniff(head: str, name: str) -> bool:
    lines = [l.strip().strip('"').strip() for l in split_lines(head[:4096])[:3]]
    if lines and _TITLE.match(lines[0]):
        return True
    return len(lines) >= 2 and bool(_SLOT.match(lines[0])) and bool(_COUNTER_HEAD.match(lines[1]))


def parse(data: bytes, name: str) -> ParseResult:
    rows = _rows(decode_text(data).lstrip("\ufeff"))
    first = next(rows, None)
    if first is None:
        raise ParseError("empty file")
    if _TITLE.match(first[1][0]):
        res = _Monitor(first).parse(rows)
    elif _SLOT.match(",".join(first[1])):
        res = _counters(first, rows)
    else:
        raise ParseError(
            "neither a 'Performance Monitor Statistics for Storage Array' title nor an '<array>, Slot N' "
            "block opens the file",
            first[0],
        )
    if not any(s.scope == "volume" for s in res.samples):
        raise ParseError("no volume rows with numbers: the file holds no statistics")
    if isinstance(values := res.tables.get("array_perf_values"), Rows):
        res.tables["array_perf_values"] = values.table()
    return res


def _rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, stripped cells) of each row that is not blank, read as they are needed."""
    reader = csv.reader(split_lines(text))
    try:
        for ln, cells in enumerate(reader, start=1):
            cells = [c.strip() for c in cells]
            if any(cells):
                yield ln, cells
    except csv.Error as e:
        raise ParseError(f"not readable as CSV ({e})", reader.line_num) from None


def _value(res: ParseResult, **row) -> None:
    if "array_perf_values" not in res.tables:
        res.tables["array_perf_values"] = Rows(VALUES)  # packed past a chunk (formats/_rows.py)
    res.tables["array_perf_values"].append(row)


class _Monitor:
    """The Performance Monitor's saved CSV: iterations of controller / volume / totals rows."""

    def __init__(self, first: tuple[int, list[str]]):
        self.first = first
        self.res = ParseResult(tool_version=None)
        self.capture = {
            "dialect": "monitor",
            "array_name": None,
            "title_text": first[1][0],
            "captured_at_text": None,
            "polling_interval_s": None,
            "line_no": first[0],
        }
        self.iteration: int | None = None
        self.captured_at: str | None = None
        self.controller: str | None = None
        self.header_ok = False

    def parse(self, rest: Iterator[tuple[int, list[str]]]) -> ParseResult:
        self._title(self.first[1][0])
        for ln, cells in rest:
            self._row(ln, cells)
        self.res.tables["array_perf_captures"] = [self.capture]
        return self.res

    def _title(self, title: str) -> None:
        parts = [p.strip() for p in _TITLE.match(title).group(1).split(" - ")]
        self.capture["array_name"] = parts[0]
        for p in parts[1:]:
            self._setting(p)

    def _setting(self, text: str) -> bool:
        key, _, val = text.partition(":")
        if key.strip() == "Date/Time":
            if self.iteration is None:
                self.capture["captured_at_text"] = val.strip()
            self.captured_at = val.strip()
            return True
        if key.strip() == "Polling interval in seconds":
            self.capture["polling_interval_s"] = parse_float(val, "polling interval", self.capture["line_no"])
            return True
        return False

    def _row(self, ln: int, cells: list[str]) -> None:
        first, nums = cells[0], [c for c in cells[1:]]
        if self._setting(first):
            return
        m = re.match(r"^Capture Iteration:\s*(\d+)$", first)
        if m:
            self.iteration, self.controller = int(m.group(1)), None
            run = Run(
                key=f"iteration{self.iteration}",
                tool="Storage Manager Performance Monitor",
                workload="array performance statistics",
                status="complete",
                description=f"{self.capture['array_name']}: capture iteration {self.iteration}",
            )
            self.res.runs.append(run)
            return
        if self._header(ln, cells):
            return
        if self.iteration is None or not self.header_ok:
            raise ParseError(f"row {first!r} before the column header and the first 'Capture Iteration' row", ln)
        self._data(ln, first, nums)

    def _header(self, ln: int, cells: list[str]) -> bool:
        """One header row, or two ("Total,Read,..." over ",IOs,Percentage,..."): checked against MONITOR_COLUMNS."""
        first = cells[0].lower()
        if first.startswith(("storage arrays", "storage subsystems")):
            self.top = [c.strip() for c in cells[1 : len(MONITOR_COLUMNS) + 1]]
            names = self.top
            if len(self.top) == len(MONITOR_COLUMNS) and self.top[0].lower() == "total":
                return True  # the second row completes it
        elif first == "" and getattr(self, "top", None):
            names = [f"{a} {b}" for a, b in zip(self.top, cells[1 : len(MONITOR_COLUMNS) + 1])]
        else:
            return False
        if [n.lower() for n in names] != [c.lower() for c in MONITOR_COLUMNS]:
            raise ParseError(f"unexpected columns {names}: expected {MONITOR_COLUMNS}", ln)
        self.header_ok = True
        return True

    def _data(self, ln: int, first: str, nums: list[str]) -> None:
        ctl, obj, tot = _CONTROLLER.match(first), _OBJECT.match(first), _TOTALS.match(first)
        if ctl:
            self.controller, kind, obj_name = f"Slot {ctl.group(1)}", "controller", first
        elif tot:
            kind, obj_name = "totals", first
        elif obj:
            kind, obj_name = "volume", obj.group(2)
        else:
            raise ParseError(f"row {first!r} is neither a controller, a volume nor the totals", ln)
        if nums and nums[-1] == "" and len(nums) == len(MONITOR_COLUMNS) + 1:
            nums = nums[:-1]  # IBM saves end every row with a comma
        if len(nums) != len(MONITOR_COLUMNS):
            raise ParseError(f"{first!r} has {len(nums)} values, the header {len(MONITOR_COLUMNS)}", ln)
        key = f"iteration{self.iteration}"
        scope = {"volume": "volume", "totals": "all"}.get(kind)
        for col, text, (metric, unit, factor) in zip(MONITOR_COLUMNS, nums, _MONITOR_METRICS):
            _value(
                self.res,
                dialect="monitor",
                iteration=self.iteration,
                captured_at_text=self.captured_at,
                controller=self.controller if kind != "totals" else None,
                object_kind=kind,
                object_name=obj_name,
                column_name=col,
                value_text=text,
                line_no=ln,
            )
            v = parse_float(text, col, ln)
            if scope and v is not None:
                self.res.add(
                    key, scope, metric, v * factor, unit, target=obj_name if scope == "volume" else None, line_no=ln
                )


def _counters(first: tuple[int, list[str]], rest: Iterator[tuple[int, list[str]]]) -> ParseResult:
    """A support bundle's performanceStatistics.csv: cumulative counters per controller block."""
    res = ParseResult(tool_version=None)
    array, controller, header, seen = None, None, None, set()
    res.runs.append(
        Run(
            key="counters",
            tool="Storage Manager performanceStatistics",
            status="complete",
            workload="array cumulative counters",
        )
    )
    for ln, cells in chain([first], rest):
        slot = _SLOT.match(",".join(cells))
        if slot and len(cells) == 2:
            array, controller, header = slot.group(1), slot.group(2), None
            continue
        if _COUNTER_HEAD.match(",".join(cells)):
            header = cells
            continue
        if header is None:
            if cells[0].startswith("No Performance data"):
                _value(
                    res,
                    dialect="counters",
                    iteration=None,
                    captured_at_text=None,
                    controller=controller,
                    object_kind="controller",
                    object_name=array,
                    column_name="note",
                    value_text=cells[0],
                    line_no=ln,
                )
                continue
            raise ParseError(f"row {cells[0]!r} before a 'virtual disk,Time,...' header", ln)
        if len(cells) != len(header):
            raise ParseError(f"row has {len(cells)} fields, the header has {len(header)}", ln)
        _counter_row(res, dict(zip(header, cells)), header, controller, ln, seen)
    res.tables["array_perf_captures"] = [
        {
            "dialect": "counters",
            "array_name": array,
            "title_text": None,
            "captured_at_text": None,
            "polling_interval_s": None,
            "line_no": first[0],
        }
    ]
    return res


def _counter_row(res: ParseResult, row: dict, header: list[str], controller: str, ln: int, seen: set) -> None:
    name, time = row[header[0]], row["Time"]
    if name in seen:
        raise ParseError(f"virtual disk {name!r} appears twice", ln)
    seen.add(name)
    for col in header[2:]:
        _value(
            res,
            dialect="counters",
            iteration=None,
            captured_at_text=time,
            controller=controller,
            object_kind="volume",
            object_name=name,
            column_name=col,
            value_text=row[col],
            line_no=ln,
        )

    def count(col: str) -> float | None:
        v = parse_float(row.get(col, ""), col, ln)
        return v if v is not None and v >= 0 else None  # negative: a wrapped signed 32-bit counter

    for metric, unit, v in [
        ("ios", "count", count("Total Requests Serviced")),
        ("read_ios", "count", count("Total Read Requests")),
        ("write_ios", "count", count("Total Write Requests")),
        ("read_pct", "%", count("Total Percent Read Requests")),
    ]:
        res.add("counters", "volume", metric, v, unit, target=name, line_no=ln)
