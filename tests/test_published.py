"""Published-results and criteria CSVs (the shapes of docs/reference)."""

from __future__ import annotations

import pytest

from ingest.formats import criteria, published
from ingest.model import ParseError
from tests.conftest import REFERENCE

REF = REFERENCE


def test_ds4300_table():
    res = published.parse((REF / "ds4300_vs_fastt200_2004.csv").read_bytes(), "x.csv")
    assert len(res.runs) == 159
    first = res.runs[0]
    assert (
        first.system,
        first.generation,
        first.raid_level,
        first.drives,
        first.config_label,
        first.block_size_bytes,
    ) == ("IBM DS4300 (dual controllers)", "DS4300", "RAID-5", 20, "All Caches Disabled", 4096)
    s = [(x.metric, x.value) for x in res.samples if x.run_key == first.key]
    assert s == [("iops", 2750.0), ("mbps", 11.0), ("avg_latency_ms", 20.0)]
    fastt = [r for r in res.runs if r.generation == "FAStT200"]
    assert len(fastt) == 6 and fastt[0].drives == 40


def test_esg_long_form_and_ranges():
    res = published.parse((REF / "esg_ds5020_2009.csv").read_bytes(), "x.csv")
    s = {(x.run_key, x.metric): x.value for x in res.samples}
    assert s[("row2", "iops")] == 4127 and s[("row3", "supported_mailboxes")] == 2358
    assert ("row4", "db_read_latency_ms") not in s  # "16-17": kept as text only
    assert [r["value_text"] for r in res.tables["published_results"] if r["line_no"] == 4] == ["16-17"]
    assert s[("row12", "mbps")] == 3100.0  # 3.1 GB/s
    assert res.runs[0].drives == 32 and res.runs[0].tiles == 4


@pytest.mark.parametrize(
    "text, reason",
    [
        ("metric,value,unit,source\niops,5,furlongs,x\n", "unit"),
        ("metric,value,unit,source\niops,5,IO/s,\n", "citation"),
        ("metric,value,unit,source\niops,5,IO/s\n", "fields"),
    ],
)
def test_bad_published(text, reason):
    with pytest.raises(ParseError, match=reason):
        published.parse(text.encode(), "x.csv")


def test_criteria():
    res = criteria.parse((REF / "criteria.csv").read_bytes(), "criteria.csv")
    c = {r["criterion"]: r for r in res.tables["qos_criteria"]}
    assert (c["jetstress_db_read_latency"]["comparator"], c["jetstress_db_read_latency"]["threshold"]) == ("<=", 20)
    assert c["drive_generation_correction"]["threshold"] == 1.10
    assert c["exchange_iops_per_mailbox"]["threshold"] == 0.5
    with pytest.raises(ParseError, match="comparator"):
        criteria.parse((REF / "criteria.csv").read_bytes().replace(b",<=,20,", b",~,20,"), "c.csv")
