"""fio's default (normal, human-readable) output: `fio job.fio` with no `--output-format`, also from
a client (`fio --client=host job.fio`), fio 2.x and 3.x (writer: stat.c show_thread_status_normal,
show_ddir_status, display_lat, show_clat_percentiles, show_group_stats; docs/formats/fio.md).

One run per job report (`name: (groupid=G, jobs=N): err= E: pid=P: <date>`; under group_reporting
one per group, `jobs=` its job count: the run's workers). A file may hold several reports
(`--status-interval`, appended runs): each header after a `Run status group` starts a new report
(doc_no), except in a client capture, where the clients' reports follow one another in one report.
A report whose jobs (name, group, pid) are the next report's is an interim one (`--status-interval`
prints the whole report every interval, from the same processes): its rows stay in the tool tables
(fio_jobs.run_key NULL) and each job's run is its last report; appended runs are other processes.
Terse lines beside the report (`--output-format=terse,normal`) are the same run's: kept as messages.

Checked against itself at parse time (stat.c; `_checks`): each direction's IOPS against its I/O
count over its runtime (`1000 x issued / runtime`, cut), and each `Run status group` line against
its jobs (runtimes' min-max exact, bandwidths' min-max and the I/O sum within the printed digits). In a client
capture (`<host> ` prefixes, `hostname=... fio=...` probe lines) each job takes the host of the
last `<host>` prefix before it, and fio's `All clients` report (the sum over every client's jobs)
is its own run with scope `test` (as in fio_json), never averaged with the per-host runs.

The text's precision (fio's num2str, 4 significant digits by default, dividing by 1000/1024 with
truncation): IOPS (`IOPS=29.7k`; 2.x `iops=51143`, an integer cut from the exact rate), bandwidth
(`BW=25.1MiB/s (26.3MB/s)`: the first value is read, in its own unit) and `io=` are within one unit
of their last printed digit of the exact value; latency `min`/`max` are whole units of the shown
unit (nsec/usec/msec, cut), `avg`/`stdev` have two decimals; percentiles are whole units rounded
up. The I/O counts (`issued rwts: total=`), runtimes (`/1001msec`) and the CPU line are exact.
2.x's `KB`/`MB` are powers of 1024 (fio's default kb_base). Each number is stored in canonical
units as printed (not rounded further); the job's lines are in fio_job_values as written.

The workload signature comes from each job's start line (`name: (g=0): rw=randread, bs=(R)
4096B-4096B, ..., ioengine=psync, iodepth=1`): block size when one size is used throughout, the
read/random mix of rw (unknown for a read/write mix: rwmixread is not printed), iodepth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..model import ParseError, ParseResult, Run, decode_text, split_lines
from . import _checks, _fio
from ._fio import Direction

FORMAT = "fio-text"
VERSION = "2"
SNIFF_RULE = (
    "a fio job report header ('name: (groupid=0, jobs=1): err= 0: pid=...') and no '\"fio version\"' (JSON); "
    "terse lines beside it are the same run's (--output-format=terse,normal)"
)
ALL_CLIENTS = "All clients"

_HOST = re.compile(r"^<(?P<host>[^<>]*)> ?")
_HEADER = re.compile(
    r"^(?P<name>.*?): \(groupid=(?P<gid>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)(?: \((?P<verror>[^)]*)\))?"
    r": pid=(?P<pid>\d+)(?:: (?P<date>.*\S))?\s*$"
)
_JOBLINE = re.compile(
    r"^(?P<name>.*?): \(g=(?P<gid>\d+)\): rw=(?P<rw>[^,]+), bs=(?P<bs>.*?), ioengine=(?P<engine>[^,]+), iodepth=(?P<qd>\d+)"
)
_NUM = r"\d+(?:\.\d+)?"
_DIR3 = re.compile(
    rf"^\s+(?P<dir>read|write|trim|mixed): IOPS=(?P<iops>{_NUM}[kMGTPE]?), BW=(?P<bw>{_NUM}(?:[KMGTPE]i?|k)?(?:(?:B|bit)/s)?)"
    rf" \((?P<bw2>[^)]*)\)\((?P<io>{_NUM}(?:[KMGTPE]i?|k)?B)/(?P<run>\d+)msec\)"
)
_DIR2 = re.compile(
    rf"^\s+(?P<dir>read|write|trim|mixed)\s*: io=(?P<io>{_NUM}(?:[KMGTPE]i?|k)?B), bw=(?P<bw>{_NUM}(?:[KMGTPE]i?|k)?B/s),"
    rf" iops=(?P<iops>{_NUM}[kKMGTPE]?)\s*, runt=\s*(?P<run>\d+)msec"
)
_LAT = re.compile(
    rf"^\s+(?P<stat>slat|clat|lat|sync) \((?P<unit>nsec|usec|msec)\): min=\s*(?P<min>{_NUM}[kKMGTPE]?)\s*,"
    rf" max=\s*(?P<max>{_NUM}[kKMGTPE]?)\s*, avg=\s*(?P<avg>{_NUM})\s*, stdev=\s*(?P<stddev>{_NUM})\s*$"
)
_PCT_HEAD = re.compile(r"^\s+(?P<stat>slat|clat|lat) percentiles \((?P<unit>nsec|usec|msec)\):\s*$")
_PCT = re.compile(rf"(?P<p>{_NUM})th=\[\s*(?P<v>\d+)\]")
_CPU = re.compile(rf"^\s+cpu\s+: usr=(?P<usr>{_NUM})%, sys=(?P<sys>{_NUM})%, ctx=(?P<ctx>\d+)")
_ISSUED3 = re.compile(r"^\s+issued rwts?: total=(?P<r>\d+),(?P<w>\d+),(?P<t>\d+)")
_ISSUED2 = re.compile(r"^\s+issued\s*:\s*total=r=(?P<r>\d+)/w=(?P<w>\d+)(?:/d=(?P<t>\d+))?")
_ERRORS = re.compile(r"^\s+errors\s+: total=(?P<n>\d+)")
_GROUP = re.compile(r"^Run status group (\d+)")
# the group line of each direction (show_group_stats): 3.x `READ: bw=A (..), MIN-MAX (..), io=IO (..), run=A-Bmsec`,
# 2.x `READ: io=IO, aggrb=A, minb=MIN, maxb=MAX, mint=Amsec, maxt=Bmsec`
_GROUP3 = re.compile(
    r"^\s+(?P<dir>READ|WRITE|TRIM|MIXED): bw=(?P<bw>\S+) \([^)]*\), (?P<min>[^\s-]+)-(?P<max>[^\s-]+) \([^)]*\),"
    r" io=(?P<io>\S+) \([^)]*\), run=(?P<rmin>\d+)-(?P<rmax>\d+)msec"
)
_GROUP2 = re.compile(
    r"^\s+(?P<dir>READ|WRITE|TRIM|MIXED): io=(?P<io>[^,\s]+), aggrb=(?P<bw>[^,\s]+), minb=(?P<min>[^,\s]+),"
    r" maxb=(?P<max>[^,\s]+), mint=(?P<rmin>\d+)msec, maxt=(?P<rmax>\d+)msec"
)
_VERSION = re.compile(r"^(?:<[^<>]*> )?((?:fio-)?\d+\.\d+\S*)\s*$")  # fio 2.0.x printed `2.0.8`
_PROBE = re.compile(r"^hostname=(?P<host>[^,]*), be=\d+, .*\bfio=(?P<fio>\S+?),")

_SI = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_TO_MS = {"nsec": 1e-6, "usec": 1e-3, "msec": 1.0}
_QUANTITY = re.compile(rf"^(?P<n>{_NUM})(?P<p>[KMGTPE]i|[kKMGTPE])?(?P<u>B/s|bit/s|B|)$")
# fio 3.x's `All clients` report prints its bandwidth with no unit (`BW=83.8Mi (87.9M)`: the summed
# stat's unit_base is left 0, client.c); it is bytes/s all the same (stat.c computes it from io_bytes)


def sniff(head: str, name: str) -> bool:
    if '"fio version"' in head:
        return False  # `--output-format=normal,json`: the JSON parser reads it (text and all)
    return report_in(head)


def report_in(text: str) -> bool:
    """Whether ``text`` (its first 2,000 lines) holds a job report's header: fio's normal output, alone
    or beside terse lines (`--output-format=terse,normal`: one run in two layouts, read as the text)."""
    return any(_HEADER.match(_HOST.sub("", x)) for x in split_lines(text)[:2000])


def quantity(text: str, line: int, old_kb: bool = False) -> float:
    """A num2str value in base units: `29.7k` -> 29700, `25.1MiB/s` -> bytes/s, `64.0KiB` -> bytes.
    fio 2.x (``old_kb``) wrote `KB`/`MB` for powers of 1024; bits per second become bytes."""
    m = _QUANTITY.match(text)
    if not m:
        raise ParseError(
            f"{text!r} is not a number as fio prints one (digits, a k/M/G or Ki/Mi/Gi prefix, a unit)", line
        )
    prefix = m.group("p") or ""
    if prefix in _IEC:
        mult = float(_IEC[prefix])
    elif old_kb and prefix:
        mult = float(1024 ** "kMGTPE".index(prefix[0].replace("K", "k")) * 1024)
    else:
        mult = _SI[prefix]
    value = float(m.group("n")) * mult
    return value / 8 if m.group("u") == "bit/s" else value


@dataclass
class _Job:
    no: int
    doc_no: int
    line: int
    name: str
    groupid: int
    jobs: int
    error: int
    verror: str | None
    pid: int
    date: str | None
    host: str | None
    start: tuple[str, str, int, int] | None = None  # (rw, bs, iodepth, line) of its start line
    dirs: dict[str, Direction] = field(default_factory=dict)
    values: list[tuple[str, str, int]] = field(default_factory=list)  # (path, as written, line)
    pct: list[tuple[str, str, float, float, str, int]] = field(default_factory=list)  # ddir stat p value unit line
    issued: dict[str, float] = field(default_factory=dict)
    cpu: tuple[float, float] | None = None
    errors: float | None = None
    lines: dict[str, int] = field(default_factory=dict)  # where each number came from: dir:read, lat:read:clat, ...


def parse(data: bytes, name: str) -> ParseResult:
    lines = split_lines(decode_text(data))
    res = ParseResult()
    jobs: list[_Job] = []
    starts: dict[str, tuple[str, str, int, int]] = {}  # job name -> (rw, bs, iodepth, line)
    messages: list[dict[str, Any]] = []
    state = _State()
    for ln, raw in enumerate(lines, start=1):
        _line(raw, ln, state, jobs, starts, messages)
    if not jobs:
        raise ParseError("no fio job report in the file (no 'name: (groupid=N, jobs=N): err=...' line)")
    res.tool_version = state.version
    interim = set() if state.clients else interim_reports(jobs)
    check(jobs, state, interim)
    rows: dict[str, list[dict[str, Any]]] = {"fio_jobs": [], "fio_job_values": [], "fio_percentiles": []}
    for job in jobs:
        _emit(res, rows, job, state.version, state.clients, job.doc_no in interim)
    rows["fio_messages"] = messages
    res.tables = {t: r for t, r in rows.items() if r}
    if interim:
        res.notes.append(
            f"{len(interim)} interim report{'s' * (len(interim) > 1)} (--status-interval: the same processes, "
            f"their numbers so far) kept in the fio tables only (doc_no {', '.join(map(str, sorted(interim)))}); "
            "each job's run is its last report"
        )
    return res


def interim_reports(jobs: list[_Job]) -> set[int]:
    """The reports (doc_no) that are `--status-interval` snapshots of the report after them: fio prints
    the whole report every interval, then once more at the end, from the same processes, so a report
    whose jobs (name, group, pid) are those of the next one is an interim one. Appended runs are other
    processes (other pids), and each is a run of its own."""
    docs: dict[int, list[tuple[str, int, int]]] = {}
    for j in jobs:
        docs.setdefault(j.doc_no, []).append((j.name, j.groupid, j.pid))
    order = sorted(docs)
    return {a for a, b in zip(order, order[1:]) if docs[a] == docs[b]}


def check(jobs: list[_Job], st: _State, interim: set[int]) -> None:
    """The file against itself (fio's stat.c): each job's IOPS is `1000 x I/Os / runtime` cut to a whole
    number, its I/O count and runtime printed exactly (`issued rwts`, `/1001msec`); each `Run status group`
    line states its jobs' shortest and longest runtime (exact), smallest and largest bandwidth (printed as
    each job's: 2.x computes it again, a printed unit apart at most) and their I/O summed (each within its
    printed precision). A client capture's group lines
    are each server's: not checked. Interim reports are checked as the final one."""
    for job in jobs:
        _check_iops(job)
    if st.clients:
        return
    for g in st.groups:
        members = [j for j in jobs if j.doc_no == g.doc_no and j.groupid == g.groupid and g.ddir in j.dirs]
        if g.ddir == "mixed" and any(set(j.dirs) - {"mixed"} for j in members):
            continue  # unified_rw_reporting=both: fio sums the group's mixed line its own way
        _check_group(g, members)


def _token(job: _Job, path: str) -> str:
    return next(v for p, v, _ in job.values if p == path)


def _check_iops(job: _Job) -> None:
    for d in job.dirs.values():
        ios = sum(job.issued.values()) if d.name == "mixed" and job.issued else job.issued.get(d.name)
        if ios is None or not d.runtime_ms or d.iops is None:
            continue
        ln = job.lines[f"dir:{d.name}"]
        exact = (1000 * int(ios)) // int(d.runtime_ms)
        what = f"job {job.name!r}: {d.name} IOPS against its I/Os over its runtime (1000 x {ios:.0f} / {d.runtime_ms:.0f} ms)"
        _checks.agree(d.iops, exact, ulp(_token(job, f"{d.name}.iops"), ln), what, ln)


def _check_group(g: _Group, members: list[_Job]) -> None:
    if not members:
        raise ParseError(
            f"Run status group {g.groupid} states {g.ddir} I/O, but no job report of the group did any", g.line
        )
    dirs = [j.dirs[g.ddir] for j in members]
    what = f"Run status group {g.groupid}, {g.ddir.upper()}"
    runs = [d.runtime_ms or 0.0 for d in dirs]
    _checks.equal(g.run[0], min(runs), f"{what}: the shortest runtime (ms) of its jobs", g.line)
    _checks.equal(g.run[1], max(runs), f"{what}: the longest runtime (ms) of its jobs", g.line)
    bws = [d.bw_bytes_per_s or 0.0 for d in dirs]
    for stated, part, which in ((g.bw[0], min(bws), "smallest"), (g.bw[1], max(bws), "largest")):
        # 3.x prints each job's own figure; 2.x computes it from KB, a unit apart at most
        tol = ulp(stated, g.line, g.old)
        _checks.agree(quantity(stated, g.line, g.old), part, tol, f"{what}: the {which} bandwidth of its jobs", g.line)
    tol = ulp(g.io, g.line, g.old) + sum(ulp(_token(j, f"{g.ddir}.io"), g.line, g.old) for j in members)
    total = sum(d.io_bytes or 0.0 for d in dirs)
    _checks.agree(quantity(g.io, g.line, g.old), total, tol, f"{what}: the I/O of its jobs summed (bytes)", g.line)


def ulp(text: str, line: int, old_kb: bool = False) -> float:
    """One unit of the last digit a num2str value shows, in its base unit (`29.7k` -> 100, `25.1MiB/s`
    -> 0.1 MiB/s in bytes/s, `1998KiB` -> 1 KiB)."""
    m = _QUANTITY.match(text)
    if not m:
        return quantity(text, line, old_kb)  # the ParseError naming the value
    return quantity("1" + text[len(m.group("n")) :], line, old_kb) * _checks.ulp(m.group("n"))


@dataclass
class _State:
    version: str | None = None
    host: str | None = None
    clients: bool = False
    doc_no: int = 1
    after_group: bool = False
    job: _Job | None = None
    pct: tuple[str, str, str] | None = None  # (ddir, stat, unit) of the percentile block being read
    ddir: str | None = None
    group: int | None = None  # the `Run status group N` whose lines are being read
    groups: list[_Group] = field(default_factory=list)


@dataclass
class _Group:
    """One direction's line of a `Run status group` (show_group_stats): what fio states of the group's jobs."""

    doc_no: int
    groupid: int
    ddir: str  # read, write, trim, mixed
    bw: tuple[str, str]  # the jobs' smallest and largest bandwidth, as printed
    io: str  # the jobs' I/O summed, as printed
    run: tuple[int, int]  # the jobs' shortest and longest runtime (ms, exact)
    old: bool  # fio 2.x units (KB = 1024)
    line: int


def _line(raw: str, ln: int, st: _State, jobs: list[_Job], starts: dict, messages: list[dict[str, Any]]) -> None:
    if m := _HOST.match(raw):
        st.host, st.clients = m.group("host"), True
        raw = raw[m.end() :]
    text = raw.rstrip()
    if not text.strip():
        return
    if st.pct and text.lstrip().startswith("|"):
        ddir, stat, unit = st.pct
        assert st.job is not None
        for m in _PCT.finditer(text):
            st.job.pct.append((ddir, stat, float(m.group("p")), float(m.group("v")), unit, ln))
        return
    st.pct = None
    if m := _HEADER.match(text):
        if st.after_group and not st.clients:  # a client capture is one report, client after client
            st.doc_no = st.doc_no + 1
        st.after_group, st.group = False, None
        st.job = _Job(
            len(jobs) + 1,
            st.doc_no,
            ln,
            m.group("name"),
            int(m.group("gid")),
            int(m.group("jobs")),
            int(m.group("err")),
            m.group("verror"),
            int(m.group("pid")),
            m.group("date"),
            st.host,
            starts.get(m.group("name")),
        )
        st.ddir = None
        jobs.append(st.job)
        return
    if m := _GROUP.match(text):
        st.job, st.after_group, st.group = None, True, int(m.group(1))
    elif st.job is None and st.group is not None and (m := _GROUP3.match(text) or _GROUP2.match(text)):
        run = (int(m.group("rmin")), int(m.group("rmax")))
        bw = (m.group("min"), m.group("max"))
        st.groups.append(
            _Group(st.doc_no, st.group, m.group("dir").lower(), bw, m.group("io"), run, m.re is _GROUP2, ln)
        )
    elif (m := _VERSION.match(text)) and st.version is None and not jobs:
        st.version = m.group(1)
    elif m := _PROBE.match(text):
        st.clients = True
        st.version = st.version or m.group("fio")
    elif m := _JOBLINE.match(text):  # the latest start line of a name: appended runs each print theirs
        starts[m.group("name")] = (m.group("rw").strip(), m.group("bs"), int(m.group("qd")), ln)
    if st.job is None or not (_job_line(text, ln, st) or text.startswith(" ")):
        # what the parser does not read, outside a job's indented lines (whose numbers fio_json has)
        messages.append({"doc_no": st.doc_no, "line_no": ln, "text": text.strip()})


def _job_line(text: str, ln: int, st: _State) -> bool:
    """Read one line of a job report into the job; False when it is none the parser reads."""
    job = st.job
    assert job is not None
    old = False
    m = _DIR3.match(text)
    if m is None and (m := _DIR2.match(text)):
        old = True
    if m:
        ddir = m.group("dir")
        st.ddir = ddir
        job.lines[f"dir:{ddir}"] = ln
        job.dirs[ddir] = Direction(
            ddir,
            iops=quantity(m.group("iops"), ln),
            io_bytes=quantity(m.group("io"), ln, old),
            bw_bytes_per_s=quantity(m.group("bw"), ln, old),
            runtime_ms=float(m.group("run")),
        )
        for k in ("iops", "bw", "io", "run"):
            job.values.append((f"{ddir}.{k}", m.group(k), ln))
        return True
    if (m := _LAT.match(text)) and m.group("stat") == "sync":  # fsync/fdatasync: no canonical metric
        job.values += [(f"sync.{k}", f"{m.group(k)} {m.group('unit')}", ln) for k in ("min", "max", "avg", "stddev")]
        return True
    if (m := _LAT.match(text)) and st.ddir:
        scale = _TO_MS[m.group("unit")]
        stats = {k: quantity(m.group(k), ln) * scale for k in ("min", "max", "avg", "stddev")}
        job.dirs[st.ddir].lat[m.group("stat")] = dict(stats)
        job.lines[f"lat:{st.ddir}:{m.group('stat')}"] = ln
        for k in ("min", "max", "avg", "stddev"):
            job.values.append((f"{st.ddir}.{m.group('stat')}.{k}", f"{m.group(k)} {m.group('unit')}", ln))
        return True
    if (m := _PCT_HEAD.match(text)) and st.ddir:
        st.pct = (st.ddir, m.group("stat"), m.group("unit"))
        return True
    if m := _CPU.match(text):
        job.cpu = (float(m.group("usr")), float(m.group("sys")))
        job.lines["cpu"] = ln
        job.values += [
            ("cpu.usr", m.group("usr"), ln),
            ("cpu.sys", m.group("sys"), ln),
            ("cpu.ctx", m.group("ctx"), ln),
        ]
        return True
    if m := (_ISSUED3.match(text) or _ISSUED2.match(text)):
        job.issued = {d: float(m.group(g)) for d, g in (("read", "r"), ("write", "w"), ("trim", "t")) if m.group(g)}
        job.lines["issued"] = ln
        job.values += [(f"issued.{d}", f"{v:.0f}", ln) for d, v in job.issued.items()]
        return True
    if m := _ERRORS.match(text):
        job.errors = float(m.group("n"))
        job.lines["errors"] = ln
        job.values.append(("errors.total", m.group("n"), ln))
        return True
    return False


def _block_size(text: str, line: int) -> int | None:
    """`(R) 4096B-4096B, (W) ...` (3.x) or `4K-4K/4K-4K/4K-4K` (2.x, K = 1024) -> bytes, when every
    direction's range is one size; else None."""
    sizes = {
        quantity(n + (p or "") + "B", line, old_kb=True)
        for n, p in re.findall(rf"({_NUM})([KMGTPE]i?)?B?(?=[-/,\s]|$)", re.sub(r"\([RWT]\)", "", text))
    }
    return int(sizes.pop()) if len(sizes) == 1 else None


def _signature(run: Run, start: tuple[str, str, int, int] | None, workers: int) -> None:
    """Block size, mix and load from the job's start line; the mix of a read/write mix is unknown
    (rwmixread is not printed) and percentage_random is not printed (rw's own randomness is used)."""
    if start is None:
        return
    rw, bs, qd, ln = start
    run.test_type = rw
    run.block_size_bytes = _block_size(bs, ln)
    read, random = _fio.read_random_pct({"rw": rw})
    mixed = rw.split(":")[0].removeprefix("rand") in ("rw", "readwrite")
    run.read_pct, run.random_pct = (None if mixed else read), random
    run.queue_depth, run.workers, run.outstanding_ios = qd, workers, qd * workers


def _emit(res: ParseResult, rows: dict, job: _Job, version: str | None, clients: bool, interim: bool) -> None:
    """A job report's tool rows, and unless it is an interim report its run and samples."""
    total = clients and job.name == ALL_CLIENTS
    key = f"{job.doc_no}:{job.no}:{job.name}" + (f"@{job.host}" if job.host is not None and not total else "")
    ids = {"doc_no": job.doc_no, "job_no": job.no}
    rows["fio_jobs"].append(
        {
            **ids,
            "run_key": None if interim else key,
            "jobname": job.name,
            "groupid": job.groupid,
            "error": job.error,
            "fio_version": version,
            "line_no": job.line,
            "hostname": None if total else job.host,
            "all_clients": total if clients else None,
        }
    )
    rows["fio_job_values"] += [{**ids, "path": p, "value": v, "value_num": None} for p, v, _ in job.values]
    for ddir, stat, p, v, unit, ln in job.pct:
        rows["fio_percentiles"].append(
            {**ids, "ddir": ddir, "stat": stat, "percentile": p, "value": v, "unit": unit[:2], "line_no": ln}
        )
    if not interim:
        _run(res, job, key, version, total)


def _run(res: ParseResult, job: _Job, key: str, version: str | None, total: bool) -> None:
    run = Run(key=key, tool="fio", tool_version=version, workload=job.name or None)
    run.ended_at = _date(job.date)
    run.status = f"error {job.error}" + (f" ({job.verror})" if job.verror else "") if job.error else "complete"
    if total:
        run.description = "fio's sum of every job of every client (client/server run: the `All clients` report)"
    else:
        _signature(run, job.start, job.jobs)
    res.runs.append(run)
    scope = "test" if total else "all"
    for d in job.dirs.values():
        _direction(res, key, job, d, scope)
    _fio.add_totals(res, key, list(job.dirs.values()), scope)  # derived: no line holds them
    longest = max(job.dirs.values(), key=lambda d: d.runtime_ms or 0, default=None)
    if longest is not None and longest.runtime_ms is not None:
        res.add(key, scope, "runtime_s", longest.runtime_ms / 1000, "s", line_no=job.lines[f"dir:{longest.name}"])
    res.add(key, scope, "errors", job.errors, "count", line_no=job.lines.get("errors"))
    if job.cpu and not total:
        res.add(key, "all", "cpu_user_pct", job.cpu[0], "%", line_no=job.lines["cpu"])
        res.add(key, "all", "cpu_privileged_pct", job.cpu[1], "%", line_no=job.lines["cpu"])


def _direction(res: ParseResult, key: str, job: _Job, d: Direction, scope: str) -> None:
    """One direction's samples, each with the line it was read from (as _fio.add_direction names
    them). fio prints a direction only when it did I/O, so its latencies are all real."""
    pre, ln = ("" if d.name == "mixed" else f"{d.name}_"), job.lines[f"dir:{d.name}"]
    res.add(key, scope, f"{pre}iops", d.iops, "IO/s", line_no=ln)
    res.add(key, scope, f"{pre}mbps", None if d.bw_bytes_per_s is None else d.bw_bytes_per_s / 1e6, "MB/s", line_no=ln)
    if d.name in _BYTES:
        res.add(key, scope, _BYTES[d.name], d.io_bytes, "bytes", line_no=ln)
    if d.name == "mixed":  # unified_rw_reporting: the issued counts' sum (fio's own JSON total_ios)
        res.add(key, scope, "ios", sum(job.issued.values()) if job.issued else None, "count")
    else:
        res.add(key, scope, f"{pre}ios", job.issued.get(d.name), "count", line_no=job.lines.get("issued"))
    for stat, values in d.lat.items():
        for prefix, v in values.items():
            res.add(key, scope, _fio.metric(prefix, d.name, stat), v, "ms", line_no=job.lines[f"lat:{d.name}:{stat}"])
    pcts = [x for x in job.pct if x[0] == d.name]
    primary = "lat" if any(x[1] == "lat" for x in pcts) else "clat"  # as fio_json: lat_percentiles=1 takes the name
    for _, stat, p, v, unit, pln in pcts:
        if p in _fio.NAMED_PERCENTILES:
            name = _fio.metric(_fio.NAMED_PERCENTILES[p], d.name, "lat" if stat == primary else stat)
            res.add(key, scope, name, v * _TO_MS[unit], "ms", line_no=pln)


_BYTES = {"read": "bytes_read", "write": "bytes_written", "trim": "bytes_trimmed"}


def _date(text: str | None) -> datetime | None:
    """The report's ctime date (`Fri Nov 27 14:38:45 2026`, local time of the host), or None."""
    if not text:
        return None
    try:
        return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")
    except ValueError:
        return None
