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
Variants by version, and the test covering each: docs/formats/iozone.md.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..model import ParseError, ParseResult, Run, Runs, split_lines
from . import _text
from ._rows import Rows

FORMAT = "iozone-text"
VERSION = "1"
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

SNIFF_RULE = 'the banner "Iozone: Performance Test of File I/O" and a "kB reclen ..." column header'


def sniff(head: str, name: str) -> bool:
    return _BANNER in head and any(_HEADER2.match(line) for line in split_lines(head))


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
    res = ParseResult(runs=Runs())  # a run per cell: packed a chunk at a time
    rows = Rows(VALUES)  # packed past a chunk (formats/_rows.py)
    seen: set[tuple[int, int]] = set()  # (file kB, reclen kB) of the result lines
    cols: list[tuple[int, str]] | None = None
    unit = None
    started = None
    last = done = 0  # the last result line; the line of `iozone test complete.`
    first = next((i for i, line in enumerate(lines) if _BANNER in line), 0)  # a script's log may come before
    for ln, line in enumerate(lines[first:], start=first + 1):
        s = line.strip()
        if done:
            continue  # after `iozone test complete.`: a script's log, a prompt (said in the notes)
        if s == "iozone test complete.":
            done = ln
            continue
        if cols is None:
            if _HEADER2.match(line) and ln > 1:
                cols = [(at, "kB" if n == "KB" else n) for at, n in columns(lines[ln - 2], line)]
                if [c[1] for c in cols[:2]] != ["kB", "reclen"] or any(c[1] not in TESTS for c in cols[2:]):
                    raise ParseError(f"unknown IOzone column in the header: {[c[1] for c in cols]}", ln)
                continue
            if s:
                rows.append(_row(None, None, None, "(banner)", None, s, ln))
            m = re.search(r"Version \$Revision: ([\d.]+) \$", s)
            if m:
                res.tool_version = m.group(1)
            if m := _UNIT.search(s):
                unit = UNITS[m.group(1).lower()]
            if s.startswith("Run began:"):
                started = _when(s.removeprefix("Run began:").strip(), ln)
            continue
        if not s or not s[0].isdigit():
            continue
        if unit is None:
            raise ParseError(
                "the banner states no unit iolab reads ('Output is in kBytes/sec' or, with -O, 'operations "
                "per second'); -N 'microseconds per operation' is not read yet",
                ln,
            )
        _table_line(res, rows, _cells(line, cols, ln), unit, started, ln, seen)
        last = ln
    if not res.runs:
        raise ParseError("no IOzone result lines (kB reclen write ...) in the file")
    res.tables["iozone_values"] = rows.table()
    read = [n for n in range(first + 1, (done or last) + 1) if lines[n - 1].strip()]
    if note := _text.wrapped_note("IOzone", read, lines):
        res.notes.append(note)
    return res


def _table_line(res: ParseResult, rows: Rows, cells: dict[str, float], unit, started, ln: int, seen: set) -> None:
    kb, rec = cells.get("kB"), cells.get("reclen")
    if kb is None or rec is None or kb != int(kb) or rec != int(rec):
        raise ParseError("a result line needs whole numbers of kB and reclen first", ln)
    metric, u, factor = unit
    if (int(kb), int(rec)) in seen:  # its runs' keys would be those of the earlier line
        raise ParseError(f"a second result line for {int(kb)} kB files and {int(rec)} kB records", ln)
    seen.add((int(kb), int(rec)))
    for test, v in cells.items():
        if test in ("kB", "reclen"):
            continue
        key = f"{int(kb)}/{int(rec)}/{test}"
        read, rnd = TESTS[test]
        res.runs.append(
            Run(
                key,
                TOOL,
                res.tool_version,
                started_at=started,
                workload=f"{test} {int(kb)} kB file",
                status="complete",
                test_type=test,
                block_size_bytes=int(rec) * 1024,
                read_pct=read,
                random_pct=rnd,
                queue_depth=1,
                workers=1,
                outstanding_ios=1,
            )
        )
        rows.append(_row(key, int(kb), int(rec), test, v, None, ln))
        res.add(key, "all", metric, v * factor, u, line_no=ln)
        res.add(key, "all", f"{'read' if read else 'write'}_{metric}", v * factor, u, line_no=ln)


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
