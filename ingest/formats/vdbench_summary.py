"""vdbench `summary.html` and `totals.html` (same table layout; totals keeps only the avg lines).

Seen: vdbench50401 (SD/raw: `interval i/o rate MB/sec 1024**2 ...` two-line header whose words
stack in right-aligned columns), 50406/50407 (FSD/file system: dotted group header
`.Interval. .ReqstdOps... ...cpu%... read ....read.....` over `rate resp total sys pct ...`).
Column names are the two header lines joined by position ("i/o rate", "ReqstdOps resp").
Each `Starting RD=...` line starts a run; its `name=value` settings and `For loops:` values
(threads=, xfersize=, rdpct=, seekpct=) are kept and give the signature. Per-interval lines
(`time  N  values`) and the `avg_N-M` line per RD go to `vdbench_values`; the avg line gives the
run's scope 'all' samples. An RD with no avg line (the run was killed, or the file copied while it
ran) is a run with status 'unterminated' whose interval lines are its numbers: time series (object
"vdbench RD", one per run and column, as the flatfile's), never averages made up from them.
The date before the header (`Nov 08, 2025`) is printed in the JVM's locale (`5月 10, 2023`,
`mai 10, 2023`, `Nov. 27, 2026`): any month word is a header, and the header's first line is set
back to a twelve-character date before its words are matched to the second line's (vdbench pads the
second line for `Apr 08, 2016`); numbers are printed in that locale
too (`1812,67` under de_DE: a decimal comma, never a grouping separator). vdbench MB/sec is 2^20 bytes per second (the header says
`1024**2`; the flatfile's comment block says `MB=1024*1024`): stored as MB/s x 1.048576.

Signature: block size = xfersize= (else the avg line's bytes/xfer size), read % = rdpct= (else
the observed read pct only when it is 0 or 100, which cannot differ from the request), random %
= seekpct= (random = 100, sequential/seq = 0); vdbench threads each keep one I/O in flight:
workers = threads=, queue depth 1, outstanding I/Os = threads.
Checked against itself: an `avg_N-M` line's I/O rate and MB/sec are the mean of its interval lines
(where the file has them), over N..M or N-1..M (check_avg says why), to the printed digits.
Variants by version, and the test covering each: docs/formats/vdbench.md.
"""

from __future__ import annotations

import re

from ..model import MB_PER_MIB, ParseError, ParseResult, Run, Series, split_lines
from . import _checks
from ._rows import Rows
from ._text import decode, number, size_bytes

FORMAT = "vdbench-summary"
VERSION = "2"
TOOL = "vdbench"

# column (lower case, header words joined) -> (metric, unit, factor)
METRICS = {
    "i/o rate": ("iops", "IO/s", 1),
    "reqstdops rate": ("iops", "IO/s", 1),
    "mb/sec 1024**2": ("mbps", "MB/s", MB_PER_MIB),
    "mb/sec total": ("mbps", "MB/s", MB_PER_MIB),
    "mb/sec read": ("read_mbps", "MB/s", MB_PER_MIB),
    "mb/sec write": ("write_mbps", "MB/s", MB_PER_MIB),
    "bytes i/o": ("avg_io_bytes", "bytes", 1),
    "xfer size": ("avg_io_bytes", "bytes", 1),
    "read pct": ("read_pct", "%", 1),
    "resp time": ("avg_latency_ms", "ms", 1),
    "reqstdops resp": ("avg_latency_ms", "ms", 1),
    "read rate": ("read_iops", "IO/s", 1),
    "write rate": ("write_iops", "IO/s", 1),
    "read resp": ("avg_read_latency_ms", "ms", 1),
    "write resp": ("avg_write_latency_ms", "ms", 1),
    "resp max": ("max_latency_ms", "ms", 1),
    "read max": ("max_read_latency_ms", "ms", 1),
    "write max": ("max_write_latency_ms", "ms", 1),
    "resp stddev": ("stddev_latency_ms", "ms", 1),
    "read stddev": ("stddev_read_latency_ms", "ms", 1),
    "write stddev": ("stddev_write_latency_ms", "ms", 1),
    "queue depth": ("avg_queue_depth", "count", 1),
    "cpu% sys+u": ("cpu_util_pct", "%", 1),
    "cpu% total": ("cpu_util_pct", "%", 1),
    "cpu% sys": ("cpu_privileged_pct", "%", 1),
}
_HEADER = re.compile(r"^\S{1,12} \d\d?, \d{4} ")  # Java's "MMM dd, yyyy" in any locale
_TIME = re.compile(r"^\d\d:\d\d:\d\d\.\d{3}$")
_INTERVAL = re.compile(r"^(\d+|avg_\d+-\d+)$")
_RD = re.compile(r"Starting RD=([^;<\s]+)(.*?)(?:</b>|$)")


SNIFF_RULE = "'Vdbench summary report' (or '<pre> Run totals') and a 'Starting RD=' line"


def sniff(head: str, name: str) -> bool:
    return (
        "Vdbench summary report" in head
        or head.lstrip().startswith(("<pre>\nRun totals", "<pre>\r\nRun totals"))
        or bool(re.search(r"<pre>\s*Run totals", head[:300]))
    ) and "Starting RD=" in head


def header_columns(l1: str, l2: str, ln: int) -> list[str]:
    """Join a two-line vdbench header by position: each word of line 2 belongs to the line-1 word
    above it; a line-1 word with nothing under it is a column by itself. The date is skipped: vdbench
    prints line 1 as the date then its header and line 2 as twelve spaces then its own (Report.java,
    FwdStats.printHeaders), so the two line up only where the date is twelve characters, as `Apr 08,
    2016` is; a localized one (`4月 08, 2016`, `huhtik. 08, 2016`) is set back to twelve first."""
    if m := _HEADER.match(l1):
        l1 = " " * 12 + l1[m.end() - 1 :]
    top = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", l1)]
    under: dict[int, list[str]] = {i: [] for i in range(len(top))}
    for m in re.finditer(r"\S+", l2):
        overlaps = [(min(e, m.end()) - max(s, m.start()), i) for i, (s, e, _) in enumerate(top)]
        best = max(overlaps, default=(0, None))
        if best[0] <= 0:
            raise ParseError(f"header word {m.group()!r} sits under no word of the line above", ln + 1)
        under[best[1]].append(m.group())
    cols = []
    for i, (_, _, word) in enumerate(top):
        name = word.strip(".")
        cols += [f"{name} {w}" for w in under[i]] or [name]
    return cols


def rd_settings(text: str) -> dict[str, str]:
    """`; I/O rate: 50; elapsed=60; For loops: threads=2 xfersize=4k` -> {'I/O rate': '50', ...}."""
    out = {}
    main, _, loops = text.partition("For loops:")
    for part in main.split(";"):
        k, sep, v = part.partition("=") if "=" in part else part.partition(":")
        if sep and k.strip():
            out[k.strip()] = v.strip().rstrip(".")
    for k, v in re.findall(r"(\w+)=(\S+)", loops):
        out[k] = v
    return out


class _Parser:
    def __init__(self, lines: list[str], kind: str):
        self.lines, self.kind = lines, kind
        self.res = ParseResult()
        self.rows = Rows()  # vdbench_values, packed past a chunk (formats/_rows.py)
        self.intervals = 0  # values read from data lines (not settings)
        self.cols: list[str] | None = None
        self.run: Run | None = None
        self.settings: dict[str, str] = {}
        self.has_avg: set[str] = set()
        self.date: str | None = None
        self.intervals_of: dict[str, list[tuple[str, dict[str, float | None]]]] = {}  # run -> (tod, values)
        self.printed: dict[str, dict[int, Printed]] = {}  # run -> interval -> column -> (value, printed unit)

    def parse(self) -> ParseResult:
        for i, line in enumerate(self.lines):
            ln = i + 1
            m = _RD.search(line)
            if m:
                self.start_run(m.group(1), m.group(2), line, ln)
            elif _HEADER.match(line):
                if i + 1 >= len(self.lines):
                    raise ParseError("the column header's second line is missing: the file is cut short", ln)
                self.cols = header_columns(line, self.lines[i + 1], ln)
                self.date = line[:12]
            else:
                tok = line.split()
                if len(tok) >= 2 and _TIME.match(tok[0]) and _INTERVAL.match(tok[1]):
                    self.data_row(tok, ln)
        self.finish_run()
        if not self.intervals:
            raise ParseError("no interval or avg_ lines: the run was stopped before its first interval")
        self.res.tables["vdbench_values"] = self.rows.table()
        self.unfinished_series()
        return self.res

    def unfinished_series(self) -> None:
        """The interval lines of the runs without an avg_ line, as time series (their only numbers)."""
        series: dict[tuple[str, str], Series] = {}
        keys: list[int] = []
        nos: list[int] = []
        vals: list[float | None] = []
        samples: list[dict] = []
        for r in self.res.runs:
            if r.key in self.has_avg:
                continue
            for tod, values in self.intervals_of.get(r.key, []):
                no = len(samples)
                samples.append({"sample_no": no, "ts": None, "ts_text": tod})
                for col, v in values.items():
                    if v is None:
                        continue
                    metric, unit, factor = METRICS.get(col, (None, None, 1))
                    if (r.key, col) not in series:
                        name = f"{r.key} {r.workload}"
                        series[(r.key, col)] = Series(
                            len(series),
                            f"{name}\\{col}",
                            None,
                            "vdbench RD",
                            name,
                            col,
                            metric,
                            unit,
                            r.workload,
                            r.key,
                        )
                    keys.append(series[(r.key, col)].key)
                    nos.append(no)
                    vals.append(v * factor)  # MB/sec (2^20) -> MB/s
        if samples:
            self.res.set_series(list(series.values()), keys, nos, vals, samples)

    def start_run(self, name: str, rest: str, line: str, ln: int) -> None:
        self.finish_run()
        self.settings = rd_settings(rest)
        key = f"run{len(self.res.runs) + 1}"
        self.run = Run(
            key, TOOL, workload=name, description=re.sub(r"<[^>]+>", "", line).strip(), status="unterminated"
        )
        s = self.settings
        try:
            if "xfersize" in s:
                self.run.block_size_bytes = size_bytes(s["xfersize"], ln)
        except ParseError:
            pass  # a list or distribution of sizes: no single block size
        self.run.read_pct = _pct(s.get("rdpct"))
        self.run.random_pct = {"random": 100.0, "sequential": 0.0, "seq": 0.0, "eof": 0.0}.get(
            s.get("seekpct", ""), _pct(s.get("seekpct"))
        )
        if s.get("threads", "").isdigit():
            self.run.workers = int(s["threads"])
            self.run.queue_depth, self.run.outstanding_ios = 1, self.run.workers
        self.res.runs.append(self.run)
        for k, v in s.items():
            self.rows.append(self.value_row("(settings)", None, k, None, v, ln))

    def finish_run(self) -> None:
        r = self.run
        if r is not None and r.key in self.has_avg:
            r.status = "complete"

    def value_row(self, interval, tod, column, value, text, ln) -> dict:
        return {
            "file_kind": self.kind,
            "run_key": self.run.key if self.run else None,
            "rd": self.run.workload if self.run else None,
            "interval": interval,
            "tod": tod,
            "column_name": column,
            "value": value,
            "text": text,
            "line_no": ln,
        }

    def data_row(self, tok: list[str], ln: int) -> None:
        if self.run is None or self.cols is None:
            raise ParseError("a data line comes before any 'Starting RD=' line or column header", ln)
        if len(tok) != len(self.cols) + 1:
            raise ParseError(
                f"data line has {len(tok) - 1} values after the time, the header names {len(self.cols)} columns", ln
            )
        values = {}
        printed = {}
        for col, t in zip(self.cols[1:], tok[2:]):
            v = _number(t, col, ln)
            values[col.lower()] = v
            printed[col.lower()] = (v, _checks.ulp(t.replace(",", ".")))
            self.intervals += 1
            self.rows.append(self.value_row(tok[1], tok[0], col, v, None if v is not None else t, ln))
        seen = self.printed.setdefault(self.run.key, {})
        if tok[1].startswith("avg_"):
            check_avg(tok[1], seen, printed, self.run.workload, ln)
            self.avg(values, ln)
        else:
            if seen and int(tok[1]) <= max(seen):
                raise ParseError(f"RD {self.run.workload}: interval {tok[1]} after interval {max(seen)}", ln)
            seen[int(tok[1])] = printed
            self.intervals_of.setdefault(self.run.key, []).append((tok[0], values))

    def avg(self, values: dict[str, float | None], ln: int) -> None:
        r = self.run
        if r.key in self.has_avg:
            raise ParseError(f"a second avg_ line for RD {r.workload}", ln)
        self.has_avg.add(r.key)
        self.intervals_of.pop(r.key, None)  # a finished run's numbers are its avg line
        add_samples(self.res, r.key, "all", values, METRICS, ln)
        size = values.get("bytes i/o", values.get("xfer size"))
        if r.block_size_bytes is None and size and size % 512 == 0:
            r.block_size_bytes = int(size)  # an average that is a whole number of sectors: a fixed xfersize
        if r.read_pct is None and values.get("read pct") in (0.0, 100.0) and _did_io(values):
            r.read_pct = values["read pct"]


Printed = dict[str, tuple[float | None, float]]  # column -> (value, one unit of its last printed digit)
RATES = ("i/o rate", "reqstdops rate", "rate", "mb/sec 1024**2", "mb/sec total", "mb/sec")  # summary, flatfile


def check_avg(label: str, intervals: dict[int, Printed], avg: Printed, rd: str | None, ln: int) -> None:
    """An `avg_N-M` line against its interval lines, where the file has them (totals.html has none): its
    I/O rate and MB/sec are the intervals' mean (vdbench adds each interval's counts to the run's totals,
    every interval `interval=` seconds long), to the printed digits of both. Over N..M, or N-1..M: the
    reporting of an interval runs asynchronously (CollectSlaveStats.doDetailedReporting) and adds it to
    the totals if the warmup is over by then, which the last warmup interval's often is (seen in runs of
    three intervals: `avg_2-3` the mean of 1-3). A missing interval of N..M, or a mean neither span
    gives, refuses the file."""
    m = re.fullmatch(r"avg_(\d+)-(\d+)", label)
    if not intervals or not m:
        return
    n, last = int(m.group(1)), int(m.group(2))
    if missing := [i for i in range(n, last + 1) if i not in intervals]:
        raise ParseError(
            f"RD {rd}: {label} averages intervals {n}-{last}, but interval {missing[0]} is not in the file", ln
        )
    for col in RATES:
        stated, unit = avg.get(col, (None, 0.0))
        spans = [range(n, last + 1), range(n - 1, last + 1)]
        means = [
            _mean([intervals[i].get(col, (None, 0.0)) for i in span])
            for span in spans
            if set(span) <= set(intervals) and span
        ]
        means = [x for x in means if x is not None]
        if stated is None or not means or any(abs(stated - x) <= (unit + u) / 2 * (1 + 1e-9) for x, u in means):
            continue
        near, u = min(means, key=lambda x: abs(stated - x[0]))
        _checks.agree(stated, near, (unit + u) / 2, f"RD {rd}, {label}: {col} against the mean of its intervals", ln)


def _mean(cells: list[tuple[float | None, float]]) -> tuple[float, float] | None:
    if not cells or any(v is None for v, _ in cells):
        return None
    return sum(v for v, _ in cells if v is not None) / len(cells), max(u for _, u in cells)


def _first(values: dict[str, float | None], *cols: str) -> float | None:
    return next((values[c] for c in cols if values.get(c) is not None), None)


def _did_io(values: dict[str, float | None]) -> bool:
    return bool(_first(values, "i/o rate", "reqstdops rate", "rate"))


def add_samples(
    res: ParseResult, key: str, scope: str, values: dict[str, float | None], metrics: dict, ln: int
) -> None:
    """The mapped columns of one line as samples. Latencies of a direction without I/O (vdbench
    prints 0.000 for them) and the read % of a line without I/O are no value."""
    pct = _first(values, "read pct", "read%")
    no_reads = _first(values, "read rate", "read_rate") == 0 or pct == 0
    no_writes = _first(values, "write rate", "write_rate") == 0 or pct == 100
    idle = not _did_io(values)
    for col, v in values.items():
        if col not in metrics or v is None:
            continue
        metric, unit, factor = metrics[col]
        if metric is None:
            continue
        if unit == "ms" and (idle or no_reads and "_read_" in metric or no_writes and "_write_" in metric):
            continue
        if idle and metric == "read_pct":
            continue
        res.add(key, scope, metric, v * factor, unit, line_no=ln)


def _pct(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


_DECIMAL_COMMA = re.compile(r"-?\d+,\d+")


def _number(t: str, col: str, ln: int) -> float | None:
    """vdbench prints these columns with Java's String.format in the JVM's locale: a decimal comma
    under de_DE, fr_FR, ... (`1812,67`), never a grouping separator, so `d,d` is a decimal."""
    if _DECIMAL_COMMA.fullmatch(t):
        t = t.replace(",", ".")
    return number(t, f"column {col!r}", ln, missing=("n/a", "N/A"))


def parse(data: bytes, name: str) -> ParseResult:
    text = decode(data)
    kind = "totals" if re.search(r"<pre>\s*Run totals", text[:300]) else "summary"
    return _Parser(split_lines(text), kind).parse()
