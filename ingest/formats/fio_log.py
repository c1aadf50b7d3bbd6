"""fio per-job logs: `<prefix>_bw.N.log`, `_iops.N.log`, `_lat.N.log`, `_clat.N.log`, `_slat.N.log`
(write_bw_log, write_iops_log, write_lat_log) and `_clat_hist.N.log` (write_hist_log).

Value logs: one row per sample, `msec, value, ddir, bs[, offset][, prio]` with `, ` between
fields (fio 2.x to 3.x; newer fio adds a priority column, log_offset an offset column). msec is
time since the job started; ddir 0 read, 1 write, 2 trim. With log_avg_msec the value is the
interval's average and bs is 0. Every row is one sample (its time in series_samples.ts_text,
`<msec> ms`: there is no wall-clock time) of one series per direction; columns after ddir
(bs, offset, priority) are not kept.

The five logs look alike, so the file name's suffix says which one a file is (as for ORION
matrices; with per_job_logs=0 fio leaves out the job index: `<prefix>_bw.log`): `_bw.` is KiB/s (stored as MB/s, x1024/1e6), `_iops.` IO/s. Latency logs carry no unit:
fio 3.x writes ns and fio 2.x usec, and the file does not say which fio wrote it, so their series
keep the values as written with metric `<dir>_<lat|clat|slat>_raw` and no unit (series.unit NULL);
the counter name says "ns in fio 3.x, usec in fio 2.x". The view series_unit_resolution
(schemas/views/085_unresolved_units.sql) settles the unit from a fio JSON or terse result in the
same folder, or says what each such series waits for.

Histogram logs: `msec, ddir, bs, <bin counts>`: 1216 bins is fio 2.x's layout (usec), 1856
fio 3.x's (ns), so here the bin count does tell the unit. Stored long-form in fio_hist_log,
nonzero bins only, with fio's representative latency of each bin.
"""

from __future__ import annotations

import re
from typing import Any

from ..model import ParseError, ParseResult, Run, Series, decode_text, split_lines
from . import _fio
from ._rows import Rows

# What settles the unit of a latency log's bare numbers: the fio version a result file in the same
# folder states (fio commit d6bb626e, June 2017, after fio-2.20: completion latency in ns).
# (companion format, first version, last version, unit, milliseconds per unit); versions between
# the ranges (2.21 to 2.99) settle nothing. Installed as the table series_unit_rules.
UNIT_RULES = [
    (companion, first, last, unit, to_ms)
    for companion in ("fio-json", "fio-terse")
    for first, last, unit, to_ms in (((0, 0), (2, 20), "us", 1e-3), ((3, 0), (999, 999), "ns", 1e-6))
]
UNIT_NOTE = (
    "fio 3.x logs latency in ns, fio 2.20 and earlier in usec; the releases between, 2.21 to 2.99, settle nothing"
)

FORMAT = "fio-log"
VERSION = "1"
_NAME = re.compile(r"(?P<prefix>.*?)_(?P<kind>bw|iops|lat|clat|slat|clat_hist|lat_hist)(?:\.\d+)?\.log$", re.I)
_ROW = re.compile(r"^\d+(?:, *-?(?:\d+(?:\.\d*)?|0x[0-9a-f]+))+$", re.I)
HIST_BINS = {1216: "us", 1856: "ns"}  # FIO_IO_U_PLAT_GROUP_NR 19 (2.x) / 29 (3.x) x 64
DIRS = {0: "read", 1: "write", 2: "trim"}
KINDS = {
    "bw": ("mbps", "MB/s", 1024 / 1e6, "bandwidth (KiB/s in the file, stored as MB/s)"),
    "iops": ("iops", "IO/s", 1.0, "IOPS"),
}


SNIFF_RULE = "the first five rows are all 'time, value, direction, block size[, ...]' numbers"


def sniff(head: str, name: str) -> bool:
    lines = split_lines(head)
    if lines and not head.endswith(("\n", "\r")):
        lines.pop()  # the head may cut the last line short
    rows = [x.strip() for x in lines if x.strip()][:5]
    if not rows or not all(_ROW.match(r) for r in rows):
        return False
    cols = rows[0].count(",") + 1
    return 3 <= cols <= 7 or cols - 3 in HIST_BINS or bool(_NAME.search(name))


def _kind(name: str) -> tuple[str, str]:
    m = _NAME.search(name)
    if not m:
        raise ParseError(
            f"cannot tell which fio log this is: the name {name!r} should end in _bw.N.log, _iops.N.log, "
            "_lat.N.log, _clat.N.log, _slat.N.log or _clat_hist.N.log as fio writes it, or without the .N "
            "(per_job_logs=0): rename it back"
        )
    return m.group("kind").lower(), m.group("prefix").split("__")[-1]


def _cells(line: str, ln: int) -> list[int | float]:
    try:
        return [float(c) if "." in c else int(c, 0) for c in (c.strip() for c in line.split(","))]
    except ValueError:
        raise ParseError(f"expected comma-separated numbers, found {line[:60]!r}", ln) from None


def parse(data: bytes, name: str) -> ParseResult:
    kind, prefix = _kind(name)
    lines = split_lines(decode_text(data))
    res = ParseResult()
    res.runs.append(Run(key="log", tool="fio", workload=prefix or None, test_type=f"log:{kind}", status="complete"))
    if kind.endswith("_hist"):
        res.tables["fio_hist_log"] = _hist(lines)
        return res
    series: dict[int, Series] = {}
    keys, nos, vals, samples = [], [], [], []
    for ln, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        cells = _cells(line, ln)
        if not 2 <= len(cells) <= 7:
            raise ParseError(f"a fio {kind} log row has 2 to 7 fields, this one has {len(cells)}", ln)
        ddir = int(cells[2]) if len(cells) > 2 else 0
        if ddir not in series:
            series[ddir] = _series(len(series), kind, ddir)
        samples.append({"sample_no": len(samples), "ts": None, "ts_text": f"{cells[0]} ms"})
        keys.append(series[ddir].key)
        nos.append(len(samples) - 1)
        vals.append(cells[1] * (KINDS[kind][2] if kind in KINDS else 1.0))
    if not samples:
        raise ParseError(f"the fio {kind} log has no rows")
    res.set_series(list(series.values()), keys, nos, vals, samples)
    return res


def _series(key: int, kind: str, ddir: int) -> Series:
    d = DIRS.get(ddir, f"ddir{ddir}")
    if kind in KINDS:
        metric, unit, _, counter = KINDS[kind]
        return Series(key, f"{d} {kind}", None, "fio job log", d, counter, f"{d}_{metric}", unit, d)
    counter = f"{kind} latency (ns in fio 3.x, usec in fio 2.x: the file does not say)"
    return Series(key, f"{d} {kind}", None, "fio job log", d, counter, f"{d}_{kind}_raw", None, d)


def _hist(lines: list[str]) -> Any:
    rows = Rows()  # a row per nonzero bin: packed past a chunk (formats/_rows.py)
    for ln, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        cells = _cells(line, ln)
        nbins = len(cells) - 3
        if nbins not in HIST_BINS:
            raise ParseError(
                f"a fio histogram log row has msec, ddir, bs and 1216 (fio 2.x) or 1856 (fio 3.x) bin "
                f"counts; this one has {nbins} counts",
                ln,
            )
        unit = HIST_BINS[nbins]
        rows += [
            {
                "msec": cells[0],
                "ddir": cells[1],
                "bs": cells[2],
                "bin": i,
                "bin_value": _fio.plat_idx_to_val(i),
                "unit": unit,
                "count": c,
                "line_no": ln,
            }
            for i, c in enumerate(cells[3:])
            if c
        ]
    if not len(rows):
        raise ParseError("the fio histogram log has no nonzero bins")
    return rows.table()
