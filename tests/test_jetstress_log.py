"""Jetstress text log / JetstressCmd console: the real start-up transcript and a handmade full test log."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import registry
from iolab.formats import jetstress, jetstress_log
from iolab.model import ParseError, split_lines
from tests.conftest import CORPUS, FIXTURES, corpus, ingest, q

FIRST_RUN = "jetstress-log/ghps-unidentified__jetstresscmd_first_run_console.txt"
HANDMADE = FIXTURES / "jetstress-log" / "handmade-jetstresscmd-2013-performance.txt"


def test_real_first_run_transcript_is_read_then_rejected_for_having_no_test():
    data = corpus(FIRST_RUN).read_bytes()
    events = jetstress_log._events(split_lines(data.decode()))
    test = jetstress_log._test_row(events)
    assert (test["jetstress_edition"], test["jetstress_version"], test["ese_version"], test["ese_perflib_version"]) == (
        "2013",
        "15.00.0995.000",
        "15.00.0995.021",
        "15.00.0995.021",
    )  # perflib line wrapped after "detect"
    assert (test["operating_system"], test["os_version"]) == ("Windows Server 2012 R2 Standard", "6.2.9200.0")
    assert (test["started_at"], test["ended_at"]) == (
        datetime(2019, 6, 3, 19, 41, 47),
        datetime(2019, 6, 3, 19, 43, 10),
    )
    untimed = [e["message"] for e in events if e["kind"] == "untimed"]
    assert untimed[0] == "ed." and "This process will restart itself within 5 seconds." in untimed
    assert len(events) == 15 and sum(e["logged_at_text"] is not None for e in events) == 9
    with pytest.raises(ParseError, match="engine start-up only"):
        jetstress_log.parse(data, FIRST_RUN)


def test_handmade_full_log_values_and_samples():
    res = jetstress_log.parse(HANDMADE.read_bytes(), HANDMADE.name)
    (run,) = res.runs
    assert (run.key, run.status, run.tool_version, run.started_at, run.ended_at) == (
        "Performance",
        "pass",
        "15.00.0995.000",
        datetime(2014, 6, 11, 9, 10, 2),
        datetime(2014, 6, 11, 11, 10, 35),
    )
    got = {(s.scope, s.metric, s.target): s.value for s in res.samples}
    assert got[("instance", "db_read_latency_ms", "Instance3160.2")] == 13.0
    assert got[("instance", "log_write_latency_ms", "Instance3160.1")] == 1.2
    assert got[("test", "achieved_iops", None)] == 1023.456  # '1,023.456': thousands separator
    assert got[("test", "target_iops", None)] == 800.0
    assert got[("test", "test_passed", None)] == 1.0
    assert got[("test", "max_db_page_fault_stalls_per_s", None)] == 0.0
    assert len(res.samples) == 10
    vals = {(v["name"], v["target"]): (v["value"], v["unit"]) for v in res.tables["jetstress_log_values"]}
    assert vals[("Database read latency threshold maximum", None)] == (100.0, "ms")
    assert vals[("Lazy Commits", None)] == (70.0, "%") and vals[("Sessions", None)] == (8.0, "count")
    assert vals[("Database cache settings maximum", None)] == (1.0, "GB")
    assert vals[("performance logging interval", None)] == (15000.0, "ms")
    kinds = {e["message"]: e["kind"] for e in res.tables["jetstress_log_events"]}
    assert kinds["Creating test report ..."] == "phase" and kinds["Operation mode is Performance."] == "setting"


def test_2007_volume_lines_seconds_to_ms():
    text = (
        "10/16/2009 2:55:37 PM -- Creating test report ...\n"
        "10/16/2009 2:55:40 PM -- Volume E: has 0.0150 for Avg. Disk sec/Read.\n"
        "10/16/2009 2:55:40 PM -- Volume F: has 0.0004 for Avg. Disk sec/Write.\n"
        "10/16/2009 2:55:40 PM -- Test has 0 Maximum Database Page Fault Stalls/sec.\n"
    )
    res = jetstress_log.parse(text.encode(), "log.txt")
    got = {(s.metric, s.target): s.value for s in res.samples}
    assert got[("avg_read_latency_ms", "Volume E:")] == pytest.approx(15.0)
    assert got[("avg_write_latency_ms", "Volume F:")] == pytest.approx(0.4)
    assert res.runs[0].status is None  # no verdict line: none invented


@pytest.mark.parametrize(
    "text, reason",
    [
        ("hello\nworld\n", "not a Jetstress log"),
        (
            "6/11/2014 9:10:03 AM -- Preparing for testing ...\n6/11/2014 9:10:12 AM -- Attaching databases ...\n",
            "no result lines",
        ),
        ("6/11/2014 11:10:35 AM -- Overall Test Result: Maybe\n", "expected Pass or Fail"),
    ],
)
def test_rejections(text, reason):
    with pytest.raises(ParseError, match=reason):
        jetstress_log.parse(text.encode(), "x.log")


def test_sniff_claims_logs_not_the_html_report():
    assert [m.FORMAT for m in registry.sniff(HANDMADE.read_bytes(), "x.txt")] == ["jetstress-log"]
    html = next(FIXTURES.glob("jetstress/*.html")).read_bytes()
    assert [m.FORMAT for m in registry.sniff(html, "x.html")] == [jetstress.FORMAT]


def test_sniffers_claim_only_their_own_files():
    for p in sorted(CORPUS.rglob("*")):
        if p.is_file() and p.name != "MANIFEST.tsv":
            got = {m.FORMAT for m in registry.sniff(p.read_bytes(), p.name)} & {"jetstress-log"}
            assert got == ({"jetstress-log"} if p.parent.name == "jetstress-log" else set()), p


def test_ingest_end_to_end(con, tmp_path):
    f = tmp_path / HANDMADE.name
    f.write_bytes(HANDMADE.read_bytes())
    rep = ingest(con, f, corpus(FIRST_RUN))
    assert sorted(o.status for o in rep.outcomes) == ["ingested", "rejected"]
    assert q(con, "SELECT value FROM measurements WHERE metric = 'achieved_iops'") == [(1023.456,)]
    assert q(con, "SELECT count(*), count(logged_at) FROM jetstress_log_events") == [(36, 36)]
    assert q(con, "SELECT verdict, operation_mode FROM jetstress_log_tests") == [("Pass", "Performance")]


@settings(max_examples=40, deadline=None)
@given(eol=st.sampled_from(["\n", "\r\n", "\r"]), cut=st.integers(0, 36))
def test_property_any_prefix_loads_exactly_or_is_rejected(eol, cut):
    lines = HANDMADE.read_text().splitlines()[:cut]
    try:
        res = jetstress_log.parse(eol.join(lines).encode(), "x.txt")
    except ParseError as e:
        assert e.reason
        return
    assert res.samples and all(s.line_no <= cut for s in res.samples)


def test_utf16_console_redirect_reads_the_same():
    """PowerShell's `> out.txt` writes UTF-16 with a byte-order mark."""
    text = HANDMADE.read_text().replace("\n", "\r\n")
    res = jetstress_log.parse(b"\xff\xfe" + text.encode("utf-16-le"), "out.txt")
    assert [m.FORMAT for m in registry.sniff(b"\xff\xfe" + text.encode("utf-16-le"), "out.txt")] == ["jetstress-log"]
    assert {s.metric: s.value for s in res.samples if s.scope == "test"}["achieved_iops"] == 1023.456
