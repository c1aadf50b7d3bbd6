"""The metric vocabulary (ingest/vocabulary.py): enforced by ParseResult.add, documented in schemas/README.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab import batch, db, vocabulary, vocabulary_table
from iolab.formats import published
from iolab.model import ParseError, ParseResult

ROOT = Path(__file__).resolve().parent.parent


def test_readme_table_is_the_module():
    text = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- vocabulary:start -->\n", 1)[1].split("<!-- vocabulary:end -->", 1)[0]
    assert table == vocabulary_table.markdown(), (
        "regenerate: python -m iolab.vocabulary_table, paste into schemas/README.md"
    )


def test_expand_braces():
    assert vocabulary.expand("p{50,99_9}_{,read_}latency_ms") == [
        "p50_latency_ms",
        "p50_read_latency_ms",
        "p99_9_latency_ms",
        "p99_9_read_latency_ms",
    ]
    assert vocabulary.expand("iops") == ["iops"]


def test_add_refuses_unknown_metric_unit_scope():
    res = ParseResult()
    res.add("r", "all", "p99_9_read_latency_ms", 1.5, "ms")
    with pytest.raises(ValueError, match="'made_up_metric' is not in the vocabulary"):
        res.add("r", "all", "made_up_metric", 1.0, "ms")
    with pytest.raises(ValueError, match="stored in 'MB/s', not 'MiB/s'"):
        res.add("r", "all", "mbps", 1.0, "MiB/s")
    with pytest.raises(ValueError, match="does not take scope 'point'"):
        res.add("r", "point", "test_passed", 1.0, "bool")
    with pytest.raises(ValueError, match="time-series metric"):
        res.add("r", "all", "davg_ms", 1.0, "ms")
    with pytest.raises(ValueError):  # refused even when the value is missing: the call itself is wrong
        res.add("r", "all", "made_up_metric", None, "ms")


def test_factors():
    assert vocabulary.MB_PER_MIB == 1.048576
    assert pytest.approx(0.1024) == 100 * vocabulary.KIB_S_TO_MB_S
    assert 1500 * vocabulary.US_TO_MS == 1.5 and pytest.approx(2.5) == 2_500_000 * vocabulary.NS_TO_MS


def test_published_unknown_metric_is_a_parse_error():
    data = b"metric,value,unit,source\niops,100,IO/s,x\nwidgets_per_s,3,IO/s,x\n"
    with pytest.raises(ParseError) as e:
        published.parse(data, "p.csv")
    assert e.value.line == 3 and "widgets_per_s" in str(e.value)


def test_every_corpus_number_is_in_the_vocabulary(tmp_path):
    """Every real file and fixture ingests (add() would refuse an unknown pair) and lands in the vocabulary."""
    con = db.open_db(str(tmp_path / "v.duckdb"))
    report = batch.ingest_paths(con, [ROOT / "tests" / "corpus", ROOT / "tests" / "fixtures"])
    bugs = [o for o in report.outcomes if "vocabulary" in (o.reason or "")]
    assert not bugs, bugs
    pairs = con.execute("SELECT DISTINCT metric, unit, scope FROM samples").fetchall()
    assert len(pairs) > 100
    assert [p for p in pairs if vocabulary.problem(*p)] == []
    series = con.execute("SELECT DISTINCT metric, unit FROM series WHERE metric IS NOT NULL").fetchall()
    assert [s for s in series if vocabulary.problem(*s)] == []
    con.close()


def test_a_misspelt_sample_dimension_fails_loudly():
    import pytest

    from iolab.model import ParseResult

    with pytest.raises(TypeError, match="unknown keyword"):
        ParseResult().add("r", "all", "iops", 1.0, "IO/s", line=3)  # line_no, misspelt
