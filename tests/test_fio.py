"""fio JSON / terse / logs: every corpus file with values checked by hand against the raw text,
the unit conversions, fio's size parsing, sniffing, and property tests."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import registry
from iolab.formats import _fio, fio_json, fio_log, fio_terse, fio_text
from iolab.model import ParseError
from tests.conftest import CORPUS, FIXTURES, corpus, ingest, q

J = "fio-json/"
T = "fio-terse/"
L = "fio-log/"


def parse(mod, rel: str):
    p = corpus(rel)
    return mod.parse(p.read_bytes(), p.name)


def values(res, key=None) -> dict[tuple[str, str | None], float]:
    key = key or res.runs[0].key
    return {(s.metric, s.target): s.value for s in res.samples if s.run_key == key}


def sig(run) -> tuple:
    return (run.block_size_bytes, run.read_pct, run.random_pct, run.queue_depth, run.workers, run.outstanding_ios)


# ---- fio's own parsing rules ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, kb_base, expected",
    [
        ("4k", 1024, 4096),
        ("4K", 1024, 4096),
        ("4kb", 1024, 4096),
        ("1m", 1024, 1048576),
        ("1M", 1024, 1048576),
        ("4096", 1024, 4096),
        ("1g", 1024, 1 << 30),
        ("4KiB", 1024, 4000),  # compatibility mode: IEC = powers of 10
        ("4k", 1000, 4000),
        ("4KiB", 1000, 4096),
        ("1MiB", 1000, 1048576),
        ("0.5k", 1024, 512),
        ("50%", 1024, None),
        ("abc", 1024, None),
    ],
)
def test_parse_size_follows_fio_kb_base(text, kb_base, expected):
    assert _fio.parse_size(text, kb_base) == expected


def test_block_size_lists():
    assert _fio.block_size("4k,4k") == 4096 and _fio.block_size("4k,8k") is None and _fio.block_size(None) is None
    assert _fio.block_size("16k") == 16384


@pytest.mark.parametrize(
    "opts, expected",
    [
        ({"rw": "randread"}, (100.0, 100.0)),
        ({"rw": "randrw", "rwmixread": "70"}, (70.0, 100.0)),
        ({"rw": "rw"}, (50.0, 0.0)),
        ({"rw": "readwrite", "rwmixwrite": "30"}, (70.0, 0.0)),
        ({"rw": "randrw", "percentage_random": "85"}, (50.0, 85.0)),
        ({"rw": "write:8"}, (0.0, 0.0)),
        ({"rw": "trim"}, (None, 0.0)),
        ({}, (None, None)),
    ],
)
def test_read_and_random_percent_from_rw(opts, expected):
    assert _fio.read_random_pct(opts) == expected


def test_histogram_bin_values():
    """stat.c plat_idx_to_val: exact below 128, then 64 bins per power of two at their mid value."""
    assert [_fio.plat_idx_to_val(i) for i in (0, 23, 127, 128, 129, 191, 192)] == [0, 23, 127, 129, 131, 255, 258]


@given(st.integers(1, 1 << 20), st.sampled_from([("k", 1), ("m", 2), ("g", 3)]), st.booleans())
def test_size_round_trip(n, unit, upper):
    u, power = unit
    assert _fio.parse_size(f"{n}{u.upper() if upper else u}") == n * 1024**power
    assert _fio.parse_size(f"{n}{u}ib") == n * 1000**power  # kb_base=1024: IEC prefixes are decimal
    assert _fio.parse_size(f"{n}{u}ib", 1000) == n * 1024**power


# ---- JSON: every corpus file ----------------------------------------------------------------------


def test_fio2_json_usec_and_kib():
    """fio-2.18: usec latencies, io_bytes in KiB, bw in KiB/s."""
    res = parse(fio_json, J + "louwrentius__fio-plot__fio218_randread-01-01.json")
    run = res.runs[0]
    assert (run.key, run.tool_version, run.workload, run.status, run.test_type) == (
        "1:1:random-io",
        "fio-2.18-59-g618e",
        "random-io",
        "complete",
        "randread",
    )
    assert sig(run) == (4096, 100.0, 100.0, 1, 1, 1)  # iodepth "01", numjobs "01"
    assert str(run.ended_at) == "2017-04-17 11:15:05"  # timestamp 1492427705 (UTC)
    v = values(res)
    assert v[("read_iops", None)] == 73.182907
    assert v[("read_mbps", None)] == pytest.approx(292 * 1024 / 1e6)  # bw 292 KiB/s
    assert v[("bytes_read", None)] == 2932 * 1024  # io_bytes 2932 (KiB in 2.x)
    assert v[("read_ios", None)] == 733
    assert v[("avg_read_clat_ms", None)] == pytest.approx(13.643395634)  # clat mean 13643.395634 usec
    assert v[("avg_read_latency_ms", None)] == pytest.approx(13.657451569)
    assert v[("max_read_slat_ms", None)] == pytest.approx(0.035)
    assert v[("p99_read_latency_ms", None)] == pytest.approx(23.168)  # clat "99.000000" : 23168
    assert v[("p99_99_read_latency_ms", None)] == pytest.approx(25.216)
    assert v[("runtime_s", None)] == pytest.approx(10.016)
    assert v[("disk_util_pct", "sdb")] == 46.633955 and v[("disk_util_pct", "md127")] == 0.0
    assert ("avg_write_latency_ms", None) not in v and v[("write_iops", None)] == 0.0  # no writes: no latency
    assert ("avg_latency_ms", None) not in v  # fio states no combined latency
    pct = [r for r in res.tables["fio_percentiles"] if r["ddir"] == "read"]
    assert len(pct) == 17 and pct[0] == {
        "doc_no": 1,
        "job_no": 1,
        "line_no": 8,
        "ddir": "read",
        "stat": "clat",
        "percentile": 1.0,
        "value": 5472,
        "unit": "us",
    }  # the 0.00 slots dropped
    du = {r["name"]: r for r in res.tables["fio_disk_util"]}
    assert du["md127"]["aggr_util"] == 51.310237 and du["md127"]["aggr_write_merges"] == 0


def test_fio31_json_ns_without_bw_bytes():
    res = parse(fio_json, J + "louwrentius__fio-plot__fio31_randrw-1-1.json")
    assert sig(res.runs[0]) == (4096, 50.0, 100.0, 1, 1, 1)
    v = values(res)
    assert v[("bytes_read", None)] == 1103998976  # io_bytes is bytes in 3.x (io_kbytes beside it)
    assert v[("read_mbps", None)] == pytest.approx(17968 * 1024 / 1e6)
    assert v[("avg_read_clat_ms", None)] == pytest.approx(0.137008650801)  # clat_ns mean 137008.650801
    assert v[("p99_read_latency_ms", None)] == pytest.approx(0.456704)  # 456704 ns
    assert v[("iops", None)] == pytest.approx(4492.108465 + 4498.275029)
    assert v[("write_ios", None)] == 269901


def test_fio316_bw_bytes_and_sync_section():
    res = parse(fio_json, J + "louwrentius__fio-plot__fio316_randrw_fsync-1-1.json")
    v = values(res)
    assert v[("read_mbps", None)] == pytest.approx(0.103408) and v[("write_mbps", None)] == pytest.approx(0.108306)
    assert v[("bytes_written", None)] == 6520832 and v[("runtime_s", None)] == pytest.approx(60.206)
    opts = {r["key"]: r["value"] for r in res.tables["fio_options"]}
    assert opts["fsync"] == "10000" and opts["filename"] == "test.bin"


def test_stray_gt_and_global_options():
    res = parse(fio_json, J + "Arau__fio-results-tmp__fio312_leading_gt.json")
    run = res.runs[0]
    assert sig(run) == (4096, 100.0, 85.0, 16, 1, 16)  # rw=randrw rwmixread=100 percentage_random=85 in global options
    v = values(res)
    assert v[("read_iops", None)] == 462.84917 and v[("read_mbps", None)] == pytest.approx(1.89583)  # bw_bytes 1895830
    assert v[("avg_read_clat_ms", None)] == pytest.approx(34.553287595176)
    assert v[("p99_read_latency_ms", None)] == pytest.approx(759.169024)
    assert res.tables["fio_messages"] == [{"doc_no": 1, "line_no": 1, "text": ">"}]


def test_k8s_randrw_32k():
    run = parse(fio_json, J + "Arau__fio-results-tmp__fio312_randrw_k8s.json").runs[0]
    assert sig(run) == (32768, 50.0, 85.0, 16, 1, 16)


def test_fio214_five_jobs_no_options():
    res = parse(fio_json, J + "GoogleCloudPlatform__PerfKitBenchmarker__fio214_5jobs.json")
    assert [r.workload for r in res.runs] == [
        "sequential_write",
        "sequential_read",
        "random_write_test",
        "random_read_test",
        "random_read_test_parallel",
    ]
    assert all(sig(r) == (None,) * 6 for r in res.runs)  # fio 2.1.4 printed no options: nothing to state
    v = values(res, "1:1:sequential_write")
    assert v[("write_iops", None)] == 133 and v[("bytes_written", None)] == 361984 * 1024
    assert v[("write_mbps", None)] == pytest.approx(68118 * 1024 / 1e6)
    assert ("disk_util_pct", "sdb") not in v and len(res.tables["fio_disk_util"]) == 1  # 5 jobs: table only


def test_duplicate_keys_kept():
    res = parse(fio_json, J + "GoogleCloudPlatform__PerfKitBenchmarker__fio217_2jobs_dupkey.json")
    fn = [(r["section"], r["ordinal"]) for r in res.tables["fio_options"] if r["key"] == "filename"]
    assert fn == [("global", 1), ("global", 12)]  # lines 7 and 18 of the file
    assert [sig(r) for r in res.runs] == [(16384, 100.0, 100.0, 1, 2, 2), (16384, 0.0, 100.0, 1, 2, 2)]


def test_errored_job_keeps_numbers_and_says_why():
    res = parse(fio_json, J + "louwrentius__fio-plot__fio333_leading_errors_write-64-1.json")
    run = res.runs[0]
    assert run.status == "error 22" and "err=22/file:filesetup.c:1155" in run.description
    assert sig(run) == (1048576, 0.0, 0.0, 64, 1, 64)
    assert values(res)[("write_iops", None)] == 0.0
    assert [m["line_no"] for m in res.tables["fio_messages"]] == [1, 2, 3]


def test_signal_marks_run_aborted():
    res = parse(fio_json, J + "louwrentius__fio-plot__fio334_signal2_randread-1-1.json")
    assert res.runs[0].status == "aborted" and res.runs[0].description == "fio: terminating on signal 2"
    assert values(res)[("runtime_s", None)] == pytest.approx(2.767)


def test_no_json_is_rejected_with_fio_text():
    with pytest.raises(ParseError, match="no fio JSON document.*engine libaio not loadable"):
        parse(fio_json, J + "louwrentius__fio-plot__fio_noJSON_engine_error.json")


def test_queue_depth_sweep_files():
    iops = {}
    for qd in (1, 2, 4, 8, 16, 32, 64):
        res = parse(fio_json, J + f"louwrentius__fio-plot__fio31_d3s4610_randread-{qd}-1.json")
        assert sig(res.runs[0]) == (4096, 100.0, 100.0, qd, 1, qd)
        iops[qd] = round(values(res)[("iops", None)])
    assert iops == {1: 7530, 2: 11587, 4: 16878, 8: 32492, 16: 50151, 32: 47193, 64: 44734}
    assert sig(parse(fio_json, J + "louwrentius__fio-plot__fio31_d3s4610_randread-16-4.json").runs[0]) == (
        4096,
        100.0,
        100.0,
        16,
        4,
        64,
    )  # group_reporting: the entry aggregates 4 jobs
    assert parse(fio_json, J + "louwrentius__fio-plot__fio31_d3s4610_randread-1-16.json").runs[0].workers == 16


def test_several_documents_and_json_plus_bins():
    """Two real documents concatenated, the second given json+ bins and written an hour later (an appended
    run: derived in memory from the real file)."""
    raw = corpus(J + "louwrentius__fio-plot__fio31_randrw-1-1.json").read_text()
    doc = json.loads(raw)
    doc["jobs"][0]["read"]["clat_ns"]["bins"] = {"1408": 3, "1416": 1}
    doc["timestamp"] += 3600
    res = fio_json.parse((raw + "fio: warning between\n" + json.dumps(doc, indent=2) + "\n\n").encode(), "x.json")
    assert [r.key for r in res.runs] == ["1:1:iotest", "2:1:iotest"]
    assert values(res, "1:1:iotest") == values(res, "2:1:iotest")
    assert [(b["doc_no"], b["bin_value"], b["unit"], b["count"]) for b in res.tables["fio_latency_bins"]] == [
        (2, 1408.0, "ns", 3),
        (2, 1416.0, "ns", 1),
    ]
    assert res.tables["fio_messages"][0]["doc_no"] == 2


def test_status_interval_snapshots_are_not_runs():
    """A document repeated as fio writes it under --status-interval (the same run: its start, the report's
    timestamp less its elapsed seconds, unchanged; its counts so far no larger) is an interim one: kept in
    the tool tables, no run. The same document written an hour later is another run; one whose counts
    shrank is not the same run's."""
    raw = corpus(J + "louwrentius__fio-plot__fio31_randrw-1-1.json").read_text()
    first = json.loads(raw)
    assert "job_start" not in first["jobs"][0] and first["jobs"][0]["elapsed"] > 1  # fio 3.1: timestamp - elapsed
    earlier = json.loads(raw)
    earlier["timestamp"] -= 1
    earlier["timestamp_ms"] -= 1000
    earlier["jobs"][0]["elapsed"] -= 1
    for d in ("read", "write"):
        _ios(earlier["jobs"][0][d], -7)
    both = (json.dumps(earlier) + "\n" + raw).encode()
    res = fio_json.parse(both, "x.json")
    assert [r.key for r in res.runs] == ["2:1:iotest"] and values(res) == values(
        parse(fio_json, J + "louwrentius__fio-plot__fio31_randrw-1-1.json"), "1:1:iotest"
    )
    assert [(r["doc_no"], r["run_key"]) for r in res.tables["fio_jobs"]] == [(1, None), (2, "2:1:iotest")]
    assert "1 interim document" in res.notes[0]
    later = json.loads(raw)
    later["timestamp"] += 3600
    assert len(fio_json.parse((raw + json.dumps(later)).encode(), "x.json").runs) == 2
    shrunk = json.loads(json.dumps(earlier))
    _ios(shrunk["jobs"][0]["read"], 100)
    assert len(fio_json.parse((json.dumps(shrunk) + "\n" + raw).encode(), "x.json").runs) == 2


def _ios(direction: dict, more: int) -> None:
    """``more`` I/Os in one direction of a JSON entry, its iops as fio computes it (1000 x total_ios / runtime)."""
    direction["total_ios"] += more
    direction["iops"] = 1000 * direction["total_ios"] / direction["runtime"]


def test_cut_json_names_the_line():
    raw = corpus(J + "louwrentius__fio-plot__fio31_randrw-1-1.json").read_bytes()
    with pytest.raises(ParseError, match="cut or malformed"):
        fio_json.parse(raw[:3000], "x.json")


# printable text lines without '{' or '"' (a line holding those could be a document)
_NOISE = st.lists(
    st.text(
        st.characters(blacklist_characters='{"\x85\u2028\u2029', blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
        max_size=30,
    ),
    max_size=4,
)


@settings(max_examples=40, deadline=None)
@given(_NOISE, _NOISE)
def test_text_around_json_does_not_change_numbers(before, after):
    raw = corpus(J + "louwrentius__fio-plot__fio218_randread-01-01.json").read_text()
    noisy = "\n".join([*before, raw, *after]) + "\n"
    base = fio_json.parse(raw.encode(), "x.json")
    res = fio_json.parse(noisy.encode(), "x.json")
    assert values(res) == values(base) and sig(res.runs[0]) == sig(base.runs[0])


# ---- terse ------------------------------------------------------------------------------------------


def test_terse_group_reporting_empty_jobname():
    res = parse(fio_terse, T + "mcgrof__fio-tests__v3_fio31_4jobs_randrw_emptyname.terse")
    run = res.runs[0]
    assert (run.key, run.workload, run.tool_version, run.status) == ("1:1:", None, "fio-3.1", "complete")
    assert sig(run) == (None,) * 6  # terse carries no options
    v = values(res)
    assert v[("read_iops", None)] == 509531 and v[("write_iops", None)] == 15757
    assert v[("read_mbps", None)] == pytest.approx(2038124 * 1024 / 1e6)  # KiB/s
    assert v[("bytes_read", None)] == 489158140 * 1024
    assert v[("avg_read_clat_ms", None)] == pytest.approx(0.979318182)  # usec
    assert v[("p99_read_latency_ms", None)] == pytest.approx(3.751) and v[
        ("p99_99_write_latency_ms", None)
    ] == pytest.approx(1.417)
    assert v[("disk_util_pct", "nvme0n1")] == 100.0 and v[("runtime_s", None)] == pytest.approx(240.004)
    assert len(res.tables["fio_percentiles"]) == 34  # 17 per direction; the '0%=0' slots are not values


def test_terse_single_job_read():
    res = parse(fio_terse, T + "mcgrof__fio-tests__v3_fio38_1job_read.terse")
    v = values(res)
    assert res.runs[0].workload == "read" and v[("read_iops", None)] == 136853
    assert v[("p99_99_read_latency_ms", None)] == pytest.approx(0.179) and v[("disk_util_pct", "nvme0n1")] == 83.11
    assert ("avg_write_latency_ms", None) not in v and v[("cpu_privileged_pct", None)] == 35.753667
    du = res.tables["fio_disk_util"][0]
    assert (du["read_ios"], du["in_queue"]) == (20515286, 248991)


@settings(max_examples=25, deadline=None)
@given(_NOISE)
def test_terse_stderr_lines_before_and_several_lines(before):
    a = corpus(T + "mcgrof__fio-tests__v3_fio38_1job_read.terse").read_text()
    b = corpus(T + "mcgrof__fio-tests__v3_fio31_4jobs_randrw_emptyname.terse").read_text()
    before = [x for x in before if not fio_terse._LINE.match(x.strip())]
    res = fio_terse.parse(("\n".join(before + [a.strip(), b.strip()]) + "\n").encode(), "x.terse")
    assert [r.key for r in res.runs] == ["1:1:read", "2:1:"]
    assert values(res, "1:1:read") == values(parse(fio_terse, T + "mcgrof__fio-tests__v3_fio38_1job_read.terse"))


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda t: t.replace("3;fio-3.8", "5;fio-3.8", 1), "terse v5 line has 3 direction blocks of 47 fields"),
        (lambda t: t.replace("3;fio-3.8", "7;fio-3.8", 1), r"no terse line \(3;fio-"),
        (lambda t: t[:400], "terse v3 line has 2 direction blocks"),
        (lambda t: t[: t.index(";nvme0n1;") - 12], "at least 121 fields"),  # cut in the latency buckets
        (lambda t: t.replace("1.000000%=9", "1.000000=9", 1), "percentile field 1"),
    ],
)
def test_terse_bad_lines(mutate, reason):
    text = corpus(T + "mcgrof__fio-tests__v3_fio38_1job_read.terse").read_text()
    with pytest.raises(ParseError, match=reason):
        fio_terse.parse(mutate(text).encode(), "x.terse")


# ---- logs -------------------------------------------------------------------------------------------


def test_bw_log_kib_to_mb():
    res = parse(fio_log, L + "louwrentius__fio-plot__fio218_randread_bw.1.log")
    assert [(s.metric, s.unit) for s in res.series] == [("read_mbps", "MB/s")]
    assert res.points["value"].to_list()[:3] == pytest.approx([288 * 1024 / 1e6, 296 * 1024 / 1e6, 328 * 1024 / 1e6])
    assert len(res.tables["series_samples"]) == 20 and res.tables["series_samples"][0]["ts_text"] == "500 ms"


def test_iops_log_two_directions():
    res = parse(fio_log, L + "louwrentius__fio-plot__fio316_randrw_iops.1.log")
    assert [s.metric for s in res.series] == ["read_iops", "write_iops"]
    pts = res.points.rows()
    assert pts[:2] == [(0, 0, 20.0), (1, 1, 8.0)] and len(pts) == 324


def test_lat_log_keeps_raw_values_without_unit():
    res = parse(fio_log, L + "louwrentius__fio-plot__fio218_randread_lat.1.log")
    s = res.series[0]
    assert (s.metric, s.unit) == ("read_lat_raw", None) and "file does not say" in s.counter
    assert res.points["value"].to_list()[:2] == [13709.0, 13578.0]


def test_hist_log_nonzero_bins():
    p = corpus(L + "GoogleCloudPlatform__PerfKitBenchmarker__fio217_clat_hist.1.log")
    rows = fio_log.parse(p.read_bytes(), p.name).tables["fio_hist_log"]
    first = [int(c) for c in p.read_text().splitlines()[0].split(",")]
    mine = [r for r in rows if r["line_no"] == 1]
    assert sum(r["count"] for r in mine) == sum(first[3:]) and all(r["count"] for r in rows)
    assert (mine[0]["msec"], mine[0]["ddir"], mine[0]["bs"], mine[0]["unit"]) == (1001, 0, 16384, "us")  # 1216 bins
    assert {r["line_no"] for r in rows} == set(range(1, 10))


def test_log_name_decides_and_bad_rows():
    data = corpus(L + "louwrentius__fio-plot__fio218_randread_bw.1.log").read_bytes()
    with pytest.raises(ParseError, match="cannot tell which fio log"):
        fio_log.parse(data, "renamed.txt")
    with pytest.raises(ParseError, match="comma-separated numbers"):
        fio_log.parse(data.replace(b"296", b"2x6", 1), "a_bw.1.log")


# ---- sniffing and the database ------------------------------------------------------------------------


def test_sniff_claims_each_corpus_file_once():
    own = {"fio-json": "fio-json", "fio-terse": "fio-terse", "fio-log": "fio-log", "fio-text": "fio-text"}
    for p in sorted(CORPUS.rglob("*")):
        if not p.is_file() or p.name == "MANIFEST.tsv":
            continue
        claimed = [m.FORMAT for m in registry.sniff(p.read_bytes()[: registry.HEAD_BYTES], p.name)]
        fio = [c for c in claimed if c.startswith("fio")]
        assert fio == ([own[p.parent.name]] if p.parent.name in own else []), p


def test_demo_study_queue_depth_sweep(con):
    from tests.conftest import ROOT

    ingest(con, ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep")
    rows = q(
        con,
        """SELECT outstanding_ios, round(value) FROM measurements WHERE metric = 'iops'
                     AND study = 'fio-intel-d3-s4610-qd-sweep' AND tool = 'fio' ORDER BY 1""",
    )
    assert rows == [(1, 7530), (2, 11587), (4, 16878), (8, 32492), (16, 50151), (32, 47193), (64, 44734)]
    assert q(con, "SELECT count(*) FROM fio_percentiles WHERE stat = 'clat' AND ddir = 'read'") == [(7 * 17,)]
    # fio states latency per direction only: the curve's avg_latency_ms is the I/O-weighted mean, which
    # for a pure read sweep is the read average itself (and the hockey stick has its latency axis)
    lat = q(
        con,
        """SELECT s.load, s.value, m.value FROM scaling s
                    JOIN measurements m ON m.study = s.study AND m.outstanding_ios = s.load
                     AND m.metric = 'avg_read_latency_ms' AND m.scope = 'all'
                    WHERE s.study = 'fio-intel-d3-s4610-qd-sweep' AND s.metric = 'avg_latency_ms' ORDER BY 1""",
    )
    assert [row[0] for row in lat] == [1, 2, 4, 8, 16, 32, 64]
    assert all(abs(derived - read) < 1e-12 for _, derived, read in lat)
    assert round(lat[-1][1], 4) == 1.4294  # randread-64-1.json: read.lat_ns.mean 1429416.26 ns
    # every percentile fio states is a row of latency_percentiles (randread-64-1.json clat_ns 99.900000: 3162112)
    pct = q(
        con,
        """SELECT direction, kind, percentile, latency_ms FROM latency_percentiles
                    WHERE study = 'fio-intel-d3-s4610-qd-sweep' AND load = 64 ORDER BY percentile""",
    )
    assert len(pct) == 8
    assert pct[5] == ("read", "latency", 99.9, 3.162112)


# ---- client/server runs (fio --client=h1 --client=h2): per-host runs and fio's All clients sum -------


CLIENTS = {
    "fio-json": J + "tool-written__debian-fio333__client2.json",
    "fio-text": "fio-text/tool-written__debian-fio333__client2.txt",
}


@pytest.mark.parametrize("fmt", sorted(CLIENTS))
def test_client_runs_carry_their_host_and_the_sum_is_its_own_run(fmt):
    res = parse(fio_json if fmt == "fio-json" else fio_text, CLIENTS[fmt])
    jobs = res.tables["fio_jobs"]
    assert [(r["jobname"], r["all_clients"]) for r in jobs] == [("crd", False), ("crd", False), ("All clients", True)]
    if fmt == "fio-json":  # the text names the server by its own hostname only (both are `vm` here)
        assert [(r["hostname"], r["port"]) for r in jobs] == [
            ("127.0.0.1", 8772),
            ("127.0.0.1", 8771),
            ("127.0.0.1", 8771),
        ]
    ios = [values(res, r.key)[("read_ios", None)] for r in res.runs]
    assert ios[2] == ios[0] + ios[1]  # fio's own sum, as written
    by_run = {r.key: {s.scope for s in res.samples if s.run_key == r.key and s.target is None} for r in res.runs}
    assert [by_run[r.key] for r in res.runs] == [{"all"}, {"all"}, {"test"}]
    total = res.runs[2]
    assert (total.workload, total.block_size_bytes, total.read_pct, total.outstanding_ios) == (
        "All clients",
        None,
        None,
        None,
    )


def test_the_all_clients_sum_is_never_averaged_with_the_host_runs(con, tmp_path):
    """comparison_points averages a system's runs at one point; the sum (scope test) is a point of
    its own, the two host runs (scope all) another, each with its own run count."""
    d = tmp_path / "study" / "sys"
    d.mkdir(parents=True)
    (tmp_path / "study" / "iolab.toml").write_text('study = "clients"\n')
    (d / "iolab.toml").write_text('system = "two hosts"\n')
    src = corpus(CLIENTS["fio-json"])
    (d / src.name).write_bytes(src.read_bytes())
    ingest(con, tmp_path / "study")
    rows = q(
        con, "SELECT scope, workload_label, runs, value FROM comparison_points WHERE metric = 'read_ios' ORDER BY scope"
    )
    res = parse(fio_json, CLIENTS["fio-json"])
    host = [values(res, r.key)[("read_ios", None)] for r in res.runs]
    assert [(s, n) for s, _, n, _ in rows] == [("all", 2), ("test", 1)]
    assert rows[0][3] == (host[0] + host[1]) / 2 and rows[1][3] == host[2]


def test_real_client_json_global_options_array():
    """fio 3.43 (styliteag/fio-analyzer): `global options` is an array of per-server objects; each
    host's job takes its own server's (rw=randread, bs=4k) beside its job options (numjobs=1)."""
    res = parse(fio_json, J + "styliteag__fio-analyzer__fio343_client_2clients.json")
    assert [r.key for r in res.runs] == ["1:1:test@127.0.0.1:18802", "1:2:test@127.0.0.1:18801", "1:3:All clients"]
    assert [sig(r) for r in res.runs] == [(4096, 100.0, 100.0, 1, 1, 1)] * 2 + [(None,) * 6]
    iops = [values(res, r.key)[("read_iops", None)] for r in res.runs]
    assert iops == [1110589.0, 1113931.0, 2224520.0]  # "iops" : 1110589.000000 ... and the sum, as written
    assert values(res, res.runs[2].key)[("avg_read_latency_ms", None)] == 815.106630 / 1e6
    assert ("cpu_user_pct", None) not in values(res, res.runs[2].key)  # a sum over hosts: in fio_job_values only
    opts = res.tables["fio_options"]
    rows = opts if isinstance(opts, list) else opts.to_table().to_pylist()
    hosts = {(r["section"], r["key"], r["value"]) for r in rows}
    assert ("global", "port", "18802") in hosts and ("global", "port", "18801") in hosts


# ---- fio normal (text) output ------------------------------------------------------------------------


def test_text_fio20_spaces_before_commas_and_the_fsync_block():
    """A hand-made file in the shapes fio 2.0 printed (`iops=746 ,`, `min=0 ,`, `max=2125.2K`, a bare
    `2.0.8` version line, no date in the header) and fio 3.x's fsync block (not a direction)."""
    p = FIXTURES / "fio-text" / "handmade-fio20-and-fsync.txt"
    res = fio_text.parse(p.read_bytes(), p.name)
    old, new = res.runs
    assert (old.tool_version, old.ended_at, old.block_size_bytes, old.read_pct, old.queue_depth) == (
        "2.0.8",
        None,
        None,
        None,
        64,
    )  # bs=512-64K is a range; randrw's mix is not printed
    v = values(res, old.key)
    assert v[("read_iops", None)] == 746 and v[("write_iops", None)] == 190
    assert v[("read_mbps", None)] == 2273.7 * 1024 / 1e6  # 2.x KB = 1024
    assert v[("bytes_read", None)] == 327521 * 1024
    assert v[("max_read_clat_ms", None)] == pytest.approx(2125.2e3 / 1e3)  # 2125.2K usec
    assert v[("p99_99_read_latency_ms", None)] == 2073  # clat percentiles (msec)
    assert (v[("read_ios", None)], v[("write_ios", None)]) == (107500, 27400)
    assert v[("runtime_s", None)] == 144.052
    w = values(res, new.key)
    assert w[("write_iops", None)] == 4801 and w[("write_ios", None)] == 5632
    assert w[("p99_99_write_latency_ms", None)] == 58112 / 1e6  # the clat block, not the sync one after it
    assert ("p99_99_sync_latency_ms", None) not in w
    syncs = {
        r["path"]: r["value"] for r in res.tables["fio_job_values"] if r["job_no"] == 2 and r["path"].startswith("sync")
    }
    assert syncs == {
        "sync.min": "161 usec",
        "sync.max": "345 usec",
        "sync.avg": "192.48 usec",
        "sync.stddev": "20.09 usec",
    }


@pytest.mark.parametrize(
    "token, old, expected",
    [
        ("29.7k", False, 29700),
        ("6421", False, 6421),
        ("25.1MiB/s", False, 25.1 * 2**20),
        ("26.3MB/s", False, 26.3e6),
        ("64.0KiB", False, 64 * 1024),
        ("1023.3KB/s", True, 1023.3 * 1024),
        ("4096.0MB", True, 4096 * 2**20),
        ("83.8Mi", False, 83.8 * 2**20),  # the All clients report's BW, printed without a unit
        ("8Mibit/s", False, 2**20),
        ("3401.2k", False, 3401200),
    ],
)
def test_text_quantities(token, old, expected):
    assert fio_text.quantity(token, 1, old) == pytest.approx(expected, rel=1e-12)


def test_text_refuses_a_file_without_a_job_report():
    with pytest.raises(ParseError, match="no fio job report"):
        fio_text.parse(b"fio-3.33\nStarting 1 process\n", "x.txt")


def num2str(num: int, maxlen: int, pow2: bool, unit: str) -> str:
    """fio's lib/num2str.c (fio 3.33), base 1: divide by 1000/1024 until at most ``maxlen`` digits,
    truncating, then add decimals from the last remainder (rounded) while the length allows."""
    prefixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] if pow2 else ["", "k", "M", "G", "T", "P", "E"]
    thousand = 1024 if pow2 else 1000
    post, modulo = 0, None
    while post < len(prefixes) and len(str(num)) > maxlen:
        modulo, num, post = num % thousand, num // thousand, post + 1
    if modulo is None:
        return f"{num}{prefixes[post]}{unit}"
    room = maxlen - len(str(num))
    if room <= 1:
        return f"{num + (modulo >= thousand // 2)}{prefixes[post]}{unit}"
    frac = f"{modulo / thousand:.{room - 1}f}"
    num += frac[0] == "1"
    return f"{num}.{frac[2:]}{prefixes[post]}{unit}"


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**15), st.booleans(), st.sampled_from(["", "B/s", "B"]))
def test_text_values_are_within_one_printed_unit(num, pow2, unit):
    """What the text parser reads from a value fio printed with num2str (4 characters, as IOPS, BW
    and io are) is within one unit of its last printed digit of the exact value (docs/formats/fio.md)."""
    text = num2str(num, 4, pow2, unit)
    read = fio_text.quantity(text, 1)
    m = re.match(r"^\d+(?:\.(\d+))?([KMGTPE]i|[kMGTPE])?", text)
    power = "KMGTPE".index(m.group(2)[0].upper()) + 1 if m.group(2) else 0
    step = 10.0 ** -len(m.group(1) or "") * (1024 if pow2 else 1000) ** power
    assert abs(read - num) <= step * (1 + 1e-9), (num, text, read)
