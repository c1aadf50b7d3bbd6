"""VMware `vscsiStats -p all -c` histogram output (per virtual disk of a VM).

See docs/formats/esxtop-jetstress-profile.md section 1.4. Sections of
`Histogram: <title>,virtual machine worldGroupID,<id>,virtual disk handleID,<id> (scsi0:0)`, then
`min,<v>`, `max,<v>`, `mean,<v>`, `count,<v>`, `Frequency,Histogram Bucket Limit`, then
`<count>,<upper bound>` rows. The last bucket limit is written twice: the second row is the
overflow (> limit) bucket. A histogram whose frequencies do not sum to its count is rejected.

Every histogram and bucket is kept (vscsi_histograms, vscsi_buckets). From the latency histograms
(microseconds) come samples per virtual disk: mean latency (ms), I/O count, and the share of I/Os
completed within 30 ms (the IOmark-VM response criterion).
"""

from __future__ import annotations

import re

from ..model import ParseError, ParseResult, Run, decode_text, parse_float, parse_int, split_lines
from ._rows import Rows

FORMAT = "vscsistats-csv"
VERSION = "1"
_HEAD = re.compile(
    r"^Histogram: (?P<title>[^,]+),virtual machine worldGroupID,\s*(?P<wg>\d+),"
    r"virtual disk handleID,\s*(?P<handle>\d+)(?:\s*\((?P<vdisk>[^)]*)\))?\s*$"
)
KINDS = [
    (re.compile(r"latency", re.I), "latency_us"),
    (re.compile(r"IO lengths?", re.I), "io_length_bytes"),
    (re.compile(r"outstanding", re.I), "outstanding_ios"),
    (re.compile(r"interarrival", re.I), "interarrival_us"),
    (re.compile(r"distance", re.I), "seek_distance_lbn"),
]


SNIFF_RULE = "the first line is a vscsiStats histogram title"


def sniff(head: str, name: str) -> bool:
    return bool(_HEAD.match(split_lines(head[:2000])[0])) if head.strip() else False


def _direction(title: str) -> str:
    return "read" if re.search(r"\bReads?\b", title) else "write" if re.search(r"\bWrites?\b", title) else "all"


def parse(data: bytes, name: str) -> ParseResult:
    hists = _histograms(split_lines(decode_text(data)))
    res = ParseResult()
    res.runs.append(
        Run(
            key="vscsistats",
            tool="vscsiStats",
            workload="vscsiStats histograms",
            status="complete",
            test_type="histograms",
        )
    )
    buckets = Rows()  # vscsi_buckets, packed past a chunk (formats/_rows.py)
    for h in hists:
        _histogram(res, buckets, h)
    res.tables["vscsi_histograms"] = hists
    res.tables["vscsi_buckets"] = buckets.table()
    return res


def _histograms(lines: list[str]) -> list[dict]:
    """Every `Histogram:` section: its title, ids, summary values and (in `_rows`) its buckets."""
    hists: list[dict] = []
    cur = None
    for ln, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if m := _HEAD.match(line):
            cur = {
                "histogram_no": len(hists) + 1,
                "title": m.group("title").strip(),
                "world_group_id": int(m.group("wg")),
                "vdisk_handle_id": int(m.group("handle")),
                "vdisk": m.group("vdisk"),
                "line_no": ln,
                "kind": next((k for rx, k in KINDS if rx.search(m.group("title"))), "other"),
                "direction": _direction(m.group("title")),
                **dict.fromkeys(("min", "max", "mean", "count")),
                "_rows": [],
            }
            hists.append(cur)
            continue
        if cur is None:
            raise ParseError("data before the first 'Histogram:' line", ln)
        cells = line.split(",")
        if len(cells) != 2:
            raise ParseError(f"expected two fields, found {len(cells)}", ln)
        key, val = cells[0].strip(), cells[1].strip()
        if key in ("min", "max", "mean", "count"):
            cur[key] = parse_float(val, key, ln)
        elif not (key == "Frequency" and val == "Histogram Bucket Limit"):
            cur["_rows"].append((parse_int(key, "frequency", ln), parse_int(val, "bucket limit", ln), ln))
    if not hists:
        raise ParseError("no 'Histogram:' sections")
    return hists


def _histogram(res: ParseResult, buckets: Rows, h: dict) -> None:
    """One histogram's buckets (checked: their frequencies sum to its count) and, for the all-I/O latency
    one of a virtual disk, its samples."""
    rows = h.pop("_rows")
    if h["count"] is None or not rows:
        raise ParseError(f"histogram '{h['title']}' has no count or no buckets (a cut file?)", h["line_no"])
    if sum(f for f, _, _ in rows) != h["count"]:
        raise ParseError(
            f"histogram '{h['title']}': frequencies sum to {sum(f for f, _, _ in rows)}, its count says {h['count']:.0f}",
            h["line_no"],
        )
    # the last limit written twice: the second row is the overflow (> limit) bucket
    marked = [(f, lim, ln, n == len(rows) and n > 1 and lim == rows[-2][1]) for n, (f, lim, ln) in enumerate(rows, 1)]
    for n, (freq, limit, ln, overflow) in enumerate(marked, start=1):
        buckets.append(
            {
                "histogram_no": h["histogram_no"],
                "bucket_no": n,
                "upper_bound": limit,
                "is_overflow": overflow,
                "frequency": freq,
                "line_no": ln,
            }
        )
    if h["kind"] == "latency_us" and h["direction"] == "all" and h["count"]:
        target, at = f"{h['world_group_id']}:{h['vdisk'] or h['vdisk_handle_id']}", h["line_no"]
        within = sum(f for f, lim, _, overflow in marked if not overflow and lim <= 30000)
        res.add("vscsistats", "target", "ios", h["count"], "count", target=target, line_no=at)
        if h["mean"] is not None:
            res.add("vscsistats", "target", "avg_latency_ms", h["mean"] / 1000, "ms", target=target, line_no=at)
        res.add(
            "vscsistats", "target", "pct_ios_within_30ms", 100.0 * within / h["count"], "%", target=target, line_no=at
        )
