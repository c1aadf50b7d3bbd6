"""Oracle ORION `<test>_<date>_summary.txt` (10.2 -> 19c), and console output of the same shape.

See docs/formats/iometer-orion.md section 2.3. The summary holds the command line, the test
parameters it maps to, the LUNs, and the headline results with the point where each was reached.
Latency: no unit in 10.2/11.1 (milliseconds); `usecs`/`us` from 12c on. Stored in milliseconds.
ORION does not say whether its MBPS is 10^6 or 2^20 bytes/s: the number is stored as written.
"""
from __future__ import annotations

import re

from ..model import ParseError, ParseResult, Run, decode_text, parse_float, parse_int, split_lines

FORMAT = "orion-summary-txt"
VERSION = "1"

_VERSION = re.compile(r"^\s*O?RION VERSION\s+(\S+)")  # one corpus paste lost the leading O
_HEADLINE = re.compile(
    r"^(Maximum Large MBPS|Maximum Small IOPS|Minimum Small Latency|Maximum Small MBPS|Maximum Large IOPS)"
    r"=\s*([-\d.]+)\s*([A-Za-z]*)\s*@\s*Small=(\d+) and Large=(\d+)\s*$")
_DETAIL = re.compile(
    r"^(Small|Large) (Read|Write) Latency:\s*avg=\s*([\d.]+)\s*(\w+),\s*min=\s*([\d.]+)\s*\w+,\s*max=\s*([\d.]+)\s*\w+,"
    r"\s*std dev=\s*([\d.]+)\s*\w+\s*@\s*Small=(\d+) and Large=(\d+)\s*$")
_HIST_HEAD = re.compile(r"^(Small|Large) Read / Write Latency Histogram @ Small=(\d+) and Large=(\d+)")
_HIST_ROW = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*us:\s*(\d+)\s*\(\s*([\d.]+)%\)\s*(\d+)\s*\(\s*([\d.]+)%\)\s*$")
_LUN = re.compile(r"^Name:\s*(.+?)\s+Size:\s*(\d+)\s*$")
_FOUND = re.compile(r"^(\d+) (?:FILEs|files) found\.?\s*$")
HEADLINES = {
    "Maximum Large MBPS": ("max_large_mbps", "MB/s"), "Maximum Small IOPS": ("max_small_iops", "IO/s"),
    "Minimum Small Latency": ("min_small_latency_ms", "ms"), "Maximum Small MBPS": ("max_small_mbps", "MB/s"),
    "Maximum Large IOPS": ("max_large_iops", "IO/s"),
}
TO_MS = {"": None, "ms": 1.0, "msecs": 1.0, "us": 0.001, "usecs": 0.001}
PARAMS = {
    "Test": "testname", "Small IO size": "small_io_size", "Large IO size": "large_io_size", "IO Types": "io_types",
    "Simulated Array Type": "simulated_array_type", "Stripe Depth": "stripe_depth", "Write": "write_pct",
    "Cache Size": "cache_size", "Duration for each Data Point": "duration_per_point",
    "Duration for each data point": "duration_per_point", "Small Columns": "small_columns",
    "Large Columns": "large_columns", "Total Data Points": "total_data_points",
}


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


def parse(data: bytes, name: str) -> ParseResult:
    lines = split_lines(decode_text(data))
    res = ParseResult()
    version = None
    commandline = None
    params: dict[str, tuple[str, int]] = {}
    luns: list[dict] = []
    files_found = None
    heads: list[tuple] = []
    details: list[dict] = []
    hist: list[dict] = []
    cur_hist = None
    i = 0
    while i < len(lines):
        line, ln = lines[i].strip(), i + 1
        i += 1
        if not line:
            continue
        if m := _VERSION.match(line):
            version = m.group(1)
        elif line in ("Commandline:", "Command line:"):
            while i < len(lines) and not lines[i].strip():
                i += 1
            commandline = lines[i].strip() if i < len(lines) else None
            i += 1
        elif line.startswith("This maps to this test") or line.startswith("These options enable"):
            pass
        elif m := _HEADLINE.match(line):
            heads.append((m, ln))
        elif m := _DETAIL.match(line):
            unit = TO_MS.get(m.group(4).lower())
            if not unit:
                raise ParseError(f"unknown latency unit {m.group(4)!r}", ln)
            details.append({"io_size": m.group(1).lower(), "direction": m.group(2).lower(),
                            "avg_ms": float(m.group(3)) * unit, "min_ms": float(m.group(5)) * unit,
                            "max_ms": float(m.group(6)) * unit, "std_dev_ms": float(m.group(7)) * unit,
                            "small_oio": int(m.group(8)), "large_oio": int(m.group(9)), "line_no": ln})
        elif m := _HIST_HEAD.match(line):
            cur_hist = (m.group(1).lower(), int(m.group(2)), int(m.group(3)))
        elif cur_hist and (m := _HIST_ROW.match(lines[ln - 1])):
            hist.append({"io_size": cur_hist[0], "small_oio": cur_hist[1], "large_oio": cur_hist[2],
                         "lower_us": int(m.group(1)), "upper_us": int(m.group(2)), "read_ios": int(m.group(3)),
                         "read_cum_pct": float(m.group(4)), "write_ios": int(m.group(5)),
                         "write_cum_pct": float(m.group(6)), "line_no": ln})
        elif m := _LUN.match(line):
            luns.append({"lun": m.group(1).strip(), "size_bytes": int(m.group(2)), "line_no": ln})
        elif m := _FOUND.match(line):
            files_found = int(m.group(1))
        elif ":" in line and line.split(":", 1)[0] in PARAMS:
            k, v = line.split(":", 1)
            params[PARAMS[k]] = (v.strip(), ln)
        elif line.startswith("Setting ") or line.startswith("ORION: ") or line.startswith("Test will take"):
            pass  # console chatter
        elif cur_hist:
            cur_hist = None
        else:
            raise ParseError(f"unexpected line in an ORION summary: {line[:60]!r}", ln)
    if "testname" not in params:
        raise ParseError("no 'Test:' line: the parameter block is missing (truncated file?)")
    if not heads:
        raise ParseError("no result lines (Maximum Large MBPS / Maximum Small IOPS / Minimum Small Latency): "
                         "the test did not finish or the file is cut")
    if files_found is not None and files_found != len(luns):
        raise ParseError(f"the file says {files_found} files were found but lists {len(luns)} 'Name:' lines")
    p = {k: v for k, (v, _) in params.items()}
    ln_of = {k: l for k, (_, l) in params.items()}
    write = p.get("write_pct")
    duration = p.get("duration_per_point")
    run_type = re.search(r"-run\s+(\S+)", commandline or "")
    test = {
        "testname": p["testname"], "version": version, "commandline": commandline,
        "run_type": run_type.group(1) if run_type else None,
        "small_io_bytes": _kb(p.get("small_io_size"), "Small IO size", ln_of.get("small_io_size", 0)),
        "large_io_bytes": _kb(p.get("large_io_size"), "Large IO size", ln_of.get("large_io_size", 0)),
        "io_types": p.get("io_types"), "simulated_array_type": p.get("simulated_array_type"),
        "stripe_depth_bytes": _kb(p.get("stripe_depth"), "Stripe Depth", ln_of.get("stripe_depth", 0)),
        "write_pct": parse_float(write.rstrip("%"), "Write", ln_of["write_pct"]) if write else None,
        "cache_size": p.get("cache_size"),
        "duration_per_point_s": parse_int(duration.split()[0], "Duration", ln_of["duration_per_point"]) if duration else None,
        "small_columns": _columns(p.get("small_columns"), ln_of.get("small_columns", 0)),
        "large_columns": _columns(p.get("large_columns"), ln_of.get("large_columns", 0)),
        "total_data_points": parse_int(p["total_data_points"], "Total Data Points", ln_of["total_data_points"])
        if "total_data_points" in p else None,
        "files_found": files_found,
    }
    res.tool_version = version
    key = "test"
    rw = 100 - test["write_pct"] if test["write_pct"] is not None else None
    m = re.match(r"(?:.*__)?(.+?_\d{8}_\d{3,4})_summary", name)
    res.runs.append(Run(key=key, tool="Orion", tool_version=version, workload=test["testname"],
                        description=commandline, status="complete", test_type=test["run_type"], read_pct=rw,
                        group=m.group(1) if m else test["testname"]))
    headline_rows = []
    for m, ln in heads:
        label, value, unit_text = m.group(1), float(m.group(2)), m.group(3).lower()
        metric, unit = HEADLINES[label]
        if metric.endswith("_ms"):
            if unit_text not in TO_MS:
                raise ParseError(f"unknown latency unit {m.group(3)!r}", ln)
            factor = TO_MS[unit_text] if unit_text else 1.0  # 10.2/11.1 print milliseconds with no unit
        elif unit_text:
            raise ParseError(f"unexpected unit {m.group(3)!r} after {label}", ln)
        else:
            factor = 1.0
        so, lo = int(m.group(4)), int(m.group(5))
        res.add(key, "test", metric, value * factor, unit, small_oio=so, large_oio=lo, line_no=ln)
        headline_rows.append({"metric": metric, "value_as_written": value, "unit_as_written": m.group(3) or None,
                              "small_oio": so, "large_oio": lo, "line_no": ln})
    for d in details:
        for stat in ("avg", "min", "max", "std_dev"):
            res.add(key, "point", f"{d['io_size']}_{d['direction']}_latency_{stat}_ms", d[f"{stat}_ms"], "ms",
                    small_oio=d["small_oio"], large_oio=d["large_oio"], line_no=d["line_no"])
    res.tables["orion_tests"] = [test]
    res.tables["orion_headlines"] = headline_rows
    res.tables["orion_luns"] = luns
    res.tables["orion_latency_details"] = details
    res.tables["orion_histograms"] = hist
    return res
