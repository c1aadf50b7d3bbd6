"""elbencho CSV results: the `--csvfile` result CSV (one row per phase) and the `--livecsv` live CSV.

Result CSV (seen: elbencho 2.1-0; 3.x adds nothing to the columns this reads): a header of named
columns (`ISO date,label,...,operation,time ms [first],time ms [last],...,IOPS [last],MiB/s [last],
...,IO lat us [min],IO lat us [avg],IO lat us [max],rwmix read ...,version,command`), then one row
per phase (MKDIRS, WRITE, READ, RWMIXnn, MIX-T, SYNC, RMFILES...), appended run after run (a
second header line may follow when the columns changed). Quirks:
- the last column, `command`, is NOT RFC 4180: elbencho writes each argument as `"arg" ` with bare
  quotes inside the field and replaces commas by spaces, so a strict CSV reader fails. The other
  columns never hold a comma (elbencho strips them from the label), so a row is split on its first
  (columns - 1) commas and the rest of the line is the command, as written.
- `[first]` is when the fastest thread finished (elbencho's "stonewall"), `[last]` the whole phase:
  the canonical samples use `[last]`; every cell goes to `elbencho_values`.
- MiB/s is 2^20 bytes/s (the CSV always divides by 1024*1024, whatever --base10 says for the
  console): stored as MB/s x 1.048576. MiB totals are stored as bytes (x 2^20). Latencies are us:
  stored as ms (/ 1000). Empty cells are no value (elbencho leaves them empty where the phase did
  no such work).
- In an RWMIX phase the plain columns are the WRITE part and `rwmix read ...` the READ part
  (Statistics.cpp printPhaseResultsToStringVec); `iops`/`mbps` are then their sums (derived: no line).

The ISO date of a row is when elbencho wrote it, at the end of the phase: the run's ended_at
(local time as written; the UTC offset stays in elbencho_values).

Signature (I/O phases only: WRITE, READ, RWMIXnn, MIX-T): block size = `block size`; read % = 100
for READ, 0 for WRITE, nn for RWMIXnn (MIX-T: separate reader threads, no stated %); random % =
100 x `random`; queue depth = `IO depth` per thread; workers = `threads` x `hosts` (threads are per
host); outstanding I/Os = IO depth x threads x hosts.

Live CSV (`--livecsv`, seen 2.1-0): `Label,Phase,RuntimeMS,Rank,MixType,Done%,DoneBytes,MiB/s,IOPS,
Entries,Entries/s,Active,CPU,Service,` with a trailing comma on every line; one line per interval
and rank (`Total`, or a thread/host rank with --livecsvex). Stored as time series (one series per
rank, mix type and column; time = `<phase> <RuntimeMS> ms`, no wall clock), MiB/s as MB/s; the
non-empty text cells (Label, Service) go to `elbencho_values` (file_kind 'live').
Variants by version, and the test covering each: docs/formats/elbencho.md.
Checked against itself: `MiB/s` against `MiB` and `entries/s` against `entries` over `time ms`, [first]
and [last], the `rwmix read` part too (check_row).
"""

from __future__ import annotations

import math
import re
from datetime import datetime

from ..model import (
    MB_PER_MIB,
    MIB,
    ParseError,
    ParseResult,
    Run,
    Series,
    decode_text,
    parse_float,
    split_lines,
)
from . import _checks
from ._rows import Rows
from ._text import number, whole

FORMAT = "elbencho-csv"
VERSION = "1"
TOOL = "elbencho"
_RESULT_START = "ISO date,label,"
_LIVE_START = "Label,Phase,RuntimeMS,Rank,"
# column -> (metric stem, unit, factor); "{d}" is the direction part (read_/write_/none)
_LAST = {
    "IOPS [last]": ("{d}iops", "IO/s", 1.0),
    "MiB/s [last]": ("{d}mbps", "MB/s", MB_PER_MIB),
    "IO lat us [min]": ("min_{d}latency_ms", "ms", 1e-3),
    "IO lat us [avg]": ("avg_{d}latency_ms", "ms", 1e-3),
    "IO lat us [max]": ("max_{d}latency_ms", "ms", 1e-3),
    "entries/s [last]": ("{d}entries_per_s", "1/s", 1.0),
    "entries [last]": ("{d}entries", "count", 1.0),
    "Ent lat us [min]": ("min_{d}entry_latency_ms", "ms", 1e-3),
    "Ent lat us [avg]": ("avg_{d}entry_latency_ms", "ms", 1e-3),
    "Ent lat us [max]": ("max_{d}entry_latency_ms", "ms", 1e-3),
}
_BYTES = {"read_": "bytes_read", "write_": "bytes_written"}
IO_PHASES = re.compile(r"^(WRITE|READ|RWMIX(\d+)|MIX-T)$")


SNIFF_RULE = 'a first line starting "ISO date,label," with an ",operation," column (--csvfile), or "Label,Phase,RuntimeMS,Rank," (--livecsv)'


def sniff(head: str, name: str) -> bool:
    h = head.lstrip("\ufeff")
    return (h.startswith(_RESULT_START) and ",operation," in h.split("\n", 1)[0]) or h.startswith(_LIVE_START)


def parse(data: bytes, name: str) -> ParseResult:
    lines = split_lines(decode_text(data).lstrip("\ufeff"))
    first = next((i for i, line in enumerate(lines) if line.strip()), None)  # blank lines before it are no damage
    if first is None:
        raise ParseError("empty file")
    if lines[first].startswith(_LIVE_START):
        return _live(lines, first)
    if not lines[first].startswith(_RESULT_START):
        raise ParseError(
            "the first line is not an elbencho CSV header (ISO date,label,... or Label,Phase,...)", first + 1
        )
    return _result(lines)


# ---- result CSV ---------------------------------------------------------------------------------------


def split_row(line: str, header: list[str], ln: int) -> dict[str, str]:
    """A row as {column: cell}; the last `command` column takes the rest of the line as written."""
    if header[-1] == "command":
        cells = line.split(",", len(header) - 1)
    else:
        cells = line.split(",")
    if len(cells) != len(header):
        raise ParseError(f"row has {len(cells)} fields, the header has {len(header)}", ln)
    return dict(zip(header, cells))


def _result(lines: list[str]) -> ParseResult:
    res = ParseResult()
    rows = Rows()  # elbencho_values, packed past a chunk (formats/_rows.py)
    header: list[str] = []
    for ln, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if line.startswith(_RESULT_START):
            header = line.split(",")
            if "operation" not in header or len(set(header)) != len(header):
                raise ParseError("an elbencho CSV header needs one 'operation' column and no repeated names", ln)
            continue
        cells = split_row(line, header, ln)
        run = _run(f"{len(res.runs) + 1}-{cells['operation'].strip()}", cells, ln)
        res.runs.append(run)
        rows += _cells(run, cells, ln)
        check_row(cells, run.workload or "", ln)
        _samples(res, run, cells, ln)
        res.tool_version = (cells.get("version") or "").strip() or res.tool_version
    if not res.runs:
        raise ParseError("the elbencho CSV has a header but no phase rows")
    res.tables["elbencho_values"] = rows.table()
    return res


def iso_date(text: str, ln: int) -> datetime | None:
    """`2022-03-09T15:41:14-0800` -> the local time as written (the offset stays in elbencho_values)."""
    t = text.strip()
    if not t:
        return None
    try:
        return datetime.strptime(t[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        raise ParseError(f"ISO date {t!r} is not a date and time", ln) from None


def _num(cells: dict[str, str], col: str, ln: int) -> float | None:
    return number(cells.get(col, ""), f"column {col!r}", ln)


def _int(cells: dict[str, str], col: str, ln: int) -> int | None:
    return whole(cells.get(col, ""), f"column {col!r}", ln)


def _run(key: str, cells: dict[str, str], ln: int) -> Run:
    phase = cells["operation"].strip()
    if not phase:
        raise ParseError("the operation (phase) cell is empty", ln)
    run = Run(
        key,
        TOOL,
        tool_version=(cells.get("version") or "").strip() or None,
        workload=phase,
        description=(cells.get("label") or "").strip() or None,
        status="complete",
        test_type=(cells.get("path type") or "").strip() or None,
        ended_at=iso_date(cells.get("ISO date", ""), ln),
    )
    m = IO_PHASES.match(phase)
    if not m:
        return run
    run.block_size_bytes = _int(cells, "block size", ln)
    run.read_pct = {"WRITE": 0.0, "READ": 100.0}.get(phase, float(m.group(2)) if m.group(2) else None)
    rnd = _num(cells, "random", ln)
    run.random_pct = None if rnd is None else 100.0 * rnd
    qd, threads, hosts = _int(cells, "IO depth", ln), _int(cells, "threads", ln), _int(cells, "hosts", ln)
    run.queue_depth = qd
    if threads is not None:
        run.workers = threads * (hosts or 1)
        run.outstanding_ios = None if qd is None else qd * run.workers
    return run


def _cells(run: Run, cells: dict[str, str], ln: int) -> list[dict]:
    out = []
    for col, text in cells.items():
        try:
            v = float(text) if col not in ("label", "version", "command") and text.strip() else None
        except ValueError:
            v = None
        if v is not None and not math.isfinite(v):
            v = None
        out.append(
            {
                "file_kind": "csv",
                "run_key": run.key,
                "phase": run.workload,
                "column_name": col,
                "value": v,
                "text": None if v is not None or not text.strip() else text,
                "line_no": ln,
            }
        )
    return out


def _samples(res: ParseResult, run: Run, cells: dict[str, str], ln: int) -> None:
    phase = run.workload
    rwmix = any((cells.get(c) or "").strip() for c in cells if c.startswith("rwmix read"))
    main_dir = "write_" if rwmix or phase == "WRITE" else "read_" if phase == "READ" else ""
    parts = [(main_dir, "")] + ([("read_", "rwmix read ")] if rwmix else [])
    for d, prefix in parts:
        for col, (stem, unit, factor) in _LAST.items():
            v = _num(cells, prefix + col, ln)
            if v is None:
                continue
            dd = d if rwmix or "entr" not in stem else ""  # files/dirs: directional only in a mix
            res.add(run.key, "all", stem.format(d=dd), v * factor, unit, line_no=ln)
            if dd and not rwmix:  # a pure READ/WRITE phase: its numbers are also the phase's
                res.add(run.key, "all", stem.format(d=""), v * factor, unit, line_no=ln)
        mib = _num(cells, prefix + "MiB [last]", ln)
        if d in _BYTES and mib is not None:
            res.add(run.key, "all", _BYTES[d], mib * MIB, "bytes", line_no=ln)
    if rwmix:  # the phase totals: write part + read part
        for col, (stem, unit, factor) in (
            ("IOPS [last]", _LAST["IOPS [last]"]),
            ("MiB/s [last]", _LAST["MiB/s [last]"]),
        ):
            w, r = _num(cells, col, ln), _num(cells, "rwmix read " + col, ln)
            if w is not None and r is not None:
                res.add(run.key, "all", stem.format(d=""), (w + r) * factor, unit)
    for col, metric, unit, factor in (
        ("time ms [last]", "runtime_s", "s", 1e-3),
        ("CPU% [last]", "cpu_util_pct", "%", 1.0),
    ):
        v = _num(cells, col, ln)
        if v is not None:
            res.add(run.key, "all", metric, v * factor, unit, line_no=ln)


def rate_agrees(rate: float | None, total: float | None, ms: float | None, what: str, ln: int, mib: bool) -> None:
    """A per-second figure against the total it is of, over the phase's elapsed time (Statistics.cpp:
    `opsTotal.getPerSecFromUSec(lastFinishUSec)`, the stonewall ones over firstFinishUSec): every figure
    a whole number cut, the time in whole ms (whole seconds past an hour, 3.x), a MiB total cut from
    bytes (``mib``: the rate then in MiB/s, or MB/s when ``what`` says so). No check without a time."""
    if rate is None or total is None or not ms:
        return
    res_ms = 1000.0 if ms >= 3_600_000 else 1.0
    scale = (2**20 / 1e6 if "MB/s" in what else 1.0) if mib else 1.0
    lo = total * scale * 1000 / (ms + res_ms) - 1
    hi = (total + (1 if mib else 0)) * scale * 1000 / ms
    _checks.agree(rate, (lo + hi) / 2, (hi - lo) / 2, f"{what} against the total over {ms:g} ms", ln)


def parts_agree(total: float | None, write: float | None, read: float | None, what: str, ln: int, cut: bool) -> None:
    """An RWMIX `... total` line: the write and read figures summed (IOPS, entries/s exactly; MiB/s cut
    from the summed bytes per second, so up to one more, ``cut``)."""
    if total is None or write is None or read is None:
        return
    _checks.agree(total, write + read + (0.5 if cut else 0), 0.5 if cut else 0, f"{what}: write + read", ln)


def check_row(cells: dict[str, str], phase: str, ln: int) -> None:
    """A result row against itself: `MiB/s` of `MiB` and `entries/s` of `entries` over `time ms`, [first]
    and [last], and the same of its `rwmix read` part (rate_agrees)."""
    for col in ("first", "last"):
        ms = _num(cells, f"time ms [{col}]", ln)
        for prefix in ("", "rwmix read "):
            for rate, total in (("MiB/s", "MiB"), ("entries/s", "entries")):
                what = f"{phase} {prefix}{rate} [{col}]"
                r, t = _num(cells, f"{prefix}{rate} [{col}]", ln), _num(cells, f"{prefix}{total} [{col}]", ln)
                rate_agrees(r, t, ms, what, ln, mib=total == "MiB")


# ---- live CSV -------------------------------------------------------------------------------------------

# live column -> (metric, unit, factor); columns not named here are kept with no metric
_LIVE = {
    "MiB/s": ("mbps", "MB/s", MB_PER_MIB),
    "IOPS": ("iops", "IO/s", 1.0),
    "Entries/s": ("entries_per_s", "1/s", 1.0),
    "Entries": ("entries", "count", 1.0),
    "DoneBytes": ("bytes_done", "bytes", 1.0),
    "Done%": ("done_pct", "%", 1.0),
    "Active": ("active_threads", "count", 1.0),
    "CPU": ("cpu_util_pct", "%", 1.0),
}


def _live(lines: list[str], first: int = 0) -> ParseResult:
    header = lines[first].split(",")
    if header[-1] == "":
        header.pop()  # elbencho ends every line with a comma
    for col in ("Phase", "RuntimeMS", "Rank"):
        if col not in header:
            raise ParseError(f"the live CSV header has no {col!r} column", first + 1)
    res = ParseResult()
    series: dict[tuple[str, str, str], Series] = {}
    keys, nos, vals, samples, rows = [], [], [], [], []
    for ln, line in enumerate(lines[first + 1 :], start=first + 2):
        if not line.strip():
            continue
        cells = line.split(",")
        if cells and cells[-1] == "" and len(cells) == len(header) + 1:
            cells.pop()
        if len(cells) != len(header):
            raise ParseError(f"row has {len(cells)} fields, the header has {len(header)}", ln)
        row = dict(zip(header, cells))
        ms = parse_float(row["RuntimeMS"], "RuntimeMS", ln)
        if ms is None or not row["Phase"].strip():
            raise ParseError("a live row needs its Phase and RuntimeMS", ln)
        no = len(samples)
        samples.append(
            {"sample_no": no, "ts": None, "ts_text": f"{row['Phase'].strip()} {row['RuntimeMS'].strip()} ms"}
        )
        for col, text in row.items():  # Label, Service and columns newer versions add: kept as written
            if col not in _LIVE and col not in ("Phase", "RuntimeMS", "Rank", "MixType") and text.strip():
                rows.append(
                    {
                        "file_kind": "live",
                        "run_key": "live",
                        "phase": row["Phase"].strip(),
                        "column_name": f"{col} [{row['Rank'].strip()} {row['RuntimeMS'].strip()} ms]",
                        "value": None,
                        "text": text,
                        "line_no": ln,
                    }
                )
        for col, (metric, unit, factor) in _LIVE.items():
            v = parse_float(row.get(col, ""), f"column {col!r}", ln)
            if v is None:
                continue
            sk = (row["Rank"].strip(), (row.get("MixType") or "").strip(), col)
            if sk not in series:
                series[sk] = _series(len(series), *sk, metric, unit)
            keys.append(series[sk].key)
            nos.append(no)
            vals.append(v * factor)
    if not samples:
        raise ParseError("the elbencho live CSV has a header but no rows")
    phases = sorted({s["ts_text"].split(" ")[0] for s in samples})
    res.runs.append(Run("live", TOOL, workload=" ".join(phases), test_type="live", status="complete"))
    res.set_series(list(series.values()), keys, nos, vals, samples)
    if rows:
        res.tables["elbencho_values"] = rows
    return res


def _series(key: int, rank: str, mix: str, col: str, metric: str, unit: str) -> Series:
    inst = rank + (f" {mix}" if mix else "")
    counter = col + (" (MiB/s in the file, stored as MB/s)" if col == "MiB/s" else "")
    return Series(key, f"{inst} {col}", None, "elbencho live", inst, counter, metric, unit, inst)
