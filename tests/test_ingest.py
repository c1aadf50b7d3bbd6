"""Batch behaviour: provenance, idempotence, rejection without half-loads, sidecars, odd paths."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from iolab import batch, db, files, parsing
from iolab.cli import main
from iolab.store import schema
from tests.conftest import ROOT, corpus, ingest, q

SQLIO = "iometer/sqlserverio__iometeroutput.csv"
ADI = "iometer/adisireesha__results.csv"


def counts(con):
    return q(
        con,
        "SELECT (SELECT count(*) FROM source_files), (SELECT count(*) FROM runs), "
        "(SELECT count(*) FROM samples), (SELECT count(*) FROM iometer_results)",
    )[0]


def test_source_record_has_full_provenance(con, tmp_path):
    f = tmp_path / "a.csv"
    shutil.copy(corpus(ADI), f)
    ingest(con, f)
    (path, sha, size, fmt, parser, pver, tver, status) = q(
        con, "SELECT path, sha256, size_bytes, format, parser, parser_version, tool_version, status FROM source_files"
    )[0]
    assert sha == "e7863c9725883413c346a46f6cd4dd871c311b0e5f7ed66f2b57e512fc6d19cd"  # MANIFEST.tsv
    assert (size, fmt, parser, pver, tver, status) == (
        4758,
        "iometer-results-csv",
        "iolab.formats.iometer",
        "1",
        "1.1.0",
        "ok",
    )
    assert path.endswith("a.csv")


def test_reingest_adds_nothing_and_changed_file_is_new_source(con, tmp_path):
    f = tmp_path / "r.csv"
    shutil.copy(corpus(ADI), f)
    ingest(con, f)
    before = counts(con)
    rep = ingest(con, f)
    assert [o.status for o in rep.outcomes] == ["unchanged"]
    assert counts(con) == before
    # same content beside it, in the same study: one measurement, counted once, nothing parsed again
    g = tmp_path / "copy.csv"
    shutil.copy(f, g)
    rep = ingest(con, g)
    said = f"same content as {tmp_path.name}/r.csv: counted once in the study"
    assert [(o.status, o.reason) for o in rep.outcomes] == [("placed", said)]
    assert counts(con) == before
    assert q(con, "SELECT count(*) FROM source_history WHERE left_at IS NULL") == [(2,)]
    # changed content at the same path: the new version replaces the old one in the analysis
    f.write_bytes(f.read_bytes().replace(b"3364.250468,0.000000,3364.250468", b"3364.250469,0.000000,3364.250469", 1))
    assert [o.status for o in ingest(con, f).outcomes] == ["ingested"]
    paths = q(con, "SELECT path FROM source_files WHERE status='ok' ORDER BY 1")
    assert paths == [(f"{tmp_path.name}/copy.csv",), (f"{tmp_path.name}/r.csv",)]  # the copy keeps the old bytes
    assert q(con, "SELECT count(DISTINCT value) FROM measurements WHERE scope='all' AND metric='iops'") == [(2,)]
    assert q(con, "SELECT left_reason FROM source_history WHERE left_at IS NOT NULL") == [("replaced",)]


BAD = {
    "empty.csv": b"",
    "garbage.bin": bytes(range(256)) * 10,
    "other.csv": b"name,value\nfoo,1\nbar,2\n",
    "truncated.csv": None,  # filled below from a real file
    "utf16-garbage.txt": "\ufeffhello".encode("utf-16"),
}


def test_bad_files_rejected_batch_goes_on(con, tmp_path):
    d = tmp_path / "batch"
    d.mkdir()
    real = corpus(SQLIO).read_bytes()
    for name, data in BAD.items():
        (d / name).write_bytes(data if data is not None else real[: len(real) // 2 + 37])
    shutil.copy(corpus(ADI), d / "zz-good.csv")
    rep = ingest(con, d)
    status = {os.path.basename(o.path): o for o in rep.outcomes}
    assert status["zz-good.csv"].status == "ingested"
    for name in BAD:
        assert status[name].status == "rejected", name
        assert status[name].reason
    assert "empty" in status["empty.csv"].reason
    assert "no iolab parser recognises" in status["other.csv"].reason
    assert status["truncated.csv"].line is not None and "truncated" in status["truncated.csv"].reason
    # nothing but the rejection records for the bad files; the good file is whole
    assert q(con, "SELECT count(*) FROM source_files WHERE status='rejected'") == [(len(BAD),)]
    assert q(con, "SELECT count(DISTINCT source_id) FROM runs") == [(1,)]
    assert q(
        con,
        """SELECT count(*) FROM iometer_results r JOIN source_files f ON f.content_id = r.source_id
                     WHERE f.status = 'rejected'""",
    ) == [(0,)]
    assert rep.failed
    # re-running retries the rejected files without piling up rejection records
    ingest(con, d)
    assert q(con, "SELECT count(*) FROM source_files WHERE status='rejected'") == [(len(BAD),)]


def test_store_failure_rolls_back_the_whole_file(con, tmp_path, monkeypatch):
    f = tmp_path / "x.csv"
    shutil.copy(corpus(ADI), f)
    real = db.write_result

    def explode(*a, **k):
        real(*a, **k)
        raise RuntimeError("disk full (simulated)")

    monkeypatch.setattr(db, "write_result", explode)
    rep = ingest(con, f)
    assert rep.outcomes[0].status == "rejected" and "disk full" in rep.outcomes[0].reason
    assert q(con, "SELECT count(*) FROM runs") == [(0,)]
    assert q(con, "SELECT count(*) FROM samples") == [(0,)]
    assert q(con, "SELECT count(*) FROM iometer_results") == [(0,)]


def _copies(tmp_path, n: int) -> Path:
    d = tmp_path / "many"
    d.mkdir()
    src = corpus(ADI).read_bytes()
    for i in range(n):  # distinct contents: the IOps differ, on every row alike (each row sums the ones below it)
        (d / f"r{i:03d}.csv").write_bytes(src.replace(b"3364.250468", f"{3364 + i / 1000:.6f}".encode()))
    return d


def test_a_file_that_fails_to_store_inside_a_batch_leaves_only_itself_out(con, tmp_path, monkeypatch):
    """Small files share a transaction; one failing store rolls the batch back, the others are
    stored again one by one and only the bad one is rejected, with no rows."""
    d = _copies(tmp_path, 5)
    real = db.write_result

    def flaky(c, sid, result, *rest):
        out = real(c, sid, result, *rest)
        if any(s.metric == "iops" and s.value == 3364.002 for s in result.samples):  # r002.csv's IOps
            raise RuntimeError("constraint broken (simulated)")
        return out

    monkeypatch.setattr(db, "write_result", flaky)
    rep = ingest(con, d)
    assert [(Path(o.path).name, o.status) for o in sorted(rep.outcomes, key=lambda o: o.path)] == [
        ("r000.csv", "ingested"),
        ("r001.csv", "ingested"),
        ("r002.csv", "rejected"),
        ("r003.csv", "ingested"),
        ("r004.csv", "ingested"),
    ]
    assert "constraint broken" in rep.by_status("rejected")[0].reason
    # 4 stored files x (1 run, 164 samples, 12 result rows) and the rejected file's record, none of its rows
    assert counts(con) == (5, 4, 656, 48)
    assert q(
        con, "SELECT count(*) FROM runs r JOIN source_files f ON f.content_id = r.source_id WHERE f.status <> 'ok'"
    ) == [(0,)]


def test_a_batch_of_small_files_stores_what_one_by_one_stores(con, tmp_path):
    d = _copies(tmp_path, 70)  # more than one batch
    rep = ingest(con, d)
    assert len(rep.by_status("ingested")) == 70
    assert counts(con) == (70, 70, 11480, 840)
    # each file's run under its own content, its id the content's (ingest/store/ids.py)
    assert q(con, "SELECT count(DISTINCT run_id), count(*) FILTER (run_id <> source_id) FROM runs") == [(70, 0)]
    assert q(con, "SELECT count(*) FROM runs r JOIN source_files f ON f.content_id = r.source_id") == [(70,)]
    assert q(con, "SELECT count(*) FROM runs GROUP BY source_id HAVING count(*) <> 1") == []
    assert q(con, "SELECT count(*) FROM samples s LEFT JOIN runs r USING (run_id) WHERE r.run_id IS NULL") == [(0,)]
    one = db.open_db(tmp_path / "one.duckdb")
    batch.ingest_paths(one, [d / "r069.csv"])
    mine = "SELECT r.run_id, r.run_key, s.metric, s.value FROM samples s JOIN runs r USING (run_id) JOIN source_files f ON f.content_id = r.source_id WHERE f.path LIKE '%r069.csv' ORDER BY ALL"
    assert q(con, mine) == q(one, mine) and len(q(one, mine)) == 164


def test_worker_processes_parse_what_this_process_parses(con, tmp_path, monkeypatch):
    """parallel=True (the iolab command): 70 files parsed by spawned workers, stored here in order;
    a bad file among them is rejected with its line, a copy of a stored file is placed."""
    d = _copies(tmp_path, 70)
    (d / "r010.csv").write_bytes((d / "r010.csv").read_bytes()[:2000])  # cut inside the results
    shutil.copy(d / "r020.csv", d / "r020-copy.csv")
    monkeypatch.setenv("IOLAB_PARSE_WORKERS", "2")
    pools = []
    close = parsing.Workers.close
    monkeypatch.setattr(parsing.Workers, "close", lambda self: (pools.append(self.pool), close(self)))
    rep = batch.ingest_paths(con, [d], parallel=True)
    assert pools and pools[0] is not None  # the workers did the parsing
    assert [o.path for o in rep.outcomes] == sorted(o.path for o in rep.outcomes)  # reported in walk order
    assert len(rep.by_status("ingested")) == 69 and len(rep.by_status("placed")) == 1
    (bad,) = rep.by_status("rejected")
    assert bad.path.endswith("r010.csv") and (bad.line, bad.reason) == (
        15,
        "the file ends in the middle of a data row (truncated?); Iometer ends every line",
    )
    one = db.open_db(tmp_path / "one.duckdb")
    ingest(one, d)
    key = """SELECT f.path, r.run_key, s.metric, s.value FROM samples s JOIN runs r USING (run_id)
             JOIN source_files f ON f.content_id = r.source_id ORDER BY ALL"""
    assert q(con, key) == q(one, key)


def test_the_same_bytes_twice_in_one_batch_are_stored_once(con, tmp_path):
    d = _copies(tmp_path, 3)
    shutil.copy(d / "r001.csv", d / "r001-copy.csv")
    rep = ingest(con, d)
    assert {Path(o.path).name: o.status for o in rep.outcomes} == {
        "r000.csv": "ingested",
        "r001-copy.csv": "ingested",  # walked first ('-' sorts before '.')
        "r001.csv": "placed",
        "r002.csv": "ingested",
    }
    assert counts(con)[1:] == (3, 492, 36)


def test_sidecar_labels_nest_and_refresh(con, tmp_path):
    root = tmp_path / "data"
    study = root / "study-a" / "tile4"
    study.mkdir(parents=True)
    (root / "study-a" / "iolab.toml").write_text(
        'system = "Array X"\ngeneration = "G2"\nprice_usd = 1000\ntags = ["t1"]\n[labels]\nowner = "lab 3"\n'
        '[[targets]]\ntarget = "1: *"\nvolume = "VOL1"\ndrives = 4\n'
    )
    (study / "iolab.toml").write_text('tiles = 4\nconfig = "write cache enabled"\n[files."*.csv"]\nvms = 16\n')
    shutil.copy(corpus(ADI), study / "r.csv")
    ingest(con, root)
    row = q(
        con,
        "SELECT study, system, generation, tiles, vms, config_label, price_usd, tags, labels->>'owner' FROM source_files",
    )
    assert row == [("study-a", "Array X", "G2", 4, 16, "write cache enabled", 1000.0, ["t1"], "lab 3")]
    assert q(con, "SELECT target, volume, drives FROM sidecar_targets") == [("1: *", "VOL1", 4)]
    assert q(con, "SELECT DISTINCT system, tiles FROM measurements") == [("Array X", 4)]
    # editing the sidecar relabels without re-parsing
    (study / "iolab.toml").write_text("tiles = 2\n")
    assert [o.status for o in ingest(con, root).outcomes] == ["relabelled"]
    assert q(con, "SELECT tiles, vms FROM source_files") == [(2, None)]


def test_broken_sidecar_is_reported_not_fatal(con, tmp_path):
    d = tmp_path / "s"
    d.mkdir()
    (d / "iolab.toml").write_text("tiles = 'four'\n")
    shutil.copy(corpus(ADI), d / "r.csv")
    rep = ingest(con, d)
    assert rep.outcomes[0].status == "unreadable"
    assert "tiles" in rep.outcomes[0].reason


def test_odd_paths(con, tmp_path):
    d = tmp_path / "odd"
    d.mkdir()
    (d / "loop").symlink_to(d)  # symlink loop: not followed
    (d / "dangling.csv").symlink_to(tmp_path / "nowhere.csv")
    weird = os.fsencode(str(d)) + b"/caf\xe9.csv"  # a non-UTF-8 file name
    with open(weird, "wb") as fh:
        fh.write(corpus(ADI).read_bytes())
    rep = ingest(con, d, tmp_path / "missing-folder")
    by = {o.path.rsplit("/", 1)[-1]: o for o in rep.outcomes}
    assert by["dangling.csv"].status == "unreadable" and "does not exist" in by["dangling.csv"].reason
    assert by["missing-folder"].status == "unreadable"
    assert by["caf\ufffd.csv"].status == "ingested"
    assert q(con, "SELECT count(*) FROM source_files WHERE status='ok'") == [(1,)]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(con, tmp_path):
    f = tmp_path / "locked.csv"
    f.write_bytes(corpus(ADI).read_bytes())
    f.chmod(0)
    assert ingest(con, f).outcomes[0].status == "unreadable"


def test_cli_exit_codes_and_summary(tmp_path, capsys):
    good = tmp_path / "good"
    good.mkdir()
    shutil.copy(corpus(ADI), good / "r.csv")
    dbf = str(tmp_path / "c.duckdb")
    assert main(["ingest", str(good), "--db", dbf]) == 0
    assert main(["ingest", str(good), "--db", dbf]) == 0
    out = capsys.readouterr().out
    assert "1 unchanged" in out
    (good / "bad.csv").write_bytes(b"'Test Type,Test Description\n0,x\n")
    assert main(["ingest", str(good), "--db", dbf]) == 1
    out = capsys.readouterr().out
    assert "1 rejected" in out and "bad.csv" in out


def test_second_ingest_waits_then_explains(tmp_path):
    dbf = tmp_path / "busy.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            ("import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(30)"),
            str(dbf),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(db.DatabaseBusy, match="in use by another process"):
            db.connect(dbf, wait_s=0.5)
    finally:
        holder.kill()
        holder.wait()
    db.connect(dbf, wait_s=5).close()  # free again: opens fine


def test_python_dash_m_ingest(tmp_path):
    """The command ends an ingest without the interpreter's teardown (cli.run): its piped output,
    exit code and database must all be whole all the same."""
    d = tmp_path / "in"
    d.mkdir()
    shutil.copy(corpus(ADI), d / "a.csv")
    shutil.copy(corpus("esxtop/visualesxtoponline__origincsv_short.csv"), d / "b.csv")
    (d / "c.csv").write_bytes(corpus(ADI).read_bytes()[:300])  # cut inside the header: rejected
    dbf = tmp_path / "m.duckdb"
    out = subprocess.run(
        [sys.executable, "-m", "iolab", "ingest", str(d), "--db", str(dbf)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1, out.stderr  # one file rejected, the others stored
    lines = out.stdout.splitlines()  # a small file is stored in a batch, and reported when it is done
    assert sorted((Path(line.split()[1]).name, line.split()[0]) for line in lines[:3]) == [
        ("a.csv", "ingested"),
        ("b.csv", "ingested"),
        ("c.csv", "rejected"),
    ]
    assert lines[3].startswith("3 files seen: 2 ingested") and lines[4].startswith("Next: fix or remove")
    assert not Path(f"{dbf}.wal").exists()  # closed, checkpointed
    con = db.connect(dbf, read_only=True)
    try:
        assert q(con, "SELECT count(*) FROM source_files WHERE status = 'ok'") == [(2,)]
        assert q(con, "SELECT count(*) FROM series_points") == q(con, "SELECT sum(points) FROM point_files")
        assert q(con, "SELECT count(*) FROM series_points")[0][0] > 0
    finally:
        con.close()
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    again = subprocess.run(  # plain print(), not rich: held in a pipe's buffer until the command flushes it
        [sys.executable, "-m", "iolab", "ingest", "--json", str(d), "--db", str(dbf)],
        cwd=ROOT,
        capture_output=True,
        env=buffered,
    )
    assert again.returncode == 1 and json.loads(again.stdout)["summary"]["unchanged"] == 2


def test_file_changing_during_ingest_is_reported(con, tmp_path, monkeypatch):
    f = tmp_path / "moving.csv"
    shutil.copy(corpus(ADI), f)
    real_open = files.open_regular
    opened = []

    def open_then_change(path):
        fh = real_open(path)
        opened.append(path)
        if len(opened) == 2:  # the first open hashes the file, the second reads it for the parser
            with fh:
                return io.BytesIO(fh.read().replace(b"3364.250468", b"9999.999999", 1))  # a writer mid-read
        return fh

    monkeypatch.setattr(files, "open_regular", open_then_change)
    out = ingest(con, f).outcomes[0]
    assert out.status == "unreadable" and "changed while it was being read" in out.reason
    assert q(con, "SELECT count(*) FROM runs") == [(0,)]


def _study(root: Path, name: str, system: str, files: dict[str, Path]) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "iolab.toml").write_text(f'system = "{system}"\n[[targets]]\ntarget = "*"\nvolume = "v-{name}"\ndrives = 4\n')
    for dest, src in files.items():
        shutil.copy(src, d / dest)
    return d


def test_a_copy_in_a_second_study_keeps_both_studies_labels(con, tmp_path):
    root = tmp_path / "data"
    _study(root, "first", "Acme X1", {"r.csv": corpus(ADI)})
    ingest(con, root / "first")
    before = q(con, "SELECT study, system, value FROM measurements WHERE scope = 'all' AND metric = 'iops'")
    assert before and {(s, y) for s, y, _ in before} == {("first", "Acme X1")}
    _study(root, "second", "Zeta Z9", {"copy.csv": corpus(ADI)})
    # ingesting the parent again walks both studies: the first keeps its labels, the second gets its own
    outcomes = sorted(o.status for o in ingest(con, root).outcomes)
    assert outcomes == ["placed", "unchanged"]
    got = q(con, "SELECT study, system, value FROM measurements WHERE scope = 'all' AND metric = 'iops' ORDER BY 1")
    assert [(s, y) for s, y, _ in got] == [("first", "Acme X1"), ("second", "Zeta Z9")]
    assert got[0][2] == got[1][2] == before[0][2]
    # each place keeps its own target map, so per-drive numbers follow each study's sidecar
    vols = q(con, "SELECT study, volume, drives FROM per_drive_iops WHERE level = 'target' ORDER BY 1")
    assert vols == [("first", "v-first", 4), ("second", "v-second", 4)]
    # re-ingesting the first study alone never touches the second's labels
    assert [o.status for o in ingest(con, root / "first").outcomes] == ["unchanged"]
    assert q(con, "SELECT count(DISTINCT study) FROM measurements") == [(2,)]


def test_a_big_file_hashed_beside_its_parse_keeps_its_provenance(con, tmp_path, monkeypatch):
    """Files of HASH_BESIDE_BYTES or more are hashed in a thread while they are parsed; the record,
    the known-content check and rejections still get the file's own sha256."""
    import hashlib

    monkeypatch.setattr(files, "HASH_BESIDE_BYTES", 1)  # every file takes that path here
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    esx = corpus("esxtop/rachsharp__small-esxtop-data.csv")
    shutil.copy(esx, a / "capture.csv")
    shutil.copy(esx, b / "capture.csv")  # the same bytes in a second study
    shutil.copy(corpus(ADI), a / "run.csv")
    (a / "cut.csv").write_bytes(corpus(ADI).read_bytes()[:2000])
    text = esx.read_text()
    (a / "cut-capture.csv").write_text(text.rstrip("\n")[:-40] + ',"')  # refused by the parse
    last = text.rstrip("\n").rsplit("\n", 1)
    (a / "bad-cell.csv").write_text(last[0] + "\n" + last[1].replace('"0.00"', '"x"', 1) + "\n")  # by the stream
    rep = ingest(con, a, b)
    status = {o.path.split(str(tmp_path))[-1]: o.status for o in rep.outcomes}
    assert status == {
        "/a/bad-cell.csv": "rejected",
        "/a/capture.csv": "ingested",
        "/a/cut-capture.csv": "rejected",
        "/a/cut.csv": "rejected",
        "/a/run.csv": "ingested",
        "/b/capture.csv": "placed",
    }
    stored = dict(q(con, "SELECT abs_path, sha256 FROM source_history WHERE left_at IS NULL"))
    for p in (
        a / "capture.csv",
        a / "cut.csv",
        a / "run.csv",
        b / "capture.csv",
        a / "cut-capture.csv",
        a / "bad-cell.csv",
    ):
        assert stored[str(p)] == hashlib.sha256(p.read_bytes()).hexdigest()
    assert q(con, "SELECT count(*) FROM point_files") == [(1,)]  # the copy was not streamed again


def test_a_database_made_from_the_template_is_the_one_made_in_place(tmp_path, monkeypatch):
    """open_db copies the empty template and skips bringing it up: the copy must hold what a
    database migrated in place holds (tables, views and their columns, view state, migrations), and a
    store left beside an earlier database of the same name is left alone. (Views are
    compared by their columns: DuckDB prints an EXCLUDE list in no fixed order.)"""

    def catalog(path: Path) -> tuple:
        con = db.connect(path, read_only=True)
        try:
            return (
                con.execute("SELECT table_name, column_name, data_type FROM duckdb_columns() ORDER BY ALL").fetchall(),
                con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall(),
                con.execute("SELECT checksum FROM view_state").fetchall(),
                con.execute("SELECT version FROM schema_history ORDER BY 1").fetchall(),
            )
        finally:
            con.close()

    leftover = tmp_path / "copied.duckdb.points"
    leftover.mkdir()
    (leftover / "7.parquet").write_bytes(b"an earlier database's points")
    assert db.from_template(tmp_path / "probe.duckdb")  # the template path is the one under test
    db.open_db(tmp_path / "copied.duckdb").close()
    monkeypatch.setattr(schema, "from_template", lambda path: False)
    db.open_db(tmp_path / "in_place.duckdb").close()
    copied, in_place = catalog(tmp_path / "copied.duckdb"), catalog(tmp_path / "in_place.duckdb")
    assert copied == in_place
    assert len(copied[1]) > 20 and copied[2]  # views and their state are there at all
    # a store left by an earlier database of that name is that database's: never cleared by this one
    assert [p.name for p in leftover.iterdir()] == ["7.parquet"]


def test_ingest_into_a_database_another_process_holds_waits_for_it(tmp_path, capsys):
    """`iolab ingest` into a database another process holds waits for it, then ingests."""
    dbf = tmp_path / "busy.duckdb"
    db.open_db(dbf).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(1.5)",
            str(dbf),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        from iolab.cli import main

        assert (
            main(["ingest", str(corpus("fio-json/louwrentius__fio-plot__fio31_randrw-1-1.json")), "--db", str(dbf)])
            == 0
        )
    finally:
        holder.kill()
        holder.wait()
    assert "1 ingested" in capsys.readouterr().out
