"""The real fio (Debian's, installed by `make test`) in the modes users run, on small files in a tmp
dir: every output loads through iolab's ingest, and the numbers agree with the same run's JSON.

The oracle: `--output-format=normal,json` writes the text and the JSON of one run. Every IOPS,
bandwidth, I/O size, latency (min/max/avg/stdev), percentile, I/O count, runtime and CPU figure of
every job in the text equals the JSON's to the text's printed precision: within one unit of the
last digit the text prints (fio's num2str cuts, display_lat cuts min/max to whole units, the
percentiles round up to whole units). fio runs once per mode, in module-scoped fixtures.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from iolab.formats import fio_json, fio_log, fio_terse, fio_text
from tests.conftest import ingest, q

FIO = shutil.which("fio")
pytestmark = pytest.mark.skipif(FIO is None, reason="fio is not installed (`make test` installs Debian's fio)")

GLOBAL = """[global]
ioengine=psync
size=4M
runtime=500ms
time_based
directory={dir}
"""
JOBS = """
[rd]
rw=randread
bs=4k
[wr]
rw=write
bs=64k
[mix]
stonewall
rw=randrw
rwmixread=70
bs=8k
numjobs=2
"""


def _fio(tmp: Path, name: str, job: str, *args: str, timeout: float = 60) -> str:
    (tmp / f"{name}.fio").write_text(GLOBAL.format(dir=tmp) + job)
    out = subprocess.run(
        [FIO or "fio", *args, f"{name}.fio"], cwd=tmp, capture_output=True, text=True, timeout=timeout, check=True
    )
    (tmp / f"{name}.out").write_text(out.stdout)
    return out.stdout


def _split(text: str) -> tuple[str, str]:
    """(fio's text with the JSON document taken out, the JSON document): fio writes the start lines,
    then the JSON, then the text reports (locally) or the reports, then the JSON (from clients)."""
    at = re.search(r"^\{$", text, re.M)
    assert at, "no JSON document in fio's output"
    _, end = json.JSONDecoder().raw_decode(text, at.start())
    return text[: at.start()] + text[end:], text[at.start() : end]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("fio")
    logs = (
        "write_bw_log=lg\nwrite_lat_log=lg\nwrite_iops_log=lg\nlog_avg_msec=100\nwrite_hist_log=lg\nlog_hist_msec=100\n"
    )
    out = {}
    _fio(tmp, "both", JOBS.replace("[rd]", logs + "per_job_logs=1\n[rd]"), "--output-format=normal,json")
    out["both"] = tmp / "both.out"
    grouped = "group_reporting\nper_job_logs=0\nlog_avg_msec=100\nwrite_bw_log=gr\n[g]\nrw=randread\nbs=4k\nnumjobs=2\n"
    _fio(tmp, "grouped", grouped, "--output-format=normal,json")
    out["grouped"] = tmp / "grouped.out"
    _fio(tmp, "mixed", "unified_rw_reporting=1\n[m]\nrw=randrw\nbs=4k\n", "--output-format=normal,json")
    out["mixed"] = tmp / "mixed.out"
    _fio(tmp, "perio", "[io]\nrw=randread\nbs=4k\nwrite_lat_log=pio\nwrite_iops_log=pio\n", "--output-format=json")
    out["perio"] = tmp / "perio.out"
    _fio(tmp, "plus", "[p]\nrw=randrw\nbs=4k\nruntime=1500ms\n", "--output-format=json+", "--status-interval=1")
    out["plus"] = tmp / "plus.out"
    _fio(tmp, "terse", "[t]\nrw=randread\nbs=4k\n", "--output-format=terse,json")
    out["terse"] = tmp / "terse.out"
    _fio(tmp, "text", "[x]\nrw=randread\nbs=4k\nruntime=2100ms\n", "--status-interval=1", "--output-format=normal,json")
    out["text"] = tmp / "text.out"
    out["dir"] = tmp
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server(tmp: Path) -> tuple[subprocess.Popen, int]:
    for _ in range(5):
        port = _free_port()
        proc = subprocess.Popen([FIO or "fio", f"--server=ip:127.0.0.1,{port}"], cwd=tmp, stdout=subprocess.DEVNULL)
        for _ in range(50):  # listening within 5 s, or another port
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return proc, port
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.kill()
        proc.wait(5)
    raise RuntimeError("no fio server could listen on 127.0.0.1")


@pytest.fixture(scope="module")
def clients(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("fioclients")
    servers = [_server(tmp), _server(tmp)]
    try:
        job = "[c]\nrw=randread\nbs=4k\n"
        (tmp / "c.fio").write_text(GLOBAL.format(dir=tmp) + job)
        a, b = (f"--client=ip:127.0.0.1,{p}" for _, p in servers)
        out = {}
        for name, args in (
            ("one", ["--output-format=json", a, "c.fio"]),
            ("two", ["--output-format=normal,json", a, "c.fio", b, "c.fio"]),
        ):
            res = subprocess.run([FIO or "fio", *args], cwd=tmp, capture_output=True, text=True, timeout=60, check=True)
            (tmp / f"{name}.out").write_text(res.stdout)
            out[name] = tmp / f"{name}.out"
        return out
    finally:
        for proc, _ in servers:
            proc.kill()
            proc.wait(10)


# ---- the oracle: the text and the JSON of one run -----------------------------------------------------

_PREFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3}


def ulp(token: str) -> float:
    """One unit of the last digit a fio text value prints, in the parser's base unit (`29.7k` -> 100,
    `25.1MiB/s` -> 0.1 MiB/s in bytes/s, `151.93 usec` -> 0.01 usec in ms)."""
    m = re.match(r"^(\d+)(?:\.(\d+))?([KMG]i|[kKMG])?\S*(?: (nsec|usec|msec))?$", token)
    assert m, token
    step = 10.0 ** -len(m.group(2) or "") * _PREFIX[m.group(3) or ""]
    return step * {"nsec": 1e-6, "usec": 1e-3, "msec": 1.0, None: 1.0}[m.group(4)]


def _by_job(res) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    keys = [r.key for r in res.runs]
    for s in res.samples:
        out.setdefault(keys.index(s.run_key), {})[s.metric] = s.value
    return out


def _tokens(res) -> dict[tuple[int, str], str]:
    return {(r["job_no"], r["path"]): r["value"] for r in res.tables["fio_job_values"]}


_BYTES = {"bytes_read": "read", "bytes_written": "write", "bytes_trimmed": "trim"}


_METRIC = re.compile(
    r"^(?:(?P<stat>min|max|avg|stddev)_)?(?:(?P<dir>read|write|trim)_)?(?P<what>iops|mbps|ios|latency|clat|slat)(?:_ms)?$"
)


def tolerance(metric: str, job_no: int, tokens: dict[tuple[int, str], str]) -> float:
    """How far the text's value of ``metric`` may be from the JSON's: its printed precision. A
    metric without a direction is the `mixed` one (unified_rw_reporting)."""
    if metric.startswith("cpu"):
        return 0.005  # %3.2f
    if metric in _BYTES:
        return ulp(tokens[(job_no, f"{_BYTES[metric]}.io")])
    m = _METRIC.match(metric)
    assert m, metric
    d, what = m.group("dir") or "mixed", m.group("what")
    if what == "ios":
        return 0.0  # issued rwts: exact
    if what in ("iops", "mbps"):
        return ulp(tokens[(job_no, f"{d}.{'iops' if what == 'iops' else 'bw'}")]) / (1e6 if what == "mbps" else 1)
    stat = {"latency": "lat"}.get(what, what)
    return ulp(tokens[(job_no, f"{d}.{stat}.{m.group('stat')}")]) * (1 + 1e-9)


def agree(text: bytes, js: bytes) -> int:
    """Check every number of the text against the JSON; return how many were compared."""
    t, j = fio_text.parse(text, "t"), fio_json.parse(js, "j")
    assert [r.workload for r in t.runs] == [r.workload for r in j.runs]
    tv, jv, tokens = _by_job(t), _by_job(j), _tokens(t)
    compared = 0
    for n, run in enumerate(t.runs):
        for metric, value in tv[n].items():
            total = metric in ("iops", "mbps") and (n + 1, "mixed.iops") not in tokens
            if total or metric == "runtime_s" or re.match(r"p\d", metric):
                continue  # totals are sums of the directions; runtime and percentiles: own tests
            tol = tolerance(metric, n + 1, tokens)
            assert abs(value - jv[n][metric]) <= tol + 1e-12, (run.key, metric, value, jv[n][metric], tol)
            compared += 1
        compared += _percentiles_agree(t, j, n + 1)
    return compared


def _percentiles_agree(t, j, job_no: int) -> int:
    """Each text percentile is the JSON's (ns) rounded up to the text's unit: within [0, 1 unit)."""
    scale = {"ns": 1, "us": 1000, "ms": 1e6}
    jp = {
        (r["ddir"], r["stat"], r["percentile"]): r["value"]
        for r in _rows(j, "fio_percentiles")
        if r["job_no"] == job_no
    }
    n = 0
    for r in t.tables["fio_percentiles"]:
        if r["job_no"] != job_no:
            continue
        exact = jp[(r["ddir"], r["stat"], r["percentile"])] / scale[r["unit"]]
        assert 0 <= r["value"] - exact < 1 or r["value"] == exact, (r, exact)
        n += 1
    assert n, f"job {job_no}: no percentile compared"
    return n


def _by_path(res) -> dict[tuple[int, str], float | None]:
    return {(r["job_no"], r["path"]): r["value_num"] for r in _rows(res, "fio_job_values")}


def _rows(res, table: str) -> list[dict]:
    rows = res.tables[table]
    return rows if isinstance(rows, list) else rows.to_table().to_pylist()


def test_text_agrees_with_json_of_the_same_run(runs):
    text, js = _split(runs["both"].read_text())
    n = agree(text.encode(), js.encode())
    assert n > 4 * 30  # four job reports (rd, wr, mix x 2), each with its directions' numbers


def test_text_agrees_under_group_reporting(runs):
    text, js = _split(runs["grouped"].read_text())
    t = fio_text.parse(text.encode(), "t")
    assert [(r.workload, r.workers, r.queue_depth) for r in t.runs] == [("g", 2, 1)]
    assert agree(text.encode(), js.encode()) > 20


def test_text_agrees_under_unified_rw_reporting(runs):
    """unified_rw_reporting=1: one `mixed` direction in both, its numbers without a direction part."""
    text, js = _split(runs["mixed"].read_text())
    assert "  mixed: IOPS=" in text
    t = fio_text.parse(text.encode(), "t")
    assert {"iops", "ios", "avg_latency_ms"} <= {s.metric for s in t.samples}
    assert agree(text.encode(), js.encode()) > 10


def test_runtime_and_signature_from_the_text(runs):
    text, js = _split(runs["both"].read_text())
    t, j = fio_text.parse(text.encode(), "t"), fio_json.parse(js.encode(), "j")
    sig = lambda r: (r.workload, r.block_size_bytes, r.read_pct, r.random_pct, r.queue_depth)  # noqa: E731
    # rwmixread is not printed: the text knows randrw's mix as unknown, the JSON as 70 %
    assert [sig(r) for r in t.runs] == [("rd", 4096, 100.0, 100.0, 1), ("wr", 65536, 0.0, 0.0, 1)] + [
        ("mix", 8192, None, 100.0, 1)
    ] * 2
    assert [r.read_pct for r in j.runs][2:] == [70.0, 70.0]
    tok, jrows = _tokens(t), {(r["job_no"], r["path"]): r["value_num"] for r in _rows(j, "fio_job_values")}
    for job_no in range(1, 5):
        for d in ("read", "write"):
            if (job_no, f"{d}.run") in tok:
                assert float(tok[(job_no, f"{d}.run")]) == jrows[(job_no, f"{d}.runtime")]


def test_every_output_loads_through_ingest(runs, con):
    d = runs["dir"]
    # psync has no submission latency: fio writes its slat logs empty (not a file of a format)
    logs = [p for p in sorted(d.glob("*.log")) if p.stat().st_size]
    (d / "text_only.txt").write_text("".join(t for t, _ in _reports(runs["text"].read_text())))  # default output
    files = [runs[k] for k in ("both", "grouped", "mixed", "perio", "plus", "terse", "text")] + logs
    files.append(d / "text_only.txt")
    ingest(con, *files)
    rows = q(con, "SELECT path, status, format, error FROM source_files ORDER BY path")
    assert [r for r in rows if r[1] != "ok"] == []
    fmts = {Path(p).name: f for p, _, f, _ in rows}
    assert fmts["both.out"] == fmts["plus.out"] == fmts["terse.out"] == "fio-json"  # JSON wins a combined file
    assert fmts["text.out"] == "fio-json" and fmts["text_only.txt"] == "fio-text"
    assert {f for n, f in fmts.items() if n.endswith(".log")} == {"fio-log"}
    empty = q(
        con,
        "SELECT f.path FROM source_files f WHERE NOT EXISTS (SELECT 1 FROM runs r JOIN samples s USING (run_id) "
        "WHERE r.source_id = f.content_id) AND NOT EXISTS (SELECT 1 FROM series s WHERE s.source_id = f.content_id) "
        "AND NOT EXISTS (SELECT 1 FROM fio_hist_log h WHERE h.source_id = f.content_id)",  # histogram logs: bins
    )
    assert empty == [], f"loaded 'ok' with no numbers: {empty}"


def test_logs_per_job_and_merged(runs):
    d = runs["dir"]
    per_job = sorted(p.name for p in d.glob("lg_*.log"))
    assert "lg_bw.1.log" in per_job and "lg_clat_hist.1.log" in per_job  # per_job_logs=1: one per job
    assert [p.name for p in d.glob("gr_bw*.log")] == ["gr_bw.log"]  # per_job_logs=0: one file
    for p in [*d.glob("lg_bw.1.log"), *d.glob("gr_bw.log"), *d.glob("lg_clat_hist.1.log")]:
        res = fio_log.parse(p.read_bytes(), p.name)
        assert res.series or res.samples or res.tables, p.name


def test_averaged_and_histogram_logs_agree_with_json_of_the_same_run(runs):
    """With log_avg_msec fio's bw and iops statistics are the logged windows themselves: each job's
    averaged log holds the JSON's sample count and mean; its histogram log's bins add up to the
    JSON's I/O count (per_job_logs=1: a log per job, numbered in the JSON's job order)."""
    d = runs["dir"]
    _, js = _split(runs["both"].read_text())
    jv = _by_path(fio_json.parse(js.encode(), "j"))
    for job in (1, 2):  # rd (randread 4k), wr (write 64k): one direction each
        ddir = "read" if job == 1 else "write"
        iops = fio_log.parse((d / f"lg_iops.{job}.log").read_bytes(), f"lg_iops.{job}.log").points
        bw = fio_log.parse((d / f"lg_bw.{job}.log").read_bytes(), f"lg_bw.{job}.log").points
        assert iops.height == jv[(job, f"{ddir}.iops_samples")] == bw.height == jv[(job, f"{ddir}.bw_samples")] > 1
        assert iops["value"].mean() == pytest.approx(jv[(job, f"{ddir}.iops_mean")], rel=1e-9)
        assert bw["value"].mean() * 1e6 / 1024 == pytest.approx(jv[(job, f"{ddir}.bw_mean")], rel=1e-9)  # KiB/s
        hist = fio_log.parse((d / f"lg_clat_hist.{job}.log").read_bytes(), f"lg_clat_hist.{job}.log")
        # each row counts the window's completions; fio 3.33 leaves out the last window's row at times
        # (seen here: 3653 of 3653 in one run, 6279 of 6908 in the next), so the sum is at most the count
        assert 0 < sum(r["count"] for r in _rows(hist, "fio_hist_log")) <= jv[(job, f"{ddir}.total_ios")]


def test_per_io_logs_agree_with_json_of_the_same_run(runs):
    """Without log_avg_msec fio logs every I/O: the latency logs hold exactly the JSON's I/O count,
    and their mean is the JSON's mean (ns, as written; the files carry no unit)."""
    d = runs["dir"]
    job = fio_json.parse(runs["perio"].read_bytes(), "perio")
    jv = _by_path(job)
    ios = jv[(1, "read.total_ios")]
    for kind, stat in (("lat", "lat_ns"), ("clat", "clat_ns")):
        log = fio_log.parse((d / f"pio_{kind}.1.log").read_bytes(), f"pio_{kind}.1.log")
        values = log.points["value"].to_list()
        assert len(values) == ios > 0
        assert sum(values) / len(values) == pytest.approx(jv[(1, f"read.{stat}.mean")], rel=1e-9)
    iops = fio_log.parse((d / "pio_iops.1.log").read_bytes(), "pio_iops.1.log").points["value"].to_list()
    assert len(iops) == ios and set(iops) == {1.0}  # one row per I/O, each counting one


# (terse version, job): each version's layout, and the block shapes unified_rw_reporting and
# group_reporting give (mixed only; read, write, trim and mixed; one line for a group)
TERSE = {
    "v2": (2, "[t]\nrw=randrw\nbs=4k\n"),
    "v3": (3, "[t]\nrw=randread\nbs=4k\n"),
    "v3-group": (3, "group_reporting\n[g]\nrw=randread\nbs=4k\nnumjobs=2\n"),
    "v4": (4, "[t]\nrw=randrw\nbs=4k\n"),
    "v4-both": (4, "unified_rw_reporting=both\n[t]\nrw=randrw\nbs=4k\n"),
    "v5": (5, "[t]\nrw=randrw\nbs=4k\n"),
    "v5-mixed": (5, "unified_rw_reporting=mixed\n[t]\nrw=randrw\nbs=4k\n"),
    # continue_on_error adds the error count and first error; a description ends the line (v2: the next one)
    "v2-desc": (2, "continue_on_error=all\n[t]\ndescription=sweep step 3\nrw=randrw\nbs=4k\n"),
    "v3-desc": (3, "continue_on_error=all\n[t]\ndescription=sweep step 3\nrw=randrw\nbs=4k\n"),
}


@pytest.fixture(scope="module")
def terse_runs(tmp_path_factory) -> dict[str, str]:
    """One run per case written as terse and JSON at once (`--output-format=terse,json`)."""
    tmp = tmp_path_factory.mktemp("terse")
    return {  # a quarter second each: nine runs
        case: _fio(
            tmp, case.replace("-", "_"), job + "runtime=250ms\n", "--output-format=terse,json", f"--terse-version={ver}"
        )
        for case, (ver, job) in TERSE.items()
    }


@pytest.mark.parametrize("case", sorted(TERSE))
def test_terse_agrees_with_json_of_the_same_run(terse_runs, case):
    """Every terse version fio writes (`--terse-version=2..5`) loads with the numbers of the JSON the
    same run wrote beside it, to terse's precision."""
    ver, _ = TERSE[case]
    text = terse_runs[case]
    terse, js = _split(text)
    assert len(next(x for x in terse.splitlines() if x.startswith(f"{ver};")).split(";")) > 80
    t, j = fio_terse.parse(terse.encode(), "t"), fio_json.parse(js.encode(), "j")
    assert len(t.runs) == 1 and t.runs[0].description == ("sweep step 3" if "desc" in case else None)
    assert t.tool_version == (None if ver == 2 else j.tool_version) and j.tool_version == "fio-3.33"
    units = {s.metric: s.unit for s in t.samples}
    tv, jv = _by_job(t)[0], _by_job(j)[0]
    # terse writes KiB, KiB/s, whole IOPS, usec (means with 6 decimals), disk util with 2: within those
    tol = {"bytes": 1024, "MB/s": 1024 / 1e6, "IO/s": 1, "ms": 1e-3, "%": 0.005, "count": 0, "s": 1e-3}
    shared = sorted(set(tv) & set(jv) - {"runtime_s"})  # terse: the read's runtime; JSON 3.x: job_runtime
    first = "mixed" if case.endswith("-mixed") else "read"
    assert tv["runtime_s"] * 1000 == max(v for (_, p), v in _by_path(j).items() if p.endswith(".runtime") and v)
    only_json = {m for m in jv if m.endswith("ios")} | ({"disk_util_pct"} if ver == 2 else set())  # I/O counts
    assert set(jv) - set(tv) == only_json
    assert ("errors" in tv) == ("desc" in case) and tv.get("errors", 0) == jv.get("errors", 0) == 0
    assert len(shared) > 20 and (first == "mixed") == ("read_iops" not in tv)
    for m in shared:  # the totals add each direction's cut figure: a unit per direction
        lim = tol[units[m]] * (3 if m in ("iops", "mbps") else 1)
        assert abs(tv[m] - jv[m]) <= lim, (m, tv[m], jv[m])
    if ver >= 3:  # disk utilisation, which version 2 does not write
        assert any(s.metric == "disk_util_pct" for s in t.samples)


def _reports(text: str) -> list[tuple[str, str]]:
    """`normal,json` with --status-interval: fio writes a JSON document, then the same report as
    text, every interval. Each (text report, JSON document) pair, the start lines with the first."""
    spans = []
    for m in re.finditer(r"^\{$", text, re.M):
        if spans and m.start() < spans[-1][1]:
            continue
        spans.append((m.start(), json.JSONDecoder().raw_decode(text, m.start())[1]))
    ends = [a for a, _ in spans[1:]] + [len(text)]
    head = text[: spans[0][0]]
    return [((head if i == 0 else "") + text[e:nxt], text[a:e]) for i, ((a, e), nxt) in enumerate(zip(spans, ends))]


def test_status_interval_reports(runs):
    """Every interim report of the text equals the JSON document written with it, to the text's precision."""
    pairs = _reports(runs["text"].read_text())
    assert len(pairs) >= 3  # interim reports at 1 s and 2 s, then the final one
    for text, js in pairs:
        assert agree(text.encode(), js.encode()) > 20
    tx = fio_text.parse("".join(t for t, _ in pairs).encode(), "text")  # the text alone: a report each
    assert len({r["doc_no"] for r in tx.tables["fio_jobs"]}) == len(pairs)
    js = fio_json.parse(runs["plus"].read_bytes(), "plus")
    assert len({r["doc_no"] for r in js.tables["fio_jobs"]}) >= 2  # json+ with --status-interval
    assert "fio_latency_bins" in js.tables


# ---- client/server -------------------------------------------------------------------------------


def test_one_client_json(clients):
    res = fio_json.parse(clients["one"].read_bytes(), "one")
    jobs = res.tables["fio_jobs"]
    assert [(r["jobname"], r["hostname"], r["all_clients"]) for r in jobs] == [("c", "127.0.0.1", False)]
    assert {s.scope for s in res.samples} == {"all", "target"}  # one job: its disk_util is the job's


def test_two_clients_text_and_json_agree_and_the_sum_stays_apart(clients):
    text, js = _split(clients["two"].read_text())
    j = fio_json.parse(js.encode(), "j")
    t = fio_text.parse(text.encode(), "t")
    names = [r["jobname"] for r in j.tables["fio_jobs"]]
    assert names == ["c", "c", "All clients"]
    assert [r["all_clients"] for r in j.tables["fio_jobs"]] == [False, False, True]
    assert [r["all_clients"] for r in t.tables["fio_jobs"]] == [False, False, True]
    jv = _by_job(j)
    assert jv[2]["read_ios"] == jv[0]["read_ios"] + jv[1]["read_ios"]  # fio's sum, as written
    scopes = {r.key: {s.scope for s in j.samples if s.run_key == r.key} for r in j.runs}
    assert [scopes[r.key] for r in j.runs] == [{"all"}, {"all"}, {"test"}]
    # the text names no port (both servers are `<vm>`), and the two hosts report in either order:
    # each text report is the JSON entry with its exact I/O count; `All clients` is last in both
    hosts = {r["port"] for r in j.tables["fio_jobs"][:2]}
    assert len(hosts) == 2
    assert agree_clients(t, j) == 18  # 6 numbers x (2 hosts + the sum)


def agree_clients(t, j) -> int:
    tv, jv, tokens = _by_job(t), _by_job(j), _tokens(t)
    order = [0, 1] if tv[0]["read_ios"] == jv[0]["read_ios"] else [1, 0]
    jv = {i: jv[k] for i, k in enumerate([*order, 2])}
    assert [tv[i]["read_ios"] for i in range(3)] == [jv[i]["read_ios"] for i in range(3)]
    n = 0
    for i in range(3):
        for m in (
            "read_iops",
            "read_mbps",
            "read_ios",
            "avg_read_latency_ms",
            "max_read_latency_ms",
            "avg_read_clat_ms",
        ):
            assert abs(tv[i][m] - jv[i][m]) <= tolerance(m, i + 1, tokens) + 1e-12, (i, m, tv[i][m], jv[i][m])
            n += 1
    return n


def test_two_clients_in_the_database(clients, con):
    text, js = _split(clients["two"].read_text())
    d = clients["two"].parent
    (d / "two.json").write_text(js)
    (d / "two.txt").write_text(text)
    ingest(con, d / "two.json", d / "two.txt", clients["one"])
    assert q(con, "SELECT DISTINCT status FROM source_files") == [("ok",)]
    # comparison groups by scope: the per-host runs (all) and the sum (test) never share a point
    rows = q(
        con,
        "SELECT r.workload, s.scope, count(*) FROM runs r JOIN samples s USING (run_id) WHERE s.metric = 'iops' "
        "GROUP BY ALL ORDER BY ALL",
    )
    assert rows == [("All clients", "test", 2), ("c", "all", 5)]


# ---- status-interval text, terse beside normal, numjobs under group_reporting (issue 55) ------------

CAPPED = "[c]\nrw=randread\nbs=4k\nrate_iops=500\nruntime=3s\n"  # one job held to 500 IO/s for 3 s
TWELVE = "group_reporting\n[g]\nrw=randread\nbs=4k\nnumjobs=12\nrate_iops=50\nruntime=1s\n"  # 12 x 50 IO/s


@pytest.fixture(scope="module")
def capped(tmp_path_factory) -> dict[str, str]:
    """fio's outputs of rate-capped runs, so the IO/s each should report is known."""
    tmp = tmp_path_factory.mktemp("capped")
    si = "--status-interval=1"
    return {
        "text": _fio(tmp, "text", CAPPED, si),  # the default output, a report every second
        "normal_json": _fio(tmp, "nj", CAPPED, si, "--output-format=normal,json"),
        "terse_normal": _fio(tmp, "tn", CAPPED, si, "--output-format=terse,normal"),
        "two": _fio(tmp, "two", CAPPED + CAPPED.replace("[c]", "[d]"), si),
        "twelve": _fio(tmp, "twelve", TWELVE, "--output-format=normal,json"),
        "twelve_terse": _fio(tmp, "twelve_t", TWELVE, "--output-format=terse"),
    }


def _iops(res) -> list[float]:
    return [next(s.value for s in res.samples if s.run_key == r.key and s.metric == "read_iops") for r in res.runs]


def test_status_interval_text_is_one_run_per_job(capped):
    """`--status-interval=1` prints the whole report every second, then the final one: 3 s give three
    interim reports and the last; each job is one run, its numbers the last report's (500 IO/s cap)."""
    text = capped["text"]
    assert text.count("(groupid=0, jobs=1)") >= 3
    res = fio_text.parse(text.encode(), "text")
    assert [r.workload for r in res.runs] == ["c"] and 450 <= _iops(res)[0] <= 500
    last = max(r["doc_no"] for r in res.tables["fio_jobs"])
    assert [r["run_key"] for r in res.tables["fio_jobs"]] == [None] * (last - 1) + [res.runs[0].key]
    assert "interim report" in res.notes[0]
    two = fio_text.parse(capped["two"].encode(), "two")
    assert [r.workload for r in two.runs] == ["c", "d"] and all(450 <= v <= 500 for v in _iops(two))


def test_status_interval_text_and_json_are_one_run(capped):
    """The same run written as text and JSON at once (`normal,json`), every second: one run through
    either door, with the same numbers to the text's precision."""
    pairs = _reports(capped["normal_json"])
    text = "".join(t for t, _ in pairs)
    js = "".join(j for _, j in pairs)
    t, j = fio_text.parse(text.encode(), "t"), fio_json.parse(js.encode(), "j")
    assert len(pairs) >= 3 and len(t.runs) == len(j.runs) == 1
    assert agree(pairs[-1][0].encode(), pairs[-1][1].encode()) > 20
    assert abs(_iops(t)[0] - _iops(j)[0]) <= ulp(_tokens(t)[(t.tables["fio_jobs"][-1]["job_no"], "read.iops")])
    both = fio_json.parse(capped["normal_json"].encode(), "nj")  # the capture as fio wrote it: the JSON reads it
    assert [r.key for r in both.runs] == [r.key for r in j.runs]


def test_terse_beside_normal_is_one_run(capped):
    """`--output-format=terse,normal`: each report in both layouts; the text report reads the file (the
    terse sniffer steps aside), one run whose IOPS the terse line states too."""
    from iolab import registry

    raw = capped["terse_normal"].encode()
    assert registry.claim(raw[:65536], "tn.out").module is fio_text
    res = fio_text.parse(raw, "tn.out")
    assert len(res.runs) == 1 and 450 <= _iops(res)[0] <= 500
    terse = [x for x in capped["terse_normal"].splitlines() if x.startswith("3;fio-")]
    last = fio_terse.parse(terse[-1].encode(), "t")  # the terse line of the final report
    assert abs(_iops(last)[0] - _iops(res)[0]) <= 1  # terse: whole IOPS, cut; text: num2str of the same
    past_head = fio_terse.parse(("\n".join(terse[:1] * 60) + "\n" + capped["terse_normal"]).encode(), "tn.out")
    assert [r.workload for r in past_head.runs] == ["c"]  # terse lines filling the sniffed head: still the report


def test_numjobs_under_group_reporting_are_workers(capped):
    """numjobs=12 with group_reporting: one entry summing 12 jobs (fio's JSON leaves the bare option out);
    the text says jobs=12. Both doors: one run of 12 workers at 12 x 50 IO/s."""
    text, js = _split(capped["twelve"])
    t, j = fio_text.parse(text.encode(), "t"), fio_json.parse(js.encode(), "j")
    assert "group_reporting" not in js and "(groupid=0, jobs=12)" in text
    assert [(r.workload, r.workers, r.queue_depth, r.outstanding_ios) for r in t.runs] == [("g", 12, 1, 12)]
    assert [(r.workload, r.workers, r.queue_depth, r.outstanding_ios) for r in j.runs] == [("g", 12, 1, 12)]
    assert 540 <= _iops(j)[0] <= 600 and abs(_iops(t)[0] - _iops(j)[0]) <= 1
    terse = fio_terse.parse(capped["twelve_terse"].encode(), "t")  # one line (3.33 names it): no job count in it
    assert [(r.workload, r.workers) for r in terse.runs] == [("g", None)] and 540 <= _iops(terse)[0] <= 600
