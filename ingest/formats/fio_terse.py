"""fio terse output (`--minimal` / `--output-format=terse`), versions 2, 3 (the default), 4 and 5.

One semicolon-separated line per job (or per group under group_reporting, where the jobname field
is empty), possibly several lines, possibly after stderr lines (`fio: ...`). Layout from fio's
stat.c show_thread_status_terse_all and show_ddir_status_terse (read at fio-3.33 and master):
a header (version 2: `2;name;groupid;error`, no fio version; 3-5: `V;fio-x;name;groupid;error`);
a block per direction of 41 fields (io KiB, bw KiB/s, IOPS, runtime ms; slat, clat
min/max/mean/stdev usec; 20 clat percentile fields `P%=V` in usec, `0%=0` for unused slots; lat
min/max/mean/stdev usec; bw min/max/agg %/mean/stdev KiB/s), version 5 adding 6 (bw samples, iops
min/max/mean/stdev/samples); the blocks are read and write (3) or read, write and trim (2, 4, 5),
only `mixed` under unified_rw_reporting=1, and a `mixed` block after them under =both; then CPU
(5), I/O depths (7), usec and msec latency buckets (10 + 12); then (3-5) per disk 9 fields (name,
read/write ios, merges, ticks, in_queue, util%), each optionally followed by `slaves;` and 8
aggregate fields (md devices); then `total errors;first error` when continue_on_error is set,
and the job description when one is set (version 2: on the next line, after a `;`).

Terse carries no job options, so the workload signature (block size, mix, queue depth) is unknown.
"""

from __future__ import annotations

import re
from typing import Any

from ..model import ParseError, ParseResult, Run, decode_text, split_lines
from . import _fio, fio_text
from ._fio import Direction
from ._rows import Rows
from ._text import number

FORMAT = "fio-terse"
VERSION = "2"
_LINE = re.compile(r"^([345]);fio-[^;]*;")
# version 2 has no fio version field: name;groupid;error;KiB;bw;iops;runtime;slat min;max;mean;stdev
_LINE_V2 = re.compile(r"^2;[^;]*;\d+;-?\d+;\d+;\d+;\d+;\d+;\d+;\d+;\d+\.\d+;\d+\.\d+;")
_STATS = ("min", "max", "avg", "stddev")
DIR_FIELDS = (
    ["kb", "bandwidth_kb", "iops", "runtime_ms"]
    + [f"slat_{s}_us" for s in _STATS]
    + [f"clat_{s}_us" for s in _STATS]
    + [f"clat_pct{i:02d}" for i in range(1, 21)]
    + [f"lat_{s}_us" for s in _STATS]
    + ["bw_min_kb", "bw_max_kb", "bw_agg_pct", "bw_mean_kb", "bw_dev_kb"]
)
V5_FIELDS = ["bw_samples", "iops_min", "iops_max", "iops_mean", "iops_dev", "iops_samples"]
TAIL_FIELDS = (
    ["cpu_user", "cpu_sys", "cpu_csw", "cpu_mjf", "cpu_minf"]
    + [f"iodepth_{d}" for d in (1, 2, 4, 8, 16, 32, 64)]
    + [f"lat_{u}us" for u in (2, 4, 10, 20, 50, 100, 250, 500, 750, 1000)]
    + [f"lat_{m}ms" for m in (2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000)]
    + ["lat_over_2000ms"]
)
HEADS = {2: ["terse_version", "jobname", "groupid", "error"]}
_HEAD = ["terse_version", "fio_version", "jobname", "groupid", "error"]
# the direction blocks fio writes per version (unified_rw_reporting aside)
BLOCKS = {
    2: ("read", "write", "trim"),
    3: ("read", "write"),
    4: ("read", "write", "trim"),
    5: ("read", "write", "trim"),
}
FIXED = 5 + 2 * len(DIR_FIELDS) + len(TAIL_FIELDS)  # 121: version 3, read and write
DISK_FIELDS = ("read_ios", "write_ios", "read_merges", "write_merges", "read_ticks", "write_ticks", "in_queue", "util")


SNIFF_RULE = (
    "a line starts with a fio terse version field ('3;fio-...', 4, 5; or version 2's '2;name;group;error;' "
    "and numbers), and no fio JSON or normal report beside it (terse,json is read as the JSON, terse,normal as the report)"
)


def _is_terse(line: str) -> bool:
    return bool(_LINE.match(line) or _LINE_V2.match(line))


def sniff(head: str, name: str) -> bool:
    if '"fio version"' in head:
        return False  # `--output-format=terse,json`: the JSON (the same numbers, more of them) reads it
    if fio_text.report_in(head):
        return False  # `--output-format=terse,normal`: the text report of the same run reads it
    return any(_is_terse(x) for x in split_lines(head.lstrip("\ufeff"))[:50])


def _num(text: str, what: str, ln: int) -> float | None:
    return number(text, what, ln, strip="%")


def _direction(name: str, cells: list[str], ln: int, rows: dict, ids: dict) -> Direction:
    v = {f: c for f, c in zip(DIR_FIELDS, cells)}
    kib = _num(v["kb"], f"{name} KiB", ln)
    bw = _num(v["bandwidth_kb"], f"{name} bandwidth", ln)
    d = Direction(
        name,
        io_bytes=None if kib is None else kib * 1024,
        bw_bytes_per_s=None if bw is None else bw * 1024,
        iops=_num(v["iops"], f"{name} IOPS", ln),
        runtime_ms=_num(v["runtime_ms"], f"{name} runtime", ln),
    )
    for stat in ("slat", "clat", "lat"):
        d.lat[stat] = {
            s: (None if (x := _num(v[f"{stat}_{s}_us"], f"{name} {stat} {s}", ln)) is None else x / 1000)
            for s in _STATS
        }
    pcts = {}
    for i in range(1, 21):
        p, sep, val = v[f"clat_pct{i:02d}"].partition("%=")
        if not sep:
            raise ParseError(
                f"{name} percentile field {i} should look like '99.000000%=123', found {v[f'clat_pct{i:02d}']!r}", ln
            )
        p_num, val_num = _num(p, f"{name} percentile", ln), _num(val, f"{name} percentile value", ln)
        if p_num:  # '0%=0' is an unused slot
            pcts[p_num] = val_num
    rows["fio_percentiles"] += [
        {**ids, "ddir": name, "stat": "clat", "percentile": p, "value": x, "unit": "us"} for p, x in pcts.items()
    ]
    if pcts:
        d.percentiles["clat"] = {p: x / 1000 for p, x in pcts.items()}
    return d


def _disks(cells: list[str], ln: int, doc_no: int) -> tuple[list[dict], list[str]]:
    """Disk groups from the cells after the fixed part; returns (rows, cells left over)."""
    out = []
    while len(cells) >= 9 and cells[8].endswith("%"):
        row = {
            "doc_no": doc_no,
            "name": cells[0],
            "line_no": ln,
            **{f: _num(c, f"disk {cells[0]} {f}", ln) for f, c in zip(DISK_FIELDS, cells[1:9])},
        }
        cells = cells[9:]
        if len(cells) >= 9 and cells[0] == "slaves":
            row.update(
                {f"aggr_{f}": _num(c, f"disk {row['name']} aggregate {f}", ln) for f, c in zip(DISK_FIELDS, cells[1:9])}
            )
            cells = cells[9:]
        out.append(row)
    return out, cells


def _blocks(ver: int, cells: list[str], head: int, n: int, ln: int) -> list[str]:
    """The direction blocks of a line: fio's for the version, only `mixed` (unified_rw_reporting=1) or
    those and `mixed` (=both). A block starts with its KiB (a whole number), the CPU part after the
    last one with `usr%`: the first block boundary holding a `%` field ends the blocks."""
    std = BLOCKS[ver]
    for k in range(1, len(std) + 2):
        at = head + k * n
        if at < len(cells) and cells[at].endswith("%"):
            if k in (1, len(std), len(std) + 1):
                return ["mixed"] if k == 1 else [*std, "mixed"][:k]
            break
    raise ParseError(
        f"a terse v{ver} line has {len(std)} direction blocks of {n} fields after its {head} header fields, "
        "then the CPU usage (a field ending in '%'): this one does not (cut?)",
        ln,
    )


def _line(res: ParseResult, rows: dict, doc_no: int, ln: int, line: str) -> None:
    cells = line.split(";")
    ver = int(cells[0])
    head = HEADS.get(ver, _HEAD)
    n = len(DIR_FIELDS) + (len(V5_FIELDS) if ver == 5 else 0)
    names_ = _blocks(ver, cells, len(head), n, ln)
    fixed = len(head) + len(names_) * n + len(TAIL_FIELDS)
    if len(cells) < fixed:
        raise ParseError(
            f"a terse v{ver} line of this layout has at least {fixed} fields, this one has {len(cells)} (cut?)", ln
        )
    h = dict(zip(head, cells))
    version, jobname, groupid, error = h.get("fio_version"), h["jobname"], h["groupid"], h["error"]
    ids = {"doc_no": doc_no, "job_no": 1, "line_no": ln}
    at = len(head)
    dirs = [_direction(d, cells[at + i * n : at + (i + 1) * n], ln, rows, ids) for i, d in enumerate(names_)]
    tail = dict(zip(TAIL_FIELDS, cells[fixed - len(TAIL_FIELDS) : fixed]))
    disks, rest = _disks(cells[fixed:], ln, doc_no) if ver >= 3 else ([], cells[fixed:])
    errors = None
    if len(rest) >= 2 and rest[0].isdigit() and rest[1].lstrip("-").isdigit():
        errors, rest = float(rest[0]), rest[2:]
    err = int(error) if error.lstrip("-").isdigit() else error
    key = f"{doc_no}:1:{jobname}"
    res.runs.append(
        Run(
            key=key,
            tool="fio",
            tool_version=version,
            workload=jobname or None,
            status=f"error {err}" if err else "complete",
            description=";".join(rest) or None,
        )
    )
    fields = DIR_FIELDS + (V5_FIELDS if ver == 5 else [])
    names = head + [f"{d}_{f}" for d in names_ for f in fields] + TAIL_FIELDS
    rows["fio_job_values"] += [
        {"doc_no": doc_no, "job_no": 1, "path": p, "value": c, "value_num": _safe_num(c)} for p, c in zip(names, cells)
    ]
    rows["fio_jobs"].append(
        {
            "doc_no": doc_no,
            "job_no": 1,
            "run_key": key,
            "jobname": jobname,
            "groupid": int(groupid) if groupid.isdigit() else None,
            "error": err if isinstance(err, int) else None,
            "fio_version": version,
            "line_no": ln,
        }
    )
    rows["fio_disk_util"] += disks
    for d in dirs:
        _fio.add_direction(res, key, d, ln)
    _fio.add_totals(res, key, dirs)
    res.add(key, "all", "runtime_s", max((d.runtime_ms or 0) for d in dirs) / 1000, "s", line_no=ln)
    res.add(key, "all", "errors", errors, "count", line_no=ln)
    res.add(key, "all", "cpu_user_pct", _num(tail["cpu_user"], "cpu user", ln), "%", line_no=ln)
    res.add(key, "all", "cpu_privileged_pct", _num(tail["cpu_sys"], "cpu system", ln), "%", line_no=ln)
    for du in disks:
        res.add(key, "target", "disk_util_pct", du["util"], "%", target=du["name"], line_no=ln)


def _safe_num(text: str) -> float | None:
    try:
        return float(text.rstrip("%"))
    except ValueError:
        return None


def parse(data: bytes, name: str) -> ParseResult:
    text = decode_text(data).lstrip("\ufeff")
    if fio_text.report_in(text):  # terse lines and a normal report past the sniffed head: one run, two layouts
        res = fio_text.parse(data, name)
        res.notes.append("terse lines beside fio's normal report of the same run: read as the report (fio-text)")
        return res
    res = ParseResult()
    rows: dict[str, Any] = {  # the two with many rows a line packed past a chunk (formats/_rows.py)
        "fio_jobs": [],
        "fio_job_values": Rows(),
        "fio_percentiles": Rows(),
        "fio_disk_util": [],
        "fio_messages": [],
    }
    pending: list[dict[str, Any]] = []
    last_v2 = False  # version 2 writes a job's description on the next line, after a ';'
    for ln, raw in enumerate(split_lines(text), start=1):
        line = raw.strip()
        if not line:
            continue
        if last_v2 and line.startswith(";") and res.runs[-1].description is None:
            res.runs[-1].description = line[1:]
            last_v2 = False
            continue
        last_v2 = line.startswith("2;")
        if _is_terse(line):
            doc_no = len(res.runs) + 1
            rows["fio_messages"] += [{**m, "doc_no": doc_no} for m in pending]
            pending = []
            _line(res, rows, doc_no, ln, line)
        else:
            pending.append({"line_no": ln, "text": line})
    rows["fio_messages"] += [{**m, "doc_no": None} for m in pending]
    if not res.runs:
        raise ParseError("no terse line (3;fio-...;..., 4, 5, or version 2's 2;name;...) in the file")
    res.tool_version = res.runs[0].tool_version
    res.tables = {t: r.table() if isinstance(r, Rows) else r for t, r in rows.items() if len(r)}
    return res
