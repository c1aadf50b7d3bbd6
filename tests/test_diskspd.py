"""DiskSpd text and XML output: every corpus file, values checked by hand against the raw text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import registry
from iolab.formats import diskspd_text, diskspd_xml
from iolab.model import MB_PER_MIB, ParseError
from tests.conftest import CORPUS, corpus, ingest, q

OLD = "diskspd-text/BasilKisel__trying-out-diskspd__2.0.x_azure_2runs.txt"
NEW = "diskspd-text/microsoft__VirtualClient__v2.2.0_singlegroup.txt"
XML = "diskspd-xml/GoogleCloudPlatform__PerfKitBenchmarker__2.0.21a.xml"


def values(res, run_key, scope="all", target=None):
    return {s.metric: s.value for s in res.samples if s.run_key == run_key and s.scope == scope and s.target == target}


def parse(rel):
    mod = diskspd_xml if rel.endswith(".xml") else diskspd_text
    return mod.parse(corpus(rel).read_bytes(), rel)


def signature(run):
    return (run.block_size_bytes, run.read_pct, run.random_pct, run.queue_depth, run.workers, run.outstanding_ios)


def test_old_layout_two_runs_in_a_console_capture():
    res = parse(OLD)
    assert [r.key for r in res.runs] == ["run1", "run2"]
    # -w50 -b4K -F2 -o32 -r: 2 threads (-F) x 1 target, 32 each
    assert [signature(r) for r in res.runs] == [(4096, 50.0, 100.0, 32, 2, 64)] * 2
    assert res.runs[1].description == "D:\\testfile.foo"
    a = values(res, "run1")
    assert a["iops"] == 393.40 and a["avg_latency_ms"] == 162.684 and a["stddev_latency_ms"] == 114.403
    assert a["mbps"] == pytest.approx(1.54 * 1.048576)
    assert a["read_iops"] == 197.44 and a["write_iops"] == 195.97 and a["bytes_read"] == 485220352
    assert a["p99_read_latency_ms"] == 276.565 and a["p99_9_latency_ms"] == 679.989
    assert a["p99_99_write_latency_ms"] == 3211.912 and a["max_latency_ms"] == 3221.106
    assert a["min_read_latency_ms"] == 0.057 and a["cpu_util_pct"] == 0.71 and a["test_time_s"] == 600.0
    assert "iops_stddev" not in a  # no IopsStdDev column in 2.0
    b = values(res, "run2")
    assert b["iops"] == 50445.24 and b["p50_latency_ms"] == 0.466 and b["cpu_privileged_pct"] == 31.85
    assert values(res, "run2", "worker", "thread 1: D:\\testfile.foo")["iops"] == 25215.51
    assert values(res, "run2", "target", "D:\\testfile.foo")["iops"] == pytest.approx(25229.72 + 25215.51)
    assert values(res, "run1", "processor", "0")["cpu_idle_pct"] == 99.30


def test_old_layout_mb_is_mebibytes():
    """2.0 prints 'MB/s' but divides by 2^20: 966832128 bytes in 600 s = 1.54 MiB/s (1.61 10^6 B/s)."""
    assert round(966832128 / 600 / 2**20, 2) == 1.54 and round(966832128 / 600 / 1e6, 2) != 1.54
    assert round(123975102464 / 600 / 2**20, 2) == 197.05  # run 2, same check
    a = values(parse(OLD), "run2")
    assert a["mbps"] == pytest.approx(197.05 * MB_PER_MIB) and a["mbps"] == pytest.approx(
        123975102464 / 600 / 1e6, rel=1e-4
    )


def test_new_layout_single_run():
    res = parse(NEW)
    (run,) = res.runs
    assert signature(run) == (4096, 0.0, 100.0, 16, 4, 64)  # -w100 -t4 -o16 -r4K
    assert run.started_at.isoformat() == "2026-06-22T22:16:45"
    a = values(res, "run1")
    assert a["iops"] == 508.09 and a["mbps"] == pytest.approx(1.98 * 1.048576) and a["iops_stddev"] == 1.62
    assert a["write_iops"] == 508.09 and a["read_iops"] == 0.0
    assert "avg_read_latency_ms" not in a and "stddev_read_latency_ms" not in a  # 0 I/Os, LatStdDev N/A
    assert "p50_read_latency_ms" not in a and a["p50_write_latency_ms"] == 140.008  # N/A is missing
    assert a["p99_9999999_latency_ms"] == 164.312 and a["min_latency_ms"] == 86.700
    assert a["cpu_util_pct"] == 1.13
    assert values(res, "run1", "worker", "thread 3: C:\\diskspd-test.dat")["iops_stddev"] == 2.20
    assert {s.target for s in res.samples if s.scope == "processor"} == {"0", "1", "2", "3"}
    cpu = [r for r in res.tables["diskspd_cpu"] if r["cpu"] == 2][0]
    assert (cpu["core"], cpu["usage_pct"], cpu["kernel_pct"]) == (1, 0.94, 0.62)
    assert len(res.tables["diskspd_latency_percentiles"]) == 15
    assert res.tables["diskspd_threads"][0]["target_size"] == "1GiB"


def test_xml_counts_become_rates():
    res = parse(XML)
    (run,) = res.runs
    assert res.tool_version == "2.0.21a" and run.started_at.isoformat() == "2018-10-18T21:39:04"
    assert signature(run) == (65536, 100.0, 0.0, 2, 4, 8)  # WriteRatio 0, sequential, RequestCount 2, 4 per file
    a = values(res, "timespan1")
    total_bytes = 1484062720 + 1482620928 + 1477705728 + 1517420544
    assert a["ios"] == 22645 + 22623 + 22548 + 23154 == 90970
    assert a["iops"] == pytest.approx(90970 / 30.02) and a["mbps"] == pytest.approx(total_bytes / 30.02 / 1e6)
    assert a["cpu_util_pct"] == 3.20 and a["write_iops"] == 0
    assert "avg_latency_ms" not in a  # MeasureLatency false: no <Latency>
    assert values(res, "timespan1", "processor", "0:3")["cpu_privileged_pct"] == 6.61
    assert values(res, "timespan1", "worker", "thread 2: C:\\scratch\\testfile.dat")["ios"] == 22548


def test_xml_with_declaration_and_latency_buckets():
    """Latency element shape from XmlResultParser.cpp; the rest is the real file (this is an edit of it)."""
    text = corpus(XML).read_text()
    lat = (
        "<Latency><AverageReadMilliseconds>1.250</AverageReadMilliseconds><ReadLatencyStdev>0.500</ReadLatencyStdev>"
        "<AverageTotalMilliseconds>1.250</AverageTotalMilliseconds>"
        "<Bucket><Percentile>0</Percentile><ReadMilliseconds>0.100</ReadMilliseconds></Bucket>"
        "<Bucket><Percentile>99</Percentile><ReadMilliseconds>4.000</ReadMilliseconds></Bucket>"
        "<Bucket><Percentile>99.99</Percentile><ReadMilliseconds>9.000</ReadMilliseconds></Bucket></Latency>"
    )
    edited = '<?xml version="1.0" encoding="UTF-8"?>\r\n' + text.replace("<Thread>", lat + "<Thread>", 1)
    a = values(diskspd_xml.parse(edited.encode(), "x.xml"), "timespan1")
    assert (
        a["avg_read_latency_ms"],
        a["min_read_latency_ms"],
        a["p99_read_latency_ms"],
        a["p99_99_read_latency_ms"],
    ) == (1.25, 0.1, 4.0, 9.0)


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda t: '<!DOCTYPE r [<!ENTITY a "b">]>' + t, "DTD"),
        (lambda t: t[: t.index("<Thread>")], "not well-formed"),
        (lambda t: t.replace("<TestTimeSeconds>30.02</TestTimeSeconds>", ""), "TestTimeSeconds"),
        (lambda t: t.replace("<IOCount>22645</IOCount>", "<IOCount>lots</IOCount>"), "not a number"),
    ],
)
def test_xml_rejections(mutate, reason):
    with pytest.raises(ParseError, match=reason):
        diskspd_xml.parse(mutate(corpus(XML).read_text()).encode(), "x.xml")


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda t: t[: t.index("total:          20819968")], "no 'total:' line"),
        (lambda t: t[: t.index("5-nines")], "before its 'max' row"),
        (lambda t: t[: t.index("Results for timespan")], "no 'Total IO' totals"),
        (lambda t: t.replace("508.09", "5o8.09", 1), "not a number"),
    ],
)
def test_text_rejections(mutate, reason):
    with pytest.raises(ParseError, match=reason):
        diskspd_text.parse(mutate(corpus(NEW).read_text()).encode(), "x.txt")


def test_sniffers_claim_only_their_own_files():
    for p in sorted(CORPUS.rglob("*")):
        if not p.is_file() or p.name == "MANIFEST.tsv":
            continue
        got = {m.FORMAT for m in registry.sniff(p.read_bytes(), p.name)} & {"diskspd-text", "diskspd-xml"}
        expected = (
            {"diskspd-text"}
            if p.parent.name == "diskspd-text"
            else {"diskspd-xml"}
            if p.parent.name == "diskspd-xml"
            else set()
        )
        assert got == expected, p


def test_ingest_end_to_end(con):
    ingest(con, corpus(OLD), corpus(XML))
    got = q(
        con,
        """SELECT m.run_key, m.value, r.outstanding_ios FROM measurements m JOIN runs r USING (run_id)
                    WHERE m.metric = 'iops' AND m.scope = 'all' ORDER BY m.value""",
    )
    assert [(k, round(v, 2), o) for k, v, o in got] == [
        ("run1", 393.40, 64),
        ("timespan1", 3030.31, 8),
        ("run2", 50445.24, 64),
    ]
    assert q(con, "SELECT count(*) FROM diskspd_latency_percentiles")[0][0] == 30


@settings(max_examples=40, deadline=None)
@given(
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    pad=st.sampled_from(["", " ", "\t"]),
    bom=st.booleans(),
    cut=st.floats(0, 1),
)
def test_property_line_ends_padding_and_truncation(eol, pad, bom, cut):
    """Any line ends, trailing blanks and a BOM give the same numbers; a cut file is rejected or
    keeps only the whole runs before the cut."""
    text = corpus(OLD).read_text()
    want = {(s.run_key, s.scope, s.target, s.metric, s.value) for s in parse(OLD).samples}
    varied = ("\ufeff" if bom else "") + eol.join(line + pad for line in text.split("\n"))
    got = diskspd_text.parse(varied.encode(), "x.txt")
    assert {(s.run_key, s.scope, s.target, s.metric, s.value) for s in got.samples} == want
    head = text[: int(len(text) * cut)]
    try:
        part = diskspd_text.parse(head.encode(), "x.txt")
    except ParseError:
        return
    kept = {(s.run_key, s.scope, s.target, s.metric, s.value) for s in part.samples}
    assert kept <= want and all(r.status == "complete" for r in part.runs)
    assert {s.run_key for s in part.samples} == {r.key for r in part.runs}


def test_cpu_table_with_the_columns_a_big_machine_has():
    """2.2 prints Socket/Node/Group/Core/Class before CPU as the machine has them (ResultParser.cpp
    _PrintCpuUtilization); 2.0.17a-2.1 print `Group | CPU` with several processor groups. Built from
    NEW's table (same numbers), with two groups: CPU numbers repeat per group."""
    text = corpus(NEW).read_text()
    old_table = text[text.index("Core | CPU") : text.index("avg.|")]
    new_table = (
        "Socket | Group | Core | Class | CPU |  Usage |  User  | Kernel |  Idle\n"
        + "-" * 70
        + "\n      0|      0|    0|     1P|    0|   1.56%|   0.31%|   1.25%|  98.44%\n"
        "      0|      0|    0|     1P|    1|   1.56%|   0.62%|   0.93%|  98.44%\n"
        "      0|      1|    1|     0 |    0|   0.94%|   0.31%|   0.62%|  99.06%\n"
        "      0|      1|    1|     0 |    1|   0.47%|   0.00%|   0.47%|  99.53%\n" + "-" * 70 + "\n" + " " * 34
    )
    res = diskspd_text.parse(text.replace(old_table, new_table).encode(), "big.txt")
    cpu = {s.target: s.value for s in res.samples if s.metric == "cpu_util_pct" and s.scope == "processor"}
    assert cpu == {"0/0": 1.56, "0/1": 1.56, "1/0": 0.94, "1/1": 0.47}
    assert [s.value for s in res.samples if s.metric == "cpu_util_pct" and s.scope == "all"] == [1.13]


def test_interrupted_before_measuring_says_so():
    """ResultParser.cpp prints this line instead of a time span's results when DiskSpd was stopped early."""
    text = corpus(NEW).read_text()
    cut = text[: text.index("actual test time")] + (
        "The test was interrupted before the measurements began. No results are displayed.\n"
    )
    with pytest.raises(ParseError, match="interrupted before the measurements began") as e:
        diskspd_text.parse(cut.encode(), "x.txt")
    assert e.value.line == cut.count("\n")


@pytest.mark.parametrize("rel", [OLD, NEW])
def test_bom_and_no_final_line_end_is_a_whole_file(rel):
    """Issue 41: a DiskSpd capture with a BOM whose last row lost its line end was refused as cut."""
    data = corpus(rel).read_bytes()
    damaged = b"\xef\xbb\xbf" + data.rstrip(b"\r\n")
    want = sorted(map(repr, diskspd_text.parse(data, rel).samples))
    assert sorted(map(repr, diskspd_text.parse(damaged, rel).samples)) == want
    with pytest.raises(ParseError, match="cut short"):  # a last row cut inside its number still is
        diskspd_text.parse(damaged[:-1], rel)


BOM_EOL = "diskspd-text/microsoft__VirtualClient__2.0.x_write8k_bom_no_final_eol.txt"
DOUBLED = "diskspd-text/microsoft__VirtualClient__2.0.21_writeonly_doubled_backslashes_no_final_eol.txt"


def test_real_capture_with_a_bom_and_no_final_line_end():
    """Issue 41's real case: a BOM, and a last row ('    max | N/A | 3134.107 | 3134.107') with no
    line end. Values read by hand from its Total IO table: 5 targets x 23 threads x 22 I/Os."""
    data = corpus(BOM_EOL).read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.endswith(b"3134.107")
    res = parse(BOM_EOL)
    (run,) = res.runs
    assert signature(run) == (8192, 0.0, 100.0, 22, 115, 2530)
    a = values(res, "run1")
    assert (a["iops"], a["write_iops"], a["avg_latency_ms"], a["stddev_latency_ms"]) == (
        330118.77,
        330118.77,
        7.681,
        42.583,
    )
    assert a["mbps"] == pytest.approx(2579.05 * MB_PER_MIB)
    assert a["p99_9999999_write_latency_ms"] == 3134.107  # the last row, the one without its line end


def test_real_capture_with_every_backslash_doubled():
    """A JSON-escaped log's copy (`D:\\\\diskspd-test.dat` everywhere) and no final line end: the
    paths read as DiskSpd wrote them, the numbers as printed (Total IO, read by hand)."""
    assert b"D:\\\\diskspd-test.dat" in corpus(DOUBLED).read_bytes()
    res = parse(DOUBLED)
    (run,) = res.runs
    assert signature(run) == (8192, 0.0, 100.0, 16, 32, 512)  # -b8K -t32 -o16 -w100 -r8K
    assert run.description == "D:\\diskspd-test.dat"
    a = values(res, "run1")
    assert (a["iops"], a["avg_latency_ms"], a["iops_stddev"], a["stddev_latency_ms"]) == (
        76458.71,
        6.696,
        372.31,
        14.719,
    )
    assert a["mbps"] == pytest.approx(597.33 * MB_PER_MIB)


# ---- DiskSpd for Linux, built and run here (tests/corpus/MANIFEST.tsv), and every text checked against itself

LINUX = "diskspd-text/tool-written__diskspd-for-linux-aa21cf9__"


def test_linux_port_layout_rate_capped():
    """DiskSpd for Linux's own report (result_formatter.cc): `System info:`, `job:`, `Results for job N:`,
    `test time: 3s`, an IO Wait CPU column, `AvgLat(ms)`. Each thread-target pair was held to 1000 IO/s (-g)."""
    res = parse(LINUX + "t2_2targets_L_D_w30_capped.txt")
    (run,) = res.runs
    assert signature(run) == (4096, 70.0, 100.0, 2, 4, 8)  # -b4K -w30 -r -t2 x 2 targets -o2
    a = values(res, "run1")
    assert a["test_time_s"] == 3 and a["iops"] == 4000.00 and a["ios"] == 12000  # 4 x 1000 IO/s
    assert a["read_iops"] + a["write_iops"] == pytest.approx(a["iops"], abs=0.02)
    assert a["avg_latency_ms"] == 2.015 and a["cpu_wait_pct"] == 0.0 and a["cpu_util_pct"] == 100.0
    rows = values(res, "run1", "worker", "thread 3: f2.dat")
    assert rows["iops"] == 1000.33 and rows["iops_stddev"] == 0.0 and rows["ios"] == 3001
    assert values(res, "run1", "target", "f1.dat")["iops"] == pytest.approx(1999.67)
    # the Total (ms) percentiles of four pairs are the writer's double merge (its 90th, 2.615, lies above
    # both the read's 2.503 and the write's 2.599: no merge of the two gives that): kept, not samples
    assert "p90_latency_ms" not in a and a["p90_read_latency_ms"] == 2.503 and a["max_latency_ms"] == 60.078
    assert "weigh the first pairs several times" in res.notes[0]
    pct = {r["percentile"]: r["total_ms"] for r in res.tables["diskspd_latency_percentiles"]}
    assert pct["90th"] == 2.615


def test_linux_port_threads_and_no_latency():
    one = parse(LINUX + "t1_seqread_noL_capped.txt")
    assert signature(one.runs[0]) == (65536, 100.0, 0.0, 4, 1, 4)
    assert values(one, "run1")["iops"] == 1000.50 and "diskspd_latency_percentiles" not in one.tables
    f2 = parse(LINUX + "F2_2targets_L_write_capped.txt")  # -F2: both threads on both targets
    assert signature(f2.runs[0]) == (8192, 0.0, 0.0, 1, 4, 4)
    single = parse(LINUX + "t1_randrw50_L_capped.txt")  # one pair: the Total column is the run's
    assert values(single, "run1")["p50_latency_ms"] == 2.094 and single.notes == []


THREAD_ROW = {  # a thread row of each real layout, and what its deletion leaves
    NEW: "     3 |",
    OLD: "     1 |",
    LINUX + "t2_2targets_L_D_w30_capped.txt": "     2 |",
}


@pytest.mark.parametrize("rel", sorted(THREAD_ROW))
def test_a_deleted_thread_row_is_refused_naming_the_total_line(rel):
    """A thread row deleted: its table's `total:` line no longer sums the rows (the sum iolab stored per
    target before would have been a number the file never states)."""
    lines = corpus(rel).read_bytes().splitlines(keepends=True)
    cut = next(
        i for i, x in enumerate(lines) if x.decode("utf-8", "replace").lstrip("\ufeff").startswith(THREAD_ROW[rel])
    )
    total = next(i for i in range(cut, len(lines)) if lines[i].lstrip().startswith(b"total:"))
    with pytest.raises(ParseError, match=r"bytes of its rows: the file states \d+ but its parts give \d+") as e:
        diskspd_text.parse(b"".join(lines[:cut] + lines[cut + 1 :]), rel)
    assert e.value.line == total  # the total line, one up once the row is gone


@pytest.mark.parametrize(
    "old, new, reason",
    [
        (b"|         3000 |", b"|         3001 |", "I/Os of its rows"),  # a count edited
        (
            b"|    1000.00 |       3.27 |",
            b"|    1010.00 |       3.27 |",
            "iops against 3000 over 3.0 s",
        ),  # a rate edited
    ],
)
def test_an_edited_row_is_refused(old, new, reason):
    raw = corpus(LINUX + "t2_2targets_L_D_w30_capped.txt").read_bytes()
    assert raw.count(old) >= 1
    with pytest.raises(ParseError, match=reason):
        diskspd_text.parse(raw.replace(old, new, 1), "x")


def test_xml_counts_checked_against_themselves():
    raw = corpus(XML).read_bytes()
    with pytest.raises(ParseError, match="IOCount: ReadCount \\+ WriteCount"):
        diskspd_xml.parse(raw.replace(b"<IOCount>22645</IOCount>", b"<IOCount>22646</IOCount>"), "x")
    start = raw.index(b"<Thread>")
    end = raw.index(b"</Thread>", start) + len(b"</Thread>")
    with pytest.raises(ParseError, match="ThreadCount, <Thread>s: the file states 4 but its parts give 3"):
        diskspd_xml.parse(raw[:start] + raw[end:], "x")
