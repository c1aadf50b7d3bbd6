"""Captures bigger than DuckDB's memory: the summaries every point feeds (series_stats) are computed a
chunk of the store at a time (iolab.store.chunks), by the render's snapshot and the lake's export, with
the same rows as the view's one query (issue 54: `iolab report` of a 1 GB capture died in that query).
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pytest

from iolab import batch, db
from iolab.reports import render
from iolab.store import chunks
from tests.conftest import corpus


def _ingested(tmp_path: Path, *files: Path) -> Path:
    dbf = tmp_path / "c.duckdb"
    con = db.open_db(dbf)
    try:
        batch.ingest_paths(con, list(files))
    finally:
        con.close()
    return dbf


def test_chunks_hold_every_point_once_and_never_split_a_series(tmp_path):
    """Chunks of 5,000 points over the real esxtop capture (7,630 series, 22,890 points) and a real
    perfmon log: each small file goes whole, the capture in parts of its series, every point in one
    chunk, each series in one."""
    dbf = _ingested(
        tmp_path, corpus("esxtop/rachsharp__small-esxtop-data.csv"), corpus("perfmon/jg185342__DataCollector01.csv")
    )
    con = db.connect(dbf, read_only=True)
    try:
        parts = chunks.chunks(con, size=5000)
        seen = [con.execute(f"SELECT series_id, count(*) FROM ({p.points()}) GROUP BY 1").fetchall() for p in parts]
        every = dict(con.execute("SELECT series_id, count(*) FROM series_values GROUP BY 1").fetchall())
        sizes = dict(con.execute("SELECT file_name, points FROM point_files").fetchall())
    finally:
        con.close()
    got = [row for part in seen for row in part]
    assert len(got) == len({s for s, _ in got}) == len(every) and dict(got) == every
    split = [p for p in parts if p.series is not None]
    assert {p.files[0].name for p in split} == {n for n, k in sizes.items() if k > 5000}
    assert len(split) == -(-max(sizes.values()) // 5000) and split[0].series[0] is None and split[-1].series[1] is None
    assert all(sum(k for _, k in part) <= 5000 or len(part) > 1 for part in seen)  # a part holds a run of series


def test_a_snapshot_summarises_a_capture_bigger_than_its_memory(tmp_path, monkeypatch):
    """A generated esxtop-shaped capture of 6 M points (tests/bench.py's generator, 40 MB): under a 64 MB
    memory limit the view's one query runs out of memory, where the render's snapshot, a chunk at a
    time, stores every series' summary: the rows the one query gives with memory to spare."""
    from tests.bench import generate

    capture = tmp_path / "capture.csv"
    generate(capture, 40_000_000)
    dbf = _ingested(tmp_path, capture)
    con = db.connect(dbf, read_only=True)
    whole = con.execute("SELECT * FROM series_stats ORDER BY series_id").fetchall()
    con.close()
    monkeypatch.setenv("IOLAB_DB_MEMORY", "64MB")
    con = db.connect(dbf, read_only=True)
    try:
        with pytest.raises(duckdb.OutOfMemoryException):
            con.execute("SELECT * FROM series_stats").fetchall()
    finally:
        con.close()
    (tmp_path / "snap").mkdir()
    snap = render.snapshot(dbf, tmp_path / "snap", ["series_stats"])
    con = db.connect(snap, read_only=True)
    try:
        assert con.execute(
            "SELECT table_type FROM information_schema.tables WHERE table_name = 'series_stats'"
        ).fetchall() == [("BASE TABLE",)]
        stored = con.execute("SELECT * FROM series_stats ORDER BY series_id").fetchall()
    finally:
        con.close()
    assert len(whole) == 5000 and sum(r[2] for r in whole) == 6_000_000 and len(stored) == len(whole)
    # every number the same; the mean to its last bits only as DuckDB's own sums are (their order of
    # addition follows its threads, run to run)
    assert [r[:3] + r[4:] for r in stored] == [r[:3] + r[4:] for r in whole]
    assert all(math.isclose(a[3], b[3], rel_tol=1e-12, abs_tol=1e-12) for a, b in zip(stored, whole, strict=True))
