"""elbencho result text: the `--resfile` file (the same table elbencho prints on the console).

Seen: elbencho 2.1-0 (real file); the 3.x wording is read from elbencho's Statistics.cpp. Each
invocation appends `ISO DATE: <when>` and `COMMAND LINE: "arg" "arg" ...`, then a table

    OPERATION RESULT TYPE        FIRST DONE  LAST DONE
    ========= ================   ==========  =========
    WRITE     Elapsed ms       :      45247      45253
              IOPS             :       4792       4831
              Throughput MiB/s :       4792       4831
              IO lat us        : [ min=2379 avg=6621 max=93525 ]
              IO lat % us      : [ 1%<=2380 50%<=6000 75%<=7000 99%<=20000 99.9%<=50000 ]
    ---

one block per phase, ended by `---`. FIRST DONE is when the fastest thread finished, LAST DONE the
whole phase: samples use LAST DONE; every cell goes to `elbencho_values`. 3.x words it differently:
`Elapsed time : 45.247s 45.253s`, `IO latency : [ min=2.38ms avg=6.62ms max=93.5ms ]` (human units:
us, ms, s, 1m5.123s), `Throughput MB/s` with --base10 (then stored as written, not x 1.048576).
In an RWMIX phase the lines are split `IOPS write` / `IOPS read` / `IOPS total` and `IO wr`/`IO rd`
latencies. Percentiles (`lat % us`, always us) become p50/p75/p99/p99_9... samples; `p1` too.
`Histogram exceeded` and `lat hist` lines are kept in the table only.

The text does not repeat the parameters, so the signature comes from COMMAND LINE (block
-b/--block, default 1M, sizes in powers of 2; threads -t/--threads, default 1; --iodepth, default 1;
--rand; --hosts list, or --numhosts) and the phase name (READ 100 % read, WRITE 0 %, RWMIXnn nn %):
workers = threads x hosts, outstanding I/Os = iodepth x workers; with --hostsfile the host count
is not in the file and workers/outstanding I/Os are left empty; a table without COMMAND LINE
(console capture, --resfile of an older or cleanup invocation) gives only the read % of its phases.
Variants by version, and the test covering each: docs/formats/elbencho.md.
Checked against itself: each per-second figure against its total over the elapsed time (FIRST and
LAST DONE), an RWMIX phase's `... total` lines against its write and read ones (elbencho_csv.rate_agrees,
parts_agree: Statistics.cpp printPhaseResultsToStream).
"""

from __future__ import annotations

import math
import re

from ..model import (
    MB_PER_MIB,
    MIB,
    ParseError,
    ParseResult,
    Run,
    split_lines,
)
from . import _text
from ._rows import Rows
from .elbencho_csv import IO_PHASES, TOOL, iso_date, parts_agree, rate_agrees

FORMAT = "elbencho-text"
VERSION = "1"
_HEADER = re.compile(r"^OPERATION\s+RESULT TYPE\s+FIRST DONE\s+LAST DONE\s*$")
_ROW = re.compile(r"^(?P<phase>\S*)\s+(?P<type>\S.*?)\s*:\s(?P<rest>.*)$")
_HUMAN = re.compile(r"^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)(us|ms|s))?$")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([kmgtp]?)i?b?$", re.IGNORECASE)
_PHASE = re.compile(r"^[A-Z][A-Z0-9_-]*$")  # WRITE, RWMIX70, LISTOBJ_P, MIX-T (PHASENAME_* in Common.h)
_BRACKET = re.compile(r"^\[\s*(.*?)\s*\]$")
_DIR = {"write": "write_", "wr": "write_", "read": "read_", "rd": "read_", "total": ""}


SNIFF_RULE = 'a line "OPERATION RESULT TYPE FIRST DONE LAST DONE" within the first 400 lines (--resfile text)'


def sniff(head: str, name: str) -> bool:
    return any(_HEADER.match(line) for line in split_lines(head)[:400])


def human_us(text: str, default_unit: str = "us") -> float | None:
    """`6621` (in default_unit), `2.38ms`, `93.5ms`, `1.25s`, `1m5.123s`, `1h2m3s` -> microseconds; None if not one."""
    t = text.strip()
    try:
        return float(t) * {"us": 1.0, "ms": 1e3, "s": 1e6}[default_unit]
    except ValueError:
        pass
    m = _HUMAN.match(t)
    if not t or not m or not any(m.groups()):
        return None
    h, mi, v, unit = m.groups()
    us = (int(h or 0) * 3600 + int(mi or 0) * 60) * 1e6
    return us + (float(v) * {"us": 1.0, "ms": 1e3, "s": 1e6}[unit] if v else 0.0)


def size_bytes(text: str) -> int | None:
    """elbencho sizes: `1m` = 2^20, `4k` = 4096, `512` bytes (UnitTk, powers of two)."""
    m = _SIZE.match(text.strip())
    if not m:
        return None
    return round(float(m.group(1)) * 1024 ** " kmgtp".index(m.group(2).lower() or " "))


def command_signature(command: str) -> dict:
    """(block size, random %, queue depth, workers) as the command line sets them, elbencho defaults otherwise."""
    args = re.findall(r'"([^"]*)"', command) or command.split()
    opts: dict[str, str | bool] = {}
    for i, a in enumerate(args):
        if not a.startswith("-"):
            continue
        name, eq, val = a.partition("=")  # --block=1m
        name = {"-b": "--block", "-t": "--threads"}.get(name, name)
        nxt = val if eq else args[i + 1] if i + 1 < len(args) else None
        opts[name] = nxt if nxt is not None and not nxt.startswith("-") else True
    block = size_bytes(str(opts.get("--block", "1m")))
    threads = _count(opts.get("--threads", "1"))
    qd = _count(opts.get("--iodepth", "1"))
    hosts: int | None = 1
    if isinstance(opts.get("--hosts"), str):
        hosts = len([h for h in re.split(r"[,\s]+", opts["--hosts"]) if h])
    elif "--hostsfile" in opts:
        hosts = None
    numhosts = _count(opts["--numhosts"]) if isinstance(opts.get("--numhosts"), str) else None
    if hosts is not None and numhosts:
        hosts = min(hosts, numhosts)
    workers = threads * hosts if threads is not None and hosts is not None else None
    return {
        "block_size_bytes": block,
        "random_pct": 100.0 if "--rand" in opts else 0.0,
        "queue_depth": qd,
        "workers": workers,
        "outstanding_ios": qd * workers if qd is not None and workers is not None else None,
    }


def _count(v) -> int | None:
    return int(v) if isinstance(v, str) and v.isdigit() else None


class _Parser:
    def __init__(self) -> None:
        self.res = ParseResult()
        self.rows = Rows()  # elbencho_values, packed past a chunk (formats/_rows.py)
        self.block = 0  # invocation number (ISO DATE / COMMAND LINE header)
        self.when = None
        self.sig: dict = {}
        self.run: Run | None = None
        self.entry_type: str | None = None
        self.seen_table = False
        self.inside = False  # within a table's phase block, where every line must be elbencho's
        self.read: list[int] = []  # the lines that were elbencho's (not blank)
        self.fl: dict[str, tuple[float, float, int]] = {}  # the phase's result type -> (first, last, line)

    def parse(self, lines: list[str]) -> ParseResult:
        for ln, line in enumerate(lines, start=1):
            if not self.inside and not self.ours(line):
                continue  # a script's log, a prompt: outside elbencho's tables (said in the notes)
            if line.strip():
                self.read.append(ln)
            if line.startswith("ISO DATE:"):
                self.start_block(ln)
                self.when = iso_date(line.split(":", 1)[1], ln)
                self.cell(None, "ISO DATE", None, line.split(":", 1)[1].strip(), ln)
            elif line.startswith("COMMAND LINE:"):
                cmd = line.split(":", 1)[1].strip()
                self.sig = command_signature(cmd)
                self.cell(None, "COMMAND LINE", None, cmd, ln)
            elif _HEADER.match(line):
                self.seen_table = self.inside = True
            elif line.startswith("=") or not line.strip():
                continue
            elif line.strip() == "---":
                self.check()
                self.run, self.inside = None, False
            elif line.startswith("WARNING:"):
                self.cell(self.run, "WARNING", None, line, ln)
            else:
                self.result_line(line, ln)
        self.check()
        if not self.res.runs:
            raise ParseError("no phase results: the elbencho result table has no rows")
        self.res.tables["elbencho_values"] = self.rows.table()
        if note := _text.wrapped_note("elbencho", self.read, lines):
            self.res.notes.append(note)
        return self.res

    def ours(self, line: str) -> bool:
        """Whether a line outside a phase block is elbencho's: an invocation's ISO DATE or COMMAND
        LINE, the table header and its rule, a WARNING, or the first line of the next phase (a
        phase name as Common.h spells them, then its first line 'Elapsed ...', once a table began)."""
        if line.startswith(("ISO DATE:", "COMMAND LINE:", "WARNING:")) or _HEADER.match(line):
            return True
        if self.seen_table and (line.startswith("=") or line.strip() == "---"):
            return True
        m = _ROW.match(line)
        if self.seen_table and m and _PHASE.match(m.group("phase")) and m.group("type").startswith("Elapsed"):
            self.inside = True
            return True
        return False

    def start_block(self, ln: int) -> None:
        self.block += 1
        self.sig, self.when, self.run = {}, None, None

    def cell(self, run: Run | None, column: str, value: float | None, text: str | None, ln: int) -> None:
        self.rows.append(
            {
                "file_kind": "text",
                "run_key": run.key if run else None,
                "phase": run.workload if run else None,
                "column_name": column,
                "value": value,
                "text": text,
                "line_no": ln,
            }
        )

    def result_line(self, line: str, ln: int) -> None:
        m = _ROW.match(line)
        if not m or not self.seen_table:
            raise ParseError(f"expected a result line 'PHASE  Result type : first last', found {line[:60]!r}", ln)
        if m.group("phase"):
            self.start_run(m.group("phase"), ln)
        elif self.run is None:
            raise ParseError("a result line without a phase name before it", ln)
        rtype, rest = m.group("type"), m.group("rest").strip()
        b = _BRACKET.match(rest)
        if b:
            self.bracket(rtype, b.group(1), ln)
        else:
            self.first_last(rtype, rest, ln)

    def start_run(self, phase: str, ln: int) -> None:
        self.check()
        key = f"{self.block or 1}-{len(self.res.runs) + 1}-{phase}"
        run = Run(key, TOOL, workload=phase, status="complete", started_at=self.when)
        self.when = None  # ISO DATE is when the invocation started: the start of its first phase only
        m = IO_PHASES.match(phase)
        if m:
            run.read_pct = {"WRITE": 0.0, "READ": 100.0}.get(phase, float(m.group(2)) if m.group(2) else None)
            for k, v in self.sig.items():
                setattr(run, k, v)
        self.res.runs.append(run)
        self.run, self.entry_type = run, None

    def first_last(self, rtype: str, rest: str, ln: int) -> None:
        parts = rest.split()
        if len(parts) != 2:
            raise ParseError(f"{rtype!r}: expected FIRST DONE and LAST DONE values, found {rest!r}", ln)
        unit = "ms" if rtype.startswith("Elapsed") else "us"
        vals = []
        for col, t in zip(("first", "last"), parts):
            v = _plain(t)
            if v is None:
                v = human_us(t, unit)
                if v is None:
                    raise ParseError(f"{rtype!r}: {t!r} is not a number", ln)
                if unit == "ms":
                    v /= 1e3  # a human duration, stored in ms like 'Elapsed ms'
            vals.append(v)
            self.cell(self.run, f"{rtype} [{col}]", v, None if _plain(t) is not None else t, ln)
        self.fl[rtype] = (vals[0], vals[1], ln)
        self.sample(rtype, vals[1], ln)

    def check(self) -> None:
        """The phase just read against itself: each per-second figure against its total over the elapsed
        time, FIRST and LAST DONE (elbencho_csv.rate_agrees), and an RWMIX phase's totals against its write
        and read figures (parts_agree)."""
        fl, self.fl = self.fl, {}
        elapsed = fl.get("Elapsed ms") or fl.get("Elapsed time")
        if self.run is None or elapsed is None:
            return
        for rtype, (first, last, ln) in fl.items():
            total = _total_of(rtype)
            for i, (col, v) in enumerate((("first", first), ("last", last))):
                what = f"{self.run.workload} {rtype} [{col}]"
                if total in fl:
                    rate_agrees(v, fl[total][i], elapsed[i], what, ln, mib="MiB" in total)
                if rtype.endswith(" total") and "/s" in rtype or rtype == "IOPS total":
                    stem = rtype.removesuffix(" total")
                    w, r = fl.get(f"{stem} write"), fl.get(f"{stem} read")
                    parts_agree(v, w and w[i], r and r[i], what, ln, cut=stem in ("MiB/s", "MB/s"))

    def sample(self, rtype: str, v: float, ln: int) -> None:
        words = rtype.split()
        d = self.direction(words[-1])
        add = self.add
        if words[0] == "Elapsed":
            add("runtime_s", v / 1e3, "s", ln, plain_too=False)
        elif rtype == "CPU util %":
            add("cpu_util_pct", v, "%", ln, plain_too=False)
        elif words[0] == "IOPS":
            add(f"{d}iops", v, "IO/s", ln)
        elif words[0] == "IOs":
            add(f"{d}ios", v, "count", ln)
        elif "MiB/s" in words or "MB/s" in words:
            add(f"{d}mbps", v * (MB_PER_MIB if "MiB/s" in words else 1.0), "MB/s", ln)
        elif words[0] in ("MiB", "Total") and "MiB" in words and self.run.read_pct is not None:
            bd = d or {0.0: "write_", 100.0: "read_"}.get(self.run.read_pct)
            if bd:
                add({"write_": "bytes_written", "read_": "bytes_read"}[bd], v * MIB, "bytes", ln, plain_too=False)
        elif self.is_entry(words[0].removesuffix("/s")):
            dd = d if self.mixed() else ""
            add(
                f"{dd}entries_per_s" if words[0].endswith("/s") else f"{dd}entries",
                v,
                "1/s" if words[0].endswith("/s") else "count",
                ln,
                plain_too=False,
            )

    def is_entry(self, word: str) -> bool:
        """The phase's entry type (Dirs, Files, Objects...) is the first per-second line's; a later
        Dirs/s in a file phase (--dirstats) is kept in the table only."""
        if word in ("IOPS", "IOs", "MiB", "MB", "Total", "Throughput", "CPU", "Time", "Svc", "Elapsed"):
            return False
        if self.entry_type is None:
            self.entry_type = word
        return word == self.entry_type

    def mixed(self) -> bool:
        return self.run.read_pct not in (0.0, 100.0)

    def direction(self, word: str) -> str:
        if word in _DIR:
            return _DIR[word]
        return {0.0: "write_", 100.0: "read_"}.get(self.run.read_pct, "")

    def add(self, metric: str, v: float, unit: str, ln: int, plain_too: bool = True) -> None:
        self.res.add(self.run.key, "all", metric, v, unit, line_no=ln)
        for d in ("read_", "write_"):
            if plain_too and metric.startswith(d) and not self.mixed() and "latency" not in metric:
                self.res.add(self.run.key, "all", metric.removeprefix(d), v, unit, line_no=ln)
        if plain_too and "latency" in metric and not self.mixed():
            plain = metric.replace("_read_", "_").replace("_write_", "_")
            if plain != metric:
                self.res.add(self.run.key, "all", plain, v, unit, line_no=ln)

    def bracket(self, rtype: str, body: str, ln: int) -> None:
        """`[ min=2379 avg=6621 max=93525 ]`, `[ 1%<=12 50%<=99 ... ]`, or text (histograms, service times)."""
        words = rtype.split()
        kind = words[0]
        d = self.direction(words[1]) if len(words) > 1 and words[1] in _DIR else self.direction("")
        if "%" in words and "us" in words:  # percentiles, always us
            for tok in body.split():
                p, sep, val = tok.partition("%<=")
                v = _plain(val)
                self.cell(self.run, f"{rtype} [{p}%]", v, None if v is not None else tok, ln)
                if sep and v is not None and kind == "IO":
                    self.add(f"p{p.replace('.', '_')}_{d}latency_ms", v / 1e3, "ms", ln)
            return
        if "latency" in words or words[-2:] == ["lat", "us"]:
            stem = "latency" if kind == "IO" else "entry_latency"
            for tok in body.split():
                k, sep, val = tok.partition("=")
                v = human_us(val) if sep else None
                self.cell(self.run, f"{rtype} [{k}]", v, None if _plain(val) is not None else tok, ln)
                if v is None or k not in ("min", "avg", "max"):
                    if sep and v is None:
                        raise ParseError(f"{rtype!r}: {tok!r} is not a latency", ln)
                    continue
                dd = d if kind == "IO" or self.mixed() else ""
                self.add(f"{k}_{dd}{stem}_ms", v / 1e3, "ms", ln)
            return
        self.cell(self.run, rtype, None, body, ln)


def _total_of(rtype: str) -> str:
    """The result type a per-second one is the rate of ("" when none): `Throughput MiB/s` of `Total MiB`,
    `MiB/s write` of `MiB write`, `Files/s` of `Files total`, `Files/s read` of `Files read`."""
    m = re.fullmatch(r"(?:Throughput )?(MiB|MB)/s( write| read)?|(\w+)/s( write| read)?", rtype)
    if not m or rtype.startswith("IOPS"):
        return ""
    if m.group(1):
        return f"MiB{m.group(2)}" if m.group(2) else "Total MiB"
    return f"{m.group(3)}{m.group(4) or ' total'}"


def _plain(t: str) -> float | None:
    try:
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def parse(data: bytes, name: str) -> ParseResult:
    return _Parser().parse(split_lines(_text.decode(data)))
