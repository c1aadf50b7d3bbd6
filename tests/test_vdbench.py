"""vdbench summary.html, totals.html and flatfile.html: every corpus file, values checked by hand."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import registry
from iolab.formats import vdbench_flatfile, vdbench_summary
from iolab.model import MB_PER_MIB, ParseError
from tests.conftest import CORPUS, corpus, ingest, q

SUM_SD = "vdbench-summary/TheOtherOtherOperation__vdbconvert__50401_sd_3rd.summary.html"
SUM_FSD = "vdbench-summary/hero0906__jiaoben__50406_fsd.summary.html"
TOT_SD = "vdbench-totals/TheOtherOtherOperation__vdbconvert__50401_sd_3rd.totals.html"
TOT_CUT = "vdbench-totals/hero0906__jiaoben__50406_fsd_truncated.totals.html"
TOT_FSD = "vdbench-totals/masakioui__vdb__50407_fsd.totals.html"
FF_SD = "vdbench-flatfile/TheOtherOtherOperation__vdbconvert__50401_sd.flatfile.html"
FF_FSD = "vdbench-flatfile/hero0906__jiaoben__50406_fsd.flatfile.html"
FF_SD7 = "vdbench-flatfile/masakioui__vdb__50407_sd.flatfile.html"
FF_ABORTED = "vdbench-flatfile/masakioui__vdb__50407_aborted_empty.flatfile.html"


def parse(rel):
    mod = vdbench_flatfile if "flatfile" in rel else vdbench_summary
    return mod.parse(corpus(rel).read_bytes(), rel)


def values(res, key):
    return {s.metric: s.value for s in res.samples if s.run_key == key and s.scope == "all"}


def signature(run):
    return (run.block_size_bytes, run.read_pct, run.random_pct, run.queue_depth, run.workers, run.outstanding_ios)


@pytest.mark.parametrize("rel", [SUM_SD, TOT_SD])
def test_sd_summary_and_totals_agree(rel):
    res = parse(rel)
    assert [(r.workload, r.status) for r in res.runs] == [("rd1", "complete"), ("rd2", "complete"), ("rd3", "complete")]
    # For loops: threads=2; bytes i/o 4096; no rdpct/seekpct setting and observed read pct 75.91: unknown
    assert [signature(r) for r in res.runs] == [(4096, None, None, 1, 2, 2)] * 3
    a = values(
        res, "run1"
    )  # 13:50:00.270  avg_2-60  50.02  0.20  4096  75.91  5.395  6.944  0.516  96.066  10.097  0.3  1.2  0.2
    assert (a["iops"], a["read_pct"], a["avg_latency_ms"], a["avg_read_latency_ms"], a["avg_write_latency_ms"]) == (
        50.02,
        75.91,
        5.395,
        6.944,
        0.516,
    )
    assert (
        a["max_latency_ms"],
        a["stddev_latency_ms"],
        a["avg_queue_depth"],
        a["cpu_util_pct"],
        a["cpu_privileged_pct"],
    ) == (96.066, 10.097, 0.3, 1.2, 0.2)
    assert a["mbps"] == pytest.approx(0.20 * 1.048576)
    assert values(res, "run3")["iops"] == 310.05 and values(res, "run2")["max_latency_ms"] == 209.282
    settings_rows = [
        r for r in res.tables["vdbench_values"] if r["interval"] == "(settings)" and r["run_key"] == "run1"
    ]
    assert {r["column_name"]: r["text"] for r in settings_rows} == {"I/O rate": "50", "elapsed": "60", "threads": "2"}


def test_summary_keeps_every_interval():
    rows = parse(SUM_SD).tables["vdbench_values"]
    iv = [r for r in rows if r["run_key"] == "run1" and r["interval"] == "7"]
    assert {r["column_name"]: r["value"] for r in iv}["resp time"] == 10.093  # 13:49:07.121  7  46.00 ... 10.093
    assert len({(r["run_key"], r["interval"]) for r in rows if r["interval"] != "(settings)"}) == 3 * 61


def test_mb_is_mebibytes():
    """The header says 1024**2; 50407 FSD totals: 1104872 ops/s x 4093 bytes = 4313 MiB/s, not 4522 MB."""
    assert round(1104872 * 4093 / 2**20) == 4313
    a = values(parse(TOT_FSD), "run1")
    assert a["read_mbps"] == pytest.approx(4313 * MB_PER_MIB) and a["mbps"] == pytest.approx(4313.7 * 1.048576)
    assert (a["iops"], a["read_iops"], a["avg_read_latency_ms"], a["read_pct"], a["cpu_util_pct"]) == (
        1104872,
        1104872,
        0.115,
        100.0,
        1.3,
    )
    assert "avg_write_latency_ms" not in a  # write rate 0.0: its 0.000 response time is no value


def test_fsd_run_killed_before_its_avg_line():
    for rel in (SUM_FSD, TOT_CUT):
        res = parse(rel)
        assert [(r.workload, r.status) for r in res.runs] == [("format_for_rd1", "complete"), ("rd1", "unterminated")]
        assert {s.run_key for s in res.samples} == {"run1"}
        assert "avg_latency_ms" not in values(res, "run1")  # format RD: no I/O, 0.000 is no value
        assert values(res, "run1")["cpu_util_pct"] == 2.6
    rows = parse(SUM_FSD).tables["vdbench_values"]
    last = {r["column_name"]: r["value"] for r in rows if r["interval"] == "287"}
    assert (last["ReqstdOps rate"], last["mb/sec total"], last["open resp"]) == (99.2, 19.38, 112.80)


def test_flatfile_sd_runs_and_series():
    res = parse(FF_SD)
    assert [signature(r) for r in res.runs] == [(4096, 75.0, 100.0, 1, 2, 2)] * 3
    a = values(res, "run1")  # 13:50:00.278  rd1  avg_2-60  50.0000  50.0169  0.1954 ...
    assert a["iops"] == 50.0169 and a["mbps"] == pytest.approx(0.1954 * MB_PER_MIB) and a["read_pct"] == 75.9065
    assert len(res.tables["series_samples"]) == 180  # 3 RDs x 60 intervals; avg lines are not points
    rate = next(s for s in res.series if s.instance == "run1 rd1" and s.counter == "rate")
    pts = res.points.filter(res.points["series_key"] == rate.key)["value"].to_list()
    assert pts[:3] == [30.0, 46.0, 66.0] and len(pts) == 60 and rate.metric == "iops"
    mb = next(s for s in res.series if s.instance == "run1 rd1" and s.counter == "mb/sec")
    assert res.points.filter(res.points["series_key"] == mb.key)["value"][0] == pytest.approx(0.1172 * MB_PER_MIB)


def test_flatfile_50407_single_space_and_fsd():
    res = parse(FF_SD7)
    (run,) = res.runs
    assert signature(run) == (512, 0.0, 100.0, 1, 8, 8)  # xfersize 512, rdpct 0, seekpct 100, threads 8
    a = values(res, "run1")
    assert a["iops"] == 15773.1017 and a["max_write_latency_ms"] == 860.022 and a["avg_queue_depth"] == 15.921
    assert "avg_read_latency_ms" not in a  # read% 0
    assert res.tables["series_samples"][0]["ts"].isoformat() == "2019-03-08T18:11:39"
    fsd = parse(FF_FSD)
    assert [(r.workload, r.status) for r in fsd.runs] == [("format_for_rd1", "complete"), ("rd1", "unterminated")]
    assert len(fsd.tables["series_samples"]) == 1 + 287


def test_aborted_flatfile_is_rejected():
    with pytest.raises(ParseError, match="aborted run: flatfile has no data"):
        parse(FF_ABORTED)


@pytest.mark.parametrize(
    "rel, mutate, reason",
    [
        (TOT_SD, lambda t: t.replace("  50.02 ", "  5O.02 ", 1), "not a number"),
        (TOT_SD, lambda t: t.replace("   0.3   1.2   0.2", "   0.3   1.2", 1), "header names"),
        (TOT_SD, lambda t: t[: t.index("Apr 08")], "no interval or avg_ lines"),
        (FF_SD, lambda t: t.replace("rd1          7 ", "rd1          7 8 ", 1), "values, the header"),
        (FF_SD, lambda t: t.replace("rd1   avg_2-60", "rd1   xvg_2-60", 1), "neither a number"),
    ],
)
def test_bad_files(rel, mutate, reason):
    with pytest.raises(ParseError, match=reason):
        (vdbench_flatfile if "flatfile" in rel else vdbench_summary).parse(
            mutate(corpus(rel).read_text()).encode(), "x"
        )


def test_sniffers_claim_only_their_own_files():
    mine = {"vdbench-summary", "vdbench-flatfile"}
    own = {
        "vdbench-summary": "vdbench-summary",
        "vdbench-totals": "vdbench-summary",
        "vdbench-flatfile": "vdbench-flatfile",
    }
    for p in sorted(CORPUS.rglob("*")):
        if p.is_file() and p.name != "MANIFEST.tsv":
            got = {m.FORMAT for m in registry.sniff(p.read_bytes(), p.name)} & mine
            assert got == ({own[p.parent.name]} if p.parent.name in own else set()), p


def test_ingest_end_to_end(con):
    ingest(con, corpus(TOT_SD), corpus(FF_SD7))
    got = q(
        con,
        """SELECT m.format, round(m.value, 4), r.outstanding_ios FROM measurements m JOIN runs r USING (run_id)
                    WHERE m.metric = 'iops' AND m.scope = 'all' ORDER BY m.value""",
    )
    assert got == [
        ("vdbench-summary", 50.02, 2),
        ("vdbench-summary", 212.42, 2),
        ("vdbench-summary", 310.05, 2),
        ("vdbench-flatfile", 15773.1017, 8),
    ]
    assert q(con, "SELECT count(*) FROM series_points")[0][0] == parse(FF_SD7).points.height


@settings(max_examples=30, deadline=None)
@given(
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    rel=st.sampled_from([SUM_SD, TOT_FSD, FF_SD, FF_SD7]),
    cut=st.floats(0, 1),
)
def test_property_line_ends_and_truncation(eol, rel, cut):
    """Line ends do not change the numbers; a cut file is rejected, or its last run says it has no avg line."""
    mod = vdbench_flatfile if "flatfile" in rel else vdbench_summary
    text = corpus(rel).read_text()
    want = {(s.run_key, s.metric, s.value) for s in parse(rel).samples}
    assert {(s.run_key, s.metric, s.value) for s in mod.parse(eol.join(text.split("\n")).encode(), "x").samples} == want
    head = "\n".join(text.split("\n")[: int(text.count("\n") * cut)]) + "\n"  # whole lines
    try:
        part = mod.parse(head.encode(), "x")
    except ParseError:
        return
    assert {(s.run_key, s.metric, s.value) for s in part.samples} <= want
    assert all(r.status == "complete" or not any(s.run_key == r.key for s in part.samples) for r in part.runs)


FIX = CORPUS.parent / "fixtures" / "vdbench-summary"
# handmade from SUM_SD: its first 100 lines (a copy taken while rd1 ran: 24 intervals, no avg_ line)
UNFINISHED = FIX / "handmade-unfinished_only_rd_50401_sd.summary.html"
# handmade from SUM_SD: each 'Apr 08, 2016' header date as a zh_CN JVM prints it ('4月 08, 2016')
ZH = FIX / "handmade-zh_CN_50401_sd_3rd.summary.html"


def test_unfinished_run_loads_its_intervals_as_series_not_averages():
    res = vdbench_summary.parse(UNFINISHED.read_bytes(), UNFINISHED.name)
    assert [(r.workload, r.status) for r in res.runs] == [("rd1", "unterminated")]
    assert list(res.samples) == []  # no avg_ line: no averages are made up
    iops = next(s for s in res.series if s.counter == "i/o rate")
    assert (iops.object, iops.metric, iops.unit) == ("vdbench RD", "iops", "IO/s")
    pts = res.points.filter(res.points["series_key"] == iops.key)["value"].to_list()
    assert len(pts) == 24 and pts[0] == 30.0 and pts[-1] == 49.0  # intervals 1..24 as printed (lines 77-100)
    mbps = next(s for s in res.series if s.counter == "mb/sec 1024**2")
    assert res.points.filter(res.points["series_key"] == mbps.key)["value"][-1] == pytest.approx(0.19 * MB_PER_MIB)
    assert [r["ts_text"] for r in res.tables["series_samples"]][-1] == "13:49:24.106"


def test_real_unfinished_fsd_run_keeps_its_intervals():
    res = parse(SUM_FSD)  # rd1 ran 287 intervals and the file has no avg_ line for it
    rd1 = {s.counter: s for s in res.series}
    assert {s.instance_id for s in res.series} == {"run2"}  # the finished run's numbers are its avg line
    pts = res.points.filter(res.points["series_key"] == rd1["reqstdops rate"].key)["value"].to_list()
    assert len(pts) == 287 and pts[-1] == 99.2


def test_unfinished_run_is_said_at_ingest(con):
    rep = ingest(con, UNFINISHED)
    assert [o.status for o in rep.outcomes] == ["ingested"]
    assert "1 of its 1 runs did not finish (run1 (rd1)): the file has no summary line" in rep.warnings[0]
    assert q(con, "SELECT status FROM runs") == [("unterminated",)]
    assert q(con, "SELECT count(*) FROM series_points")[0][0] == 24 * 12  # 24 intervals x 12 numeric columns


def test_localized_header_date_reads_the_same():
    zh = vdbench_summary.parse(ZH.read_bytes(), ZH.name)
    assert sorted(map(repr, zh.samples)) == sorted(map(repr, parse(SUM_SD).samples))
    assert values(zh, "run3")["iops"] == 310.05


# Written by vdbench 50406 built here from itfanr/vdbench and run under a non-English JVM locale
# (tests/corpus/MANIFEST.tsv): the summary/totals print the locale's month and decimal sign,
# the flatfile of the same run does not. Summary decimals printed per column (-> tolerance).
LOCALIZED = {
    "zh_CN": ("11月 27, 2026", 1722.0, 0.008),  # '1722.00 ... 0.008'
    "de_DE": ("Nov. 27, 2026", 1812.67, 0.010),  # '1812,67 ... 0,010'
}
PRINTED = {
    "iops": 2,
    "mbps": 2,
    "read_pct": 2,
    "avg_latency_ms": 3,
    "avg_read_latency_ms": 3,
    "avg_write_latency_ms": 3,
    "max_latency_ms": 3,
    "stddev_latency_ms": 3,
}


def _tool_written(loc, kind):
    return f"vdbench-{kind}/tool-written__itfanr-vdbench50406__{loc}.{kind}.html"


@pytest.mark.parametrize("kind", ["summary", "totals"])
@pytest.mark.parametrize("loc", sorted(LOCALIZED))
def test_localized_tool_written_run_equals_its_flatfile(loc, kind):
    date, iops, resp = LOCALIZED[loc]
    rel = _tool_written(loc, kind)
    assert date in corpus(rel).read_text(encoding="utf-8")
    res, flat = parse(rel), parse(_tool_written(loc, "flatfile"))
    assert [(r.workload, r.status) for r in res.runs] == [("SD_format", "complete"), ("rd1", "complete")]
    # the summary knows only the RD line's settings (none here); the flatfile prints the workload's
    assert [r.block_size_bytes for r in res.runs] == [r.block_size_bytes for r in flat.runs] == [131072, 4096]
    got, want = values(res, "run2"), values(flat, "run2")
    assert (got["iops"], got["avg_latency_ms"]) == (iops, resp)
    for metric, places in PRINTED.items():
        scale = MB_PER_MIB if metric == "mbps" else 1
        # the summary rounds to its printed places, the flatfile to 4: both roundings apart at most
        assert got[metric] == pytest.approx(want[metric], abs=scale * (0.5 * 10**-places + 0.5e-4) + 1e-9), metric


# ---- issue 55: the older flatfile with Solaris kstat columns; the header date's width; avg lines checked

FF_KSTAT = "vdbench-flatfile/jfritzen__VdbenchExplorer__kstat_solaris.flatfile.html"


def test_older_flatfile_with_kstat_columns():
    """vdbench 5.0x before the `'flatfile.html' contains` note: the column notes, then `tod Run Interval
    reqrate ... ks_rate ... cpu_idle`. Columns are read by name: the kstat ones stay series of their own."""
    raw = corpus(FF_KSTAT).read_bytes()
    assert registry.claim(raw[: registry.HEAD_BYTES], "flatfile.html").module is vdbench_flatfile
    res = parse(FF_KSTAT)
    assert [r.workload for r in res.runs][:2] == ["random_write_max_4k", "random_write_max_8k"] and len(res.runs) == 8
    assert signature(res.runs[0]) == (4096, 0.0, 100.0, 1, 8, 8)
    v = values(res, "run1")  # 10:57:09.037 random_write_max_4k avg_2-10 999988.0000 327.4444 1.2791 4096 0.0000 23.9089
    assert (v["iops"], v["avg_latency_ms"], v["cpu_idle_pct"]) == (327.4444, 23.9089, 99.4233)
    assert v["mbps"] == pytest.approx(1.2791 * MB_PER_MIB)
    kstat = {s.counter for s in res.series if s.counter.startswith("ks_")}
    assert len(kstat) == 10 and all(s.metric is None for s in res.series if s.counter.startswith("ks_"))


def _rows(res) -> list:
    t = res.tables["vdbench_values"]
    return t if isinstance(t, list) else t.to_pylist()


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz.月四十一ÔÂ", min_size=1, max_size=12))
def test_a_header_date_of_any_width_reads_the_same(month):
    """vdbench prints the header's first line as the date then its words and the second line as twelve
    spaces then its own: in a locale whose month is not three characters wide the lines shift. Every
    column keeps its interval values, in the SD and the FSD layouts."""
    for rel, date in ((SUM_SD, "Apr 08, 2016"), (SUM_FSD, "Apr 20, 2021")):
        raw = corpus(rel).read_text(encoding="utf-8")
        base, res = parse(rel), vdbench_summary.parse(raw.replace(date, f"{month} 08, 2016").encode(), rel)
        assert sorted(map(repr, res.samples)) == sorted(map(repr, base.samples))
        assert _rows(res) == _rows(base)  # every interval's every column


@pytest.mark.parametrize("rel", [SUM_SD, FF_SD, FF_KSTAT])
def test_avg_lines_are_checked_against_their_intervals(rel):
    """An interval line deleted, or one edited, leaves the avg_ line no longer their mean: refused."""
    lines = corpus(rel).read_bytes().splitlines(keepends=True)
    i = next(n for n, x in enumerate(lines) if re.match(rb"^\d\d:\d\d:\d\d\.\d{3}\s+\S*\s*5 ", x))
    with pytest.raises(ParseError, match="interval 5 is not in the file"):
        (vdbench_flatfile if "flatfile" in rel else vdbench_summary).parse(b"".join(lines[:i] + lines[i + 1 :]), rel)
    parts = lines[i].split()
    rate = parts[4] if "flatfile" in rel else parts[2]  # flatfile: tod Run Interval reqrate rate; summary: tod N rate
    edited = lines[i].replace(rate, str(float(rate) + 50).encode(), 1)
    with pytest.raises(ParseError, match="against the mean of its intervals"):
        (vdbench_flatfile if "flatfile" in rel else vdbench_summary).parse(
            b"".join(lines[:i] + [edited] + lines[i + 1 :]), rel
        )


def test_avg_of_the_last_warmup_interval_too():
    """vdbench adds an interval to the run's totals in its asynchronous reporting once the warmup is over,
    so the last warmup interval can be in them: the tool-written zh_CN run's `avg_2-3` is 1722.00, the
    mean of intervals 1-3 (1252, 1998, 1916), not of 2-3. Read as written; a mean of neither is refused."""
    rel = "vdbench-summary/tool-written__itfanr-vdbench50406__zh_CN.summary.html"
    assert values(parse(rel), "run2")["iops"] == 1722.0
    raw = corpus(rel).read_bytes().replace(b"   avg_2-3    1722.00", b"   avg_2-3    1800.00")
    with pytest.raises(ParseError, match="i/o rate against the mean of its intervals: the file states 1800"):
        vdbench_summary.parse(raw, rel)
