"""ORION summaries and matrices: every corpus file with asserted values; malformed variants rejected."""

from __future__ import annotations

import shutil

import pytest

from iolab.formats import orion, orion_matrix
from iolab.model import ParseError
from tests.conftest import corpus, ingest, q

SEED = "seed/esg-ds5020_orion-summary_tile4.txt"


def headlines(path):
    res = orion.parse(corpus(path).read_bytes(), corpus(path).name)
    return {s.metric: (s.value, s.small_oio, s.large_oio) for s in res.samples if s.scope == "test"}, res


def test_seed_summary_esg_ds5020():
    h, res = headlines(SEED)
    assert h == {
        "max_large_mbps": (108.27, 0, 9),
        "max_small_iops": (882.0, 25, 0),
        "min_small_latency_ms": (5.42, 1, 0),
    }
    t = res.tables["orion_tests"][0]
    assert (t["version"], t["testname"], t["run_type"], t["simulated_array_type"]) == (
        "10.2.0.1.0",
        "vmware",
        "advanced",
        "RAID 0",
    )
    assert (t["small_io_bytes"], t["large_io_bytes"], t["stripe_depth_bytes"]) == (8192, 1048576, 1048576)
    assert (t["write_pct"], t["duration_per_point_s"], t["total_data_points"]) == (30.0, 150, 36)
    assert t["large_columns"] == list(range(11)) and t["small_columns"] == [0]
    assert res.tables["orion_luns"] == [{"lun": r"\\.\f:", "size_bytes": 1924071424, "line_no": 17}]
    assert res.runs[0].read_pct == 70


def test_databasejournal_10_2_four_luns():
    h, res = headlines("orion/databasejournal__11gtest_summary.txt")
    assert h == {
        "max_large_mbps": (34.47, 0, 2),
        "max_small_iops": (185.0, 17, 0),
        "min_small_latency_ms": (7.45, 1, 0),
    }
    assert [l["size_bytes"] for l in res.tables["orion_luns"]] == [536854528, 213893120, 4293563904, 4293563904]
    assert res.tables["orion_tests"][0]["files_found"] == 4


def test_ghmd_11_1_truncated_first_line():
    h, res = headlines("orion/ghmd-unidentified__orion_simple_vdb_summary.txt")
    assert h["max_large_mbps"] == (1554.54, 0, 2)
    assert h["min_small_latency_ms"] == (0.26, 5, 0)
    assert res.tool_version == "11.1.0.7.0"


def _summary(tail: str) -> bytes:
    return (
        "ORION VERSION 12.1.0.2.0\n\nCommandline:\n-run oltp\n\nThis maps to this test:\nTest: orion\n"
        "Small IO size: 8 KB\nLarge IO size: 1024 KB\nIO Types: Small Random IOs, Large Random IOs\n"
        "Simulated Array Type: CONCAT\nWrite: 0%\nCache Size: Not Entered\nDuration for each data point: 60 seconds\n"
        "Small Columns:,      1\nLarge Columns:,      0\nTotal Data Points: 1\n\nName: /dev/sdb  Size: 100\n"
        "1 files found.\n\n" + tail
    ).encode()


def test_12c_microseconds_are_converted_to_ms():
    """Hand-written 12c-shaped summary (the corpus has no 12c file): usecs -> ms, detail lines kept."""
    res = orion.parse(
        _summary(
            "Maximum Small IOPS=584 @ Small=17 and Large=0\n"
            "Small Read Latency: avg=1711 us, min=791 us, max=12316 us, std dev=454 us @ Small=17 and Large=0\n"
            "Minimum Small Latency=123.58 usecs @ Small=1 and Large=0\n"
        ),
        "orion_20200101_1200_summary.txt",
    )
    got = {s.metric: s.value for s in res.samples}
    assert got["min_small_latency_ms"] == pytest.approx(0.12358)
    assert got["small_read_latency_avg_ms"] == pytest.approx(1.711)
    assert got["small_read_latency_max_ms"] == pytest.approx(12.316)
    assert res.runs[0].group == "orion_20200101_1200"


@pytest.mark.parametrize(
    "tail, reason",
    [
        ("Minimum Small Latency=1.5 furlongs @ Small=1 and Large=0\n", "unknown latency unit"),
        ("", "no result lines"),
        ("Maximum Small IOPS=abc @ Small=1 and Large=0\n", "unexpected line"),
    ],
)
def test_bad_summaries(tail, reason):
    with pytest.raises(ParseError, match=reason):
        orion.parse(_summary(tail), "x_summary.txt")


def test_cut_summary_is_rejected():
    data = corpus(SEED).read_bytes()
    with pytest.raises(ParseError):
        orion.parse(data[: data.index(b"Maximum")], "x.txt")
    with pytest.raises(ParseError, match="Test:"):
        orion.parse(data[:60], "x.txt")


def test_matrices_corpus(con, tmp_path):
    d = tmp_path / "orion"
    d.mkdir()
    for kind in ("iops", "mbps", "lat"):
        shutil.copy(
            corpus(f"orion/cnblogs-hftian__mytest_20190329_1057_{kind}.csv"), d / f"mytest_20190329_1057_{kind}.csv"
        )
    (d / "iolab.toml").write_text('orion_version = "11.1.0.7.0"  # shown on the source page\n')
    rep = ingest(con, d)
    assert {o.status for o in rep.outcomes} == {"ingested"}
    pts = q(
        con,
        """SELECT metric, small_oio, large_oio, value, unit FROM measurements
                    WHERE run_group = 'mytest_20190329_1057' ORDER BY metric, small_oio, large_oio""",
    )
    assert pts == [
        ("large_mbps", 0, 1, 271.58, "MB/s"),
        ("large_mbps", 0, 2, 374.26, "MB/s"),
        ("small_iops", 1, 0, 2302.0, "IO/s"),
        ("small_iops", 2, 0, 4398.0, "IO/s"),
        ("small_iops", 3, 0, 5450.0, "IO/s"),
        ("small_iops", 4, 0, 6006.0, "IO/s"),
        ("small_iops", 5, 0, 6210.0, "IO/s"),
        ("small_latency_ms", 1, 0, 0.43, "ms"),
        ("small_latency_ms", 2, 0, 0.45, "ms"),
        ("small_latency_ms", 3, 0, 0.55, "ms"),
        ("small_latency_ms", 4, 0, 0.67, "ms"),
        ("small_latency_ms", 5, 0, 0.80, "ms"),
    ]
    # the ragged rows Large=1,2 of iops.csv are absent, not zero
    assert q(con, "SELECT count(*) FROM orion_matrix WHERE kind='iops' AND large_oio > 0") == [(0,)]


def test_latency_matrix_without_version_stays_out_of_measurements(con, tmp_path):
    f = tmp_path / "t_20190329_1057_lat.csv"
    shutil.copy(corpus("orion/cnblogs-hftian__mytest_20190329_1057_lat.csv"), f)
    ingest(con, f)
    assert q(con, "SELECT count(*) FROM orion_matrix") == [(5,)]
    assert q(con, "SELECT count(*) FROM measurements WHERE metric='small_latency_ms'") == [(0,)]


def test_latency_unit_from_12c_summary_of_same_test(con, tmp_path):
    (tmp_path / "t_20200101_1200_summary.txt").write_bytes(_summary("Maximum Small IOPS=584 @ Small=1 and Large=0\n"))
    (tmp_path / "t_20200101_1200_lat.csv").write_text("Large/Small,      1\n          0, 1711.00\n")  # hand-written
    ingest(con, tmp_path)
    assert q(con, "SELECT value FROM measurements WHERE metric='small_latency_ms'") == [(pytest.approx(1.711),)]


@pytest.mark.parametrize(
    "text, reason",
    [
        ("Large/Small,      1,      2\n          0,   1,   2,   3\n", "has 3 values"),
        ("Large/Small,      1,      1\n          0,   1\n", "distinct"),
        ("Large/Small,      1\n          0,   x\n", "not a number"),
        ("Large/Small,      1\n          0\n", "no data points"),
        ("Large/Small,      1\n          0,  -4\n", "negative"),
    ],
)
def test_bad_matrices(text, reason):
    with pytest.raises(ParseError, match=reason):
        orion_matrix.parse(text.encode(), "a_20200101_1200_iops.csv")


def test_matrix_name_must_say_its_metric():
    with pytest.raises(ParseError, match="_iops.csv"):
        orion_matrix.parse(b"Large/Small,      1\n          0,   1\n", "matrix.csv")


def test_hist_and_trace_files_are_rejected_with_the_reason(con, tmp_path):
    for name in ("t_20200101_1200_hist.txt", "t_20200101_1200_trace.txt"):
        (tmp_path / name).write_text("whatever ORION wrote\n")  # hand-made: no real example exists
    out = {o.path.rsplit("/", 1)[-1]: o for o in ingest(con, tmp_path).outcomes}
    assert out["t_20200101_1200_hist.txt"].status == "rejected"
    assert "no public example" in out["t_20200101_1200_hist.txt"].reason
    assert "no public example" in out["t_20200101_1200_trace.txt"].reason
