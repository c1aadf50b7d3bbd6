"""The vocabulary as a table (metric_vocabulary): every metric has a role and a direction, the table
is the Python, views join it instead of guessing from names or tools, and missing stays missing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iolab import batch, db, registry, vocabulary, vocabulary_table
from iolab.store import schema
from tests.conftest import corpus, ingest, q

ROOT = Path(__file__).resolve().parent.parent
VIEWS = sorted((ROOT / "schemas" / "views").glob("*.sql"))


def test_every_metric_has_a_role_and_a_direction():
    for m in vocabulary.METRICS.values():
        assert m.role in vocabulary_table.ROLES, m
        assert m.better in ("lower", "higher", None), m
    by = {n: (m.role, m.better) for n, m in vocabulary.METRICS.items()}
    # decided on their meaning (issue 28): errors and retransmits are better low, IO/s per % CPU high
    for name in ("errors", "read_errors", "write_errors", "packet_errors", "segments_retransmitted_per_s"):
        assert by[name] == ("error_count", "lower"), name
    assert by["cpu_effectiveness"] == ("efficiency", "higher")
    assert by["cpu_idle_pct"] == ("utilisation", "higher") and by["cpu_util_pct"] == ("utilisation", "lower")
    assert by["p99_9_read_clat_ms"] == ("latency", "lower") and by["iops"] == ("throughput", "higher")
    assert by["runtime_s"] == ("duration", None) and by["read_ios"] == ("count", None)
    assert by["target_iops"] == ("setting", None) and by["total_price"] == ("price", "lower")


def test_headline_log_io_and_name_rules():
    heads = {n for n, m in vocabulary.METRICS.items() if m.headline}
    assert heads == {"iops", "mbps", "achieved_iops", "max_small_iops", "max_large_mbps"} | {
        f"avg_{d}latency_ms" for d in ("", "read_", "write_", "trim_")
    }
    logs = {n for n, m in vocabulary.METRICS.items() if m.log_io}
    assert logs == {f"log_{d}_{s}" for d in ("read", "write") for s in ("iops", "latency_ms", "bytes_avg")}
    m = vocabulary.METRICS
    assert (m["p99_9_read_latency_ms"].percentile, m["p99_9_read_latency_ms"].io_direction) == (99.9, "read")
    assert (m["p50_clat_ms"].latency_kind, m["p50_clat_ms"].io_direction) == ("clat", None)
    assert m["bytes_written"].io_direction == "write" and m["read_pct"].io_direction is None
    assert m["avg_latency_ms"].percentile is None and m["iops"].latency_kind is None


def test_an_entry_without_a_role_is_refused():
    with pytest.raises(ValueError, match="is not '<one of ROLES> \\[lower\\|higher\\]'"):
        vocabulary._check(vocabulary.Entry("x", "ms", "all", "test", kind="speed lower"))
    with pytest.raises(ValueError, match="kind ''"):
        vocabulary._check(vocabulary.Entry("x", "ms", "all", "test"))


def test_the_table_is_the_python(con):
    cols = ", ".join(vocabulary_table.COLUMNS)
    rows = q(con, f"SELECT {cols} FROM metric_vocabulary ORDER BY metric")
    assert rows == vocabulary_table.rows()
    assert len(rows) == len(vocabulary.METRICS) > 300
    comments = q(con, "SELECT comment FROM duckdb_columns() WHERE table_name = 'metric_vocabulary'")
    assert all(c for (c,) in comments)


def test_a_changed_vocabulary_remakes_table_views_and_template(con, monkeypatch):
    con.execute("DELETE FROM metric_vocabulary")
    db.create_views(con, force=False)  # same views, same vocabulary: nothing to do
    assert q(con, "SELECT count(*) FROM metric_vocabulary") == [(0,)]
    template = schema._template()
    monkeypatch.setattr(vocabulary_table, "fingerprint", lambda: "another vocabulary")
    db.create_views(con, force=False)
    assert q(con, "SELECT count(*) FROM metric_vocabulary") == [(len(vocabulary.METRICS),)]
    assert schema._template() != template  # a new empty database for the new vocabulary


# ---- no view names a tool or guesses from a metric's name ----------------------------------------


def _sql_without_comments(path: Path) -> str:
    return "\n".join(line.split("--", 1)[0] for line in path.read_text().splitlines())


@pytest.fixture(scope="module")
def tool_names(tmp_path_factory):
    """Every tool as iolab knows it: the registry's formats (and their first word) and runs.tool."""
    con = db.open_db(tmp_path_factory.mktemp("tools") / "t.duckdb")
    batch.ingest_paths(con, [ROOT / "tests" / "corpus"])
    tools = {t for (t,) in q(con, "SELECT DISTINCT tool FROM runs WHERE tool IS NOT NULL")}
    con.close()
    formats = {m.FORMAT for m in registry.modules()}
    # a format's first word names its tool too ('orion-matrix-csv'), except two that are also
    # words of JSON and of the sidecar (json_type 'ARRAY', labels->'criteria')
    words = {f.split("-")[0] for f in formats} - {"array", "criteria"}
    names = {n.lower() for n in tools | formats | words}
    assert {"orion", "published", "iometer", "jetstress", "fio"} <= names
    return names


NAME_PATTERN = [
    re.compile(r"\b(metric|target)\s+(NOT\s+)?(I?LIKE|GLOB|SIMILAR\s+TO)\s+'", re.I),
    re.compile(r"regexp_\w+\(\s*[\w.]*\b(metric|target)\s*,", re.I),
    re.compile(r"\bLIKE\s+'%?(latency|response|cpu|log)", re.I),
    re.compile(r"'(achieved_iops|max_small_iops|max_large_mbps)'"),  # headlines: metric_vocabulary.headline
    re.compile(r"\blower_is_better\s*\("),
]


@pytest.mark.parametrize("path", VIEWS, ids=lambda p: p.name)
def test_no_view_names_a_tool_or_guesses_from_a_name(path, tool_names):
    sql = _sql_without_comments(path)
    literals = {s.lower() for s in re.findall(r"'((?:[^']|'')*)'", sql)}
    assert sorted(literals & tool_names) == [], f"{path.name} names a tool: say it as data"
    for pat in NAME_PATTERN:
        assert not pat.search(sql), f"{path.name} matches {pat.pattern}: use metric_vocabulary"


def test_the_grep_catches_what_it_is_for(tool_names):
    """The checks above fail on the rules this file replaced."""
    olds = [
        "WHERE r.tool = 'Orion'",
        "FROM measurements WHERE tool = 'published'",
        "CASE WHEN metric LIKE '%latency%' THEN min(value) END",
        "AND NOT (target LIKE 'Log (%')",
        "max(s.value) FILTER (s.metric = 'achieved_iops')",
        "regexp_extract(metric, '_(latency|clat)_ms$', 1)",
    ]
    for old in olds:
        literals = {s.lower() for s in re.findall(r"'((?:[^']|'')*)'", old)}
        assert literals & tool_names or any(p.search(old) for p in NAME_PATTERN), old


# ---- missing is missing -------------------------------------------------------------------------


def test_a_write_only_run_has_no_read_latency(con):
    """sqlserverio's Iometer sweep (a real file) has write-only specs: Iometer writes 0.00 ms of
    read response time for them. measurements leaves those out; iometer_results keeps the file's 0."""
    ingest(con, corpus("iometer/sqlserverio__iometeroutput.csv"))
    write_only = "SELECT run_id FROM runs WHERE read_pct = 0"
    (runs,) = q(con, f"SELECT count(*) FROM ({write_only})")[0]
    assert runs > 0
    got = q(
        con,
        f"""SELECT metric, count(*) FROM measurements WHERE run_id IN ({write_only})
            AND metric IN ('avg_read_latency_ms', 'max_read_latency_ms', 'avg_write_latency_ms', 'read_iops')
            GROUP BY metric ORDER BY metric""",
    )
    assert dict(got).get("avg_read_latency_ms") is None and dict(got).get("max_read_latency_ms") is None
    assert dict(got)["avg_write_latency_ms"] > 0 and dict(got)["read_iops"] > 0  # the 0 IO/s itself stays
    (zeros,) = q(
        con,
        f"""SELECT count(*) FROM samples WHERE run_id IN ({write_only})
            AND metric = 'avg_read_latency_ms' AND value = 0""",
    )[0]
    assert zeros > 0  # the canonical sample is as the file says; only the contract leaves it out
    raw = q(con, "SELECT count(*) FROM iometer_results WHERE avg_read_response_ms = 0")
    assert raw[0][0] > 0
