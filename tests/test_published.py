"""Published-results and criteria CSVs (the shapes of docs/reference)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab.formats import criteria, published
from iolab.model import ParseError
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


def _records_as_a_list(data: bytes):
    """csv_records as it was before it streamed: the whole text through io.StringIO, every row a list."""
    import csv
    import io

    from iolab.model import decode_text

    try:
        rows = list(csv.reader(io.StringIO(decode_text(data).lstrip("\ufeff"))))
    except csv.Error as e:
        raise ParseError(f"not readable as CSV ({e})") from None
    if not rows:
        raise ParseError("empty file")
    header = rows[0]
    if len(set(header)) != len(header):
        raise ParseError("duplicate column names in the header", 1)
    out = []
    for ln, cells in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise ParseError(f"row has {len(cells)} fields, the header has {len(header)} (an unquoted comma?)", ln)
        out.append((ln, dict(zip(header, cells))))
    return header, out


def _outcome(read, data):
    try:
        header, rows = read(data)
        return header, list(rows)
    except ParseError as e:
        return str(e)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "b", ",", '"', "\n", "\r\n", "\r", " ", "\x0c", "\u2028", "é", "1.5", ""]), max_size=40
    )
)
def test_csv_records_streamed_reads_what_the_whole_text_read(parts):
    """The rows read one at a time (published tables, criteria) are the rows and line numbers the
    list of every row gave, on any mix of quotes, commas and line ends; a text that list refused is
    refused too (for the first problem in the file's order: the list named a CSV error anywhere first)."""
    from iolab.text import csv_records

    data = "".join(parts).encode()
    streamed, listed = _outcome(csv_records, data), _outcome(_records_as_a_list, data)
    assert streamed == listed or (isinstance(streamed, str) and isinstance(listed, str))
