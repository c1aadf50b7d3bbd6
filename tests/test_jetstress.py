"""Jetstress HTML reports and JetstressConfig.xml."""

from __future__ import annotations

import pytest

from iolab.formats import jetstress, jetstress_config
from iolab.model import ParseError
from tests.conftest import FIXTURES, corpus

# Hand-made: rebuilt from the ESG DS5020 transcription by tests/fixtures/jetstress/reconstruct_esg_report.py
RECONSTRUCTED = FIXTURES / "jetstress" / "Performance_2009_10_16_11_49_42_RECONSTRUCTED-esg-ds5020-js01.html"


def test_reconstructed_fixture_is_current():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, str(FIXTURES / "jetstress" / "reconstruct_esg_report.py")], capture_output=True, check=True
    ).stdout
    assert out == RECONSTRUCTED.read_bytes()


def test_esg_report_values():
    res = jetstress.parse(RECONSTRUCTED.read_bytes(), RECONSTRUCTED.name)
    s = {(x.scope, x.target, x.metric): x.value for x in res.samples}
    assert s[("test", None, "achieved_iops")] == 1101.114
    assert s[("test", None, "target_iops")] == 1140
    assert s[("volume", "Database (E:)", "db_read_latency_ms")] == 15.0  # 0.015 s/read
    assert s[("volume", "Database (E:)", "db_write_latency_ms")] == 10.0
    assert s[("volume", "Database (E:)", "db_read_iops")] == 616.046
    assert s[("volume", "Log (F:)", "log_write_iops")] == 236.662
    assert s[("volume", "Log (F:)", "log_write_bytes_avg")] == 6155.408
    assert ("volume", "Database (E:)", "db_write_bytes_avg") not in s  # "(n/a)" is absent, not zero
    assert s[("test", None, "db_size_initial_bytes")] == 1025034043392
    assert s[("host", "JS-01", "cpu_util_pct")] == 2.633
    run = res.runs[0]
    assert (run.status, run.tool_version, run.test_type) == ("pass", "08.02.0060.000", "Performance")
    assert str(run.started_at) == "2009-10-16 11:49:39" and str(run.ended_at) == "2009-10-16 13:51:50"
    assert len(res.tables["jetstress_log"]) == 16
    assert res.tables["jetstress_log"][-1]["message"].endswith("has 479 samples queried.")


def _report_2010(verdict="Fail", lat="25.312"):
    """Hand-written 2010-style report (Transactional I/O Performance per instance, msec)."""
    return f"""<html><body><h2>Stress Test Result Report</h2>
<fieldset><legend>Test Summary</legend><table>
<tr><td class="grid_row_header">Overall Test Result</td>
<td>{verdict}</td></tr></table></fieldset>
<fieldset><legend>Database Sizing and Throughput</legend><table>
<tr><td class="grid_row_header">Achieved Transactional I/O per Second</td>
<td></td></tr></table></fieldset>
<fieldset><legend>Transactional I/O Performance</legend><table>
<tr><th>MSExchange Database ==> Instances</th><th>I/O Database Reads Average Latency (msec)</th><th>I/O Log Writes/sec</th></tr>
<tr><td>Instance1234.1</td><td>{lat}</td><td>80.5</td></tr></table></fieldset></body></html>""".encode()


def test_2010_instance_grid_and_fail_verdict():
    res = jetstress.parse(_report_2010(), "Stress_2015_7_17_14_9_16.html")
    s = {(x.scope, x.target, x.metric): x.value for x in res.samples}
    assert s[("instance", "Instance1234.1", "db_read_latency_ms")] == 25.312
    assert s[("instance", "Instance1234.1", "log_write_iops")] == 80.5
    assert s[("test", None, "test_passed")] == 0.0
    assert ("test", None, "achieved_iops") not in s  # empty cell: absent
    assert res.runs[0].status == "fail" and res.runs[0].test_type == "Stress"


@pytest.mark.parametrize(
    "data, reason",
    [
        (_report_2010(verdict="Maybe"), "expected Pass or Fail"),
        (_report_2010(lat="12,5"), "not a number"),
        (_report_2010().replace(b"Overall Test Result", b"Something"), "Overall Test Result"),
        (_report_2010().replace(b"Stress Test Result Report", b"Report"), "title"),
        (_report_2010().replace(b"<td>80.5</td>", b""), "cells"),
        (b"<html><body>Jetstress</body></html>", "no <fieldset>"),
    ],
)
def test_bad_reports(data, reason):
    with pytest.raises(ParseError, match=reason):
        jetstress.parse(data, "x.html")


def test_cut_reconstructed_report_is_rejected():
    data = RECONSTRUCTED.read_bytes()
    with pytest.raises(ParseError):
        jetstress.parse(data[:600], "x.html")


def test_config_xml_corpus():
    res = jetstress_config.parse(
        corpus("jetstress/jacobklitzke__JetstressConfig.xml").read_bytes(), "JetstressConfig.xml"
    )
    assert res.tool_version == "15.0.995.0"
    th = {t["name"]: t for t in res.tables["jetstress_thresholds"]}
    assert th["Strict"]["avg_db_read_latency_ms"] == 20 and th["Strict"]["avg_log_write_latency_ms"] == 10
    assert th["Lenient"]["max_db_read_latency_ms"] == 200 and th["Lenient"]["test_run_types"] == "Stress"
    cfg = {r["path"]: r["value_text"] for r in res.tables["jetstress_config"]}
    assert cfg["/configuration/TestDesignInfo/Duration"] == "P0Y0M0DT2H0M0S"
    assert cfg["/configuration/ExchangeProfile/ThreadCount"] == ""  # empty element, kept empty
    assert cfg["/configuration/TestDesignInfo/OperationMix/@InsertOps"] == "40"
    assert cfg["/configuration/JetSystemParams/DatabasePageSize"] == "32768"
    assert res.samples == [] and res.runs == []


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda b: b[:500], "well-formed"),
        (lambda b: b.replace(b"P0Y0M0DT2H0M0S", b"two hours"), "ISO-8601"),
        (
            lambda b: b.replace(b'<?xml version="1.0"?>', b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]>'),
            "ENTITY",
        ),
    ],
)
def test_bad_config(mutate, reason):
    data = corpus("jetstress/jacobklitzke__JetstressConfig.xml").read_bytes()
    with pytest.raises(ParseError, match=reason):
        jetstress_config.parse(mutate(data), "JetstressConfig.xml")
