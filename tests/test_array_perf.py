"""Array performance statistics: support-bundle counters (real MD3000i/MD3200i files) and the
Performance Monitor CSV (hand-made fixtures in its documented shape); ties to profile volumes."""

from __future__ import annotations

import pytest

from iolab import registry
from iolab.formats import array_perf
from iolab.model import ParseError
from tests.conftest import CORPUS, FIXTURES, corpus, ingest, q

MD3000I = "array-perf/rtjust__Dell-MD-Powervault-MDTechView__md3000i_performanceStatistics.csv"
MD3200I = "array-perf/rtjust__Dell-MD-Powervault-MDTechView__md3200i_performanceStatistics.csv"
PROFILE_3200I = "profile/rtjust__Dell-MD-Powervault-MDTechView__md3200i_storageArrayProfile.txt"
MONITOR = FIXTURES / "array-perf" / "handmade-mdsm-monitor.csv"  # hand-made: no public saved file was found
IBM_MONITOR = FIXTURES / "array-perf" / "handmade-ibm-ds-monitor.csv"


def samples(res):
    return {(s.run_key, s.scope, s.target, s.metric): s.value for s in res.samples}


def test_md3200i_counters_golden():
    res = array_perf.parse(corpus(MD3200I).read_bytes(), "x.csv")
    s = samples(res)
    k = ("counters", "volume", "FAXQBServer")
    assert (s[k + ("ios",)], s[k + ("read_ios",)], s[k + ("write_ios",)], s[k + ("read_pct",)]) == (
        4957613,
        4103145,
        854468,
        82,
    )
    assert k + ("cache_hit_pct",) not in s  # a ratio the file does not print: left to queries over the tool table
    assert s[("counters", "volume", "NexGenSQLDB", "ios")] == 103578445  # owned by Slot 1
    assert s[("counters", "volume", "FAXServer", "ios")] == 0
    assert len({t for _, _, t, _ in s}) == 14  # the profile's 14 virtual disks
    v = res.tables["array_perf_values"]
    wrapped = next(
        r
        for r in v
        if r["object_name"] == "NextgenImageServerBackup" and r["column_name"] == "Total Read Blocks Requested"
    )
    assert (wrapped["value_text"], wrapped["controller"], wrapped["captured_at_text"]) == (
        "-1062047522",
        "Slot 0",
        "Tue Feb 26 12:25:01 CST 2013",
    )
    assert len(v) == 14 * 17  # 17 counter columns per virtual disk, all kept (Time in captured_at_text)
    assert res.tables["array_perf_captures"][0]["array_name"] == "WGASAN01"


def test_md3000i_counters_and_the_idle_controller():
    res = array_perf.parse(corpus(MD3000I).read_bytes(), "x.csv")
    s = samples(res)
    assert s[("counters", "volume", "Xenstorage", "ios")] == 87765414
    hits = {
        r["column_name"]: r["value_text"] for r in res.tables["array_perf_values"] if r["object_name"] == "Xenstorage"
    }
    assert (hits["Total Cache Read Checks"], hits["Total Cache Read Check Hits"]) == ("54301841", "42058842")
    note = [r for r in res.tables["array_perf_values"] if r["column_name"] == "note"]
    assert [(r["controller"], r["value_text"]) for r in note] == [("Slot 1", "No Performance data to gather")]


def test_wrapped_negative_counter_is_missing_not_a_number():
    data = (
        corpus(MD3200I)
        .read_bytes()
        .replace(
            b"FAXQBServer, Tue Feb 26 12:25:01 CST 2013, 4957613,",
            b"FAXQBServer, Tue Feb 26 12:25:01 CST 2013, -4957613,",
        )
    )
    s = samples(array_perf.parse(data, "x.csv"))
    assert ("counters", "volume", "FAXQBServer", "ios") not in s
    assert s[("counters", "volume", "FAXQBServer", "read_ios")] == 4103145


def test_monitor_kb_per_second_is_converted_with_1024():
    s = samples(array_perf.parse(MONITOR.read_bytes(), MONITOR.name))
    k = ("iteration1", "volume", "NexGenSQLDB")
    assert s[k + ("mbps",)] == pytest.approx(4000 * 1024 / 1e6) == pytest.approx(4.096)
    assert (
        s[k + ("iops",)],
        s[k + ("max_iops",)],
        s[k + ("read_pct",)],
        s[k + ("cache_hit_pct",)],
        s[k + ("ios",)],
    ) == (200, 200, 75, 40, 1000)
    assert s[("iteration2", "all", None, "max_mbps")] == pytest.approx(7.168)
    assert not [m for m in s if m[:3] == ("iteration2", "volume", "ExchangeDatabase")]  # empty cells: missing, never 0


def test_ibm_two_row_header_and_trailing_commas():
    res = array_perf.parse(IBM_MONITOR.read_bytes(), IBM_MONITOR.name)
    cap = res.tables["array_perf_captures"][0]
    assert (cap["array_name"], cap["polling_interval_s"], cap["captured_at_text"]) == (
        "DS4800_EXMPL",
        3.0,
        "3/20/07 10:28:33 AM",
    )
    s = samples(res)
    assert s[("iteration1", "volume", "Array1_SQL_Log", "iops")] == 4
    assert s[("iteration1", "all", None, "mbps")] == pytest.approx(24 * 0.001024)


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda t: t.replace('"Cache Hit Percentage "', '"Cache Misses "'), "unexpected columns"),
        (
            lambda t: t.replace('"Virtual Disk SBSBackup"', '"Snapshot SBSBackup"', 1),
            "neither a controller, a volume nor the totals",
        ),
        (lambda t: t.replace('"Capture Iteration: 1"', '"Capture Pass: 1"'), "before the column header and the first"),
        (
            lambda t: t.replace(
                '"200.0","200.0"\r\n"Virtual Disk SBSBackup"', '"200.0"\r\n"Virtual Disk SBSBackup"', 1
            ),
            "has 6 values",
        ),
        (lambda t: t.replace('"4000.0"', '"4,000.0"', 1), "not a number"),
    ],
)
def test_monitor_rejections(mutate, reason):
    with pytest.raises(ParseError, match=reason):
        array_perf.parse(mutate(MONITOR.read_bytes().decode()).encode(), "x.csv")


def test_file_without_volume_rows_is_rejected():
    lines = MONITOR.read_bytes().decode().split("\r\n")
    with pytest.raises(ParseError, match="no volume rows"):
        array_perf.parse("\r\n".join(l for l in lines if "Virtual Disk" not in l).encode(), "x.csv")


def test_sniffer_claims_only_its_own_files():
    for p in sorted(CORPUS.rglob("*")) + sorted((FIXTURES / "array-perf").glob("*")):
        if not p.is_file() or p.name == "MANIFEST.tsv":
            continue
        got = {m.FORMAT for m in registry.sniff(p.read_bytes(), p.name)}
        if p.parent.name == "array-perf":
            assert got == {"array-perf-stats"}, p
        else:
            assert "array-perf-stats" not in got, p


def test_array_counters_give_drives_per_volume_through_the_profile(con):
    """The array's own statistics map to the profile's virtual disks by name; a run's drives are the
    disk group's 7 members once, though its volumes all live on that group."""
    ingest(con, corpus(PROFILE_3200I), MONITOR)
    got = q(
        con,
        """SELECT target, drives, drives_source, iops, round(iops_per_drive, 4) FROM per_drive_iops
                    WHERE level = 'target' AND run_key = 'iteration1' ORDER BY target""",
    )
    assert got == [
        ("ExchangeDatabase", 7, "profile", 50.0, round(50 / 7, 4)),
        ("NexGenSQLDB", 7, "profile", 200.0, round(200 / 7, 4)),
        ("SBSBackup", 7, "profile", 100.0, round(100 / 7, 4)),
    ]
    assert q(
        con, "SELECT drives, iops, iops_per_drive FROM per_drive_iops WHERE level = 'run' AND run_key = 'iteration1'"
    ) == [(7, 350.0, 50.0)]
