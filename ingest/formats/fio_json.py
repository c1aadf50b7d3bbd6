"""fio `--output-format=json` and `json+` captures, fio 2.1 to 3.x.

A capture is what fio wrote to stdout/stderr: one JSON document per report, with text around it.
Seen in real files (tests/corpus/fio-json, MANIFEST.tsv): `fio:` warning/error lines before the
JSON, `fio: terminating on signal N`, a stray `>` before `{` (a paste), several documents in one
file (`--status-interval`, appended runs), trailing blank lines, and a `.json` file holding only
fio's error text (rejected, quoting it). fio prints duplicate keys (`"filename"` twice in `global
options`, `"0.00"` placeholder percentiles): options keep every value (object_pairs_hook).

Units by version (fio stat.c):
* 2.x: `slat`/`clat`/`lat` in usec; `io_bytes` is in KiB (`io_bytes >> 10`), `bw` KiB/s.
* 3.x: `slat_ns`/`clat_ns`/`lat_ns` in ns; `io_bytes` in bytes beside `io_kbytes`; from 3.x
  (3.12 here) `bw_bytes` in bytes/s beside `bw` (KiB/s).
Percentile values and json+ `bins` keys are in the unit of their statistic (usec or ns).

One run per job entry (key: document, job index and jobname); under group_reporting the entry is
the group's aggregate, so workers = numjobs; otherwise each entry is one job (workers = 1). fio's
JSON leaves `group_reporting` out of the options when it is set without a value (`--group_reporting`,
a bare line in a job file): an entry whose numjobs is more than the entries of its name and group
in the document is such a sum. A document that is a `--status-interval` snapshot of the next one
(the same entries, started at the same time: `job_start`, or before fio 3.36 the report's
`timestamp` less `elapsed`; no count smaller than the snapshot's) is an interim one: its rows stay
in the tool tables (fio_jobs.run_key NULL), each job's run is its last report. Checked against
itself: each direction's `iops` against `1000 x total_ios / runtime`, `bw_bytes` against `1000 x
io_bytes / runtime`, and a client document's `All clients` counts against the clients' summed.
Client/server runs (`fio --client=h1 job --client=h2 job`, fio 2.1.4+ client.c): `client_stats`
instead of `jobs`, `hostname` and `port` in every entry (and in disk_util), a blank line before the
document; `global options` one object (fio before 3.39: with two clients every option appears
twice, fio merged them) or an array of per-server objects (3.39+, matched to a job by hostname and
port). Each host's entry is a run keyed `doc:job:name@host:port`. When the servers report more than
one entry in all, fio adds `All clients`, the sum of them all (client.c sum_thread_stats): its run
has no workload signature (the clients' jobs may differ) and its samples take scope `test`, so no
view averages it with the per-host runs (scope `all`); its CPU (a sum over machines) stays in
fio_job_values. fio_jobs.all_clients says which entry is which.

`timestamp` is when fio wrote the report (the end of the run): it becomes ended_at. `error` is an
errno: the run's status says it (and the `fio:` lines before the document go in its description);
`total_err` (continue_on_error) is the error count. Disk utilisation is per document: target
samples only when the document has one job (else the tool table alone).
"""

from __future__ import annotations

import bisect
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..model import ParseError, ParseResult, Run, decode_text
from . import _checks, _fio, _text
from ._fio import Direction
from ._rows import Rows

FORMAT = "fio-json"
VERSION = "3"
_TERSE = re.compile(r"^\d;fio-", re.M)


class _Obj(dict):
    """A JSON object that also remembers every (key, value) pair, duplicates included, in order.
    The pairs are kept only when a key repeats; otherwise they are the dict's own items."""

    __slots__ = ("repeats",)

    def __init__(self, pairs: list[tuple[str, Any]]):
        super().__init__(pairs)
        self.repeats = pairs if len(self) < len(pairs) else None

    @property
    def pairs(self) -> list[tuple[str, Any]]:
        return self.repeats if self.repeats is not None else list(self.items())


SNIFF_RULE = "'\"fio version\"' in the JSON (or only fio's own error text)"


def sniff(head: str, name: str) -> bool:
    if '"fio version"' in head:
        return True
    # fio's own error text and nothing else (a run that failed before writing JSON)
    lines = [x.strip() for x in head.splitlines() if x.strip()]
    return bool(lines) and lines[0].startswith("fio: ") and "{" not in head and not _TERSE.search(head)


def documents(text: str, other: list[tuple[int, str]]) -> Iterator[tuple[int, _Obj]]:
    """Every JSON object with its line, one at a time; every other non-blank line is added to
    ``other`` as (line, text) when the scan passes it."""
    decoder = json.JSONDecoder(object_pairs_hook=_Obj)
    pos, line = 0, 1
    while pos < len(text):
        eol = text.find("\n", pos)
        eol = len(text) if eol < 0 else eol
        raw = text[pos:eol]
        brace = raw.find("{")
        starts = brace >= 0 and (raw[:brace].strip() == "" or raw[brace + 1 :].strip() == "")
        if not starts:
            if raw.strip():
                other.append((line, raw.strip()))
            pos, line = eol + 1, line + 1
            continue
        if raw[:brace].strip():
            other.append((line, raw[:brace].strip()))  # a stray prefix such as '>'
        try:
            doc, end = decoder.raw_decode(text, pos + brace)
        except json.JSONDecodeError as e:
            raise ParseError(
                f"the JSON document that starts on line {line} is cut or malformed ({e.msg})", e.lineno
            ) from None
        except RecursionError:
            raise _too_deep(text, pos + brace, line) from None
        yield line, doc
        line += text.count("\n", pos, end)
        pos = end


def _too_deep(text: str, start: int, line: int) -> ParseError:
    """Why a document nested past Python's limit is refused, at the line where it gets that deep
    (fio nests five levels; the count skips brackets inside strings only roughly, to place the line)."""
    depth, at = 0, start
    for m in re.finditer(r"[\[{]|[\]}]", text[start:]):
        depth += 1 if m.group() in "[{" else -1
        if depth > _MAX_DEPTH:
            at = start + m.start()
            break
    return ParseError(
        f"the JSON document that starts on line {line} nests more than {_MAX_DEPTH} levels deep "
        "(fio output nests about five): it is not fio output, or it is damaged",
        line + text.count("\n", start, at),
    )


_MAX_DEPTH = 500
_CR = re.compile(r"\r(?!\n)")


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _stat(obj: Any, scale: float) -> dict[str, float | None]:
    if not isinstance(obj, dict):
        return {}
    return {
        p: (None if _num(obj.get(k)) is None else _num(obj.get(k)) * scale)
        for p, k in (("min", "min"), ("max", "max"), ("avg", "mean"), ("stddev", "stddev"))
    }


def _percentiles(obj: dict) -> list[tuple[float, float]]:
    """(percentile, value as written); fio's `"0.00": 0` placeholders (unused slots) are dropped."""
    out = []
    for k, v in getattr(obj, "pairs", obj.items()):
        try:
            p = float(k)
        except ValueError:
            continue
        if p > 0 and (x := _num(v)) is not None:
            out.append((p, x))
    return out


def _direction(name: str, d: dict, rows: dict[str, Any], ids: dict) -> Direction:
    new_units = "io_kbytes" in d or any(k.endswith("_ns") for k in d)
    io_bytes = _num(d.get("io_bytes"))
    if io_bytes is not None and not new_units:
        io_bytes *= 1024  # fio 2.x wrote KiB under the name io_bytes
    bw = _num(d.get("bw_bytes"))
    if bw is None and _num(d.get("bw")) is not None:
        bw = _num(d["bw"]) * 1024  # KiB/s
    out = Direction(
        name,
        ios=_num(d.get("total_ios")),
        io_bytes=io_bytes,
        bw_bytes_per_s=bw,
        iops=_num(d.get("iops")),
        runtime_ms=_num(d.get("runtime")),
    )
    for stat in ("slat", "clat", "lat"):
        key, unit, scale = (f"{stat}_ns", "ns", 1e-6) if f"{stat}_ns" in d else (stat, "us", 1e-3)
        obj = d.get(key)
        if not isinstance(obj, dict):
            continue
        out.lat[stat] = _stat(obj, scale)
        pcts = _percentiles(obj.get("percentile", {})) if isinstance(obj.get("percentile"), dict) else []
        if pcts:
            out.percentiles[stat] = {p: v * scale for p, v in pcts}
        rows["fio_percentiles"] += [
            {**ids, "ddir": name, "stat": stat, "percentile": p, "value": v, "unit": unit} for p, v in pcts
        ]
        if isinstance(obj.get("bins"), dict):
            rows["fio_latency_bins"] += [
                {**ids, "ddir": name, "stat": stat, "bin_value": float(k), "unit": unit, "count": _num(v)}
                for k, v in obj["bins"].pairs
            ]
    return out


def _flatten(prefix: str, obj: Any, out: list[tuple[str, Any]]) -> None:
    if isinstance(obj, dict):
        for k, v in getattr(obj, "pairs", obj.items()):
            if k in ("job options", "percentile", "bins"):
                continue  # their own tables
            _flatten(f"{prefix}.{k}" if prefix else k, v, out)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _flatten(f"{prefix}[{i}]", v, out)
    else:
        out.append((prefix, obj))


def _value_rows(job: dict, ids: dict) -> list[dict]:
    flat: list[tuple[str, Any]] = []
    _flatten("", job, flat)
    return [
        {
            **ids,
            "path": p,
            "value": None if v is None else (v if isinstance(v, str) else json.dumps(v)),
            "value_num": _num(v),
        }
        for p, v in flat
    ]


MAX_TEXT = 1 << 20  # characters in one value; fio's own are short (a job name at most 127 bytes)


def _texts(rows: list[dict], name: str, line: int) -> list[dict]:
    """``rows`` when every value is of a size fio writes; else the ParseError naming the longest.
    fio keeps a job's name in 128 bytes (FIO_JOBNAME_SIZE, stat.h) and its options in a job file's
    lines: a value of megabytes is not fio's output, and each copy of it would cost its size again."""
    size = lambda r: len(r["value"] or "") + len(r[name])  # noqa: E731
    long = max(rows, key=size, default=None)
    if long is not None and size(long) > MAX_TEXT:
        raise ParseError(
            f"{long[name][:80]!r} and its value hold {size(long):,} characters: fio writes names and option values of "
            "at most a few hundred (a job name at most 127 bytes), so this is not fio's output or it is damaged",
            line,
        )
    return rows


def _option_rows(section: str, obj: Any, ids: dict) -> list[dict]:
    pairs = getattr(obj, "pairs", []) if isinstance(obj, dict) else []
    return [
        {**ids, "section": section, "key": k, "value": v if isinstance(v, str) else json.dumps(v), "ordinal": i}
        for i, (k, v) in enumerate(pairs, start=1)
    ]


def _job_lines(span: _Span, doc_line: int, n: int) -> list[int]:
    """Line of each job's `"jobname"` key in a pretty-printed document (else the document's line)."""
    text, idx, pos, end = span
    out = []
    for _ in range(n):
        pos = text.find('"jobname"', pos, end)
        if pos < 0:
            return [doc_line] * n
        out.append(idx.line(pos))
        pos += 1
    return out


_Span = tuple[str, _text.LineIndex, int, int]  # the text, its line index, and one document's [start, end)


def _run(at: tuple[int, int, int], job: dict, doc: dict, opts: dict[str, str], known: bool, entries: int) -> Run:
    """The run of one job entry. ``entries``: how many entries of the document share its jobname and
    group: fio writes one per job (numjobs of them) unless group_reporting sums them into one, an option
    its JSON leaves out when it is set without a value (`group_reporting` in a job file, `--group_reporting`)."""
    doc_no, job_no, line = at
    kb_base = _fio.parse_size(opts.get("kb_base")) or 1024
    numjobs = _fio.parse_size(opts.get("numjobs", "1")) or 1
    grouped = _fio.flag(opts, "group_reporting") or entries < numjobs
    qd = _text.count(_fio.parse_size(opts.get("iodepth", "1")), "iodepth", line) if known else None
    workers = _text.count((numjobs if grouped else 1) if known else None, "numjobs", line)
    read, random = _fio.read_random_pct(opts)
    ts = _num(doc.get("timestamp"))
    name = job.get("jobname")
    return Run(
        key=f"{doc_no}:{job_no}:{_short(name)}",
        tool="fio",
        tool_version=doc.get("fio version"),
        ended_at=_text.epoch(ts, "the report's timestamp", line) if ts else None,
        workload=name or None,
        test_type=opts.get("rw", opts.get("readwrite")),
        block_size_bytes=_text.count(
            _fio.block_size(opts.get("bs", opts.get("blocksize")), kb_base), "bs", line, 2**63 - 1
        ),
        read_pct=read,
        random_pct=random,
        queue_depth=qd,
        workers=workers,
        outstanding_ios=qd * workers if qd is not None and workers is not None else None,
    )


def _short(name: Any) -> str:
    """A job name as its run key shows it: cut past KEY_NAME chars (every sample repeats the key;
    the numbers before it keep it unique, and fio_jobs and the run's workload keep the whole name)."""
    text = str(name)
    return text if len(text) <= KEY_NAME else text[:KEY_NAME] + "..."


KEY_NAME = 200


ALL_CLIENTS = "All clients"  # client.c: the name of fio's sum over every client's job entries


def _entries(doc: Any, line: int) -> tuple[list, bool]:
    """The job entries of a document and whether it is a client/server one (`client_stats`)."""
    if isinstance(doc, dict) and isinstance(doc.get("jobs"), list):
        return doc["jobs"], False
    if isinstance(doc, dict) and isinstance(doc.get("client_stats"), list):
        return doc["client_stats"], True
    raise ParseError("this JSON document is not fio output (it has neither a 'jobs' nor a 'client_stats' list)", line)


def _globals(doc: dict, job: dict, clients: bool) -> dict:
    """The global options that apply to ``job``: the document's object, or (client/server runs with
    several clients, fio 3.39+) the array entry with the job's hostname and port."""
    glob = doc.get("global options")
    if isinstance(glob, dict):
        return glob
    if clients and isinstance(glob, list):
        host = (job.get("hostname"), job.get("port"))
        return next((g for g in glob if isinstance(g, dict) and (g.get("hostname"), g.get("port")) == host), {})
    return {}


@dataclass
class _Doc:
    """One document being read: its number, line and object, and what it says of all its entries."""

    no: int
    line: int
    obj: dict
    clients: bool
    signal: str | None  # `fio: terminating on signal N` before it
    before: list[str]  # the text lines before it
    interim: bool  # a --status-interval snapshot of the run the next document reports
    names: Counter  # (jobname, groupid) -> entries


def _document(
    res: ParseResult, rows: dict[str, Any], at: tuple[int, int], doc: Any, span: _Span, before: list[str], interim: bool
) -> None:
    doc_no, line = at
    entries, clients = _entries(doc, line)
    glob = doc.get("global options")
    for g in glob if isinstance(glob, list) else [glob] if isinstance(glob, dict) else []:
        ids = {"doc_no": doc_no, "job_no": None}
        rows["fio_options"] += _texts(_option_rows("global", g, ids), "key", line)
    job_lines = _job_lines(span, line, len(entries))
    signal = next((m.group(1) for t in before if (m := re.search(r"terminating on signal (\d+)", t))), None)
    names = Counter((j.get("jobname"), j.get("groupid")) for j in entries if isinstance(j, dict))
    d = _Doc(doc_no, line, doc, clients, signal, before, interim, names)
    for job_no, (job, ln) in enumerate(zip(entries, job_lines), start=1):
        if not isinstance(job, dict):
            raise ParseError(f"job {job_no} of this document is not a JSON object", line)
        _check_entry(job, ln)
        _entry(res, rows, d, (job_no, ln), job)
    _check_clients(entries, clients, line)
    one = len(entries) == 1 and not interim
    _disk_util(res, rows, doc_no, doc, line, res.runs[-1].key if one else None)


def _entry(res: ParseResult, rows: dict[str, Any], d: _Doc, at: tuple[int, int], job: dict) -> None:
    """One job entry: its tool rows, and (unless the document is an interim one) a run and samples. In
    a client/server document the entry named `All clients` is fio's sum of every other entry: its run
    has no workload signature (the clients' jobs may differ) and its samples take scope `test`, so no
    view averages it with the per-host runs."""
    job_no, ln = at
    ids = {"doc_no": d.no, "job_no": job_no}
    total = d.clients and job.get("jobname") == ALL_CLIENTS
    glob = {} if total else _globals(d.obj, job, d.clients)
    jopts = job.get("job options") if isinstance(job.get("job options"), dict) else {}
    rows["fio_options"] += _texts(_option_rows("job", jopts, ids), "key", ln)
    opts = {**{k: str(v) for k, v in glob.items() if k not in ("hostname", "port")}}
    opts.update({k: str(v) for k, v in jopts.items()})
    known = "job options" in job or bool(glob)
    run = _run((d.no, job_no, ln), job, d.obj, opts, known, d.names[(job.get("jobname"), job.get("groupid"))])
    host = _host(job) if d.clients else None
    if host is not None and not total:
        run.key += f"@{host}"
    if total:
        run.description = "fio's sum of every job entry of every client (client/server run: the `All clients` entry)"
    err = job.get("error")
    run.status = f"error {err}" if err else ("aborted" if d.signal else "complete")
    if err or d.signal:
        run.description = " | ".join(filter(None, [run.description, *d.before])) or None
    rows["fio_jobs"].append(_job_row(ids, run.key if not d.interim else None, job, d, ln, total))
    rows["fio_job_values"] += _texts(_value_rows(job, ids), "path", ln)
    dirs = [
        _direction(x, job[x], rows, {**ids, "line_no": ln})
        for x in (*_fio.DIRECTIONS, "mixed")
        if isinstance(job.get(x), dict)
    ]
    if d.interim:
        return  # its numbers so far stay in the tool tables; the run is the last report's
    res.runs.append(run)
    scope = "test" if total else "all"
    for x in dirs:  # a JSON number's own line is not tracked: samples carry no line_no (fio_jobs has the job's)
        _fio.add_direction(res, run.key, x, None, scope)
    _fio.add_totals(res, run.key, dirs, scope)
    _job_samples(res, run.key, job, dirs, None, scope)


def _job_row(ids: dict, key: str | None, job: dict, d: _Doc, ln: int, total: bool) -> dict:
    return {
        **ids,
        "run_key": key,
        "jobname": job.get("jobname"),
        "groupid": job.get("groupid"),
        "error": job.get("error"),
        "fio_version": d.obj.get("fio version"),
        "line_no": ln,
        "hostname": job.get("hostname") if d.clients else None,
        "port": job.get("port") if d.clients else None,
        "all_clients": total if d.clients else None,
    }


def _check_entry(job: dict, ln: int) -> None:
    """An entry against itself (stat.c add_ddir_status_json): per direction, `iops` is `1000 x total_ios /
    runtime` (a float printed to six decimals; before 2.2 a whole number, cut) and `bw_bytes` (3.2+) is
    `1000 x io_bytes / runtime` cut to whole bytes. An entry whose figures disagree has been edited."""
    for name in (*_fio.DIRECTIONS, "mixed"):
        d = job.get(name)
        if not isinstance(d, dict) or _num(d.get("runtime")) is None:
            continue
        what = f"job {job.get('jobname')!r}, {name}"
        if not (rt := _num(d.get("runtime")) or 0):  # no runtime: fio writes every rate 0 (stat.c)
            for key in ("iops", "bw_bytes", "bw"):
                _checks.equal(
                    _num(d.get(key)), 0.0 if key in d else None, f"{what}: {key} of a direction that never ran", ln
                )
            continue
        iops, ios = d.get("iops"), _num(d.get("total_ios"))
        if _num(iops) is not None and ios is not None:
            cut = isinstance(iops, int)
            exact = (1000 * ios) // rt if cut else 1000 * ios / rt
            _checks.agree(_num(iops), exact, 0 if cut else 5e-7, f"{what}: iops against 1000 x total_ios / runtime", ln)
        io_bytes, bw = _num(d.get("io_bytes")), _num(d.get("bw_bytes"))
        if bw is not None and io_bytes is not None:
            _checks.equal(bw, (1000 * io_bytes) // rt, f"{what}: bw_bytes against 1000 x io_bytes / runtime", ln)
        _check_kib(d, rt, what, ln)


def _check_kib(d: dict, rt: float, what: str, ln: int) -> None:
    """`bw` (KiB/s) is `1000 x io bytes / runtime / 1024`, each division cut (stat.c, every version); where
    `io_bytes` is itself in KiB (before 2.21: no io_kbytes, no *_ns keys) the bytes are known to a KiB."""
    kib, io = _num(d.get("bw")), _num(d.get("io_bytes"))
    if kib is None or io is None:
        return
    exact = "io_kbytes" in d or any(k.endswith("_ns") for k in d)
    lo, hi = (io, io) if exact else (io * 1024, io * 1024 + 1023)
    least, most = (1000 * lo // rt) // 1024, (1000 * hi // rt) // 1024
    _checks.agree(kib, (least + most) / 2, (most - least) / 2, f"{what}: bw (KiB/s) against io_bytes over runtime", ln)


def _check_clients(entries: list, clients: bool, line: int) -> None:
    """A client/server document's `All clients` entry is fio's sum of every other entry (client.c
    sum_thread_stats): its I/O counts and bytes per direction equal theirs summed."""
    total = [j for j in entries if isinstance(j, dict) and j.get("jobname") == ALL_CLIENTS]
    if not clients or len(total) != 1:
        return
    parts = [j for j in entries if isinstance(j, dict) and j is not total[0]]
    for name in (*_fio.DIRECTIONS, "mixed"):
        for key in ("total_ios", "io_bytes"):
            stated = _num((total[0].get(name) or {}).get(key)) if isinstance(total[0].get(name), dict) else None
            summed = [_num(j[name].get(key)) for j in parts if isinstance(j.get(name), dict)]
            if stated is not None and summed and None not in summed:
                _checks.equal(stated, sum(summed), f"`All clients` {name} {key}: the clients' entries summed", line)


def snapshot_of(a: Any, b: Any) -> bool:
    """Whether document ``a`` is a `--status-interval` snapshot of the run document ``b`` reports later:
    the same job entries (name, group, host), started at the same time (`job_start`, fio 3.36+; before it
    the report's `timestamp` less the run's `elapsed`, whole seconds, to within one), written later, and no
    count of ``b`` below ``a``'s (fio's interim figures are the run's so far). Appended runs start later."""
    ea, ca = _entries_or_none(a)
    eb, cb = _entries_or_none(b)
    if ea is None or eb is None or ca != cb or len(ea) != len(eb) or not ea or not _later(a, b, ea[0], eb[0]):
        return False
    return all(_same_job(x, y, a, b) for x, y in zip(ea, eb))


def _later(a: dict, b: dict, x: dict, y: dict) -> bool:
    """Whether ``b`` was written after ``a`` (each interim report is: `timestamp_ms`, 2.12+; else the
    run's `elapsed` seconds or the report's `timestamp`). A document written twice is not its own snapshot."""
    ma, mb = _num(a.get("timestamp_ms")), _num(b.get("timestamp_ms"))
    if ma is not None and mb is not None:
        return mb > ma
    pairs = ((_num(x.get("elapsed")), _num(y.get("elapsed"))), (_num(a.get("timestamp")), _num(b.get("timestamp"))))
    return any(p is not None and q is not None and q > p for p, q in pairs)


def _entries_or_none(doc: Any) -> tuple[list | None, bool]:
    try:
        entries, clients = _entries(doc, 0)
    except ParseError:
        return None, False
    return (entries if all(isinstance(j, dict) for j in entries) else None), clients


def _same_job(x: dict, y: dict, a: dict, b: dict) -> bool:
    ident = ("jobname", "groupid", "hostname", "port")
    if [x.get(k) for k in ident] != [y.get(k) for k in ident]:
        return False
    if "job_start" in x or "job_start" in y:
        started = x.get("job_start") == y.get("job_start")
    else:
        ta, tb, la, lb = (_num(v) for v in (a.get("timestamp"), b.get("timestamp"), x.get("elapsed"), y.get("elapsed")))
        started = None not in (ta, tb, la, lb) and lb >= la and abs((ta - la) - (tb - lb)) <= 1
    grew = all(
        (_num(y[d].get(k)) or 0) >= (_num(x[d].get(k)) or 0)
        for d in (*_fio.DIRECTIONS, "mixed")
        if isinstance(x.get(d), dict) and isinstance(y.get(d), dict)
        for k in ("total_ios", "io_bytes", "runtime")
    )
    return started and grew


def _host(job: dict) -> str:
    """`hostname:port` of a client/server entry, as the run key shows it."""
    return f"{job.get('hostname')}:{job.get('port')}"


def _job_samples(res: ParseResult, key: str, job: dict, dirs: list[Direction], ln: int | None, scope: str) -> None:
    runtime = _num(job.get("job_runtime"))
    if runtime is None:  # before fio 3.x: the longest direction, as fio's own 'run=' line
        runtime = max((d.runtime_ms for d in dirs if d.runtime_ms is not None), default=None)
    res.add(key, scope, "runtime_s", None if runtime is None else runtime / 1000, "s", line_no=ln)
    res.add(key, scope, "errors", _num(job.get("total_err")), "count", line_no=ln)
    if scope == "all":  # CPU of a sum over hosts is not one machine's: it stays in fio_job_values
        res.add(key, scope, "cpu_user_pct", _num(job.get("usr_cpu")), "%", line_no=ln)
        res.add(key, scope, "cpu_privileged_pct", _num(job.get("sys_cpu")), "%", line_no=ln)


DISK_FIELDS = (
    "read_ios",
    "write_ios",
    "read_merges",
    "write_merges",
    "read_ticks",
    "write_ticks",
    "in_queue",
    "util",
    "aggr_read_ios",
    "aggr_write_ios",
    "aggr_read_merges",
    "aggr_write_merges",
    "aggr_read_ticks",
    "aggr_write_ticks",
    "aggr_in_queue",
    "aggr_util",
)


def _disk_util(res: ParseResult, rows: dict[str, Any], doc_no: int, doc: dict, line: int, key: str | None) -> None:
    for du in doc.get("disk_util") or []:
        if not isinstance(du, dict):
            continue
        du = {("aggr_write_merges" if k == "aggr_write_merge" else k): v for k, v in du.items()}  # fio's spelling
        rows["fio_disk_util"].append(
            {
                "doc_no": doc_no,
                "name": du.get("name"),
                "line_no": line,
                **{f: _num(du.get(f)) for f in DISK_FIELDS},
                **({"hostname": du.get("hostname"), "port": du.get("port")} if "hostname" in du else {}),
            }
        )
        if key is not None:
            res.add(key, "target", "disk_util_pct", _num(du.get("util")), "%", target=du.get("name"))


# tool tables with many rows a job, packed a chunk at a time (formats/_rows.py), and their columns
PACKED = {
    "fio_options": {"doc_no": "i32", "job_no": "i32", "section": "str", "key": "str", "value": "str", "ordinal": "i32"},
    "fio_job_values": {"doc_no": "i32", "job_no": "i32", "path": "str", "value": "str", "value_num": "f64"},
    "fio_percentiles": dict.fromkeys(("doc_no", "job_no"), "i32")
    | dict.fromkeys(("ddir", "stat"), "str")
    | {"percentile": "f64", "value": "f64", "unit": "str", "line_no": "i32"},
    "fio_latency_bins": dict.fromkeys(("doc_no", "job_no"), "i32")
    | dict.fromkeys(("ddir", "stat"), "str")
    | {"bin_value": "f64", "unit": "str", "count": "f64", "line_no": "i32"},
}
TABLES = ("fio_jobs", *PACKED, "fio_disk_util", "fio_messages")


def parse(data: bytes, name: str) -> ParseResult:
    """Documents are read one at a time, each turned into rows once the next one is found (which
    ends its text): memory follows the largest document and the packed rows, not the file."""
    text = decode_text(data)
    if "\r" in text:  # bare CR line ends (an old Mac editor, a tool's progress line): lines as LF ones
        text = _CR.sub("\n", text)  # (JSON strings hold no raw CR, so no value changes)
    idx = _text.LineIndex(text)
    other: list[tuple[int, str]] = []
    rows: dict[str, Any] = {t: Rows(PACKED[t]) if t in PACKED else [] for t in TABLES}
    res = ParseResult()
    starts: list[int] = []
    interim: list[int] = []
    pending: tuple[int, _Obj] | None = None
    for ln, doc in documents(text, other):
        if pending is None and isinstance(doc, dict):
            res.tool_version = doc.get("fio version")
        if pending is not None:
            if snapshot_of(pending[1], doc):
                interim.append(len(starts))
            _read(res, rows, (text, idx), other, starts, pending, (ln, bool(interim) and interim[-1] == len(starts)))
        starts.append(ln)
        pending = (ln, doc)
    if pending is None:
        said = " | ".join(t for _, t in other[:5])
        raise ParseError("no fio JSON document in the file" + (f"; fio wrote: {said}" if said else ""))
    _read(res, rows, (text, idx), other, starts, pending, (None, False))
    # each text line belongs to the document after it (None: after the last one)
    rows["fio_messages"] = [{"doc_no": _after(starts, tl), "line_no": tl, "text": t} for tl, t in other]
    if not res.runs:
        raise ParseError("the fio JSON has no jobs (an empty 'jobs' list)", starts[0])
    res.tables = {t: r.table() if isinstance(r, Rows) else r for t, r in rows.items() if len(r)}
    if interim:
        res.notes.append(_interim_note(interim))
    return res


def _interim_note(docs: list[int]) -> str:
    shown = ", ".join(map(str, docs[:10])) + (", ..." if len(docs) > 10 else "")
    return (
        f"{len(docs)} interim document{'s' * (len(docs) > 1)} (--status-interval: the same run, its numbers so far) "
        f"kept in the fio tables only (doc_no {shown}); each job's run is its last report"
    )


def _read(
    res: ParseResult,
    rows: dict[str, Any],
    indexed: tuple[str, _text.LineIndex],
    other: list[tuple[int, str]],
    starts: list[int],
    doc: tuple[int, _Obj],
    after: tuple[int | None, bool],
) -> None:
    """The rows of the last document found (number ``len(starts)``), whose text runs up to the line
    the next one starts on (``after``: that line, None to the end of the text; and whether the document
    is an interim snapshot of the next one)."""
    (text, idx), (ln, obj), (next_line, interim) = indexed, doc, after
    prev = starts[-2] if len(starts) > 1 else 0
    before = [
        t for _, t in other[bisect.bisect_right(other, prev, key=_line) : bisect.bisect_right(other, ln, key=_line)]
    ]
    begin = idx.start(ln)
    end = len(text) if next_line is None else max(begin, idx.start(next_line) - 1)
    _document(res, rows, (len(starts), ln), obj, (text, idx, begin, end), before, interim)


def _line(item: tuple[int, str]) -> int:
    return item[0]


def _after(starts: list[int], line: int) -> int | None:
    """The number of the first document starting on or after ``line`` (None: none does)."""
    i = bisect.bisect_left(starts, line)
    return i + 1 if i < len(starts) else None
