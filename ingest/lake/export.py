"""`iolab lake export`: the database as Parquet files, incrementally (see ingest/lake/__init__.py)."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import outputs
from ..written import owner, replacing_by_name, write_text
from .common import CATALOGUE, LAKE_FORMAT, MANIFEST, RUNNING, SCHEMA_FILE, _copy, parquet_rows
from .script import write_script
from .translate import EXPORTED, exported_query

Step = Callable[[int, int, str], None]  # step(number, total, part): the part starts (progress)


def _tables(con) -> dict[str, list[str]]:
    rows = con.execute("""SELECT t.table_name, list(c.column_name ORDER BY c.column_index)
                          FROM duckdb_tables() t JOIN duckdb_columns() c USING (table_oid)
                          WHERE t.schema_name = 'main' GROUP BY ALL ORDER BY 1""").fetchall()
    return {t: cols for t, cols in rows}


def _fingerprints(con) -> dict[str, dict[str, Any]]:
    """Every content in the analysis (its content id, as text) with its sha256 and a fingerprint of
    its places (ids, status and labels): a batch is written again when a place of one of its contents
    comes, goes or is relabelled. A content's rows are the same bytes' wherever it is placed, so
    the lake holds them once, with every place's measurements (ingest/store/ids.py)."""
    rows = con.execute(
        """SELECT content_id, any_value(sha256), list([source_id::VARCHAR, status, labels::VARCHAR] ORDER BY source_id)
           FROM source_files GROUP BY content_id"""
    ).fetchall()
    return {
        str(cid): {
            "sha256": sha,
            "places": sorted(int(p[0]) for p in placed),
            "fingerprint": hashlib.sha256(json.dumps([cid, sha, placed], default=str).encode()).hexdigest(),
        }
        for cid, sha, placed in rows
    }


def _batch_where(table: str, cols: list[str], ids: str) -> str | None:
    if table == "samples":
        return f"run_id IN (SELECT run_id FROM runs WHERE source_id IN ({ids}))"
    if table == "measurements":
        return f"content_id IN ({ids})"
    if "source_id" in cols:
        return f"source_id IN ({ids})"
    return None


def _write_batch(con, lake: Path, tables: dict[str, list[str]], batch: int, ids: list[int]) -> None:
    name = f"part-{batch:05d}.parquet"
    for t, cols in {**tables, "measurements": []}.items():
        dest = lake / t / name
        dest.unlink(missing_ok=True)
        where = _batch_where(t, cols, ", ".join(str(i) for i in ids))
        if t in CATALOGUE or where is None or not ids:
            continue
        sql = f'SELECT * FROM "{t}" WHERE {where}'
        if con.execute(f"SELECT count(*) FROM ({sql})").fetchall()[0][0]:
            _copy(con, sql, dest)
    for view in EXPORTED:
        _write_exported(con, lake / view / name, view, ids)


STATS_CHUNK: int | None = None  # points summarised in one query; None: what the connection's memory holds


def _write_exported(con, dest: Path, view: str, ids: list[int]) -> None:
    """The rows of the EXPORTED ``view`` for sources ``ids``, computed by the view's own query from
    their store files, a chunk of points at a time (iolab.store.chunks: memory stays bounded whatever
    the lake's or a capture's size), into one part file."""
    from ..store.chunks import chunks

    dest.unlink(missing_ok=True)
    todo = chunks(con, ids, STATS_CHUNK)
    if not todo:
        return
    con.execute(f'CREATE OR REPLACE TEMP TABLE iolab_exported AS SELECT * FROM "{view}" LIMIT 0')
    query = exported_query(view, {"series_values": "iolab_chunk"})  # the chunk's points, as series_values has them
    for chunk in todo:
        con.execute(f"CREATE OR REPLACE TEMP VIEW iolab_chunk AS {chunk.points()}")
        con.execute(f"INSERT INTO iolab_exported {query}")
    _copy(con, "SELECT * FROM iolab_exported ORDER BY ALL", dest)
    con.execute("DROP TABLE iolab_exported")


@outputs.sealed("lake", "lake")  # every file written is listed in its marker, however the export ends
def export(db_path: str | Path, lake: str | Path, step: Step | None = None) -> dict[str, Any]:
    """Write (or bring up to date) the lake at ``lake`` from the database; return the manifest.
    A lake folder inside a data root of the database, or holding files iolab did not write, is
    refused (outputs.Refused). ``step(number, total, part)`` is called as each part starts (the
    command line's progress)."""
    from .. import db

    lake = Path(lake)
    con = db.connect(db_path, read_only=True)
    try:
        _start(con, lake, db_path)  # what a killed export left goes; the record of one under way
        man_path = lake / MANIFEST
        old = json.loads(man_path.read_text()) if man_path.is_file() else {"sources": {}, "batches": {}}
        tables = _tables(con)
        now = _fingerprints(con)
        batches: dict[str, list[int]] = {b: ids for b, ids in old["batches"].items()}
        stale = _stale(old, now)  # batches whose sources changed or vanished: written again
        new = sorted(int(s) for s in now if s not in old["sources"])
        news = [f"{len(new)} new sources"] if new else []
        part = _parts(step, ["table schemas", *(f"batch {b} again" for b in sorted(stale)), *news, "time-series files"])
        part()
        _write_schemas(con, lake, tables)
        for b in sorted(stale):  # with the sources still there
            part()
            batches[b] = [i for i in batches[b] if str(i) in now]
            _write_batch(con, lake, tables, int(b), batches[b])
            if not batches[b]:
                del batches[b]
        added = max((int(b) for b in old["batches"]), default=0) + 1 if new else None
        if added is not None:
            part()
            batches[str(added)] = new
            _write_batch(con, lake, tables, added, new)
        part()
        points = _copy_points(con, lake)
        counts = {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in [*tables, "measurements"]}
        counts["points"] = sum(n for n in points.values())
        counts |= {view: parquet_rows(lake / view) for view in EXPORTED}
        history = con.execute("SELECT version, script, checksum FROM schema_history ORDER BY version").fetchall()
    finally:
        con.close()
    batch_of = {str(i): int(b) for b, ids in batches.items() for i in ids}
    sources = {s: {**v, "batch": batch_of[s]} for s, v in now.items()}
    manifest = {
        "lake_format": LAKE_FORMAT,
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "database": str(Path(db_path).resolve()),
        "schema": {"migrations": [{"version": v, "script": s, "checksum": c} for v, s, c in history]},
        "row_counts": counts,
        "sources": sources,
        "batches": batches,
        "last_run": {"new_sources": new, "rewritten_batches": sorted(int(b) for b in stale), "batch": added},
    }
    write_text(man_path, json.dumps(manifest, indent=1, sort_keys=True))
    write_script(lake)
    (lake / RUNNING).unlink(missing_ok=True)  # whole: the manifest says so
    return manifest


def _start(con, lake: Path, db_path: str | Path) -> None:
    """The lake is iolab's output folder (refused where outputs.check refuses it, or from a database
    not yet renumbered), and an export is under way until the manifest says it is whole (``lake
    status`` reads the record: iolab.lake.owned.incomplete)."""
    from ..store import places

    _up_to_date(con)
    outputs.check(lake, places.roots(con), "--to", db_path)
    outputs.start(lake, "lake")
    started = {"started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "by": owner()}
    write_text(lake / RUNNING, json.dumps(started))


def _up_to_date(con) -> None:
    """Refuse a database an older iolab made and no writable open has brought up since: its ids and
    time-series files are not yet this iolab's (schemas/V100, db.upgrade_store)."""
    from .. import db

    v100 = con.execute("SELECT count(*) FROM schema_history WHERE version = 100").fetchall()[0][0]
    waiting = "SELECT count(*) FROM point_files WHERE NOT has_times OR series_base IS NOT NULL"
    if not v100 or con.execute(waiting).fetchall()[0][0]:
        raise db.DatabaseProblem(
            "it was made by an older iolab and its ids and time-series files are not brought up to date yet. "
            "Next: run `iolab ingest` on its data folder once (it renumbers the database and rewrites "
            "its time-series files), then export again."
        )


def _write_schemas(con, lake: Path, tables: dict[str, list[str]]) -> None:
    """Every table's and the contract's schema file (an empty table still has columns); the catalogue,
    and any table no source owns rows of, whole."""
    for t in [*tables, "measurements", *EXPORTED]:
        _copy(con, f'SELECT * FROM "{t}" LIMIT 0', lake / t / SCHEMA_FILE)
    for t, cols in tables.items():
        if t in CATALOGUE or _batch_where(t, cols, "0") is None:
            _copy(con, f'SELECT * FROM "{t}"', lake / t / "part-all.parquet")


def _stale(old: dict[str, Any], now: dict[str, dict[str, Any]]) -> set[str]:
    """The batches of the last export one of whose sources changed or vanished since; every batch of
    a lake of another format (its layout differs: LAKE_FORMAT)."""
    if old.get("lake_format", LAKE_FORMAT) != LAKE_FORMAT:
        return set(old["batches"])
    return {
        b
        for b, ids in old["batches"].items()
        if any(now.get(str(i), {}).get("fingerprint") != old["sources"][str(i)]["fingerprint"] for i in ids)
    }


def _parts(step: Step | None, plan: list[str]) -> Callable[[], None]:
    """A call per part of ``plan``, in its order: each says ``step(number, len(plan), part)``."""
    said = iter(enumerate(plan, 1))

    def part() -> None:
        number, what = next(said)
        if step:
            step(number, len(plan), what)

    return part


def _copy_points(con, lake: Path) -> dict[int, int]:
    """The store's Parquet files, one per content, copied as they are (only those not there yet): each
    point names its series by column_no, the file its content (series_id = source_id + column_no)."""
    from .. import db

    out = lake / "points"
    out.mkdir(parents=True, exist_ok=True)
    _copy(
        con,
        "SELECT NULL::INTEGER AS column_no, NULL::INTEGER AS sample_no, NULL::TIMESTAMP AS ts, "
        "NULL::DOUBLE AS value WHERE false",
        out / SCHEMA_FILE,
    )
    try:
        store = db.store_dir(con)
    except RuntimeError:
        return {}
    files = {
        sid: (name, n)
        for sid, name, n in con.execute("SELECT source_id, file_name, points FROM point_files").fetchall()
    }
    for f in out.glob("part-*.parquet"):
        if f.name != SCHEMA_FILE and int(f.name[5:-8]) not in files:
            f.unlink()
    for sid, (name, _) in files.items():
        dest = out / f"part-{sid}.parquet"
        if not dest.exists() or dest.stat().st_size != (store / name).stat().st_size:  # new, or upgraded
            with replacing_by_name(dest) as tmp:
                shutil.copyfile(store / name, tmp)
    return {sid: n for sid, (_, n) in files.items()}
