"""Published results: numbers from vendor reports and lab studies, typed in with their citation.

Lets users put their own runs next to published ones. Two CSV shapes (UTF-8, a header row, RFC
4180 quoting), both with a citation column:

* long:  `...,metric,value,unit,...,source` - one number per row; optional columns study, system,
         generation, tiles, workload, raid_level, drives_behind (or hdds), config, context.
* table: `system,...,workload,block_size,iops,mbps,avg_response_ms,source_table[,note]` - one test
         point per row (the IBM DS4300 vs FAStT200 tables); optional generation, raid_level, hdds,
         drive, cache_setting.

Each row is a run (key `row<N>`, N = line number) carrying its own system, generation, RAID level,
drive count and config; numbers become samples in canonical units. An optional `tool` column names
the tool that measured the figure (Iometer, Jetstress, Orion, ...): the run's tool, which scopes the
criteria and sizing rules that apply to it (criteria.py); a row that names none is a `published` run,
which no tool's criterion judges. A value that is not one number
(a range such as `16-17`) stays in published_results as text and is not a sample.
"""

from __future__ import annotations

import re

from .. import vocabulary
from ..model import ParseError, ParseResult, Run, Runs, csv_header, csv_records, parse_float
from ._rows import Rows

FORMAT = "published-results-csv"
VERSION = "2"  # 2: the optional tool column
UNITS = {
    "IO/s": ("IO/s", 1.0),
    "MB/s": ("MB/s", 1.0),
    "GB/s": ("MB/s", 1000.0),
    "ms": ("ms", 1.0),
    "mailboxes": ("count", 1.0),
    "sets": ("count", 1.0),
    "VMs": ("count", 1.0),
    "USD": ("USD", 1.0),
    "TB": ("TB", 1.0),
    "ops/h": ("1/h", 1.0),
    "%": ("%", 1.0),
    "s": ("s", 1.0),
    "W": ("W", 1.0),
}
METRICS = {
    "db_iops": "iops",
    "small_iops": "iops",
    "large_mbps": "mbps",
    "small_latency": "avg_latency_ms",
    "db_read_latency": "db_read_latency_ms",
    "avg_response": "avg_latency_ms",
    "read_response_avg": "avg_read_latency_ms",
    "write_response_avg": "avg_write_latency_ms",
    "aggregate_throughput": "mbps",
    "peak_iops": "peak_iops",
    "steady_iops": "steady_iops",
}
TABLE_COLUMNS = {"iops": ("iops", "IO/s"), "mbps": ("mbps", "MB/s"), "avg_response_ms": ("avg_latency_ms", "ms")}


SNIFF_RULE = "a CSV header with metric/value/unit/source (or iops/mbps/avg_response_ms/source_table)"


def sniff(head: str, name: str) -> bool:
    h = set(csv_header(head))
    return ({"metric", "value", "unit", "source"} <= h) or ({"iops", "mbps", "avg_response_ms", "source_table"} <= h)


def block_bytes(text: str | None) -> int | None:
    m = re.fullmatch(r"\s*(\d+)\s*([KM])B?\s*", text or "", re.I)
    return int(m.group(1)) * (1024 if m.group(2).upper() == "K" else 1024 * 1024) if m else None


def parse(data: bytes, name: str) -> ParseResult:
    header, records = csv_records(data)
    long_form = {"metric", "value", "unit", "source"} <= set(header)
    res = ParseResult(runs=Runs())  # a run per row: packed a chunk at a time
    kept = Rows()  # published_results, packed past a chunk (formats/_rows.py)
    for ln, r in records:
        run, base = _row_run(r, ln)
        res.runs.append(run)
        if long_form:
            _long_row(res, kept, run.key, r, base, ln)
        else:
            for col, (metric, unit) in TABLE_COLUMNS.items():
                v = parse_float(r.get(col, ""), col, ln)
                if v is not None:
                    res.add(run.key, "test", metric, v, unit, line_no=ln)
                kept.append({**base, "metric": col, "value_text": r.get(col, ""), "unit": unit})
    if not res.runs:
        raise ParseError("no rows under the header")
    res.tables["published_results"] = kept.table()
    return res


def _row_run(r: dict, ln: int) -> tuple[Run, dict]:
    """One row's run (a published figure and what it was measured on) and its published_results columns."""
    citation = r.get("source") or r.get("source_table")
    if not citation:
        raise ParseError("every published number needs its citation (source / source_table column)", ln)
    drives = r.get("drives_behind") or r.get("hdds") or ""
    tiles = r.get("tiles") or ""
    run = Run(
        key=f"row{ln}",
        tool=(r.get("tool") or "").strip() or "published",
        workload=r.get("workload") or None,
        description=r.get("context") or r.get("note") or None,
        status="published",
        test_type=citation,
        block_size_bytes=block_bytes(r.get("block_size")),
        system=r.get("system") or None,
        generation=r.get("generation") or None,
        config_label=r.get("cache_setting") or r.get("config") or None,
        raid_level=r.get("raid_level") or None,
        drives=int(drives) if drives.strip().isdigit() else None,
        tiles=int(tiles) if tiles.strip().isdigit() else None,
    )
    base = {
        "study": r.get("study") or None,
        "system": run.system,
        "generation": run.generation,
        "raid_level": run.raid_level,
        "drives": run.drives,
        "config_label": run.config_label,
        "workload": run.workload,
        "block_size_text": r.get("block_size") or None,
        "tiles": run.tiles,
        "context": run.description,
        "citation": citation,
        "line_no": ln,
    }
    return run, base


def _long_row(res: ParseResult, kept: Rows, key: str, r: dict, base: dict, ln: int) -> None:
    """A long-form row (metric, value, unit, source): its sample, when the value is a number."""
    unit_text = r["unit"].strip()
    if unit_text not in UNITS:
        raise ParseError(f"unit {unit_text!r} is not one iolab knows ({', '.join(UNITS)})", ln)
    unit, factor = UNITS[unit_text]
    metric = METRICS.get(r["metric"], r["metric"])
    if unit_text == "GB/s":
        metric = "mbps"
    if why := vocabulary.problem(metric, unit, "test"):
        raise ParseError(f"{r['metric']!r} in {unit_text}: {why}", ln)
    try:
        v = parse_float(r["value"], r["metric"], ln)
    except ParseError:
        v = None  # a range or note: kept as text below, no sample
    if v is not None:
        res.add(key, "test", metric, v * factor, unit, line_no=ln)
    kept.append({**base, "metric": r["metric"], "value_text": r["value"], "unit": unit_text})
