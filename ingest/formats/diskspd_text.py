"""DiskSpd text output (`diskspd ... -Rtext`, the default), one or more runs per file.

Layouts seen (tests/corpus/diskspd-text):
* 2.0.x (2018): parameters indented with spaces, `block size: 4096`, `number of outstanding I/O
  operations: 32`, `proc count:` and a `CPU | Usage | User | Kernel | Idle` table, thread tables
  headed `MB/s` with no `IopsStdDev` column, the latency table without a heading line.
* 2.2.x: starts with a blank line, TAB-indented parameters, sizes as `4KiB`, `System information:`
  with `start time:`, a `[Socket | Node | Group | Core | Class |] CPU | ...` table (the columns
  the machine has; 2.0.17a-2.1 print `Group | CPU | ...` on a machine with several processor
  groups: a processor's target is then `group/cpu`, as DiskSpd writes affinity), `MiB/s` and `IopsStdDev` columns,
  `Total latency distribution:` above the percentile table, `N/A` where a direction has no I/O.
Both layouts' `MB/s` / `MiB/s` are 2^20 bytes per second (ResultParser.cpp divides bytes by
1024 * 1024); stored as MB/s (10^6) x 1.048576.

A console capture can hold several runs with prose and `PS C:\\...>` prompt lines between them:
every `Command Line:` line starts a run (or, where a harness captured the output without it, every
`Input parameters:` line). A run whose `Total IO` table or latency table is cut
short is an error (the file was truncated), never a partial load; a last latency row that only lost
its line end (a copy, an editor) is whole when its last cell has its three decimals.

Workload signature: block size, read % = 100 - write %, random 100 / sequential 0, queue depth
= outstanding I/Os per thread per target (-o), workers = thread x target pairs as DiskSpd applies
them (-t N: N per target; -F N: N threads each on every target), outstanding I/Os = the product.
Variants by version, and the test covering each: docs/formats/diskspd.md.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..model import MB_PER_MIB, ParseError, ParseResult, Run, split_lines
from . import _checks, _text

FORMAT = "diskspd-text"
VERSION = "2"
TOOL = "DiskSpd"

# '%-ile' row label -> metric stem (p99_9 = 3-nines ...)
PERCENTILES = {
    "min": "min",
    "25th": "p25",
    "50th": "p50",
    "75th": "p75",
    "90th": "p90",
    "95th": "p95",
    "99th": "p99",
    "3-nines": "p99_9",
    "4-nines": "p99_99",
    "5-nines": "p99_999",
    "6-nines": "p99_9999",
    "7-nines": "p99_99999",
    "8-nines": "p99_999999",
    "9-nines": "p99_9999999",
    "max": "max",
}
DIRECTION = {"total": "", "read": "read_", "write": "write_"}
# the CPU table's header: before `CPU`, as the machine has them, Socket, Node (2.2), Group (2.0.17a+:
# more than one processor group), Core (2.2: SMT) and Class (2.2: P/E cores); CPU numbers are group-relative
_CPU_HEADER = re.compile(r"^(?:(?:Socket|Node|Group|Core|Class)\s*\|\s*)*CPU\s*\|\s*Usage\s*\|")
NOT_AVAILABLE = ("", "N/A")  # DiskSpd 2.2 prints N/A where a direction had no I/O


SNIFF_RULE = (
    "an 'Input parameters:' line followed by a 'timespan:' line ('Command Line:' may be missing), or by a "
    "'job:' line (DiskSpd for Linux)"
)


def sniff(head: str, name: str) -> bool:
    return bool(re.search(r"^[\s\ufeff]*Input parameters:\s*\n(\s*\n)*\s*(?:timespan|job):\s+\d", head, re.M))


def _num(cell: str, what: str, ln: int) -> float | None:
    return _text.number(cell, what, ln, missing=NOT_AVAILABLE, strip="%")


def split_runs(lines: list[str]) -> list[tuple[int, int]]:
    """(first, end) line indexes of each run: from its `Command Line:` line, or from its `Input
    parameters:` line when no `Command Line:` came before it (a harness that captured the output
    without its first line), to the next run's start."""
    starts: list[int] = []
    command = False  # a Command Line: started the current run and its Input parameters are still to come
    for i, line in enumerate(lines):
        if line.startswith("Command Line: "):
            starts.append(i)
            command = True
        elif line.strip() == "Input parameters:":
            if not command:
                starts.append(i)
            command = False
    return [(s, e) for s, e in zip(starts, starts[1:] + [len(lines)])]


class _Run:
    """One run's lines -> Run, samples and tool-table rows."""

    def __init__(self, res: ParseResult, lines: list[str], first: int, end: int, no: int):
        self.res, self.lines, self.first, self.end = res, lines, first, end
        self.key = f"run{no}"
        self.params: list[dict] = []
        self.targets: list[dict] = []  # per `path:` block
        self.thread_count = None
        self.test_time = None
        self.started_at = None
        self.totals_seen: set[str] = set()
        self.last_row = first  # index of the last table row read (where DiskSpd's output ends)
        self.linux = False  # DiskSpd for Linux (microsoft/diskspd-for-linux): its own text layout
        self.said_merge = False
        self.time_line: int | None = None
        self.rows: list[dict] = []  # this run's thread-table rows

    def parse(self) -> None:
        i = self.first
        section = None
        pct_before = len(self.res.tables.get("diskspd_latency_percentiles", []))  # earlier runs' rows
        while i < self.end:
            line = self.lines[i]
            s = line.strip()
            ln = i + 1
            if line.startswith("Command Line: "):
                self.param("command line", line[len("Command Line: ") :].strip(), ln)
            elif s in ("Input parameters:", "System information:"):
                section = s
            elif s.startswith(("Results for timespan", "Results for job")):
                section = "results"
            elif s == "System info:":  # DiskSpd for Linux
                section, self.linux = "System information:", True
            elif section in ("Input parameters:", "System information:") and s:
                self.param_line(s, ln)
            elif section == "results" and s.startswith(("actual test time:", "test time:")):
                self.test_time = _num(s.split(":", 1)[1].strip().rstrip("s"), "test time", ln)
                self.time_line = ln
            elif section == "results" and s.startswith("thread count:"):
                self.thread_count = _whole(s.split(":", 1)[1], "thread count", ln)
            elif _CPU_HEADER.match(s):
                i = self.cpu_table(i)
                continue
            elif s in ("Total IO", "Read IO", "Write IO"):
                i = self.io_table(i, s.split()[0].lower())
                continue
            elif s.startswith("%-ile |"):
                i = self.percentiles(i)
                continue
            i += 1
        stopped = _find(self.lines, self.first, self.end, "The test was interrupted before the measurements began")
        if stopped and not self.totals_seen:
            raise ParseError(
                f"run {self.key} (from line {self.first + 1}): DiskSpd says the test was interrupted before "
                "the measurements began, so it printed no results",
                stopped,
            )
        for kind in ("total", "read", "write"):
            if kind not in self.totals_seen:
                raise ParseError(
                    f"run {self.key} (from line {self.first + 1}) has no '{kind.title()} IO' totals: "
                    f"the output is cut short or is not DiskSpd's",
                    self.first + 1,
                )
        if any(p["name"] == "measuring latency" for p in self.params) and not any(
            r["run_key"] == self.key for r in self.res.tables.get("diskspd_latency_percentiles", [])[pct_before:]
        ):
            raise ParseError(
                f"run {self.key} measured latency but its percentile table is missing: the output is cut short",
                self.end,
            )
        self.check()

    def merged_twice(self) -> bool:
        """DiskSpd for Linux builds its Total (ms) percentile column from a histogram that merges the
        running read and write histograms again at each thread-target pair (result_formatter.cc
        output_results: `total_histogram.Merge(read_histogram)` inside the loop), so with more than one
        pair the earlier pairs weigh several times: those percentiles are not the run's (min and max
        are). They stay in diskspd_latency_percentiles as written, not as samples; the read and write
        columns are right."""
        pairs = sum(1 for r in self.rows if r["kind"] == "total" and r["thread"] is not None)
        if self.linux and pairs > 1 and not self.said_merge:
            self.said_merge = True
            self.res.notes.append(
                f"run {self.key}: DiskSpd for Linux's Total (ms) latency percentiles over {pairs} thread-target pairs "
                "weigh the first pairs several times (its writer merges them again per pair): kept as written in "
                "diskspd_latency_percentiles, not stored as the run's percentiles (min and max are)"
            )
        return self.linux and pairs > 1

    # ---- the run against itself ---------------------------------------------------------------
    def check(self) -> None:
        """The thread tables against their `total:` lines and each thread's read and write rows against
        its total row (ResultParser.cpp _PrintSection; for Linux result_formatter.cc print_iops): bytes
        and I/Os are counts, summed exactly; a row's MiB/s and I/O per s are its counts over the test time
        (`%10.2f`), that time printed `%.2lf` (Windows) or whole seconds (Linux: the -d duration, exact);
        the total's average latency is its rows' weighted by their I/Os (`%8.3f` each)."""
        tables = {k: [r for r in self.rows if r["kind"] == k] for k in ("total", "read", "write")}
        for kind, rows in tables.items():
            *parts, total = rows
            what = f"run {self.key}, {kind.title()} IO total"
            _checks.equal(
                total["bytes"], sum(r["bytes"] for r in parts), f"{what}: bytes of its rows", total["line_no"]
            )
            _checks.equal(total["ios"], sum(r["ios"] for r in parts), f"{what}: I/Os of its rows", total["line_no"])
            for r in rows:
                self.rate(r, "iops", r["ios"], 1.0)
                self.rate(r, "mib_per_s", r["bytes"], 1 / 2**20)
            weighted = [(r["avg_latency_ms"], r["ios"]) for r in parts if r["avg_latency_ms"] is not None]
            if weighted and total["avg_latency_ms"] is not None:
                mean = sum(a * n for a, n in weighted) / sum(n for _, n in weighted)
                _checks.agree(
                    total["avg_latency_ms"], mean, 0.001, f"{what}: AvgLat of its rows by I/Os", total["line_no"]
                )
        for t, r, w in zip(*tables.values()):
            for col in ("bytes", "ios"):
                _checks.equal(
                    t[col], r[col] + w[col], f"run {self.key}, thread {t['thread']}: {col} read + written", t["line_no"]
                )

    def rate(self, row: dict, col: str, count: int, scale: float) -> None:
        """A rate as the counts over the test time give it, to the printed digits of both."""
        seconds = self.test_time
        if row[col] is None or not seconds:
            return
        dt = 0.0 if self.linux else 0.005  # Windows prints the time rounded to 1/100 s
        lo, hi = count * scale / (seconds + dt), count * scale / max(seconds - dt, 1e-9)
        what = f"run {self.key}, line {row['line_no']}: {col} against {count} over {seconds} s"
        _checks.agree(row[col], (lo + hi) / 2, (hi - lo) / 2 + 0.005, what, row["line_no"])

    # ---- parameters ---------------------------------------------------------------------------
    def param(self, key: str, value: str, ln: int) -> None:
        self.params.append(
            {"run_key": self.key, "param_no": len(self.params), "name": key, "value": value, "line_no": ln}
        )

    def param_line(self, s: str, ln: int) -> None:
        key, sep, value = s.partition(":")
        if not sep or key.startswith("-"):
            key, value = s, ""
        key, value = key.strip(), value.strip()
        if key == "-------------":
            return
        self.param(key, value, ln)
        if key == "path":
            self.targets.append({"path": value.strip("'")})
        elif key == "total threads":  # DiskSpd for Linux (-F, or the -t threads summed)
            self.thread_count = _whole(value, key, ln)
        elif key == "start time":
            try:
                self.started_at = datetime.strptime(value.removesuffix(" UTC"), "%Y/%m/%d %H:%M:%S")
            except ValueError:
                pass
        elif self.targets:
            self.target_param(self.targets[-1], key, value, s, ln)

    @staticmethod
    def target_param(t: dict, key: str, value: str, whole: str, ln: int) -> None:
        if key == "block size":
            t["block"] = _text.size_bytes(value, ln)
        elif key.startswith("number of outstanding I/O operations"):
            t["qd"] = _whole(value.removesuffix(")"), key, ln)  # DiskSpd for Linux prints a stray ')'

        elif key == "threads per file":
            t["threads"] = _whole(value, key, ln)
        elif key.startswith("performing"):
            m = re.search(r"read/write ratio: (\d+)/(\d+)", whole)
            t["read"] = (
                100.0 if "read test" in key else 0.0 if "write test" in key else float(m.group(1)) if m else None
            )
        elif key.startswith("using random I/O"):
            t["random"] = 100.0
        elif re.match(r"using (interlocked )?sequential I/O", key):
            t["random"] = 0.0
        elif key.startswith("using mixed random/sequential") or key.startswith("percentage random"):
            m = re.search(r"(\d+)%? random", key + " " + value)
            t["random"] = float(m.group(1)) if m else None

    # ---- tables -------------------------------------------------------------------------------
    def cpu_table(self, i: int) -> int:
        header = [h.strip().lower() for h in self.lines[i].split("|")]
        _require(header, ("cpu", "usage", "user", "kernel", "idle"), "CPU table", i + 1)
        i += 1
        rows = self.res.tables.setdefault("diskspd_cpu", [])
        while i < self.end:
            s = self.lines[i].strip()
            ln = i + 1
            if not s:
                return i
            if set(s) <= {"-"}:
                i += 1
                continue
            cells = [c.strip() for c in s.split("|")]
            if cells[0].startswith("avg:"):  # DiskSpd for Linux: ` avg:\t 99.65% | ...`, no CPU number
                cells = ["avg.", cells[0].removeprefix("avg:").strip(), *cells[1:]]
            avg = cells[0] == "avg."
            if avg:
                cells = [""] * (len(header) - len(cells) + 1) + cells[1:]
            if len(cells) != len(header):
                raise ParseError(f"CPU table row has {len(cells)} cells, its header {len(header)}", ln)
            d = dict(zip(header, cells))
            row = {
                "run_key": self.key,
                "core": _int(d.get("core"), "core", ln),
                "cpu": _int(d.get("cpu"), "cpu", ln),
                "usage_pct": _num(d["usage"], "CPU usage", ln),
                "user_pct": _num(d["user"], "CPU user", ln),
                "kernel_pct": _num(d["kernel"], "CPU kernel", ln),
                "idle_pct": _num(d["idle"], "CPU idle", ln),
                "iowait_pct": _num(d["io wait"], "CPU IO wait", ln) if "io wait" in d else None,  # DiskSpd for Linux
                "line_no": ln,
            }
            rows.append(row)
            group = "" if avg or "group" not in d else f"{_whole(d['group'], 'group', ln)}/"
            scope, target = ("all", None) if avg else ("processor", f"{group}{row['cpu']}")
            for col, metric in (
                ("usage_pct", "cpu_util_pct"),
                ("user_pct", "cpu_user_pct"),
                ("kernel_pct", "cpu_privileged_pct"),
                ("idle_pct", "cpu_idle_pct"),
                ("iowait_pct", "cpu_wait_pct"),
            ):
                self.res.add(self.key, scope, metric, row[col], "%", target=target, line_no=ln)
            i += 1
        return i

    def io_table(self, i: int, kind: str) -> int:
        i += 1
        if i >= self.end or not self.lines[i].lstrip().startswith("thread"):
            raise ParseError(f"'{kind.title()} IO' is not followed by its column header", i + 1)
        header = [h.strip() for h in self.lines[i].split("|")]
        _require(header, ("thread", "bytes", "I/Os", "I/O per s"), f"'{kind.title()} IO' table", i + 1)
        i += 1
        rows = self.res.tables.setdefault("diskspd_threads", [])
        while i < self.end:
            s = self.lines[i].strip()
            ln = i + 1
            if set(s) <= {"-"} and s:
                i += 1
                continue
            if not s:
                break
            total = s.startswith("total:")
            cells = [c.strip() for c in s.split("|")]
            if total:
                cells = ["", cells[0][len("total:") :].strip()] + cells[1:] + [""]
            if len(cells) != len(header):
                raise ParseError(f"'{kind.title()} IO' row has {len(cells)} cells, the header {len(header)}", ln)
            rows.append(self.io_row(kind, dict(zip(header, cells)), total, ln))
            self.rows.append(rows[-1])
            self.last_row = i
            i += 1
            if total:
                self.totals_seen.add(kind)
                return i
        raise ParseError(f"'{kind.title()} IO' table has no 'total:' line: the output is cut short", i)

    def io_row(self, kind: str, d: dict, total: bool, ln: int) -> dict:
        mib = d.get("MiB/s", d.get("MB/s"))
        if mib is None:
            raise ParseError("thread table has neither a 'MiB/s' nor an 'MB/s' column", ln)
        path, size = _file_cell(d.get("file", ""))
        row = {
            "run_key": self.key,
            "kind": kind,
            "thread": None if total else _int(d["thread"], "thread", ln),
            "target": path,
            "target_size": size,
            "bytes": _int(d["bytes"], "bytes", ln),
            "ios": _int(d["I/Os"], "I/Os", ln),
            "mib_per_s": _num(mib, "MiB/s", ln),
            "iops": _num(d["I/O per s"], "I/O per s", ln),
            # DiskSpd prints 0.000 as the average latency of a direction with no I/O: no value
            "avg_latency_ms": _num(d.get("AvgLat", d.get("AvgLat(ms)", "")), "AvgLat", ln)
            if _int(d["I/Os"], "I/Os", ln)
            else None,
            "iops_stddev": _num(d.get("IopsStdDev", ""), "IopsStdDev", ln),
            "latency_stddev_ms": _num(d.get("LatStdDev", ""), "LatStdDev", ln),
            "line_no": ln,
        }
        pre = DIRECTION[kind]
        scope, target = ("all", None) if total else ("worker", f"thread {row['thread']}: {path}")
        add = self.res.add
        add(self.key, scope, f"{pre}iops", row["iops"], "IO/s", target=target, line_no=ln)
        if row["mib_per_s"] is not None:
            add(self.key, scope, f"{pre}mbps", row["mib_per_s"] * MB_PER_MIB, "MB/s", target=target, line_no=ln)
        add(self.key, scope, f"avg_{pre}latency_ms", row["avg_latency_ms"], "ms", target=target, line_no=ln)
        add(self.key, scope, f"stddev_{pre}latency_ms", row["latency_stddev_ms"], "ms", target=target, line_no=ln)
        add(self.key, scope, f"{pre}iops_stddev", row["iops_stddev"], "IO/s", target=target, line_no=ln)
        add(self.key, scope, f"{pre}ios", row["ios"], "count", target=target, line_no=ln)
        if kind != "total":
            add(
                self.key,
                scope,
                f"bytes_{'read' if kind == 'read' else 'written'}",
                row["bytes"],
                "bytes",
                target=target,
                line_no=ln,
            )
        return row

    def percentiles(self, i: int) -> int:
        header = [(h.strip().split() or [""])[0].lower() for h in self.lines[i].split("|")]
        _require(header, ("read", "write", "total"), "latency percentile table", i + 1)
        rows = self.res.tables.setdefault("diskspd_latency_percentiles", [])
        i += 1
        while i < self.end:
            s = self.lines[i].strip()
            ln = i + 1
            if s and set(s) <= {"-"}:
                i += 1
                continue
            cells = [c.strip() for c in s.split("|")]
            if cells[0] not in PERCENTILES or len(cells) != len(header):
                break
            d = dict(zip(header, cells))
            row = {
                "run_key": self.key,
                "percentile": cells[0],
                "read_ms": _num(d["read"], "read latency", ln),
                "write_ms": _num(d["write"], "write latency", ln),
                "total_ms": _num(d["total"], "latency", ln),
                "line_no": ln,
            }
            rows.append(row)
            stem = PERCENTILES[cells[0]]
            self.last_row = i
            for direction in ("read", "write", "total"):
                if direction == "total" and stem not in ("min", "max") and self.merged_twice():
                    continue
                self.res.add(
                    self.key,
                    "all",
                    f"{stem}_{DIRECTION[direction]}latency_ms",
                    row[f"{direction}_ms"],
                    "ms",
                    line_no=ln,
                )
            i += 1
            if cells[0] == "max":
                return i
        raise ParseError("the latency percentile table ends before its 'max' row: the output is cut short", i + 1)

    # ---- the run ------------------------------------------------------------------------------
    def run(self) -> Run:
        t = self.targets
        one = lambda k: t[0].get(k) if t and all(x.get(k) == t[0].get(k) for x in t) else None  # noqa: E731
        per_file = [x.get("threads") for x in t]
        if t and all(per_file):
            workers = sum(per_file)  # -t: that many threads on each target
        elif self.thread_count is not None and t:
            workers = self.thread_count * len(t)  # -F: every thread works on every target
        else:
            workers = None
        qd = one("qd")
        cmd = next((p["value"] for p in self.params if p["name"] == "command line"), None)
        return Run(
            self.key,
            TOOL,
            started_at=self.started_at,
            workload=cmd,
            status="complete",
            block_size_bytes=one("block"),
            read_pct=one("read"),
            random_pct=one("random"),
            queue_depth=qd,
            workers=workers,
            outstanding_ios=qd * workers if qd and workers else None,
            description=", ".join(x["path"] for x in t) or None,
        )


def _int(text: str | None, what: str, ln: int | None = None) -> int | None:
    return _text.whole(text, what, ln, missing=NOT_AVAILABLE)


def _require(header: list[str], names: tuple[str, ...], what: str, ln: int) -> None:
    missing = [n for n in names if n not in header]
    if missing:
        raise ParseError(f"{what} header lacks the column(s) {', '.join(missing)}", ln)


def _whole(text: str, what: str, ln: int) -> int:
    v = _int(text, what, ln)
    if v is None:
        raise ParseError(f"{what}: no number", ln)
    return v


def _file_cell(cell: str) -> tuple[str | None, str | None]:
    m = re.match(r"^(.*?)\s*\(([^()]*)\)$", cell)
    return (m.group(1), m.group(2)) if m else (cell or None, None)


def _whole_last_row(line: str) -> bool:
    """Whether a last line without its line end is a whole latency row (a copy that lost only the
    final line end): DiskSpd prints its total latency last, always as ``%10.3lf`` (ResultParser.cpp),
    so a row cut short lacks a cell or ends in fewer than three decimals."""
    cells = [c.strip() for c in line.split("|")]
    return len(cells) == 4 and cells[0] in PERCENTILES and bool(re.fullmatch(r"\d+\.\d{3}", cells[-1]))


def parse(data: bytes, name: str) -> ParseResult:
    text = _text.decode(data)
    lines = split_lines(text)
    if lines and "|" in lines[-1] and not text.endswith(("\n", "\r")) and not _whole_last_row(lines[-1]):
        raise ParseError("the file ends inside a table row, with no line end: it is cut short", len(lines))
    spans = split_runs(lines)
    if not spans:
        raise ParseError("no 'Command Line:' or 'Input parameters:' line: not DiskSpd text output")
    res = ParseResult()
    r = None
    for no, (first, end) in enumerate(spans, start=1):
        r = _Run(res, lines, first, end, no)
        threads_before = len(res.tables.get("diskspd_threads", []))  # earlier runs' rows
        r.parse()
        res.runs.append(r.run())
        res.tables.setdefault("diskspd_params", []).extend(r.params)
        res.add(r.key, "all", "test_time_s", r.test_time, "s", line_no=_find(lines, first, end, "actual test time:"))
        _per_target(res, r.key, r.test_time, threads_before)
    if r is not None:  # a console capture: text before the first run and after the last table is not DiskSpd's
        read = [i + 1 for i in range(spans[0][0], r.last_row + 1) if lines[i].strip()]
        if note := _text.wrapped_note("DiskSpd", read, lines):
            res.notes.append(note)
    return res


def _per_target(res: ParseResult, key: str, seconds: float | None, start: int = 0) -> None:
    """Scope 'target': the Total IO rows summed per file (computed, so no line number); the run's
    rows are those from ``start`` on (each run reads only its own: linear in runs)."""
    sums: dict[str, list[float]] = {}
    for row in res.tables["diskspd_threads"][start:]:
        if row["run_key"] == key and row["kind"] == "total" and row["thread"] is not None:
            s = sums.setdefault(row["target"], [0.0, 0.0, 0.0])
            s[0] += row["iops"]
            s[1] += row["bytes"]
            s[2] += row["ios"]
    for target, (iops, nbytes, ios) in sums.items():
        res.add(key, "target", "iops", iops, "IO/s", target=target)
        res.add(key, "target", "ios", ios, "count", target=target)
        if seconds:
            res.add(key, "target", "mbps", nbytes / seconds / 1e6, "MB/s", target=target)


def _find(lines: list[str], first: int, end: int, prefix: str) -> int | None:
    return next((i + 1 for i in range(first, end) if lines[i].strip().startswith(prefix)), None)
