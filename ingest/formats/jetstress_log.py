"""Microsoft Exchange Jetstress test log and JetstressCmd console transcript (Exchange 2007 -> 2019).

Every line Jetstress writes is `M/D/YYYY h:mm:ss AM -- <message>` (JetstressCmd prints the same lines
as the "Test Log" section of the HTML report, ingest/formats/jetstress.py). Seen in real text:
the 2013 engine/OS/ESE detection and counter registration (tests/corpus/jetstress-log, JetstressCmd
run through PowerShell, which wraps long lines at the console width and interleaves `+ CategoryInfo`
error records); the test-report lines `Volume E: has 0.0150 for Avg. Disk sec/Read.` (2007, seconds),
`Test has 0 Maximum Database Page Fault Stalls/sec.`, `... .blg has 488 samples.` (ESG report
transcription, docs/formats/esxtop-jetstress-profile.md 3.1, HML). Shapes taken from the documented
structure only (tests/fixtures/jetstress-log/handmade-*): `Operation mode is Performance.`, the 2010+
`Instance1234.1 has 12.5 for I/O Database Reads Average Latency.` (ms), the threshold/operation-mix
settings and `Achieved Transactional I/O per Second: N`, `Overall Test Result: Pass`.

Every line is kept (jetstress_log_events: the time as written and parsed, or NULL for untimed
continuation lines); every number a known line states goes to jetstress_log_values as written;
measured numbers become samples. Times are read as the US form Jetstress writes on en-US systems;
another culture's form keeps its text and a NULL time. A log with no result (no per-instance or
per-volume latency, no achieved IOPS, no verdict) is rejected: it is a start-up or a cut test.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..model import ParseError, ParseResult, Run, decode_text, split_lines

FORMAT = "jetstress-log"
VERSION = "1"

_LINE = re.compile(r"^(\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}:\d{2}(?: ?[AP]M)?) -- (.*)$")
_ENGINE = re.compile(
    r"Microsoft Exchange Jetstress(?: (\d{4}))?(?: Core Engine)? \(version: ([^)]+)\) (?:was )?detected"
)
_ESE = re.compile(r"Microsoft Exchange Server Database Storage Engine( Performance Library)? \(version: ([^)]+)\)")
_OS = re.compile(r"^(Windows .+?)\s+\(([\d.]+)\) detected\.$")
_MODE = re.compile(r"^Operation mode is (\w+)\.?$")
_HAS = re.compile(r"^(.+?) has (-?[\d.]+) for (.+?)\.?$")
_STALLS = re.compile(r"^(?:The )?[Tt]est has (-?[\d.]+) Maximum Database Page Fault Stalls/sec\.?$")
_SAMPLES = re.compile(r"^(.+\.(?:blg|csv|xml)) has (\d+) samples( queried)?\.?$")
_OVER = re.compile(r"^(?:The )?[Tt]est has (\d+) Database Page Fault Stalls/sec samples higher than (\d+)\.?$")
_BRACKETED = re.compile(r"^(Database cache settings|Database flush thresholds): \((.+)\)\.?$")
_BATCH = re.compile(r"^JetInterop batch transaction stats: ([\d, ]+?)\.?$")
_LABELLED = re.compile(
    r"^(Achieved|Target)(?: Transactional)? I/O per Second:\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|[\d.]+)\s*$"
)
_VERDICT = re.compile(r"^Overall Test Result:\s*(\w+)\s*$")
_THRESH = re.compile(
    r"^(Database read|Log write) latency thresholds: \(average: ([\d.]+) (msec|seconds)/\w+, "
    r"maximum: ([\d.]+) (?:msec|seconds)/\w+\)\.?$"
)
_INTERVAL = re.compile(r"^Performance logging (?:started|begins) \(interval: (\d+) ms\)\.?$")
_MIX = re.compile(r"^Operation mix: (.+?)\.?$")
# (what the line says) -> (metric, unit, factor, scope)
HAS_METRICS = {
    "I/O Database Reads Average Latency": ("db_read_latency_ms", "ms", 1.0, "instance"),
    "I/O Database Writes Average Latency": ("db_write_latency_ms", "ms", 1.0, "instance"),
    "I/O Log Writes Average Latency": ("log_write_latency_ms", "ms", 1.0, "instance"),
    "I/O Log Reads Average Latency": ("log_read_latency_ms", "ms", 1.0, "instance"),
    "Avg. Disk sec/Read": ("avg_read_latency_ms", "ms", 1000.0, "volume"),
    "Avg. Disk sec/Write": ("avg_write_latency_ms", "ms", 1000.0, "volume"),
}
PHASES = (
    "Preparing for testing",
    "Attaching databases",
    "Preparations for testing are complete",
    "Starting transaction dispatch",
    "Dispatching transactions ends",
    "Shutting down databases",
    "Creating test report",
    "Performance logging has ended",
    "Performance logging ends",
    "Verifying database checksums",
    "Verifying log checksums",
    "Creating databases",
    "Initializing databases",
)


SNIFF_RULE = "'M/D/YYYY h:mm:ss AM -- ' lines naming the Jetstress engine, or a test report's latency lines"


def sniff(head: str, name: str) -> bool:
    if head.lstrip("\ufeff \t\r\n").startswith("<"):
        return False  # the HTML report (jetstress.py) carries the same lines inside its markup
    timed = [m.group(2) for m in map(_LINE.match, split_lines(head[:16384])) if m]
    return any(_ENGINE.search(t) for t in timed) or (
        len(timed) >= 2
        and any(_HAS.match(t) or _STALLS.match(t) for t in timed)
        and any(t.startswith(("Creating test report", "Performance logging")) for t in timed)
    )


def _when(text: str) -> datetime | None:
    for fmt in ("%m/%d/%Y %I:%M:%S %p", "%m/%d/%Y %I:%M:%S%p", "%m/%d/%Y %H:%M:%S"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            pass
    return None


def _events(lines: list[str]) -> list[dict]:
    """One row per non-blank line: timed lines split into time and message, the rest kept as written."""
    out = []
    for ln, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        m = _LINE.match(raw.strip())
        out.append(
            {
                "line_no": ln,
                "logged_at_text": m.group(1) if m else None,
                "logged_at": _when(m.group(1)) if m else None,
                "message": m.group(2) if m else raw,
                "kind": _kind(m.group(2)) if m else "untimed",
            }
        )
    return out


def _kind(msg: str) -> str:
    if _ENGINE.search(msg) or _ESE.search(msg) or _OS.match(msg):
        return "version"
    if msg.startswith(PHASES):
        return "phase"
    if _HAS.match(msg) or _STALLS.match(msg) or _LABELLED.match(msg) or _VERDICT.match(msg):
        return "result"
    if (
        _MODE.match(msg)
        or _THRESH.match(msg)
        or _INTERVAL.match(msg)
        or _MIX.match(msg)
        or msg.startswith(("Database cache settings", "Database flush thresholds"))
    ):
        return "setting"
    return "message"


def _test_row(events: list[dict]) -> dict:
    """Versions, operating system, operation mode and verdict as the log states them."""
    t = {
        "jetstress_edition": None,
        "jetstress_version": None,
        "ese_version": None,
        "ese_perflib_version": None,
        "operating_system": None,
        "os_version": None,
        "operation_mode": None,
        "verdict": None,
    }
    for e in events:
        msg = e["message"] if e["logged_at_text"] else ""
        if m := _ENGINE.search(msg):
            t["jetstress_edition"], t["jetstress_version"] = m.group(1), m.group(2)
        elif m := _ESE.search(msg):
            t["ese_perflib_version" if m.group(1) else "ese_version"] = m.group(2)
        elif m := _OS.match(msg):
            t["operating_system"], t["os_version"] = m.group(1), m.group(2)
        elif m := _MODE.match(msg):
            t["operation_mode"] = m.group(1)
        elif m := _VERDICT.match(msg):
            if m.group(1).lower() not in ("pass", "fail"):
                raise ParseError(f"Overall Test Result is {m.group(1)!r}, expected Pass or Fail", e["line_no"])
            t["verdict"] = m.group(1)
    timed = [e["logged_at"] for e in events if e["logged_at"]]
    t["started_at"], t["ended_at"] = (timed[0], timed[-1]) if timed else (None, None)
    return t


def _number(text: str, line: int) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        raise ParseError(f"{text!r} is not a number", line) from None


def _values(e: dict) -> list[dict]:
    """Every number a known line states: (name, target, value, unit) as written."""
    msg, ln = e["message"], e["line_no"]
    row = lambda name, v, unit, target=None: {
        "line_no": ln,
        "name": name,
        "target": target,
        "value": _number(v, ln),
        "unit": unit,
        "value_text": v,
    }
    if m := _HAS.match(msg):
        return [row(m.group(3), m.group(2), None, m.group(1))]
    if m := _STALLS.match(msg):
        return [row("Maximum Database Page Fault Stalls/sec", m.group(1), "1/s")]
    if m := _LABELLED.match(msg):
        return [row(f"{m.group(1)} Transactional I/O per Second", m.group(2), "IO/s")]
    if m := _SAMPLES.match(msg):
        return [row("samples queried" if m.group(3) else "samples", m.group(2), "count", m.group(1))]
    if m := _OVER.match(msg):
        return [row(f"Database Page Fault Stalls/sec samples higher than {m.group(2)}", m.group(1), "count")]
    if m := _BRACKETED.match(msg):
        return [row(f"{m.group(1)} {k}", v, u) for k, v, u in re.findall(r"(\w+): ([\d.]+) (\w+)", m.group(2))]
    if m := _BATCH.match(msg):
        return [
            row("JetInterop batch transaction stats", v.strip(), "count", f"#{i}")
            for i, v in enumerate(m.group(1).split(","), start=1)
            if v.strip()
        ]
    if m := _INTERVAL.match(msg):
        return [row("performance logging interval", m.group(1), "ms")]
    if m := _THRESH.match(msg):
        unit = "ms" if m.group(3) == "msec" else "s"
        return [
            row(f"{m.group(1)} latency threshold average", m.group(2), unit),
            row(f"{m.group(1)} latency threshold maximum", m.group(4), unit),
        ]
    if m := _MIX.match(msg):
        return [
            row(k.strip(), v, "%" if pct else "count")
            for k, v, pct in re.findall(r"([A-Za-z ]+?) (\d+)(%?)(?:,|$)", m.group(1))
        ]
    return []


def _samples(res: ParseResult, key: str, values: list[dict], verdict: str | None, verdict_line: int | None) -> None:
    for v in values:
        ln = v["line_no"]
        if v["name"] in HAS_METRICS:
            metric, unit, factor, scope = HAS_METRICS[v["name"]]
            res.add(key, scope, metric, v["value"] * factor, unit, target=v["target"], line_no=ln)
        elif v["name"] == "Maximum Database Page Fault Stalls/sec":
            res.add(key, "test", "max_db_page_fault_stalls_per_s", v["value"], "1/s", line_no=ln)
        elif v["name"] in ("Achieved Transactional I/O per Second", "Target Transactional I/O per Second"):
            res.add(
                key,
                "test",
                "achieved_iops" if v["name"].startswith("A") else "target_iops",
                v["value"],
                "IO/s",
                line_no=ln,
            )
    if verdict:
        res.add(key, "test", "test_passed", 1.0 if verdict.lower() == "pass" else 0.0, "bool", line_no=verdict_line)


def parse(data: bytes, name: str) -> ParseResult:
    events = _events(split_lines(decode_text(data)))
    if not any(e["logged_at_text"] for e in events):
        raise ParseError("no 'M/D/YYYY h:mm:ss AM -- message' lines: not a Jetstress log")
    test = _test_row(events)
    values = [v for e in events if e["logged_at_text"] for v in _values(e)]
    verdict_line = next((e["line_no"] for e in events if e["logged_at_text"] and _VERDICT.match(e["message"])), None)
    res = ParseResult(tool_version=test["jetstress_version"])
    key = test["operation_mode"] or "test"
    _samples(res, key, values, test["verdict"], verdict_line)
    if not res.samples:
        what = (
            "engine start-up only (versions, counter registration)" if test["jetstress_version"] else "no result lines"
        )
        raise ParseError(
            f"no test results in this Jetstress log: {what}; no latency, achieved IOPS or verdict "
            "to store (the test did not run, or the log is cut before 'Creating test report')"
        )
    res.runs.append(
        Run(
            key=key,
            tool="Jetstress",
            tool_version=test["jetstress_version"],
            started_at=test["started_at"],
            ended_at=test["ended_at"],
            workload=f"Jetstress {test['operation_mode'] or 'test'}",
            status=test["verdict"].lower() if test["verdict"] else None,
            test_type=test["operation_mode"],
        )
    )
    res.tables["jetstress_log_tests"] = [test]
    res.tables["jetstress_log_events"] = events
    res.tables["jetstress_log_values"] = values
    return res
