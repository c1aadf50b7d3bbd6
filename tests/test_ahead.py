"""Reading ahead (ingest/ahead.py): the first big capture of an ingest into a new database streams
while the database is made. What lands must be what an ingest without reading ahead stores, whatever
happens between the read-ahead and the ingest meeting the file.

The real rachsharp esxtop capture stands for a big one: the size from which a file counts as big
(files.HASH_BESIDE_BYTES, 32 MiB) is lowered to 0 for these tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from iolab import ahead, batch, db, files, registry
from iolab.cli import main
from iolab.store import points
from tests.conftest import corpus, q

RS2 = "esxtop/rachsharp__small-esxtop-data.csv"
TABLES = {
    "series": "SELECT * FROM series",
    "points": "SELECT series_id, source_id, sample_no, ts, value FROM series_points",
    "samples": "SELECT * FROM series_samples",
    "captures": "SELECT * FROM pdh_captures",
    "runs": "SELECT run_id, source_id, tool, started_at, ended_at, workload, description FROM runs",
}


def stored(dbf: Path) -> dict[str, list]:
    con = db.connect(dbf, read_only=True)
    try:
        return {name: sorted(q(con, sql), key=repr) for name, sql in TABLES.items()}
    finally:
        con.close()


@pytest.fixture
def capture(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "HASH_BESIDE_BYTES", 0)
    f = tmp_path / "data" / "capture.csv"
    f.parent.mkdir()
    shutil.copy(corpus(RS2), f)
    return f


@pytest.fixture
def plain(capture, tmp_path):
    """The capture ingested without reading ahead (in process, as the notebooks and tests ingest)."""
    dbf = tmp_path / "plain.duckdb"
    con = db.open_db(dbf)
    assert batch.ingest_paths(con, [capture]).outcomes[0].status == "ingested"
    con.close()
    return stored(dbf)


def parses(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = registry.parse_path

    def counted(mod, path, name):
        seen.append(name)
        return real(mod, path, name)

    monkeypatch.setattr(registry, "parse_path", counted)
    return seen


def leftovers(dbf: Path) -> list[str]:
    return [f.name for f in dbf.parent.iterdir() if ".ahead-" in f.name]


def test_a_new_database_takes_the_capture_read_ahead_and_stores_what_a_plain_ingest_does(
    capture, plain, tmp_path, monkeypatch
):
    seen = parses(monkeypatch)
    dbf = tmp_path / "new.duckdb"
    assert main(["ingest", str(capture), "--db", str(dbf), "--quiet"]) == 0
    assert seen == ["capture.csv"]  # read once, ahead; the ingest took that parse
    assert stored(dbf) == plain
    assert len(plain["points"]) > 20_000
    assert leftovers(dbf) == []
    # into the database that now exists, nothing is read ahead: a changed copy is read by the ingest
    other = capture.with_name("again.csv")
    other.write_bytes(capture.read_bytes().replace(b'"0.78"', b'"0.79"', 1))
    seen.clear()
    assert main(["ingest", str(other), "--db", str(dbf), "--quiet"]) == 0
    assert seen == ["again.csv"]


def test_a_file_changed_after_it_was_read_ahead_is_read_again(capture, tmp_path, monkeypatch):
    dbf = tmp_path / "new.duckdb"
    walked = list(files.walk([capture]))
    early = ahead.read_ahead(walked, dbf)
    assert early is not None
    capture.write_bytes(capture.read_bytes().replace(b'"0.78"', b'"0.7x8"', 1))  # now a bad cell
    con = db.open_db(dbf)
    rep = batch.ingest_paths(con, [capture], files=walked, ahead=early)
    out = rep.outcomes[0]
    assert out.status == "rejected" and "is not a number" in out.reason
    assert q(con, "SELECT count(*) FROM point_files") == [(0,)]
    assert leftovers(dbf) == []  # the pass read ahead was waited for and removed


def test_a_capture_read_ahead_but_not_ingested_leaves_nothing(capture, tmp_path):
    """The sidecar beside it is broken: the file never reaches its parse, and the pass is dropped."""
    (capture.parent / "iolab.toml").write_text("system = [unclosed\n")
    dbf = tmp_path / "new.duckdb"
    walked = list(files.walk([capture.parent]))
    early = ahead.read_ahead(walked, dbf)
    assert early is not None
    con = db.open_db(dbf)
    out = batch.ingest_paths(con, [capture.parent], files=walked, ahead=early).outcomes[0]
    assert out.status == "unreadable" and "iolab.toml" in out.reason
    assert early.result is None and leftovers(dbf) == []


def test_only_a_new_database_s_first_big_capture_is_read_ahead(capture, tmp_path, monkeypatch):
    walked = list(files.walk([capture]))
    existing = tmp_path / "existing.duckdb"
    existing.write_bytes(b"")
    assert ahead.read_ahead(walked, existing) is None
    assert ahead.read_ahead(walked, tmp_path / "no-such-folder" / "x.duckdb") is None
    iometer = tmp_path / "iometer.csv"
    shutil.copy(corpus("iometer/adisireesha__results.csv"), iometer)
    assert ahead.read_ahead(list(files.walk([iometer])), tmp_path / "new.duckdb") is None  # not a capture
    monkeypatch.setattr(files, "HASH_BESIDE_BYTES", 1 << 40)
    assert ahead.read_ahead(walked, tmp_path / "new.duckdb") is None  # not big


def test_what_a_dead_process_read_ahead_is_removed_at_the_next_open(tmp_path):
    dbf = tmp_path / "x.duckdb"
    dead = points.ahead_file(dbf, _dead_pid())
    alive = points.ahead_file(dbf, os.getpid())
    for f in (dead, alive):
        f.write_bytes(b"PAR1")
    db.open_db(dbf).close()
    assert not dead.exists() and alive.exists()


def _dead_pid() -> int:
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_capture_taken_but_not_stored_leaves_nothing(capture, tmp_path, monkeypatch):
    """The ingest took the parse read ahead, then failed before its rows could be written (here:
    numbering the file): the pass read ahead is removed at the ingest's end all the same."""
    from iolab.store import ids

    real, calls = ids.content_id, []

    def fails_once(sha):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("simulated failure")
        return real(sha)

    monkeypatch.setattr(ids, "content_id", fails_once)
    dbf = tmp_path / "new.duckdb"
    walked = list(files.walk([capture]))
    early = ahead.read_ahead(walked, dbf)
    assert early is not None
    con = db.open_db(dbf)
    out = batch.ingest_paths(con, [capture], files=walked, ahead=early).outcomes[0]
    assert out.status == "rejected" and "simulated failure" in out.reason
    assert early.streaming.thread.is_alive() is False and leftovers(dbf) == []
    assert q(con, "SELECT count(*) FROM point_files") == [(0,)]
