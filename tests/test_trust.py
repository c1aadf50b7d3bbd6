"""Trust: sidecar typos, special files, symlinks, environment faults, read-only commands, schema versions.

Each attack from issue 11 is a test here; the hostile report names are in tests/test_reports.py and
the relabelling of copies in tests/test_ingest.py.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
from contextlib import contextmanager

import pytest

from iolab import batch, cli, db, plan
from iolab.store import schema
from tests.conftest import corpus, ingest, q

ADI = "iometer/adisireesha__results.csv"


@contextmanager
def deadline(seconds: int):
    """A hang fails the test instead of blocking the suite."""

    def hung(*_):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def two_studies(tmp_path, sidecar: str):
    root = tmp_path / "data"
    for name in ("typo", "fine"):
        (root / name).mkdir(parents=True)
        shutil.copy(corpus(ADI), root / name / "r.csv")
    (root / "typo" / "iolab.toml").write_text(sidecar)
    (root / "fine" / "iolab.toml").write_text('system = "Fine"\n')
    return root


@pytest.mark.parametrize(
    "sidecar, key, line, hint",
    [
        ('study = "s"\nsytem = "Acme"\n', "sytem", 2, "did you mean 'system'"),
        ("price = 100\n", "price", 1, "did you mean 'price_usd'"),
        ('system = "A"\ntile = 4\n', "tile", 2, "did you mean 'tiles'"),
        ('[[target]]\ntarget = "1: *"\nvolume = "V"\n', "target", 1, "did you mean 'targets'"),
        ('[[targets]]\ntarget = "1: *"\nvolme = "V"\n', "targets.volme", 3, "did you mean 'volume'"),
        ('[files."*.csv"]\nsytem = "A"\n', "files.*.csv.sytem", 2, "did you mean 'system'"),
    ],
)
def test_a_sidecar_typo_is_refused_with_file_line_and_did_you_mean(con, tmp_path, sidecar, key, line, hint):
    root = two_studies(tmp_path, sidecar)
    rep = ingest(con, root)
    by = {o.path.split("/")[-2]: o for o in rep.outcomes}
    bad = by["typo"]
    assert bad.status == "unreadable"
    assert f"unknown key '{key}'" in bad.reason and f"line {line}" in bad.reason and hint in bad.reason
    assert "typo/iolab.toml" in bad.reason
    # that folder's file is not stored under wrong labels; the other study is
    assert by["fine"].status == "ingested"
    assert q(con, "SELECT DISTINCT study, system FROM source_files WHERE status = 'ok'") == [("fine", "Fine")]
    assert rep.failed


@pytest.mark.parametrize(
    "sidecar, said",
    [
        ("tiles = 'four'\n", "'tiles' should be a whole number, got 'four'"),
        ("tiles = true\n", "'tiles' should be a whole number, got True"),
        ("[[targets]]\nvolume = 'V'\n", "'targets.target' is required"),
        ("[[targets]]\ntarget = 'x'\ndrives = 0\n", "'targets.drives' should be greater than 0"),
        ("[labels]\nstudy = 'x'\n", "[labels] may not redefine study"),
    ],
)
def test_wrong_types_say_what_was_expected(con, tmp_path, sidecar, said):
    rep = ingest(con, two_studies(tmp_path, sidecar))
    bad = next(o for o in rep.outcomes if "/typo/" in o.path)
    assert bad.status == "unreadable" and said in bad.reason


def test_free_form_labels_live_in_their_own_table(con, tmp_path):
    rep = ingest(con, two_studies(tmp_path, 'system = "A"\n[labels]\nowner = "lab 3"\nrack = 7\n'))
    assert not rep.failed
    assert q(con, "SELECT labels->>'owner', labels->>'rack' FROM source_files WHERE study = 'typo'") == [("lab 3", "7")]


def test_fifo_and_device_links_are_skipped_not_read(con, tmp_path):
    d = tmp_path / "data" / "s"
    d.mkdir(parents=True)
    shutil.copy(corpus(ADI), d / "r.csv")
    os.mkfifo(d / "pipe.csv")
    (d / "zero.csv").symlink_to("/dev/zero")
    with deadline(60):
        rep = ingest(con, tmp_path / "data")
        direct = ingest(con, d / "pipe.csv")  # named on the command line, too
    by = {o.path.rsplit("/", 1)[-1]: o for o in rep.outcomes}
    assert by["r.csv"].status == "ingested"
    assert by["pipe.csv"].status == "skipped" and "named pipe (FIFO)" in by["pipe.csv"].reason
    assert by["zero.csv"].status == "skipped" and "character device" in by["zero.csv"].reason
    assert direct.outcomes[0].status == "skipped"
    assert not rep.failed  # skipping a special file is not a failure
    assert q(con, "SELECT count(*) FROM source_files") == [(1,)]


def test_sockets_and_devices_are_skipped_without_being_opened(con, tmp_path, monkeypatch):
    import socket

    d = tmp_path / "s"
    d.mkdir()
    (d / "zero.csv").symlink_to("/dev/zero")
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda p, *a, **k: opened.append(str(p)) or real_open(p, *a, **k))
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(d / "sock"))
        with deadline(60):
            rep = ingest(con, d)
    by = {o.path.rsplit("/", 1)[-1]: o for o in rep.outcomes}
    assert by["sock"].status == "skipped" and "a socket" in by["sock"].reason  # not "cannot read it"
    assert by["zero.csv"].status == "skipped" and "character device" in by["zero.csv"].reason
    assert not rep.failed
    assert not [p for p in opened if p.endswith(("sock", "zero.csv"))]  # checked by stat, never opened


def test_a_symlink_is_labelled_by_where_the_link_sits(con, tmp_path):
    real = tmp_path / "elsewhere"
    real.mkdir()
    shutil.copy(corpus(ADI), real / "r.csv")
    (real / "iolab.toml").write_text('system = "Where the bytes are"\n')
    study = tmp_path / "data" / "linked"
    study.mkdir(parents=True)
    (study / "iolab.toml").write_text('system = "Where the link is"\n')
    (study / "r.csv").symlink_to(real / "r.csv")
    rep = ingest(con, tmp_path / "data")
    assert [o.status for o in rep.outcomes] == ["ingested"]
    assert q(con, "SELECT study, system FROM source_files") == [("linked", "Where the link is")]


def test_disk_full_stops_the_batch_once_and_blames_no_file(con, tmp_path, monkeypatch, capsys):
    d = tmp_path / "data"
    d.mkdir()
    for name in ("a.csv", "b.csv"):
        shutil.copy(corpus(ADI), d / name)
    (d / "b.csv").write_bytes((d / "b.csv").read_bytes() + b"\n")  # other content, so both are parsed

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(db, "write_result", full)
    rep = ingest(con, d)
    assert rep.fault and "the disk holding the database is full" in rep.fault
    assert rep.outcomes == []  # stopped at the first file; nothing recorded as a bad file
    assert q(con, "SELECT count(*) FROM source_files") == [(0,)]
    code = cli.main(["ingest", str(d), "--db", str(tmp_path / "cli.duckdb")])
    out = capsys.readouterr().out
    assert code == cli.EXIT_ENVIRONMENT == 3
    assert out.count("the disk holding the database is full") == 1 and "report it" not in out


def test_a_read_only_database_is_an_environment_fault(tmp_path):
    f = tmp_path / "ro.duckdb"
    db.open_db(f).close()
    ro = db.open_db(f, read_only=True)
    d = tmp_path / "data"
    d.mkdir()
    shutil.copy(corpus(ADI), d / "r.csv")
    rep = batch.ingest_paths(ro, [d])
    assert rep.fault and "read-only" in rep.fault and rep.outcomes == []


def test_info_is_read_only_and_never_creates_a_database(tmp_path, capsys):
    missing = tmp_path / "typo.duckdb"
    assert cli.main(["info", "--db", str(missing)]) == cli.EXIT_USAGE == 2  # a --db naming no database
    assert not missing.exists() and "no database at" in capsys.readouterr().err.lower()
    f = tmp_path / "x.duckdb"
    con = db.open_db(f)
    ingest(con, corpus(ADI))
    con.close()
    holder = db.connect(f, read_only=True)  # another reader: info still works alongside it
    try:
        assert cli.main(["info", "--db", str(f)]) == 0
    finally:
        holder.close()
    out = capsys.readouterr().out
    assert "iometer-results-csv" in out and "measurements" in out


def test_a_database_from_a_newer_iolab_is_refused(tmp_path, capsys):
    f = tmp_path / "new.duckdb"
    con = db.open_db(f)
    con.execute("INSERT INTO schema_history VALUES (999, 'V999__future.sql', 'x', now())")
    con.close()
    with pytest.raises(db.DatabaseProblem, match="newer iolab"):
        db.open_db(f)
    with pytest.raises(db.DatabaseProblem, match="newer iolab"):
        db.open_db(f, read_only=True)
    assert cli.main(["info", "--db", str(f)]) == 3
    assert "upgrade iolab" in capsys.readouterr().err


def test_a_failing_migration_rolls_back_every_pending_one(tmp_path, monkeypatch):
    f = tmp_path / "old.duckdb"
    db.open_db(f).close()
    schemas = tmp_path / "schemas"
    shutil.copytree(schema.SCHEMAS, schemas)
    last = max(int(p.name[1:].split("__")[0]) for p in schemas.glob("V*__*.sql"))
    (schemas / f"V{last + 1:03d}__good.sql").write_text("CREATE TABLE handmade_extra (x INTEGER);")
    (schemas / f"V{last + 2:03d}__broken.sql").write_text("CREATE TABLE handmade_broken (x NOT_A_TYPE);")
    monkeypatch.setattr(schema, "SCHEMAS", schemas)
    with pytest.raises(db.DatabaseProblem, match=rf"V{last + 2:03d}__broken.sql could not be applied.*rolled back"):
        db.open_db(f)
    con = db.connect(f, read_only=True)
    assert con.execute("SELECT max(version) FROM schema_history").fetchall() == [(last,)]
    assert not con.execute("SELECT * FROM duckdb_tables() WHERE table_name = 'handmade_extra'").fetchall()
    con.close()


def _schema(f):
    con = db.connect(f, read_only=True)
    try:
        return [
            q(con, "SELECT version, script, checksum FROM schema_history ORDER BY version"),
            q(con, "SELECT table_name, column_name, data_type FROM duckdb_columns() ORDER BY ALL"),
            # names: DuckDB writes an EXCLUDE list back in no fixed order (duckdb_columns has the views' columns)
            q(con, "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY ALL"),
            q(con, "SELECT checksum FROM view_state"),
        ]
    finally:
        con.close()


def test_a_new_database_is_a_copy_of_the_template_with_the_same_schema(tmp_path, monkeypatch):
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path / "cache"))
    db.open_db(tmp_path / "first.duckdb").close()  # makes the template, then copies it
    (template,) = (tmp_path / "cache").glob("empty-*.duckdb")
    db.open_db(tmp_path / "second.duckdb").close()
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path / "no-cache-here" / "x"))
    (tmp_path / "no-cache-here").write_text("a file where the cache folder would go")
    db.open_db(tmp_path / "in-place.duckdb").close()  # the cache cannot be made: made in place
    assert _schema(tmp_path / "first.duckdb") == _schema(tmp_path / "second.duckdb")
    assert _schema(tmp_path / "second.duckdb") == _schema(tmp_path / "in-place.duckdb")
    assert len(_schema(template)[0]) == len(list(schema.SCHEMAS.glob("V*__*.sql")))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".new")]  # no copy left behind


def test_the_template_follows_the_migrations_and_never_overwrites_a_file(tmp_path, monkeypatch):
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path / "cache"))
    schemas = tmp_path / "schemas"
    shutil.copytree(schema.SCHEMAS, schemas)
    monkeypatch.setattr(schema, "SCHEMAS", schemas)
    monkeypatch.setattr(schema, "VIEWS", schemas / "views")
    db.open_db(tmp_path / "a.duckdb").close()
    last = max(int(p.name[1:].split("__")[0]) for p in schemas.glob("V*__*.sql"))
    (schemas / f"V{last + 1:03d}__more.sql").write_text("CREATE TABLE handmade_more (x INTEGER);")
    con = db.open_db(tmp_path / "b.duckdb")  # a new template for the new set of migrations
    assert q(con, "SELECT count(*) FROM handmade_more") == [(0,)]
    con.close()
    assert len(list((tmp_path / "cache").glob("empty-*.duckdb"))) == 2
    assert db.from_template(tmp_path / "b.duckdb") is False  # a file is there already: left alone


def test_a_damaged_database_says_so_and_what_to_do(tmp_path, capsys):
    f = tmp_path / "bad.duckdb"
    f.write_bytes(os.urandom(8192))
    assert cli.main(["ingest", str(corpus(ADI)), "--db", str(f)]) == 3
    out = capsys.readouterr().out
    assert "not a DuckDB database, or it is damaged" in out and "Next:" in out


def test_terminal_output_escapes_file_names(tmp_path, capsys):
    d = tmp_path / "data"
    d.mkdir()
    (d / "[bold red]x.csv").write_text("not a result file\n")
    assert cli.main(["ingest", str(d), "--db", str(tmp_path / "t.duckdb")]) == 1
    assert "[bold red]x.csv" in capsys.readouterr().out  # shown as written, not as markup


def test_unchanged_files_are_not_even_hashed_unless_verify(con, tmp_path, monkeypatch):
    d = tmp_path / "data" / "s"
    d.mkdir(parents=True)
    f = d / "r.csv"
    shutil.copy(corpus(ADI), f)
    assert [o.status for o in ingest(con, tmp_path / "data").outcomes] == ["ingested"]
    hashed = []
    real_hash = plan.hash_file  # the plan hashes (ingest/plan.py)
    monkeypatch.setattr(plan, "hash_file", lambda p, *a: hashed.append(p) or real_hash(p, *a))
    assert [o.status for o in ingest(con, tmp_path / "data").outcomes] == ["unchanged"]
    assert hashed == []  # one query knew it: same size, modification time and labels
    # the same size and mtime but other bytes (cp -p, rsync -t): the inode's ctime moved, so it is read
    st = f.stat()
    f.write_bytes(f.read_bytes().replace(b"3364.250468", b"3364.250469", 1))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    assert [o.status for o in ingest(con, tmp_path / "data").outcomes] == ["ingested"] and len(hashed) == 1
    rep = batch.ingest_paths(con, [tmp_path / "data"], verify=True)  # --verify hashes what is unchanged
    assert [o.status for o in rep.outcomes] == ["unchanged"] and len(hashed) == 2
    # a sidecar edit is seen without --verify
    (d / "iolab.toml").write_text('system = "Relabelled"\n')
    assert [o.status for o in ingest(con, tmp_path / "data").outcomes] == ["relabelled"]


@pytest.mark.parametrize("folder", ["run [2]", "[X[6", "a*b", "what?", "{x}"])
def test_a_folder_name_with_glob_characters_is_a_name_not_a_pattern(con, tmp_path, folder):
    """Found by the attack harness (tests/fuzz_attacks.py): Polars read '[' in a path as a glob."""
    d = tmp_path / "data" / folder
    d.mkdir(parents=True)
    shutil.copy(corpus("esxtop/visualesxtoponline__origincsv_short.csv"), d / "e.csv")
    shutil.copy(corpus("perfmon/jg185342__DataCollector01.csv"), d / "p.csv")
    rep = ingest(con, tmp_path / "data")
    assert [o.status for o in rep.outcomes] == ["ingested", "ingested"], [o.reason for o in rep.outcomes]
    assert q(con, "SELECT DISTINCT study FROM source_files") == [(folder,)]
