"""Iometer results and instantaneous files: every corpus file, values asserted against the file."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab.formats import iometer, iometer_inst
from iolab.model import MB_PER_MIB, ParseError
from tests.conftest import corpus, ingest, q

RESULT_FILES = [
    "iometer/sqlserverio__iometeroutput.csv",
    "iometer/quarch__testfile.csv",
    "iometer/adisireesha__results.csv",
]


def reference_all_rows(path):
    """An independent, naive reading of every ALL row: (session, block, iops, mbps, avg_ms).

    Sessions start at 'Test Type; blocks at 'Results; MB/s from the decimal column when the header
    has one, else the binary column x 1.048576.
    """
    out, session, block, header = [], 0, 0, None
    lines = path.read_bytes().decode("utf-8").replace("\r\n", "\n").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("'Test Type"):
            session, block = session + 1, 0
        elif line.startswith("'Results"):
            block += 1
            header = lines[i + 1].lstrip("'").split(",")
            header = [h for h in header if h != "TimeStamp"]
        elif line.startswith("ALL,") or ",ALL,All," in line:
            cells = line.split(",")
            if cells[0] != "ALL":
                cells = cells[1:]
            col = dict(zip(header, cells))
            if "MBps (Decimal)" in col:
                mbps = float(col["MBps (Decimal)"])
            else:
                mbps = float(col.get("MBps") or col.get("MBps (Binary)") or col["MiBps (Binary)"]) * 1.048576
            out.append((session, block, float(col["IOps"]), mbps, float(col["Average Response Time"])))
    return out


@pytest.mark.parametrize("rel", RESULT_FILES + ["iometer/quarch__Iometer_insttestfile.csv"])
def test_all_rows_equal_the_file(con, rel):
    path = corpus(rel)
    report = ingest(con, path)
    assert [o.status for o in report.outcomes] == ["ingested"]
    expected = reference_all_rows(path)
    assert expected, "reference reader found no ALL rows"
    got = q(
        con,
        """
        SELECT r.run_key,
               max(value) FILTER (metric = 'iops'), max(value) FILTER (metric = 'mbps'),
               max(value) FILTER (metric = 'avg_latency_ms')
        FROM measurements m JOIN runs r USING (run_id)
        WHERE scope = 'all' GROUP BY r.run_key""",
    )
    got = {k: v for k, *v in got}
    assert len(got) == len(expected)
    for session, block, iops, mbps, avg in expected:
        g = got[f"s{session}/r{block}"]
        assert g[0] == iops
        assert g[1] == pytest.approx(mbps, rel=1e-12)
        assert g[2] == avg


def test_sqlserverio_2008_layout_and_cycling(con):
    ingest(con, corpus("iometer/sqlserverio__iometeroutput.csv"))
    assert q(con, "SELECT DISTINCT layout FROM iometer_results") == [(56,)]
    assert q(con, "SELECT count(*) FROM runs") == [(64,)]
    assert q(con, "SELECT DISTINCT tool_version, test_type FROM runs") == [("2008.06.18", "cycle outstanding I/Os")]
    # first test point: 1196.489673 IO/s, 9.347576 MiB/s (2^20) = 9.801643851776 MB/s (10^6), 0.835007 ms
    row = q(
        con,
        """SELECT metric, value, unit FROM measurements WHERE run_key = 's1/r1' AND scope = 'all'
                    AND metric IN ('iops', 'mbps', 'avg_latency_ms', 'max_latency_ms') ORDER BY metric""",
    )
    assert row == [
        ("avg_latency_ms", 0.835007, "ms"),
        ("iops", 1196.489673, "IO/s"),
        ("max_latency_ms", 35.649557, "ms"),
        ("mbps", pytest.approx(9.347576 * 1.048576), "MB/s"),
    ]
    # the spec of the first run, and queue depth carried as outstanding_ios
    assert q(con, "SELECT workload, block_size_bytes, read_pct, random_pct FROM runs WHERE run_key = 's1/r1'") == [
        ("8k 0% Read; 100% Random 8k", 8192, 0, 100)
    ]
    assert q(
        con, "SELECT outstanding_ios FROM measurements WHERE run_key = 's1/r2' AND scope='all' AND metric='iops'"
    ) == [(2,)]
    # PROCESSOR rows inherit the spec name; DISK names keep their double quotes
    assert q(con, "SELECT DISTINCT access_spec FROM iometer_results WHERE row_type='PROCESSOR' AND block_no=1") == [
        ("8k 0% Read; 100% Random 8k",)
    ]
    assert q(con, "SELECT DISTINCT target FROM measurements WHERE scope='target'") == [('8: "Pliant LS300S P10"',)]
    # CPU 0 of the first block: 1.804300 % utilisation
    assert q(
        con,
        """SELECT value FROM measurements WHERE run_key='s1/r1' AND scope='processor'
                     AND target='CPU 0' AND metric='cpu_util_pct'""",
    ) == [(1.8043,)]


def test_quarch_59_sessions_latency_bins(con):
    ingest(con, corpus("iometer/quarch__testfile.csv"))
    assert q(con, "SELECT count(*), count(DISTINCT status) FROM iometer_sessions") == [(59, 1)]
    assert q(con, "SELECT DISTINCT layout FROM iometer_results") == [(80,)]
    # first ALL row's bins: 40443 I/Os in 0-50 us, 0 in >= 10 s (open-ended)
    bins = q(
        con,
        """SELECT bin_label, lower_us, upper_us, io_count FROM iometer_latency_bins b
                     JOIN iometer_results r USING (source_id, line_no)
                     WHERE r.row_type = 'ALL' AND r.session_no = 1 ORDER BY bin_no""",
    )
    assert len(bins) == 21
    assert bins[0] == ("0 to 50 uS", 0, 50, 40443)
    assert bins[-1] == (">= 10 s", 10_000_000, None, 0)
    # 1.1.0 writes the decimal MBps itself: stored as written
    assert q(con, "SELECT value FROM measurements WHERE run_key='s1/r1' AND scope='all' AND metric='mbps'") == [
        (15.447641,)
    ]
    assert q(con, "SELECT count(*) FROM measurements WHERE scope='processor' AND metric='cpu_util_pct'") == [(708,)]


def test_adisireesha_unbalanced_quote_and_lf(con):
    ingest(con, corpus("iometer/adisireesha__results.csv"))
    assert q(con, "SELECT target_name, worker_name, manager_name FROM iometer_results WHERE row_type='DISK'") == [
        ('1: "( ATP ENG SAMPLE SSD OR221013"', "Worker 1", "DESKTOP-RDOPFI8")
    ]
    assert q(con, "SELECT status FROM iometer_sessions") == [("complete",)]
    assert q(con, "SELECT timer_resolution_hz FROM iometer_results WHERE row_type='WORKER'") == [(10_000_000.0,)]


def test_instantaneous_file_is_a_time_series(con):
    ingest(con, corpus("iometer/quarch__Iometer_insttestfile.csv"))
    # 60 interval rows (15 per worker) x 9 series metrics; the 4 closing WORKER rows + ALL are samples
    assert q(con, "SELECT count(DISTINCT instance), count(*) FROM series") == [(4, 36)]
    assert q(con, "SELECT count(*) FROM series_points") == [(540,)]
    first = q(
        con,
        """SELECT p.ts, p.value FROM series_points p JOIN series s USING (series_id)
                      WHERE s.instance = 'Worker 1' AND s.metric = 'iops' ORDER BY p.ts LIMIT 1""",
    )
    assert first[0][1] == 2174.84 and str(first[0][0]) == "2023-03-27 13:14:32.804000"
    assert q(con, "SELECT count(*) FROM measurements WHERE scope='worker' AND metric='iops'") == [(4,)]
    assert q(con, "SELECT value FROM measurements WHERE scope='all' AND metric='iops'") == [(8527.872164,)]


def _file(rows: list[str], header=None, tail="'Time Stamp\n2020-01-01 00:01:00:000\n'End Test\n") -> bytes:
    header = header or ",".join(iometer.OLD_LAYOUT)
    return (
        "'Test Type,Test Description\n0,hand-written fixture\n'Version\n2008.06.18\n'Time Stamp\n"
        "2020-01-01 00:00:00:000\n'Access specifications\n'Access specification name,default assignment\n"
        "4k, 100% read,0\n'size,% of size,% reads,% random,delay,burst,align,reply\n4096,100,100,100,0,1,0,0\n"
        "'End access specifications\n'Results\n'" + header + "\n" + "\n".join(rows) + "\n" + tail
    ).encode()


def _all_row(iops: float, mib: float, avg: float, qd: int = 4, name="4k, 100% read") -> str:
    cells = [""] * 56
    cells[:9] = ["ALL", "All", name, "1", "1", "1", f"{iops:.6f}", f"{iops:.6f}", "0.000000"]
    cells[9], cells[14], cells[44] = f"{mib:.6f}", f"{avg:.6f}", str(qd)
    return ",".join(cells).replace("4k, 100% read", name)


@settings(max_examples=60, deadline=None)
@given(iops=st.floats(0, 1e7, allow_nan=False), mib=st.floats(0, 1e5), avg=st.floats(0, 1e4), qd=st.integers(1, 1024))
def test_property_values_round_trip(iops, mib, avg, qd):
    """Hand-written 56-column fixture (not a real file): whatever the ALL row says comes back."""
    name = "4k 100% read"
    res = iometer.parse(_file([_all_row(iops, mib, avg, qd, name)]).replace(b"4k, 100% read", name.encode()), "x.csv")
    got = {s.metric: s for s in res.samples if s.scope == "all"}
    assert got["iops"].value == float(f"{iops:.6f}")
    assert got["mbps"].value == pytest.approx(float(f"{mib:.6f}") * MB_PER_MIB)
    assert got["avg_latency_ms"].value == float(f"{avg:.6f}")
    assert got["iops"].outstanding_ios == qd


def test_mib_to_mb_conversion():
    assert MB_PER_MIB == 1.048576
    res = iometer.parse(_file([_all_row(100, 1.0, 1.0)]), "x.csv")
    assert [s.value for s in res.samples if s.metric == "mbps"] == [1.048576]


def test_spec_name_with_comma_and_aborted_session():
    data = _file(
        [_all_row(100, 1, 1, name="4k, 100% read")], tail="'Time Stamp\n2020-01-01 00:01:00:000\nAborted test\n"
    )
    res = iometer.parse(data, "x.csv")
    assert res.runs[0].workload == "4k, 100% read"
    assert res.runs[0].status == "aborted"
    assert res.tables["iometer_sessions"][0]["status"] == "aborted"


def test_session_without_end_test_is_unterminated():
    res = iometer.parse(_file([_all_row(100, 1, 1)], tail="'Time Stamp\n2020-01-01 00:01:00:000\n"), "x.csv")
    assert res.runs[0].status == "complete"
    assert res.tables["iometer_sessions"][0]["status"] == "unterminated"


def test_two_to_the_64_minus_one_is_kept_exactly():
    cells = _all_row(100, 1, 1).split(",")
    cells[42] = cells[43] = "18446744073709551615"
    res = iometer.parse(_file([",".join(cells)]), "x.csv")
    t = res.tables["iometer_results"].to_table()
    assert t.column("starting_sector").to_pylist() == [2**64 - 1]


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda b: b[: b.index(b"ALL,") + 40], "ends in the middle of a data row"),
        (
            lambda b: b.replace(b",1196", b",x1196").replace(b"ALL,All,4k, 100% read,1", b"ALL,All,4k, 100% read,z"),
            "is not an integer",
        ),
        (lambda b: b.replace(b"ALL,All", b"ALL,All,extra"), "fields; the header has 56"),
        (lambda b: b.replace(b"'Results\n", b"'Results\n'Target Type,Bogus Column\n"), "unknown Iometer column"),
        (lambda b: b.split(b"'Results")[0], "no results rows"),
    ],
)
def test_bad_input_is_rejected_with_reason(mutate, reason):
    with pytest.raises(ParseError, match=reason) as e:
        iometer.parse(mutate(_file([_all_row(100, 1, 1)])), "x.csv")
    assert e.value.reason


def test_sniffers_tell_results_from_instantaneous():
    res_head = corpus("iometer/quarch__testfile.csv").read_text()[:65536]
    inst_head = corpus("iometer/quarch__Iometer_insttestfile.csv").read_text()[:65536]
    assert iometer.sniff(res_head, "a") and not iometer_inst.sniff(res_head, "a")
    assert iometer_inst.sniff(inst_head, "a") and not iometer.sniff(inst_head, "a")


# ---- Iometer's not-applicable sentinels (-1, 2^64-1): missing values, never a rejection ----------

SENTINEL_SOURCE = "iometer/adisireesha__results.csv"  # real 1.1.0 file; the edits below are made here


def _with_cell(data: bytes, row: str, column: str, value: str) -> bytes:
    lines = data.decode().split("\n")
    header = next(i for i, ln in enumerate(lines) if ln.startswith("'Target Type"))
    col = lines[header].split(",").index(column)
    at = next(i for i in range(header + 1, len(lines)) if lines[i].startswith(row + ","))
    cells = lines[at].split(",")
    cells[col] = value
    lines[at] = ",".join(cells)
    return "\n".join(lines).encode()


def test_sentinels_are_missing_values_kept_as_written_in_the_tool_table(con, tmp_path):
    data = corpus(SENTINEL_SOURCE).read_bytes()
    data = _with_cell(data, "ALL", "Queue Depth", "-1")
    data = _with_cell(data, "MANAGER", "Queue Depth", str(2**64 - 1))
    data = _with_cell(data, "ALL", "Average Response Time", "-1")
    f = tmp_path / "sentinels-from-adisireesha.csv"
    f.write_bytes(data)
    assert ingest(con, f).outcomes[0].status == "ingested"
    got = q(
        con,
        "SELECT row_type, queue_depth, sentinels FROM iometer_results WHERE row_type IN ('ALL', 'MANAGER') ORDER BY 1",
    )
    # -1 is NULL in its own column, 2^64-1 stays as written; both are listed as written, in column order
    assert got == [
        ("ALL", None, "Average Response Time=-1; Transactions per Connection=-1; Queue Depth=-1"),
        ("MANAGER", 2**64 - 1, f"Transactions per Connection=-1; Queue Depth={2**64 - 1}"),
    ]
    # no sample from a sentinel; the load still comes from the target row (32 outstanding I/Os)
    assert q(con, "SELECT count(*) FROM samples WHERE metric = 'avg_latency_ms' AND scope = 'all'") == [(0,)]
    assert q(con, "SELECT DISTINCT outstanding_ios FROM measurements WHERE scope IN ('all', 'manager')") == [(32,)]
    assert q(con, "SELECT value FROM measurements WHERE scope = 'all' AND metric = 'iops'") == [(3364.250468,)]


@settings(max_examples=25, deadline=None)
@given(
    column=st.sampled_from(
        [
            "IOps",
            "Read IOps",
            "Average Response Time",
            "Maximum Response Time",
            "Queue Depth",
            "Bytes Read",
            "Errors",
            "% CPU Utilization",
        ]
    ),
    sentinel=st.sampled_from(["-1", str(2**64 - 1)]),
)
def test_any_sentinel_cell_gives_a_missing_value_never_a_rejection(column, sentinel):
    from iolab.formats import iometer

    data = _with_cell(corpus(SENTINEL_SOURCE).read_bytes(), "ALL", column, sentinel)
    res = iometer.parse(data, "x.csv")  # never raises
    table = res.tables["iometer_results"].to_table().to_pylist()
    all_row = next(r for r in table if r["row_type"] == "ALL")
    assert f"{column}={sentinel}" in all_row["sentinels"]
    metric = {
        "IOps": "iops",
        "Read IOps": "read_iops",
        "Average Response Time": "avg_latency_ms",
        "Maximum Response Time": "max_latency_ms",
        "Bytes Read": "bytes_read",
        "Errors": "errors",
        "% CPU Utilization": "cpu_util_pct",
    }.get(column)
    if metric:
        assert not [s for s in res.samples if s.scope == "all" and s.metric == metric]


def test_a_runs_load_is_the_sum_of_its_targets_outstanding_ios():
    """quarch__testfile.csv: 4 workers, one disk each at Queue Depth 1; the ALL row repeats 1, but the
    run had 4 I/Os in flight (Little's law: 30171 IO/s x 0.132 ms = 4.0)."""
    res = iometer.parse(corpus("iometer/quarch__testfile.csv").read_bytes(), "t.csv")
    run = res.runs[0]
    assert (run.queue_depth, run.workers, run.outstanding_ios) == (1, 4, 4)
    loads = {(s.scope, s.outstanding_ios) for s in res.samples if s.run_key == run.key and s.metric == "iops"}
    assert loads == {("all", 4), ("manager", 4), ("worker", 1), ("target", 1)}


# -- issue 11.10: a file cut at a line boundary loads only what it holds completely, or is rejected


def _samples_by_run(res):
    out: dict = {}
    for s in res.samples:
        out.setdefault(s.run_key, []).append((s.scope, s.metric, s.value, s.target, s.outstanding_ios, s.line_no))
    return out


_FULL = {rel: corpus(rel).read_bytes() for rel in RESULT_FILES}
_FULL_SAMPLES = {rel: _samples_by_run(iometer.parse(data, rel)) for rel, data in _FULL.items()}


@settings(max_examples=150, deadline=None)
@given(rel=st.sampled_from(RESULT_FILES), where=st.floats(0, 1))
def test_a_file_cut_at_a_line_boundary_is_whole_or_rejected(rel, where):
    data = _FULL[rel]
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    cut = data[: ends[min(int(where * len(ends)), len(ends) - 1)]]
    try:
        res = iometer.parse(cut, rel)
    except ParseError as e:
        assert e.reason and e.line
        return
    got, full = _samples_by_run(res), _FULL_SAMPLES[rel]
    assert got, "a cut file that loads must hold results"
    for key, samples in got.items():
        assert samples == full[key], f"run {key} of the cut file differs from the full file's"


@pytest.mark.parametrize(
    "cut_after, reason",
    [
        ("ALL,", "before its closing 'Time Stamp"),  # the ALL row, then nothing: MANAGER/WORKER rows lost
        ("'Target Type", "before its closing 'Time Stamp"),  # a 'Results header without rows
    ],
)
def test_cut_inside_a_results_block_names_the_block(cut_after, reason):
    text = corpus("iometer/adisireesha__results.csv").read_bytes()  # 'Results at line 13
    end = text.index(b"\n", text.index(cut_after.encode())) + 1
    with pytest.raises(ParseError, match=reason) as e:
        iometer.parse(text[:end], "x.csv")
    assert e.value.line == 13


# -- bounded memory (issue 11.6): lines indexed in the bytes, samples kept packed


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=60)
    | st.lists(st.sampled_from(["a", "é", ",", "\r", "\n", "\r\n", "\ufeff", "\x81"]), max_size=12).map(
        lambda x: "".join(x).encode("utf-8", "replace")
    )
)
def test_text_lines_match_split_lines_of_decode_text(data):
    from iolab.model import decode_text, split_lines, text_lines

    try:
        text = decode_text(data)
    except (ParseError, UnicodeDecodeError) as e:
        with pytest.raises(type(e)):
            text_lines(data)
        return
    lines, ends = text_lines(data)
    assert (list(lines), ends) == (split_lines(text), text.endswith(("\n", "\r")))


def test_samples_round_trip_through_packed_chunks():
    from iolab.model import Sample, Samples

    Samples.CHUNK, old = 3, Samples.CHUNK
    try:
        items = [
            Sample(f"r{i % 2}", "target", "iops", i + 0.5, "IO/s", None if i % 3 else f"d{i}", i, None, None, i)
            for i in range(8)
        ]
        packed = Samples(items)
        assert len(packed) == 8 and list(packed) == items and packed[-1] == items[-1]
    finally:
        Samples.CHUNK = old


def test_multi_session_file_keeps_every_number():
    """Ten sessions of the real file: ten times the rows and samples, the same numbers in each."""
    one = corpus("iometer/sqlserverio__iometeroutput.csv").read_bytes()
    single, multi = iometer.parse(one, "x.csv"), iometer.parse(one * 10, "x.csv")
    assert len(multi.samples) == 10 * len(single.samples)
    assert multi.tables["iometer_results"].num_rows == 10 * single.tables["iometer_results"].num_rows
    values = [(s.metric, s.value, s.target) for s in single.samples]
    assert [(s.metric, s.value, s.target) for s in multi.samples][-len(values) :] == values


def test_a_block_is_checked_against_its_summary_rows():
    """ALL is its MANAGERs summed, a MANAGER its WORKERs, a WORKER its targets (Iometer's results): a
    row deleted, repeated or edited leaves a sum the file does not state: refused at the summary row.
    (A worker's only target deleted leaves the worker's own numbers: a subset, nothing to refuse.)"""
    raw = corpus("iometer/quarch__testfile.csv").read_bytes()
    lines = raw.splitlines(keepends=True)
    disk = next(i for i, x in enumerate(lines) if x.startswith(b"DISK,"))
    worker2 = next(i for i, x in enumerate(lines) if x.startswith(b"WORKER,Worker 2"))
    manager = next(i for i, x in enumerate(lines) if x.startswith(b"MANAGER,"))
    with pytest.raises(
        ParseError, match=r"MANAGER row '\S+': read_ios of the 3 rows under it: the file states 452611"
    ) as e:
        iometer.parse(b"".join(lines[:worker2] + lines[worker2 + 1 :]), "x.csv")  # a worker row deleted
    assert e.value.line == manager + 1
    with pytest.raises(ParseError, match=r"of the 2 rows under it"):
        iometer.parse(b"".join(lines[: disk + 1] + [lines[disk]] + lines[disk + 1 :]), "x.csv")
    cells = lines[disk].split(b",")
    cells[6] = b"%f" % (float(cells[6]) + 10)  # IOps of the target
    with pytest.raises(ParseError, match=r"WORKER row 'Worker 1': iops of the 1 rows under it"):
        iometer.parse(b"".join(lines[:disk] + [b",".join(cells)] + lines[disk + 1 :]), "x.csv")
