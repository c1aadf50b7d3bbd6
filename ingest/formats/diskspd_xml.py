"""DiskSpd XML output (`diskspd ... -Rxml`): `<Results>` with `<System>`, `<Profile>` and one
`<TimeSpan>` result per profile time span.

Seen: 2.0.21a (tests/corpus/diskspd-xml), 3-space indented, no XML declaration. Per thread and
target: bytes and I/O counts (read/write); `<Latency>` (averages, percentile buckets 0, 1..99,
99.9 .. 99.9999999, 100) only when the run measured latency (-L), `<Iops>` standard deviations
only with -D; `<CpuUtilization>` per CPU and its average. XmlResultParser.cpp writes the counts,
not rates: IOPS and MB/s (10^6) are the counts over `TestTimeSeconds`, so they carry no line
number (ElementTree keeps none either). A `<TimeSpan>` holding `<Error>` (interrupted before
measuring) is rejected. DTDs and entity declarations are refused outright (no expansion bombs).
Checked against itself: each target's BytesCount and IOCount are its read and write counts summed,
and the time span's ThreadCount is its <Thread> elements (XmlResultParser.cpp prints them so).

Workload signature from the profile's targets: block size, read % = 100 - WriteRatio, random
100 when RandomAccess (or a `<Random>` alignment) else 0 (`RandomRatio` when present), queue
depth = RequestCount (outstanding I/Os per thread per target), workers = thread x target pairs
(ThreadsPerFile summed over targets, or the time span's ThreadCount x targets when -F is used).
Variants by version, and the test covering each: docs/formats/diskspd.md.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from ..model import ParseError, ParseResult, Run
from . import _checks
from ._text import decode, number
from .diskspd_text import TOOL

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

FORMAT = "diskspd-xml"
VERSION = "1"
# XML bucket percentile -> metric stem
# (the buckets the text output prints; every bucket 1..99 stays in diskspd_latency_percentiles)
_PCT = {
    "0": "min",
    "25": "p25",
    "50": "p50",
    "75": "p75",
    "90": "p90",
    "95": "p95",
    "99": "p99",
    "100": "max",
    "99.9": "p99_9",
    "99.99": "p99_99",
    "99.999": "p99_999",
    "99.9999": "p99_9999",
    "99.99999": "p99_99999",
    "99.999999": "p99_999999",
    "99.9999999": "p99_9999999",
}


SNIFF_RULE = "the document element is <Results> with a <System> or <Profile> element"


def sniff(head: str, name: str) -> bool:
    body = re.sub(r"^\ufeff?\s*(<\?xml[^>]*\?>\s*)?", "", head[:4096])
    return body.startswith("<Results>") and bool(re.search(r"<(System|Profile)>", head))


def _text(el: ET.Element | None, tag: str) -> str | None:
    x = el.find(tag) if el is not None else None
    return x.text.strip() if x is not None and x.text is not None else None


def _num(el: ET.Element | None, tag: str) -> float | None:
    return number(_text(el, tag), f"<{tag}>", None)


def _id(el: ET.Element) -> int:
    v = _num(el, "Id")
    if v is None or v != int(v):
        raise ParseError(f"a <{el.tag}> has no whole-number <Id>")
    return int(v)


def _load(data: bytes) -> ET.Element:
    text = decode(data)
    if re.search(r"<!(DOCTYPE|ENTITY)", text, re.I):
        raise ParseError("the XML declares a DTD or entities, which DiskSpd never writes: refused")
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)  # the declaration may name an encoding we already decoded
    import xml.etree.ElementTree as ET  # here: importing every format module stays cheap

    try:
        return ET.fromstring(text)
    except ET.ParseError as e:
        raise ParseError(f"not well-formed XML ({e})", e.position[0]) from None


def _signature(profile_ts: ET.Element | None, thread_count: float | None) -> dict:
    targets = profile_ts.findall("Targets/Target") if profile_ts is not None else []
    if not targets:
        return {}

    def one(values: list):
        return values[0] if values and all(v == values[0] for v in values) else None

    write = [_num(t, "WriteRatio") for t in targets]
    rnd = []
    for t in targets:
        if _num(t, "RandomRatio") is not None:
            rnd.append(_num(t, "RandomRatio"))
        elif _text(t, "RandomAccess") == "true" or t.find("Random") is not None:
            rnd.append(100.0)
        else:
            rnd.append(0.0)
    per_file = [_num(t, "ThreadsPerFile") for t in targets]
    fixed = _num(profile_ts, "ThreadCount")
    workers = int(fixed * len(targets)) if fixed else int(sum(per_file)) if all(per_file) else None
    qd = one([_num(t, "RequestCount") for t in targets])
    w = one(write)
    return {
        "block_size_bytes": int(one([_num(t, "BlockSize") for t in targets]) or 0) or None,
        "read_pct": None if w is None else 100.0 - w,
        "random_pct": one(rnd),
        "queue_depth": int(qd) if qd else None,
        "workers": workers,
        "outstanding_ios": int(qd) * workers if qd and workers else None,
        "description": ", ".join(_text(t, "Path") or "" for t in targets),
    }


def parse(data: bytes, name: str) -> ParseResult:
    root = _load(data)
    if root.tag != "Results":
        raise ParseError(f"the root element is <{root.tag}>, not DiskSpd's <Results>")
    res = ParseResult(tool_version=_text(root, "System/Tool/Version"))
    started = None
    run_time = _text(root, "System/RunTime")
    if run_time:
        try:
            started = datetime.strptime(run_time.removesuffix(" UTC"), "%Y/%m/%d %H:%M:%S")
        except ValueError:
            pass
    profile_spans = root.findall("Profile/TimeSpans/TimeSpan")
    spans = root.findall("TimeSpan")
    if not spans:
        raise ParseError("no <TimeSpan> results: the file holds no measurements")
    for no, ts in enumerate(spans, start=1):
        if ts.find("Error") is not None:
            raise ParseError(f"time span {no}: {_text(ts, 'Error')}")
        key = f"timespan{no}"
        seconds = _num(ts, "TestTimeSeconds")
        if not seconds:
            raise ParseError(f"time span {no} has no TestTimeSeconds: the file is cut short")
        sig = _signature(profile_spans[no - 1] if no <= len(profile_spans) else None, _num(ts, "ThreadCount"))
        res.runs.append(Run(key, TOOL, res.tool_version, started_at=started, status="complete", **sig))
        res.add(key, "all", "test_time_s", seconds, "s")
        _cpu(res, key, ts)
        _threads(res, key, ts, seconds)
        # XmlResultParser.cpp: the -F thread count, else the threads' results counted: one <Thread> each
        _checks.equal(
            _num(ts, "ThreadCount"), len(ts.findall("Thread")), f"time span {no}: ThreadCount, <Thread>s", None
        )
        _latency(res, key, ts.find("Latency"))
    return res


def _cpu(res: ParseResult, key: str, ts: ET.Element) -> None:
    rows = res.tables.setdefault("diskspd_cpu", [])
    cpus = [(c, "processor") for c in ts.findall("CpuUtilization/CPU")]
    cpus += [(c, "all") for c in ts.findall("CpuUtilization/Average")]
    for c, scope in cpus:
        row = {
            "run_key": key,
            "core": None,
            "cpu": None if scope == "all" else _id(c),
            "usage_pct": _num(c, "UsagePercent"),
            "user_pct": _num(c, "UserPercent"),
            "kernel_pct": _num(c, "KernelPercent"),
            "idle_pct": _num(c, "IdlePercent"),
            "line_no": None,
        }
        rows.append(row)
        target = None if scope == "all" else f"{_text(c, 'Group') or 0}:{row['cpu']}"
        for col, metric in (
            ("usage_pct", "cpu_util_pct"),
            ("user_pct", "cpu_user_pct"),
            ("kernel_pct", "cpu_privileged_pct"),
            ("idle_pct", "cpu_idle_pct"),
        ):
            res.add(key, scope, metric, row[col], "%", target=target)


def _threads(res: ParseResult, key: str, ts: ET.Element, seconds: float) -> None:
    rows = res.tables.setdefault("diskspd_threads", [])
    totals = {"total": [0, 0], "read": [0, 0], "write": [0, 0]}  # bytes, ios
    per_target: dict[str, list[int]] = {}
    for th in ts.findall("Thread"):
        tid = _id(th)
        for tg in th.findall("Target"):
            path = _text(tg, "Path")
            counts = {
                "total": (_num(tg, "BytesCount"), _num(tg, "IOCount")),
                "read": (_num(tg, "ReadBytes"), _num(tg, "ReadCount")),
                "write": (_num(tg, "WriteBytes"), _num(tg, "WriteCount")),
            }
            for kind, (b, n) in counts.items():
                if b is None or n is None:
                    raise ParseError(f"thread {tid}: <Target> lacks its {kind} byte or I/O count")
            for i, what in ((0, "BytesCount: ReadBytes + WriteBytes"), (1, "IOCount: ReadCount + WriteCount")):
                parts = counts["read"][i] + counts["write"][i]
                _checks.equal(counts["total"][i], parts, f"thread {tid}, target {path}: {what}", None)
            for kind, (b, n) in counts.items():
                totals[kind][0] += b
                totals[kind][1] += n
                avg = {
                    "total": "AverageLatencyMilliseconds",
                    "read": "AverageReadLatencyMilliseconds",
                    "write": "AverageWriteLatencyMilliseconds",
                }[kind]
                sd = {"total": "LatencyStdev", "read": "ReadLatencyStdev", "write": "WriteLatencyStdev"}[kind]
                isd = {"total": "IopsStdDev", "read": "ReadIopsStdDev", "write": "WriteIopsStdDev"}[kind]
                rows.append(
                    {
                        "run_key": key,
                        "kind": kind,
                        "thread": tid,
                        "target": path,
                        "target_size": _text(tg, "FileSize"),
                        "bytes": int(b),
                        "ios": int(n),
                        "mib_per_s": None,
                        "iops": None,
                        "avg_latency_ms": _num(tg, avg),
                        "iops_stddev": _num(tg.find("Iops"), isd),
                        "latency_stddev_ms": _num(tg, sd),
                        "line_no": None,
                    }
                )
                _rates(res, key, "worker", f"thread {tid}: {path}", kind, b, n, seconds)
                res.add(
                    key, "worker", f"avg_{_pre(kind)}latency_ms", _num(tg, avg), "ms", target=f"thread {tid}: {path}"
                )
            per_target.setdefault(path, [0, 0])
            per_target[path][0] += counts["total"][0]
            per_target[path][1] += counts["total"][1]
    if not rows:
        raise ParseError("the time span has no <Thread>/<Target> results")
    for kind, (b, n) in totals.items():
        _rates(res, key, "all", None, kind, b, n, seconds)
    for path, (b, n) in per_target.items():
        _rates(res, key, "target", path, "total", b, n, seconds)


def _pre(kind: str) -> str:
    return "" if kind == "total" else f"{kind}_"


def _rates(res, key, scope, target, kind, nbytes, ios, seconds) -> None:
    p = _pre(kind)
    res.add(key, scope, f"{p}iops", ios / seconds, "IO/s", target=target)
    res.add(key, scope, f"{p}mbps", nbytes / seconds / 1e6, "MB/s", target=target)
    res.add(key, scope, f"{p}ios", ios, "count", target=target)
    if kind != "total":
        res.add(key, scope, "bytes_read" if kind == "read" else "bytes_written", nbytes, "bytes", target=target)


def _latency(res: ParseResult, key: str, lat: ET.Element | None) -> None:
    if lat is None:
        return  # latency was not measured (no -L)
    for tag, metric in (
        ("AverageReadMilliseconds", "avg_read_latency_ms"),
        ("ReadLatencyStdev", "stddev_read_latency_ms"),
        ("AverageWriteMilliseconds", "avg_write_latency_ms"),
        ("WriteLatencyStdev", "stddev_write_latency_ms"),
        ("AverageTotalMilliseconds", "avg_latency_ms"),
        ("LatencyStdev", "stddev_latency_ms"),
    ):
        res.add(key, "all", metric, _num(lat, tag), "ms")
    rows = res.tables.setdefault("diskspd_latency_percentiles", [])
    for b in lat.findall("Bucket"):
        pct = _text(b, "Percentile") or b.get("Percentile")
        row = {
            "run_key": key,
            "percentile": pct,
            "read_ms": _num(b, "ReadMilliseconds"),
            "write_ms": _num(b, "WriteMilliseconds"),
            "total_ms": _num(b, "TotalMilliseconds"),
            "line_no": None,
        }
        rows.append(row)
        try:
            float(pct or "")
        except ValueError:
            raise ParseError(f"latency bucket percentile {pct!r} is not a number") from None
        stem = _PCT.get(pct)
        for d, col in (("read_", "read_ms"), ("write_", "write_ms"), ("", "total_ms")):
            if stem:
                res.add(key, "all", f"{stem}_{d}latency_ms", row[col], "ms")
