"""ORION console transcripts: real 19c and 11g stdout, and a 19c run that failed before testing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import registry
from iolab.formats import orion, orion_console
from iolab.model import ParseError
from tests.conftest import CORPUS, corpus, ingest, q

C19 = "orion-console/ghmd-unidentified__orion19c_simple_bmtfile-acfs_console.txt"
FAIL = "orion-console/ghmd-unidentified__orion19c_lun_failure_console.txt"
C11 = "orion-console/ghmd-unidentified__orion11g_simple_orion-test_console.txt"


def parse(rel):
    return orion_console.parse(corpus(rel).read_bytes(), rel)


def test_19c_console_headlines_details_histogram():
    res = parse(C19)
    (run,) = res.runs
    assert (run.tool_version, run.workload, run.group, run.test_type) == (
        "RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417",
        "bmtfile-acfs",
        "bmtfile-acfs_20211113_1809",
        "simple",
    )
    got = {(s.metric, s.small_oio, s.large_oio): s.value for s in res.samples}
    assert got[("max_large_mbps", 0, 5)] == 1571.33
    assert got[("max_small_iops", 10, 0)] == 58778
    assert got[("min_small_latency_ms", 2, 0)] == pytest.approx(0.097677)  # 97.677 usecs
    assert got[("small_read_latency_max_ms", 10, 0)] == pytest.approx(1.924721)
    assert got[("small_read_latency_std_dev_ms", 2, 0)] == pytest.approx(0.047348)
    assert len(res.samples) == 3 + 2 * 4
    hist = res.tables["orion_histograms"]
    assert len(hist) == 9 and (
        hist[2]["lower_us"],
        hist[2]["upper_us"],
        hist[2]["read_ios"],
        hist[2]["read_cum_pct"],
    ) == (64, 128, 1112243, 91.12)
    assert (
        hist[-1]["upper_us"] == 268435456 and sum(h["read_ios"] for h in hist) == 1220664
    )  # 1112243 / 1220664 = 91.12 %, as the row says
    (info,) = res.tables["orion_console_runs"]
    assert (info["estimated_minutes"], info["commandline"]) == (
        44,
        "orion -run simple -testname bmtfile-acfs -hugenotneeded",
    )


def test_console_and_summary_read_result_lines_alike():
    lines = corpus(C19).read_text().splitlines()
    results = orion.Results()
    assert all(results.take(raw, ln) for ln, raw in enumerate(lines[7:], start=8) if raw.strip())
    assert [m.group(1) for m, _ in results.heads] == [
        "Maximum Large MBPS",
        "Maximum Small IOPS",
        "Minimum Small Latency",
    ]


def test_failed_and_11g_runs_are_rejected_with_the_reason():
    with pytest.raises(ParseError, match=r"ORION did not run the test: 'Failure in opening \.lun file") as e:
        parse(FAIL)
    assert e.value.line == 4
    with pytest.raises(ParseError, match="only in the _summary.txt"):
        parse(C11)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("hello\nORION: ORacle IO Numbers -- Version 12.2.0.1.0\n", "no result lines"),
        ("$ orion -run simple -testname t\n", "no 'ORION: ORacle IO Numbers"),
        (
            "ORION: ORacle IO Numbers -- Version 12.2.0.1.0\nMaximum Large MBPS=1 @ Small=0 and Large=1\nPoint 3 of 8\n"
            "Maximum Small IOPS=5 @ Small=1 and Large=0\n",
            "unexpected line in an ORION console",
        ),
        (
            "ORION: ORacle IO Numbers -- Version 12.2.0.1.0\nMinimum Small Latency=97.6 parsecs @ Small=2 and Large=0\n",
            "unknown latency unit",
        ),
    ],
)
def test_rejections(text, reason):
    with pytest.raises(ParseError, match=reason):
        orion_console.parse(text.encode(), "x.txt")


def test_sniffers_claim_only_their_own_files():
    for p in sorted(CORPUS.rglob("*")):
        if p.is_file() and p.name != "MANIFEST.tsv":
            got = {m.FORMAT for m in registry.sniff(p.read_bytes(), p.name)} & {"orion-console", "orion-summary-txt"}
            want = (
                {"orion-console"}
                if p.parent.name == "orion-console"
                else ({"orion-summary-txt"} if "summary" in p.name and "orion" in str(p.relative_to(CORPUS)) else set())
            )
            assert got == want, p


def test_ingest_end_to_end(con):
    rep = ingest(con, corpus(C19), corpus(FAIL), corpus(C11))
    assert sorted(o.status for o in rep.outcomes) == ["ingested", "rejected", "rejected"]
    assert q(con, "SELECT value, small_oio, large_oio FROM measurements WHERE metric = 'max_large_mbps'") == [
        (1571.33, 0, 5)
    ]
    assert q(con, "SELECT count(*) FROM orion_histograms") == [(9,)]
    assert q(con, "SELECT test_stamp, estimated_minutes FROM orion_console_runs") == [
        ("bmtfile-acfs_20211113_1809", 44)
    ]


@settings(max_examples=40, deadline=None)
@given(eol=st.sampled_from(["\n", "\r\n", "\r"]), cut=st.integers(0, 26))
def test_property_any_prefix_loads_exactly_or_is_rejected(eol, cut):
    lines = corpus(C19).read_text().splitlines()[:cut]
    try:
        res = orion_console.parse(eol.join(lines).encode(), "x.txt")
    except ParseError as e:
        assert e.reason
        return
    assert res.samples and all(s.line_no <= cut for s in res.samples)


def test_text_around_the_transcript_is_skipped_and_said():
    """A sweep script's log and a prompt before the banner and after the last result line: the
    numbers are those of the transcript alone, and a note says which lines were read."""
    wrapped = (
        b"[10:00] sweep.sh: lun 3 of 8\n+ cd /bench\n"
        + corpus(C19).read_bytes()
        + b"\n[10:44] sweep.sh: done\nlab@h:~$ \n"
    )
    alone, res = orion_console.parse(corpus(C19).read_bytes(), "a"), orion_console.parse(wrapped, "b")
    assert [(s.metric, s.value) for s in res.samples] == [(s.metric, s.value) for s in alone.samples]
    assert alone.notes == [] and len(res.notes) == 1
    assert "skipped 2 lines before it, 2 lines after it" in res.notes[0]
