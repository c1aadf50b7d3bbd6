"""vdbench `flatfile.html`: one line per reporting interval, column by column.

Seen: vdbench50401 (SD, right-aligned fixed-width columns), 50406 (FSD: 44 columns with
per-operation `Mkdir_rate`...`Move_resp` and a `timestamp` like `04/20/2021-16:03:41-CST`),
50407 (SD, single-space separated, `timestamp`, separate read/write max and std columns).
Layout: `<pre>` (after a `<title>` in newer versions), a `*` comment block documenting the
columns (`MB/sec : Megabytes per second (MB=1024*1024)`), a one-word-per-column header line
starting `tod`, then data lines; `n/a` is a missing value; every line ends with a space.
An aborted run leaves only the `<title>...<pre>` line: rejected ("aborted run"). vdbench 5.0x before
50401 wrote no note and no title: `<pre>`, the column notes from `* Run : Name of run from RD=`, and
on Solaris the kstat columns (`ks_rate` ... `ks_bytes`, `cpu_used` ... `cpu_idle`; Flat.java
define_column_headers_kstat), kept as series of their own.

Runs: a new run starts when the `Run` column (the RD name) changes or its `Interval` number
starts again (for-loops repeat an RD name). Interval lines become time series (object "vdbench
RD", one series per run and numeric column, ts from `timestamp` when present, ts_text = tod);
the `avg_N-M` line gives the run's scope 'all' samples (same mapping as summary.html, MB/sec
x 1.048576 into MB/s) and its values go to `vdbench_values`. SD signature from the avg (else
first) line's requested columns: xfersize, rdpct, seekpct, threads (workers; queue depth 1).
Checked against itself: each avg_ line's rate and MB/sec against its intervals (vdbench_summary.check_avg).
Variants by version, and the test covering each: docs/formats/vdbench.md.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..model import MB_PER_MIB, ParseError, ParseResult, Run, Series, split_lines
from . import _checks
from ._text import decode
from .vdbench_summary import RATES, TOOL, Printed, _number, add_samples, check_avg

FORMAT = "vdbench-flatfile"
VERSION = "2"
METRICS = {
    "rate": ("iops", "IO/s", 1),
    "mb/sec": ("mbps", "MB/s", MB_PER_MIB),
    "bytes/io": ("avg_io_bytes", "bytes", 1),
    "read%": ("read_pct", "%", 1),
    "resp": ("avg_latency_ms", "ms", 1),
    "read_resp": ("avg_read_latency_ms", "ms", 1),
    "write_resp": ("avg_write_latency_ms", "ms", 1),
    "resp_max": ("max_latency_ms", "ms", 1),
    "read_max": ("max_read_latency_ms", "ms", 1),
    "write_max": ("max_write_latency_ms", "ms", 1),
    "resp_std": ("stddev_latency_ms", "ms", 1),
    "read_std": ("stddev_read_latency_ms", "ms", 1),
    "write_std": ("stddev_write_latency_ms", "ms", 1),
    "queue_depth": ("avg_queue_depth", "count", 1),
    "cpu_used": ("cpu_util_pct", "%", 1),
    "cpu_user": ("cpu_user_pct", "%", 1),
    "cpu_kernel": ("cpu_privileged_pct", "%", 1),
    "cpu_wait": ("cpu_wait_pct", "%", 1),
    "cpu_idle": ("cpu_idle_pct", "%", 1),
    "read_rate": ("read_iops", "IO/s", 1),
    "write_rate": ("write_iops", "IO/s", 1),
    "mb_read": ("read_mbps", "MB/s", MB_PER_MIB),
    "mb_write": ("write_mbps", "MB/s", MB_PER_MIB),
    "xfersize": (None, None, 1),
}
TEXT_COLUMNS = {"tod", "timestamp", "run", "interval"}


SNIFF_RULE = (
    "<pre> and 'flatfile.html contains Vdbench' (or a Vdbench flatfile.html title, or, before both, the column "
    "notes '* Run : Name of run from RD=' and a 'tod Run Interval' header)"
)


def sniff(head: str, name: str) -> bool:
    start = head[:2000]
    if "<pre>" not in start:
        return False
    return (
        "'flatfile.html' contains Vdbench" in start
        or bool(re.search(r"<title>Vdbench [^<]*flatfile\.html</title>", start))
        or bool(re.search(r"^\* Run\s*: Name of run from RD=", start, re.M))
        and bool(re.search(r"^\s*tod\s+Run\s+Interval\s", head, re.M))
    )


class _Parser:
    def __init__(self, lines: list[str]):
        self.lines = lines
        self.res = ParseResult()
        self.values: list[dict] = []
        self.series: dict[tuple[str, str], Series] = {}
        self.keys: list[int] = []
        self.nos: list[int] = []
        self.vals: list[float] = []
        self.samples: list[dict] = []
        self.run: Run | None = None
        self.last_interval = 0
        self.printed: dict[int, Printed] = {}  # the run's intervals -> their rates as printed (the avg line's check)

    def parse(self) -> ParseResult:
        header = None
        for i, line in enumerate(self.lines):
            s = re.sub(r"^(<title>.*?</title>)?<pre>", "", line).strip()
            if not s or s.startswith("*") or s.startswith("</pre>"):
                continue
            tok = s.split()
            if header is None:
                if tok[0] != "tod" or "Run" not in tok or "Interval" not in tok:
                    raise ParseError(f"expected the column header line starting 'tod', found {s[:40]!r}", i + 1)
                header = [t.lower() for t in tok]
                continue
            if len(tok) != len(header):
                raise ParseError(f"data line has {len(tok)} values, the header {len(header)} columns", i + 1)
            self.row(dict(zip(header, tok)), i + 1)
        if header is None:
            raise ParseError("aborted run: flatfile has no data (no column header)")
        if not self.res.runs:
            raise ParseError("aborted run: flatfile has no data (header but no interval lines)")
        for r in self.res.runs:
            r.status = "complete" if r.status == "complete" else "unterminated"
        self.res.set_series(list(self.series.values()), self.keys, self.nos, self.vals, self.samples)
        self.res.tables["vdbench_values"] = self.values
        return self.res

    def row(self, cells: dict[str, str], ln: int) -> None:
        interval = cells["interval"]
        is_avg = interval.startswith("avg_")
        if not is_avg and not interval.isdigit():
            raise ParseError(f"Interval {interval!r} is neither a number nor avg_N-M", ln)
        values = {c: _number(t, c, ln) for c, t in cells.items() if c not in TEXT_COLUMNS}
        printed = {c: (values[c], _checks.ulp(cells[c])) for c in RATES if c in values}
        if (
            self.run is None
            or cells["run"] != self.run.workload
            or (not is_avg and (int(interval) <= self.last_interval or self.run.status == "complete"))
        ):
            self.start_run(cells["run"], values, ln)
        if is_avg:
            if self.run.status == "complete":
                raise ParseError(f"a second avg_ line for RD {self.run.workload}", ln)
            check_avg(interval, self.printed, printed, self.run.workload, ln)
            self.run.status = "complete"
            self.signature(values)
            add_samples(self.res, self.run.key, "all", values, METRICS, ln)
            for c, t in cells.items():
                v = values.get(c)
                self.values.append(
                    {
                        "file_kind": "flatfile",
                        "run_key": self.run.key,
                        "rd": self.run.workload,
                        "interval": interval,
                        "tod": cells["tod"],
                        "column_name": c,
                        "value": v,
                        "text": t if v is None else None,
                        "line_no": ln,
                    }
                )
        else:
            self.last_interval = int(interval)
            self.printed[int(interval)] = printed
            self.point(cells, values)

    def start_run(self, name: str, values: dict, ln: int) -> None:
        self.run = Run(f"run{len(self.res.runs) + 1}", TOOL, workload=name, status="unterminated")
        self.last_interval = 0
        self.printed = {}
        self.res.runs.append(self.run)
        self.signature(values)

    def signature(self, values: dict[str, float | None]) -> None:
        r = self.run
        size = values.get("xfersize")
        if size and ("read_rate" not in values or size % 512 == 0):  # FSD Xfersize is an average
            r.block_size_bytes = int(size)
        if values.get("rdpct") is not None:
            r.read_pct = values["rdpct"]
        if values.get("seekpct") is not None:
            r.random_pct = values["seekpct"]
        if values.get("threads"):
            r.workers = int(values["threads"])
            r.queue_depth, r.outstanding_ios = 1, r.workers

    def point(self, cells: dict[str, str], values: dict[str, float | None]) -> None:
        no = len(self.samples)
        ts = None
        if "timestamp" in cells:
            try:
                ts = datetime.strptime(cells["timestamp"][:19], "%m/%d/%Y-%H:%M:%S")
            except ValueError:
                pass
        self.samples.append({"sample_no": no, "ts": ts, "ts_text": cells["tod"]})
        for col, v in values.items():
            if v is None:
                continue
            k = (self.run.key, col)
            if k not in self.series:
                metric, unit, _ = METRICS.get(col, (None, None, 1))
                self.series[k] = Series(
                    len(self.series),
                    f"{self.run.key} {self.run.workload}\\{col}",
                    None,
                    "vdbench RD",
                    f"{self.run.key} {self.run.workload}",
                    col,
                    metric,
                    unit,
                    self.run.workload,
                    self.run.key,
                )
            self.keys.append(self.series[k].key)
            self.nos.append(no)
            self.vals.append(v * METRICS.get(col, (None, None, 1))[2])  # MB/sec (2^20) -> MB/s


def parse(data: bytes, name: str) -> ParseResult:
    return _Parser(split_lines(decode(data))).parse()
