"""Oracle ORION `<test>_<date>_summary.txt` (10.2 -> 19c), and console output of the same shape.

See docs/formats/iometer-orion.md section 2.3. The summary holds the command line, the test
parameters it maps to, the LUNs, and the headline results with the point where each was reached.
Latency: no unit in 10.2/11.1 (milliseconds); `usecs`/`us` from 12c on. Stored in milliseconds.
ORION does not say whether its MBPS is 10^6 or 2^20 bytes/s: the number is stored as written.
"""

from __future__ import annotations

import re

from ..model import ParseError, ParseResult, Run, decode_text, parse_float, parse_int, split_lines
from ._text import wrapped_note

FORMAT = "orion-summary-txt"
VERSION = "1"

_VERSION = re.compile(r"^\s*O?RION VERSION\s+(\S+)")  # one corpus paste lost the leading O
_HEADLINE = re.compile(
    r"^(Maximum Large MBPS|Maximum Small IOPS|Minimum Small Latency|Maximum Small MBPS|Maximum Large IOPS)"
    r"=\s*([-\d.]+)\s*([A-Za-z]*)\s*@\s*Small=(\d+) and Large=(\d+)\s*$"
)
_DETAIL = re.compile(
    r"^(Small|Large) (Read|Write) Latency:\s*avg=\s*([\d.]+)\s*(\w+),\s*min=\s*([\d.]+)\s*\w+,\s*max=\s*([\d.]+)\s*\w+,"
    r"\s*std dev=\s*([\d.]+)\s*\w+\s*@\s*Small=(\d+) and Large=(\d+)\s*$"
)
_HIST_HEAD = re.compile(r"^(Small|Large) Read / Write Latency Histogram @ Small=(\d+) and Large=(\d+)")
_HIST_ROW = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*us:\s*(\d+)\s*\(\s*([\d.]+)%\)\s*(\d+)\s*\(\s*([\d.]+)%\)\s*$")
_RESULTISH = re.compile(r"^(?:Maximum|Minimum|Small|Large) ")
_LUN = re.compile(r"^Name:\s*(.+?)\s+Size:\s*(\d+)\s*$")
_FOUND = re.compile(r"^(\d+) (?:FILEs|files) found\.?\s*$")
HEADLINES = {
    "Maximum Large MBPS": ("max_large_mbps", "MB/s"),
    "Maximum Small IOPS": ("max_small_iops", "IO/s"),
    "Minimum Small Latency": ("min_small_latency_ms", "ms"),
    "Maximum Small MBPS": ("max_small_mbps", "MB/s"),
    "Maximum Large IOPS": ("max_large_iops", "IO/s"),
}
TO_MS = {"": None, "ms": 1.0, "msecs": 1.0, "us": 0.001, "usecs": 0.001}
PARAMS = {
    "Test": "testname",
    "Small IO size": "small_io_size",
    "Large IO size": "large_io_size",
    "IO Types": "io_types",
    "Simulated Array Type": "simulated_array_type",
    "Stripe Depth": "stripe_depth",
    "Write": "write_pct",
    "Cache Size": "cache_size",
    "Duration for each Data Point": "duration_per_point",
    "Duration for each data point": "duration_per_point",
    "Small Columns": "small_columns",
    "Large Columns": "large_columns",
    "Total Data Points": "total_data_points",
}


SNIFF_RULE = "'This maps to this test:' with an 'ORION VERSION' or 'Commandline:' line"


def sniff(head: str, name: str) -> bool:
    lines = [l.strip() for l in split_lines(head[:8192])]
    return "This maps to this test:" in lines and any(_VERSION.match(l) or l == "Commandline:" for l in lines)


def _kb(text: str | None, what: str, ln: int) -> int | None:
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*KB\s*", text)
    if not m:
        raise ParseError(f"{what} {text!r} is not '<n> KB'", ln)
    return int(m.group(1)) * 1024


def _columns(text: str | None, ln: int) -> list[int] | None:
    if text is None:
        return None
    return [parse_int(c, "column list", ln) for c in text.strip().lstrip(",").split(",") if c.strip()]


class Results:
    """The headline, 12c+ detail and histogram lines: the same in the summary and on the console."""

    def __init__(self) -> None:
        self.heads: list[tuple[re.Match, int]] = []
        self.details: list[dict] = []
        self.hist: list[dict] = []
        self._hist_at: tuple[str, int, int] | None = None

    def take(self, raw: str, ln: int) -> bool:
        """Consume one line if it is a result line; False leaves it to the caller."""
        line = raw.strip()
        if m := _HEADLINE.match(line):
            self.heads.append((m, ln))
        elif m := _DETAIL.match(line):
            self.details.append(_detail(m, ln))
        elif m := _HIST_HEAD.match(line):
            self._hist_at = (m.group(1).lower(), int(m.group(2)), int(m.group(3)))
        elif self._hist_at and _HIST_COLS.match(line):
            pass
        elif self._hist_at and (m := _HIST_ROW.match(raw)):
            io, so, lo = self._hist_at
            self.hist.append(
                {
                    "io_size": io,
                    "small_oio": so,
                    "large_oio": lo,
                    "lower_us": int(m.group(1)),
                    "upper_us": int(m.group(2)),
                    "read_ios": int(m.group(3)),
                    "read_cum_pct": float(m.group(4)),
                    "write_ios": int(m.group(5)),
                    "write_cum_pct": float(m.group(6)),
                    "line_no": ln,
                }
            )
        else:
            self._hist_at = None
            return False
        return True

    def add_samples(self, res: ParseResult, key: str) -> list[dict]:
        """Headlines and details as samples (ms, MB/s, IO/s); returns the headlines as written."""
        rows = []
        for m, ln in self.heads:
            label, value, metric_unit = m.group(1), float(m.group(2)), HEADLINES[m.group(1)]
            factor = _headline_factor(label, m.group(3), ln)
            so, lo = int(m.group(4)), int(m.group(5))
            res.add(key, "test", metric_unit[0], value * factor, metric_unit[1], small_oio=so, large_oio=lo, line_no=ln)
            rows.append(
                {
                    "metric": metric_unit[0],
                    "value_as_written": value,
                    "unit_as_written": m.group(3) or None,
                    "small_oio": so,
                    "large_oio": lo,
                    "line_no": ln,
                }
            )
        for d in self.details:
            for stat in ("avg", "min", "max", "std_dev"):
                res.add(
                    key,
                    "point",
                    f"{d['io_size']}_{d['direction']}_latency_{stat}_ms",
                    d[f"{stat}_ms"],
                    "ms",
                    small_oio=d["small_oio"],
                    large_oio=d["large_oio"],
                    line_no=d["line_no"],
                )
        return rows


_HIST_COLS = re.compile(r"^Latency:\s+# of IOs")


def _detail(m: re.Match, ln: int) -> dict:
    unit = TO_MS.get(m.group(4).lower())
    if not unit:
        raise ParseError(f"unknown latency unit {m.group(4)!r}", ln)
    return {
        "io_size": m.group(1).lower(),
        "direction": m.group(2).lower(),
        "avg_ms": float(m.group(3)) * unit,
        "min_ms": float(m.group(5)) * unit,
        "max_ms": float(m.group(6)) * unit,
        "std_dev_ms": float(m.group(7)) * unit,
        "small_oio": int(m.group(8)),
        "large_oio": int(m.group(9)),
        "line_no": ln,
    }


def _headline_factor(label: str, unit_text: str, ln: int) -> float:
    if HEADLINES[label][0].endswith("_ms"):
        if unit_text.lower() not in TO_MS:
            raise ParseError(f"unknown latency unit {unit_text!r}", ln)
        factor = TO_MS[unit_text.lower()]
        return factor if factor is not None else 1.0  # 10.2/11.1 print milliseconds with no unit
    if unit_text:
        raise ParseError(f"unexpected unit {unit_text!r} after {label}", ln)
    return 1.0


def _scan(lines: list[str]) -> dict:
    """Walk the summary once: version, command line, parameters, LUNs and the result lines. A line
    that is none of these refuses the file when it stands between two lines that are (an ORION line
    iolab does not know); before the first or after the last it is a script's log, a prompt or a
    progress line around the report (a console capture of the file), skipped and said."""
    found: dict = {"version": None, "commandline": None, "params": {}, "luns": [], "files_found": None}
    found["results"], known, unknown = Results(), [], []
    i = 0
    while i < len(lines):
        line, ln = lines[i].strip(), i + 1
        i += 1
        if not line:
            continue
        known.append(ln)
        if found["results"].take(lines[i - 1], ln):
            continue
        if m := _VERSION.match(line):
            found["version"] = m.group(1)
        elif line in ("Commandline:", "Command line:"):
            while i < len(lines) and not lines[i].strip():
                i += 1
            found["commandline"] = lines[i].strip() if i < len(lines) else None
            known.append(i + 1)
            i += 1
        elif m := _LUN.match(line):
            found["luns"].append({"lun": m.group(1).strip(), "size_bytes": int(m.group(2)), "line_no": ln})
        elif m := _FOUND.match(line):
            found["files_found"] = int(m.group(1))
        elif ":" in line and line.split(":", 1)[0] in PARAMS:
            k, v = line.split(":", 1)
            found["params"][PARAMS[k]] = (v.strip(), ln)
        elif not line.startswith(
            ("This maps to this test", "These options enable", "Setting ", "ORION: ", "Test will take")
        ):  # the last three: console chatter
            if _RESULTISH.match(line):  # a result line iolab cannot read is never text around the report
                raise ParseError(f"unexpected line in an ORION summary: {line[:60]!r}", ln)
            known.pop()
            unknown.append((ln, line))
    inside = [(ln, t) for ln, t in unknown if known and known[0] < ln < known[-1]]
    if inside:
        raise ParseError(f"unexpected line in an ORION summary: {inside[0][1][:60]!r}", inside[0][0])
    found["read"] = known
    return found


def _test_row(found: dict) -> dict:
    """The orion_tests row: the parameters the command line maps to, in bytes/seconds/percent."""
    p = {k: v for k, (v, _) in found["params"].items()}
    ln_of = {k: ln for k, (_, ln) in found["params"].items()}
    write, duration = p.get("write_pct"), p.get("duration_per_point")
    run_type = re.search(r"-run\s+(\S+)", found["commandline"] or "")
    return {
        "testname": p["testname"],
        "version": found["version"],
        "commandline": found["commandline"],
        "run_type": run_type.group(1) if run_type else None,
        "small_io_bytes": _kb(p.get("small_io_size"), "Small IO size", ln_of.get("small_io_size", 0)),
        "large_io_bytes": _kb(p.get("large_io_size"), "Large IO size", ln_of.get("large_io_size", 0)),
        "io_types": p.get("io_types"),
        "simulated_array_type": p.get("simulated_array_type"),
        "stripe_depth_bytes": _kb(p.get("stripe_depth"), "Stripe Depth", ln_of.get("stripe_depth", 0)),
        "write_pct": parse_float(write.rstrip("%"), "Write", ln_of["write_pct"]) if write else None,
        "cache_size": p.get("cache_size"),
        "duration_per_point_s": parse_int(duration.split()[0], "Duration", ln_of["duration_per_point"])
        if duration
        else None,
        "small_columns": _columns(p.get("small_columns"), ln_of.get("small_columns", 0)),
        "large_columns": _columns(p.get("large_columns"), ln_of.get("large_columns", 0)),
        "total_data_points": parse_int(p["total_data_points"], "Total Data Points", ln_of["total_data_points"])
        if "total_data_points" in p
        else None,
        "files_found": found["files_found"],
    }


NO_RESULTS = (
    "no result lines (Maximum Large MBPS / Maximum Small IOPS / Minimum Small Latency): "
    "the test did not finish or the file is cut"
)


def parse(data: bytes, name: str) -> ParseResult:
    lines = split_lines(decode_text(data))
    found = _scan(lines)
    results: Results = found["results"]
    if "testname" not in found["params"]:
        raise ParseError("no 'Test:' line: the parameter block is missing (truncated file?)")
    if not results.heads:
        raise ParseError(NO_RESULTS)
    if found["files_found"] is not None and found["files_found"] != len(found["luns"]):
        raise ParseError(
            f"the file says {found['files_found']} files were found but lists {len(found['luns'])} 'Name:' lines"
        )
    test = _test_row(found)
    res = ParseResult(tool_version=test["version"])
    rw = 100 - test["write_pct"] if test["write_pct"] is not None else None
    m = re.match(r"(?:.*__)?(.+?_\d{8}_\d{3,4})_summary", name)
    res.runs.append(
        Run(
            key="test",
            tool="Orion",
            tool_version=test["version"],
            workload=test["testname"],
            description=test["commandline"],
            status="complete",
            test_type=test["run_type"],
            read_pct=rw,
            group=m.group(1) if m else test["testname"],
        )
    )
    res.tables["orion_tests"] = [test]
    res.tables["orion_headlines"] = results.add_samples(res, "test")
    res.tables["orion_luns"] = found["luns"]
    res.tables["orion_latency_details"] = results.details
    res.tables["orion_histograms"] = results.hist
    if note := wrapped_note("ORION", found["read"], lines):
        res.notes.append(note)
    return res
