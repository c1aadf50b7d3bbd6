"""vscsiStats -c histograms. No real file is in the corpus: the fixture is hand-made in the
documented shape (docs/formats/esxtop-jetstress-profile.md section 1.4) and says so."""

from __future__ import annotations

import pytest

from iolab.formats import vscsistats
from iolab.model import ParseError
from tests.conftest import FIXTURES, ingest, q

FIX = FIXTURES / "vscsistats" / "handmade-vscsistats-c.csv"


def test_histograms_buckets_and_overflow():
    res = vscsistats.parse(FIX.read_bytes(), FIX.name)
    h = res.tables["vscsi_histograms"]
    assert [(x["kind"], x["direction"], x["count"], x["vdisk"]) for x in h] == [
        ("latency_us", "all", 100, "scsi0:0"),
        ("latency_us", "read", 60, "scsi0:0"),
        ("io_length_bytes", "all", 100, "scsi0:0"),
    ]
    b = [x for x in res.tables["vscsi_buckets"] if x["histogram_no"] == 1]
    assert len(b) == 9 and [x["is_overflow"] for x in b].count(True) == 1 and b[-1]["is_overflow"]
    assert sum(x["frequency"] for x in b) == 100  # frequencies sum to count


def test_latency_samples_and_iomark_criterion(con, tmp_path):
    d = tmp_path / "vm"
    d.mkdir()
    (d / FIX.name).write_bytes(FIX.read_bytes())
    (d / "criteria.csv").write_text(
        "criterion,tool,metric,comparator,threshold,unit,scope,source,iolab_metric\n"
        # scoped to the tool whose runs it judges (criteria.csv's tool column): here vscsiStats' own
        "iomark_vm_response,vscsiStats,share within 30 ms,>=,70,%,per set,hand-made test,"
        "pct_ios_within_30ms\n"
    )
    (d / "iolab.toml").write_text('criteria = ["iomark_vm_response"]\n')  # a criterion applies where declared
    ingest(con, d)
    got = dict(q(con, "SELECT metric, value FROM measurements WHERE tool = 'vscsiStats'"))
    assert got == {"ios": 100.0, "avg_latency_ms": 2.38, "pct_ios_within_30ms": 99.0}  # (10+30+40+12+5+2)/100
    assert q(con, "SELECT value, passed FROM qos_verdicts WHERE criterion = 'iomark_vm_response'") == [(99.0, True)]


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda t: t.replace("count,100\n", "count,101\n", 1), "frequencies sum to 100"),
        (lambda t: t[: t.index("Frequency")], "no count or no buckets"),
        (lambda t: t.replace("10,100\n", "10,100,7\n", 1), "two fields"),
        (lambda t: "min,1\n" + t, "before the first"),
    ],
)
def test_bad_files(mutate, reason):
    with pytest.raises(ParseError, match=reason):
        vscsistats.parse(mutate(FIX.read_text()).encode(), "x.csv")
