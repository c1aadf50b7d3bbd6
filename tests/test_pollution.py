"""Bad input and faults: the pollution harness (short run), crash safety, concurrent ingests."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from iolab import batch, db
from iolab.store import places
from tests import fuzz, fuzz_attacks
from tests.conftest import ROOT, corpus, q


@pytest.mark.slow  # a harness run: make test-slow (make fuzz runs it long)
def test_pollution_harness_short_run():
    """~15 mutated files per format (make fuzz runs 1,000): loaded exactly, or rejected cleanly."""
    stats, violations = fuzz.run(cases_per_format=15, seed=20261122)
    assert violations == []
    assert all(c.get("crash", 0) == 0 for c in stats.values())
    real = {k: v for k, v in stats.items() if k != "(not a supported format)"}
    assert len(real) == 21  # 7 first formats + fio json/terse/log/text + diskspd text/xml + vdbench summary/flatfile
    # + array perf + elbencho csv/text + iozone text + jetstress log + orion console
    assert all(c.get("rejected", 0) > 0 for c in real.values())  # the mutations do bite
    assert sum(c.get("ingested", 0) for c in real.values()) > 20


def test_traceable_oracle_can_fail():
    assert fuzz.traceable(1196.489673, "ALL,All,x,1,1,1,1196.489673,0.000000")
    assert fuzz.traceable(9.801643851776, "9.347576")  # MiB/s -> MB/s
    assert not fuzz.traceable(1196.48967, "ALL,All,x,1,1,1,1196.489673")


def _batch_dir(tmp_path, n=40):
    d = tmp_path / "batch"
    d.mkdir()
    src = corpus("iometer/sqlserverio__iometeroutput.csv").read_bytes()
    for i in range(n):  # distinct contents: one changed description each
        (d / f"run{i:03d}.csv").write_bytes(src.replace(b"SQL Server Non-mixed workload test", f"copy {i}".encode(), 1))
    return d


@pytest.mark.slow  # a harness run: make test-slow (make fuzz runs it long)
def test_sigkill_mid_batch_leaves_whole_files_and_rerun_completes(tmp_path):
    # small files are committed 64 to a transaction; parsed here (no workers) the kill lands in the second
    d = _batch_dir(tmp_path, 200)
    dbf = tmp_path / "k.duckdb"
    p = subprocess.Popen(
        [sys.executable, "-m", "iolab", "ingest", str(d), "--db", str(dbf)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "IOLAB_PARSE_WORKERS": "0"},
    )
    time.sleep(6.0)
    p.send_signal(signal.SIGKILL)
    p.wait()
    con = db.open_db(dbf)  # opens after the kill
    done = q(con, "SELECT count(*) FROM source_files WHERE status = 'ok'")[0][0]
    assert done < 200, "the batch finished before the kill; make it bigger"
    # every stored file is whole: 64 runs and 10,496 samples each, nothing else
    per = q(
        con,
        """SELECT f.source_id, count(DISTINCT r.run_id), count(s.run_id) FROM source_files f
                    LEFT JOIN runs r ON r.source_id = f.content_id LEFT JOIN samples s USING (run_id) GROUP BY 1""",
    )
    assert all(r[1:] == (64, 10496) for r in per)
    assert q(con, "SELECT count(*) FROM runs WHERE source_id NOT IN (SELECT content_id FROM source_files)") == [(0,)]
    rep = batch.ingest_paths(con, [d], parallel=True)
    assert sorted({o.status for o in rep.outcomes}) == (["ingested", "unchanged"] if done else ["ingested"])
    assert q(con, "SELECT count(*), count(DISTINCT sha256) FROM source_files WHERE status = 'ok'") == [(200, 200)]
    con.close()


def test_sigkill_during_time_series_store_leaves_no_orphans(tmp_path):
    dbf = tmp_path / "s.duckdb"
    con = db.open_db(dbf)
    store = db.store_dir(con)
    store.mkdir(parents=True, exist_ok=True)
    (store / ".9.parquet.tmp").write_bytes(b"half written")  # what a kill mid-sink leaves
    (store / "9.parquet").write_bytes(b"renamed but never committed")
    con.close()
    con = db.open_db(dbf)
    assert list(store.iterdir()) == []
    batch.ingest_paths(con, [corpus("esxtop/rachsharp__small-esxtop-data.csv")])
    assert q(con, "SELECT count(*) FROM series_points") == [(7630 * 3,)]
    con.close()


def test_two_ingests_at_once_second_waits(tmp_path):
    d = _batch_dir(tmp_path, n=12)
    dbf = tmp_path / "c.duckdb"
    cmd = [sys.executable, "-m", "iolab", "ingest", str(d), "--db", str(dbf)]
    a = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    b = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out_a, _ = a.communicate(timeout=120)
    out_b, err_b = b.communicate(timeout=120)
    assert a.returncode == 0 and "12 ingested" in out_a
    # the second waited for the lock (or found everything done): never an error, never duplicates
    assert b.returncode == 0, out_b + err_b
    assert "12 unchanged" in out_b or "ingested" in out_b
    con = db.open_db(dbf)
    assert q(con, "SELECT count(*) FROM source_files") == [(12,)]
    con.close()


@pytest.mark.slow  # a harness run: make test-slow (make fuzz runs it long)
def test_attack_harness_short_run():
    """~20 random trees of hostile names, sidecar typos, special files and copies (make fuzz runs 1,000)."""
    stats, violations = fuzz_attacks.run(cases=20, seed=20261123)
    assert violations == []
    assert not any(c.get("crash") or c.get("hang") for c in stats.values())
    assert stats["hostile_sidecar"].get("ingested", 0) > 0 and stats["hostile_folder"].get("ingested", 0) > 0
    assert sum(stats.get(k, {}).get("skipped", 0) for k in ("fifo", "socket", "devzero")) > 0
    assert sum(stats.get(k, {}).get("unreadable", 0) for k in ("typo", "wrong_type", "bad_toml")) > 0


def test_attack_checks_can_fail(tmp_path, monkeypatch):
    """The oracle catches a wrong study, a stored special file and an unsafe slug."""
    import random

    con = db.open_db(tmp_path / "a.duckdb")
    files = [corpus("iometer/adisireesha__results.csv")]
    rng = random.Random(3)
    while True:  # a tree with something that must be stored
        shutil.rmtree(tmp_path / "data", ignore_errors=True)
        expect = fuzz_attacks.build(tmp_path / "data", files, rng)
        if stored := [p for p, e in expect.items() if e.stored]:
            break
    rep = batch.ingest_paths(con, [tmp_path / "data"])
    tables = fuzz.source_tables(con)
    assert fuzz_attacks.check(con, tables, expect, rep)[1] == []
    here = places.text(places.canonical(stored[0]))
    con.execute("UPDATE source_history SET study = 'relabelled' WHERE abs_path = ?", [here])
    assert any("stored as" in v for v in fuzz_attacks.check(con, tables, expect, rep)[1])
    fifo = tmp_path / "data" / "pipe.csv"
    expect[fifo] = fuzz_attacks.Expect("fifo", status={"skipped"}, stored=False)
    rep.outcomes.append(batch.Outcome(batch.display_path(fifo), "ingested"))
    assert any("fifo" in v and "is ingested" in v for v in fuzz_attacks.check(con, tables, expect, rep)[1])
    con.execute("UPDATE source_history SET study = '../x'")
    assert fuzz_attacks.slugs_ok(con) == []  # slug() makes it safe ...
    monkeypatch.setattr(fuzz_attacks, "slug", lambda s: s)  # ... and the check would see if it did not
    assert fuzz_attacks.slugs_ok(con) == ["slug('../x') = '../x' is not one safe path component"]
    con.close()
