"""Ids derived from content and place (ingest/store/ids.py, issue 52 item 3): stable across
re-ingest, moves and copies, the same in SQL as in Python, and a database made before (numbered in
ingest order) renumbered by schemas/V100 into exactly what the same history gives today."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import batch, db
from iolab.cli import export
from iolab.config import SCHEMAS
from iolab.store import ids, places
from tests.conftest import corpus, q

ADI = corpus("iometer/adisireesha__results.csv")
FIO = corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-1-16.json")
ESX = corpus("esxtop/visualesxtoponline__origincsv_short.csv")


def _v100_macros() -> duckdb.DuckDBPyConnection:
    """A scratch connection with V100's own SQL for the ids (its CREATE TEMP MACRO lines)."""
    con = duckdb.connect()
    for line in (SCHEMAS / "V100__derived_ids.sql").read_text().splitlines():
        if line.startswith("CREATE TEMP MACRO"):
            con.execute(line)
    return con


@settings(max_examples=60, deadline=None)
@given(sha=st.text("0123456789abcdef", min_size=64, max_size=64), path=st.text(min_size=1), n=st.integers(1, 99))
def test_the_migration_makes_the_ids_python_makes(sha, path, n):
    con = _v100_macros()
    sep = "|| chr(31) ||"
    got = con.execute(
        f"""SELECT iolab_content_id($sha), iolab_hash63('place' {sep} $path {sep} $sha),
                   iolab_hash63('left' {sep} $path {sep} $sha {sep} $n::VARCHAR)""",
        {"sha": sha, "path": path.replace("\x00", ""), "n": n},
    ).fetchall()[0]
    path = path.replace("\x00", "")
    assert got == (ids.content_id(sha), ids.place_id(path, sha), ids.history_id(path, sha, n))
    assert 0 <= ids.content_id(sha) < 2**62 and 0 <= ids.place_id(path, sha) < 2**63


def _lab(root: Path) -> Path:
    data = root / "data"
    for study, files in (("s1", [ADI, FIO]), ("s2", [ESX, ADI])):  # ADI in both: one content, two places
        (data / study).mkdir(parents=True)
        for f in files:
            shutil.copy(f, data / study / f.name)
    (data / "s1" / "iolab.toml").write_text(
        'system = "Acme X1"\n[[targets]]\ntarget = "*"\nvolume = "v1"\ndrives = 4\n'
    )
    (data / "s2" / "cut.csv").write_bytes(ADI.read_bytes()[:2000])  # rejected
    return data


def test_the_same_bytes_have_the_same_ids_in_every_place_and_database(tmp_path):
    data = _lab(tmp_path)
    con = db.open_db(tmp_path / "a.duckdb")
    batch.ingest_paths(con, [data])
    sha = q(con, "SELECT DISTINCT sha256 FROM source_files WHERE path LIKE '%adisireesha%'")[0][0]
    assert q(con, "SELECT DISTINCT content_id FROM source_history WHERE sha256 = ?", [sha]) == [(ids.content_id(sha),)]
    assert q(con, "SELECT count(*) FROM source_files WHERE sha256 = ?", [sha]) == [(2,)]  # two places, one content
    runs = q(con, "SELECT run_id, run_key FROM runs WHERE source_id = ? ORDER BY 1", [ids.content_id(sha)])
    assert [r[0] for r in runs] == [ids.content_id(sha)]  # its one run: the content id + 0
    # moved: the content (and every run and series id) stays, the place's id is its new place's
    (data / "s1" / ADI.name).rename(data / "s1" / "renamed.csv")
    rep = batch.ingest_paths(con, [data])
    assert [o.status for o in rep.outcomes if o.status not in ("unchanged", "rejected")] == ["moved"]
    new = places.canonical(data / "s1" / "renamed.csv")
    assert q(con, "SELECT source_id FROM source_history WHERE abs_path = ?", [str(new)]) == [
        (ids.place_id(str(new), sha),)
    ]
    assert q(con, "SELECT run_id, run_key FROM runs WHERE source_id = ? ORDER BY 1", [ids.content_id(sha)]) == runs
    assert q(con, "SELECT count(*) FROM sidecar_targets t JOIN source_files f USING (source_id)") == [(2,)]
    # another database, another order: the same ids
    other = db.open_db(tmp_path / "b.duckdb")
    for p in sorted(data.rglob("*"), reverse=True):
        if p.is_file() and p.name != "iolab.toml":
            batch.ingest_paths(other, [p])
    batch.ingest_paths(other, [data])
    every = "SELECT source_id, content_id, path FROM source_files ORDER BY ALL"
    assert q(con, every) == q(other, every) and len(q(con, every)) == 5
    for t in ("runs", "series", "point_files"):
        assert q(con, f"SELECT * FROM {t} ORDER BY ALL") == q(other, f"SELECT * FROM {t} ORDER BY ALL"), t
    con.close()
    other.close()


def test_a_file_put_back_is_a_new_place_and_its_history_keeps_an_id(tmp_path):
    """Deleted, then restored: the place's row of history gives its id to the new place (free_id)."""
    data = _lab(tmp_path)
    con = db.open_db(tmp_path / "a.duckdb")
    batch.ingest_paths(con, [data])
    f = data / "s1" / FIO.name
    keep = f.read_bytes()
    for _ in range(2):
        f.unlink()
        batch.ingest_paths(con, [data])
        f.write_bytes(keep)
        assert [o.status for o in batch.ingest_paths(con, [data]).outcomes if o.status in ("ingested", "placed")] == [
            "ingested"
        ]
    where, sha = (
        str(places.canonical(f)),
        q(con, "SELECT DISTINCT sha256 FROM source_history WHERE path LIKE '%1-16%'")[0][0],
    )
    rows = q(con, "SELECT source_id, left_reason FROM source_history WHERE abs_path = ? ORDER BY ingested_at", [where])
    assert rows == [
        (ids.history_id(where, sha, 1), "deleted"),
        (ids.history_id(where, sha, 2), "deleted"),
        (ids.place_id(where, sha), None),
    ]
    con.close()


# ---- a database made before V100 -----------------------------------------------------------------


def as_before_v100(con: duckdb.DuckDBPyConnection, store: Path) -> None:
    """Number ``con`` as iolab did before V100, in ingest order: places 1, 2, ... as recorded, a
    content under the id of the first place that held it, runs and series counted from 1 across the
    database, the store's files named by the content's id and their points by series id; V100 not
    applied (point_files without series_base, no schema_history row)."""
    con.execute("BEGIN")
    con.execute("""CREATE TEMP TABLE p AS SELECT source_id AS new,
                   row_number() OVER (ORDER BY ingested_at, path, source_id) AS old FROM source_history""")
    con.execute("""CREATE TEMP TABLE c AS
                   SELECT h.content_id AS new, min(p.old) AS old FROM source_history h JOIN p ON p.new = h.source_id
                   WHERE h.status = 'ok' GROUP BY 1""")
    con.execute("""CREATE TEMP TABLE r AS SELECT run_id AS new, row_number() OVER (ORDER BY c.old, run_id) AS old
                   FROM runs JOIN c ON c.new = runs.source_id""")
    con.execute("""CREATE TEMP TABLE s AS
                   SELECT c.new, c.old, 1 + coalesce(sum(n) OVER (ORDER BY c.old ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS first
                   FROM c JOIN (SELECT source_id, max(column_no) + 1 AS n FROM series GROUP BY 1) k ON k.source_id = c.new""")
    con.execute("UPDATE samples t SET run_id = r.old FROM r WHERE t.run_id = r.new")
    con.execute("UPDATE runs t SET run_id = r.old FROM r WHERE t.run_id = r.new")
    con.execute("UPDATE series t SET series_id = s.first + t.column_no FROM s WHERE t.source_id = s.new")
    for t in [*places.content_tables(con), "runs"]:
        con.execute(f"UPDATE {t} t SET source_id = c.old FROM c WHERE t.source_id = c.new")
    for sid, name in q(con, "SELECT source_id, file_name FROM point_files"):
        first = q(con, "SELECT first FROM s WHERE old = ?", [sid])[0][0]
        con.execute(
            f"""COPY (SELECT (column_no + {first})::INTEGER AS series_id, sample_no, ts, value
                      FROM read_parquet('{store / name}')) TO '{store / f"{sid}.parquet"}' (FORMAT parquet)"""
        )
        (store / name).unlink()
        con.execute("UPDATE point_files SET file_name = ? WHERE source_id = ?", [f"{sid}.parquet", sid])
    con.execute("UPDATE source_history h SET content_id = c.old FROM c WHERE h.content_id = c.new AND h.status = 'ok'")
    con.execute("UPDATE source_history h SET content_id = p.old FROM p WHERE p.new = h.source_id AND h.status <> 'ok'")
    con.execute("UPDATE source_history h SET left_for = p.old FROM p WHERE h.left_for = p.new")
    con.execute("UPDATE sidecar_targets t SET source_id = p.old FROM p WHERE t.source_id = p.new")
    con.execute("UPDATE source_history h SET source_id = p.old FROM p WHERE h.source_id = p.new")
    con.execute("UPDATE source_history SET purged_at = NULL WHERE content_id <> source_id")  # on the first place only
    con.execute("ALTER TABLE point_files DROP COLUMN series_base")
    con.execute("DELETE FROM schema_history WHERE version = 100")
    con.execute("COMMIT")


def everything(con: duckdb.DuckDBPyConnection, but: str = "") -> dict[str, list]:
    """Every view and table, every row and column (ids included; but the column ``but``), but the
    migrations' own tables."""
    out = {}
    for name in sorted(export.relations(con) - {"schema_history", "view_state"}):
        cols = [export.ident(c) for c, _ in export._columns(con, name) if c != but]
        out[name] = q(con, f"SELECT {', '.join(cols)} FROM {export.ident(name)} ORDER BY ALL")
    return out


def test_a_database_made_before_v100_is_renumbered_as_the_same_history_gives_today(tmp_path):
    """A history: two studies, a copy, a rejected file, a capture (the store), a file replaced and one
    moved. Numbered as before V100 and opened: every view and table, ids and points included, is
    what this iolab holds after the same history; the store's files are named and written anew."""
    data = _lab(tmp_path)
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [data])
    (data / "s1" / FIO.name).write_bytes(
        corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-16-1.json").read_bytes()
    )
    (data / "s2" / ADI.name).rename(data / "s2" / "moved.csv")
    batch.ingest_paths(con, [data])
    want, unsized = everything(con), everything(con, but="bytes")
    assert q(con, "SELECT count(*) FROM source_history WHERE left_at IS NOT NULL") == [(1,)]
    assert len(want["series_points"]) > 100 and len(want["source_history"]) == 6
    store = db.store_dir(con)
    as_before_v100(con, store)
    assert q(con, "SELECT max(source_id) FROM source_history") == [(6,)]  # as an older iolab numbered them
    assert sorted(p.name for p in store.glob("*.parquet")) == [
        f"{q(con, 'SELECT source_id FROM point_files')[0][0]}.parquet"
    ]
    con.close()
    con = db.open_db(dbf)  # V100, then the store's upgrade
    assert q(con, "SELECT version FROM schema_history WHERE version = 100") == [(100,)]
    got = everything(con)
    assert {k for k in want if got[k] != want[k]} == {"point_files", "store_files"}
    # but for the store files' sizes: an upgraded file is written by DuckDB, a new one by Polars
    assert everything(con, but="bytes") == unsized
    assert q(con, "SELECT count(*) FROM point_files WHERE series_base IS NOT NULL") == [(0,)]
    assert sorted(p.name for p in store.glob("*.parquet")) == [
        n for (n,) in q(con, "SELECT file_name FROM point_files")
    ]
    con.close()


def test_v100_deletes_rows_no_place_reads(tmp_path):
    """An ingest cut short before its purge left a content no place in the analysis reads: V100 deletes
    its rows (and its store file at the next open) and marks its places purged."""
    data = _lab(tmp_path)
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [data])
    esx = q(con, "SELECT content_id FROM source_files WHERE path LIKE '%esx%' OR path LIKE '%origincsv%'")[0][0]
    store = db.store_dir(con)
    as_before_v100(con, store)
    con.execute("UPDATE source_history SET left_at = now(), left_reason = 'deleted' WHERE path LIKE '%origincsv%'")
    con.close()
    con = db.open_db(dbf)
    assert q(con, "SELECT count(*) FROM series") == [(0,)] and q(con, "SELECT count(*) FROM point_files") == [(0,)]
    assert q(con, "SELECT purged_at IS NOT NULL, content_id FROM source_history WHERE path LIKE '%origincsv%'") == [
        (True, esx)
    ]
    assert list(store.glob("*.parquet")) == []
    con.close()


def test_a_lake_is_not_exported_from_a_database_not_yet_renumbered(tmp_path, capsys):
    """Read-only, an older database keeps its old ids and store files: `lake export` says to bring it
    up first (its points would not read as this iolab reads them)."""
    from iolab import cli

    data = _lab(tmp_path)
    dbf = tmp_path / "t.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [data])
    as_before_v100(con, db.store_dir(con))
    con.close()
    assert cli.main(["lake", "export", "--db", str(dbf), "--to", str(tmp_path / "lake")]) == 3
    err = " ".join(capsys.readouterr().err.split())
    assert "made by an older iolab" in err and "run `iolab ingest` on its data folder once" in err
    assert not (tmp_path / "lake").exists()
    db.open_db(dbf).close()  # brought up
    assert cli.main(["lake", "export", "--db", str(dbf), "--to", str(tmp_path / "lake")]) == 0
