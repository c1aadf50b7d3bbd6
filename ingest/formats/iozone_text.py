"""IOzone text output of auto mode (`iozone -a`, `-A`, or `-s/-r` single points): the results table.

Seen: IOzone 3.327 (`-U` remounts between tests: no line of its own), 3.434 and 3.465 (`Version
$Revision: 3.465 $`). A TAB-indented banner (`Run began:`, `Auto Mode`, `O_DIRECT feature enabled`,
`Command line used:`, `Output is in kBytes/sec`, 3.327: `Kbytes/sec`), then a
two-line header whose top words (`random`, `bkwd`, `record`, `stride`) sit over the test they
qualify (`random read`, `record rewrite`), then one line per file size and record size:
`kB reclen write rewrite read reread random read ... fread freread` (3.327: `KB reclen`), right-aligned under the
header. The file ends with `iozone test complete.`; a file cut short keeps the lines it has.

Each cell is one run: key `<file kB>/<reclen kB>/<test>`, test_type the test name, block size =
reclen x 1024 (IOzone kB are 1024 bytes), read % 100 for the read tests and 0 for the write
tests, random % 100 for random read/write, 0 for the sequential ones (write, rewrite, read,
reread, fwrite, frewrite, fread, freread) and none for bkwd read, record rewrite and stride read
(neither sequential nor random). Auto mode is one process issuing one read()/write() call at a
time: queue depth 1, workers 1, outstanding I/Os 1 (as the application issues them: buffered
writes may reach the device with more in flight; `-I` O_DIRECT is noted in the banner).
Throughput only: metrics `mbps` and `read_mbps`/`write_mbps` (kBytes/sec x 1024 / 10^6), or with
`-O` (`Output is in operations per second`) `iops` and `read_iops`/`write_iops`. IOzone prints no
latency in this table. A file whose banner states neither unit is rejected: the numbers would be
ambiguous. Every cell and banner line is kept in `iozone_values`. Throughput mode (`-t`) has no
such table and is not read.

`-R` (iozone.c dump_excel, dump_report; the same from 3.414 to 3.489 but for casts and indentation)
prints the same cells again after `iozone test complete.` and `Excel output is below:`: a quoted
report name per test (`"Writer report"`), a line of quoted record sizes, then a row per file size
(`"64"   695778  1204796 ...`), the 32 MB+ rows of auto mode starting with dummy zeros for the record
sizes it skips past its crossover (not measurements). Where the table is there too, each report
cell must equal the table's (checked); saved on its own (no banner), the reports are the runs, in
IOzone's default unit, kBytes/sec, which only the banner states (said in the notes: -O would write
operations per second in the same layout). `-+u` adds a CPU utilization report per test (%, zeros
not values): each run's cpu_util_pct.
Variants by version, and the test covering each: docs/formats/iozone.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..model import ParseError, ParseResult, Run, Runs, split_lines
from . import _checks, _text
from ._rows import Rows

FORMAT = "iozone-text"
VERSION = "2"
TOOL = "iozone"
_BANNER = "Iozone: Performance Test of File I/O"
_HEADER2 = re.compile(r"^\s*[kK]B\s+reclen\s+\S")  # 3.327 and older print `KB`, newer `kB`
# test -> (read %, random %)
TESTS = {
    "write": (0.0, 0.0),
    "rewrite": (0.0, 0.0),
    "read": (100.0, 0.0),
    "reread": (100.0, 0.0),
    "random read": (100.0, 100.0),
    "random write": (0.0, 100.0),
    "bkwd read": (100.0, None),
    "record rewrite": (0.0, None),
    "stride read": (100.0, None),
    "fwrite": (0.0, 0.0),
    "frewrite": (0.0, 0.0),
    "fread": (100.0, 0.0),
    "freread": (100.0, 0.0),
}
UNITS = {
    "kbytes/sec": ("mbps", "MB/s", 1024 / 1e6),  # `kBytes/sec` (3.4xx), `Kbytes/sec` (3.327 and older)
    "operations per second": ("iops", "IO/s", 1.0),  # -O: `OPS Mode. Output is in operations per second.`
}
_UNIT = re.compile(r"Output is in (kbytes/sec|operations per second)\.?$", re.I)


# iozone_values (schemas/V056__iozone.sql), as Rows packs it
VALUES = {
    "run_key": "str",
    "file_kb": "i64",
    "reclen_kb": "i64",
    "column_name": "str",
    "value": "f64",
    "text": "str",
    "line_no": "i32",
}

SNIFF_RULE = (
    'the banner "Iozone: Performance Test of File I/O" and a "kB reclen ..." column header, or (-R saved on '
    'its own) a quoted report name ("Writer report") over a line of quoted record sizes'
)
# -R (dump_excel, dump_report in iozone.c): a quoted report name, a line of quoted record sizes (kB), then per
# file size `"64"   695778  1204796 ...` (kB/s, or ops/s under -O, `%lld`); with -+u the CPU reports (`%6.2f`)
EXCEL = {
    "Writer": "write",
    "Re-writer": "rewrite",
    "Reader": "read",
    "Re-Reader": "reread",
    "Random read": "random read",
    "Random write": "random write",
    "Backward read": "bkwd read",
    "Record rewrite": "record rewrite",
    "Stride read": "stride read",
    "Fwrite": "fwrite",
    "Re-Fwrite": "frewrite",
    "Fread": "fread",
    "Re-Fread": "freread",
}
_EXCEL_HEAD = re.compile(
    r'^"(?P<name>[A-Za-z -]+?)(?P<cpu> CPU utilization)? report(?: \(Zero values should be ignored\))?"\s*$'
)
_EXCEL_SIZES = re.compile(r'^\s*(?:"\d+"\s*)+$')


def sniff(head: str, name: str) -> bool:
    lines = split_lines(head)
    if _BANNER in head:
        return any(_HEADER2.match(line) for line in lines)
    return any(_EXCEL_HEAD.match(a) and _EXCEL_SIZES.match(b) for a, b in zip(lines, lines[1:]))


def columns(top: str, bottom: str) -> list[tuple[int, str]]:
    """(end position, name) of each column: a top word joins the bottom word it overlaps."""
    tops = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", top)]
    out = []
    for m in re.finditer(r"\S+", bottom):
        over = [w for s, e, w in tops if min(e, m.end()) > max(s, m.start())]
        out.append((m.end(), " ".join(over + [m.group()])))
    return out


def _cells(line: str, cols: list[tuple[int, str]], ln: int) -> dict[str, float]:
    """Numbers of a table line by column: in order when all are there, else by right edge."""
    toks = [(m.end(), m.group()) for m in re.finditer(r"\S+", line)]
    if len(toks) == len(cols):
        pairs = [(name, t) for (_, name), (_, t) in zip(cols, toks)]
    else:
        pairs = []
        for end, t in toks:
            col = min(cols, key=lambda c: abs(c[0] - end))
            if abs(col[0] - end) > 2 or any(n == col[1] for n, _ in pairs):
                raise ParseError(f"value {t!r} sits under no column of the header", ln)
            pairs.append((col[1], t))
    out: dict[str, float] = {}
    for name, t in pairs:
        try:
            out[name] = float(t)
        except ValueError:
            raise ParseError(f"column {name!r}: {t!r} is not a number", ln) from None
        if out[name] != out[name] or abs(out[name]) == float("inf"):
            raise ParseError(f"column {name!r}: {t!r} is not a finite number", ln)
    return out


def parse(data: bytes, name: str) -> ParseResult:
    lines = split_lines(_text.decode(data))
    first = next((i for i, line in enumerate(lines) if _BANNER in line), None)  # a script's log may come before
    if first is None and (excel := _excel_at(lines, 0)) is not None:
        return _excel_only(lines, excel)
    t = _Table(lines, first or 0)
    t.read()
    res = t.res
    if not res.runs:
        raise ParseError("no IOzone result lines (kB reclen write ...) in the file")
    read = [n for n in range(t.first + 1, (t.done or t.last) + 1) if lines[n - 1].strip()]
    if t.done and (excel := _excel_at(lines, t.done)) is not None:  # -R: the same cells again, after the table
        cells, end = excel_cells(lines, excel)
        _check_excel(t, cells)
        read += [n for n in range(t.done + 1, end + 1) if lines[n - 1].strip()]  # `Excel output is below:` too
    res.tables["iozone_values"] = t.rows.table()
    if note := _text.wrapped_note("IOzone", read, lines):
        res.notes.append(note)
    return res


class _Table:
    """The banner and the auto-mode table, line by line, into runs, samples and iozone_values."""

    def __init__(self, lines: list[str], first: int):
        self.lines, self.first = lines, first
        self.res = ParseResult(runs=Runs())  # a run per cell: packed a chunk at a time
        self.rows = Rows(VALUES)  # packed past a chunk (formats/_rows.py)
        self.seen: dict[str, tuple[float, int]] = {}  # run key -> (value as written, line)
        self.cols: list[tuple[int, str]] | None = None
        self.unit: tuple[str, str, float] | None = None
        self.started: datetime | None = None
        self.last = self.done = 0  # the last result line; the line of `iozone test complete.`

    def read(self) -> None:
        for ln, line in enumerate(self.lines[self.first :], start=self.first + 1):
            s = line.strip()
            if s == "iozone test complete.":
                self.done = ln
                return  # after it: the -R reports, a script's log, a prompt (said in the notes)
            if self.cols is None:
                self.banner(line, s, ln)
            elif s and s[0].isdigit():
                if self.unit is None:
                    raise ParseError(
                        "the banner states no unit iolab reads ('Output is in kBytes/sec' or, with -O, 'operations "
                        "per second'); -N 'microseconds per operation' is not read yet",
                        ln,
                    )
                _table_line(self, _cells(line, self.cols, ln), ln)
                self.last = ln

    def banner(self, line: str, s: str, ln: int) -> None:
        if _HEADER2.match(line) and ln > 1:
            self.cols = [(at, "kB" if n == "KB" else n) for at, n in columns(self.lines[ln - 2], line)]
            if [c[1] for c in self.cols[:2]] != ["kB", "reclen"] or any(c[1] not in TESTS for c in self.cols[2:]):
                raise ParseError(f"unknown IOzone column in the header: {[c[1] for c in self.cols]}", ln)
            return
        if s:
            self.rows.append(_row(None, None, None, "(banner)", None, s, ln))
        if m := re.search(r"Version \$Revision: ([\d.]+) \$", s):
            self.res.tool_version = m.group(1)
        if m := _UNIT.search(s):
            self.unit = UNITS[m.group(1).lower()]
        if s.startswith("Run began:"):
            self.started = _when(s.removeprefix("Run began:").strip(), ln)

    def cell(self, kb: int, rec: int, test: str, v: float, ln: int) -> None:
        """One measurement: its run, its row in iozone_values and its samples."""
        key = f"{kb}/{rec}/{test}"
        if key in self.seen:  # its run's key would be the earlier one's
            raise ParseError(f"a second {test} result for {kb} kB files and {rec} kB records", ln)
        self.seen[key] = (v, ln)
        read, rnd = TESTS[test]
        self.res.runs.append(
            Run(
                key,
                TOOL,
                self.res.tool_version,
                started_at=self.started,
                workload=f"{test} {kb} kB file",
                status="complete",
                test_type=test,
                block_size_bytes=rec * 1024,
                read_pct=read,
                random_pct=rnd,
                queue_depth=1,
                workers=1,
                outstanding_ios=1,
            )
        )
        self.rows.append(_row(key, kb, rec, test, v, None, ln))
        assert self.unit is not None
        metric, u, factor = self.unit
        self.res.add(key, "all", metric, v * factor, u, line_no=ln)
        self.res.add(key, "all", f"{'read' if read else 'write'}_{metric}", v * factor, u, line_no=ln)


def _table_line(t: _Table, cells: dict[str, float], ln: int) -> None:
    kb, rec = cells.get("kB"), cells.get("reclen")
    if kb is None or rec is None or kb != int(kb) or rec != int(rec):
        raise ParseError("a result line needs whole numbers of kB and reclen first", ln)
    for test, v in cells.items():
        if test not in ("kB", "reclen"):
            t.cell(int(kb), int(rec), test, v, ln)


@dataclass
class ExcelCell:
    """One value of a -R report: the test, file size and record size (kB) it is of, and where."""

    test: str
    file_kb: int
    reclen_kb: int
    value: float
    cpu: bool  # a CPU utilization report's (-+u: %), not a throughput
    line: int


def _excel_at(lines: list[str], start: int) -> int | None:
    """The index of the first -R report heading at or after ``start`` (None: there is none)."""
    return next(
        (i for i in range(start, len(lines) - 1) if _EXCEL_HEAD.match(lines[i]) and _EXCEL_SIZES.match(lines[i + 1])),
        None,
    )


def excel_cells(lines: list[str], i: int) -> tuple[list[ExcelCell], int]:
    """Every cell of the -R reports from line index ``i`` on, and the line its last row is on. A row
    lists the record sizes from the smallest, as far as the file size allows; in auto mode the record
    sizes IOzone skips for files past its crossover (16 MB) are dummy zeros first in the row (iozone.c
    auto_test), not measurements: left out. Zeros in the CPU reports are not values either (their title
    says so)."""
    cells: list[ExcelCell] = []
    last = i
    while (i := _excel_at(lines, i) or -1) >= 0:
        m = _EXCEL_HEAD.match(lines[i])
        assert m is not None
        test = EXCEL.get(m.group("name"))
        if test is None:
            raise ParseError(f"IOzone report {m.group('name')!r} is not one iolab reads ({', '.join(EXCEL)})", i + 1)
        sizes = [int(x) for x in re.findall(r'"(\d+)"', lines[i + 1])]
        i += 2
        while i < len(lines) and (row := re.match(r'^"(\d+)"\s+(.*?)\s*$', lines[i])):
            cells += _excel_row(test, bool(m.group("cpu")), sizes, int(row.group(1)), row.group(2).split(), i + 1)
            last, i = i + 1, i + 1
    return cells, last


def _excel_row(test: str, cpu: bool, sizes: list[int], kb: int, toks: list[str], ln: int) -> list[ExcelCell]:
    if len(toks) > len(sizes):
        raise ParseError(f"{len(toks)} values for the report's {len(sizes)} record sizes", ln)
    out: list[ExcelCell] = []
    for rec, tok in zip(sizes, toks):
        v = _text.number(tok, f"{test} {kb} kB file, {rec} kB records", ln)
        if v is None or (v == 0 and (cpu or not out)):
            continue
        out.append(ExcelCell(test, kb, rec, v, cpu, ln))
    return out


def _excel_only(lines: list[str], start: int) -> ParseResult:
    """A -R report saved on its own: the cells are the runs. It states no unit: IOzone's default,
    kBytes/sec, is read (with -O they would be operations per second: keep the banner to say so)."""
    t = _Table(lines, start)
    t.unit = UNITS["kbytes/sec"]
    cells, end = excel_cells(lines, start)
    for c in cells:
        if not c.cpu:
            t.cell(c.file_kb, c.reclen_kb, c.test, c.value, c.line)
    _cpu_samples(t, cells)
    if not t.res.runs:
        raise ParseError("the IOzone -R reports hold no value", start + 1)
    t.res.tables["iozone_values"] = t.rows.table()
    t.res.notes.append(
        "an IOzone -R report without its banner, which states the unit: read as IOzone's default, kBytes/sec "
        "(a run with -O writes operations per second in the same layout)"
    )
    own = ("iozone test complete.", "Excel output is below:")  # IOzone's lines before the reports
    read = [n for n in range(1, end + 1) if (n > start and lines[n - 1].strip()) or lines[n - 1].strip() in own]
    if note := _text.wrapped_note("IOzone", read, lines):
        t.res.notes.append(note)
    return t.res


def _check_excel(t: _Table, cells: list[ExcelCell]) -> None:
    """The -R reports after the table print the same measurements again (report_array): each equal to
    the table's, and none the table lacks."""
    for c in cells:
        if c.cpu:
            continue
        key = f"{c.file_kb}/{c.reclen_kb}/{c.test}"
        if key not in t.seen:
            raise ParseError(
                f"the -R report states a {c.test} result for {key.rsplit('/', 1)[0]} kB that the table lacks", c.line
            )
        _checks.equal(
            c.value,
            t.seen[key][0],
            f"{c.test} of {c.file_kb} kB files, {c.reclen_kb} kB records: -R report, table (line {t.seen[key][1]})",
            c.line,
        )
    _cpu_samples(t, cells)


def _cpu_samples(t: _Table, cells: list[ExcelCell]) -> None:
    """-+u: each run's CPU utilization (%), from the CPU reports, and their cells in iozone_values."""
    for c in cells:
        key = f"{c.file_kb}/{c.reclen_kb}/{c.test}"
        if c.cpu and key in t.seen:
            t.rows.append(_row(key, c.file_kb, c.reclen_kb, f"{c.test} cpu%", c.value, None, c.line))
            t.res.add(key, "all", "cpu_util_pct", c.value, "%", line_no=c.line)


def _row(key, kb, rec, col, value, text, ln) -> dict:
    return {
        "run_key": key,
        "file_kb": kb,
        "reclen_kb": rec,
        "column_name": col,
        "value": value,
        "text": text,
        "line_no": ln,
    }


def _when(text: str, ln: int) -> datetime | None:
    try:
        return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")
    except ValueError:
        raise ParseError(f"Run began: {text!r} is not a date", ln) from None
