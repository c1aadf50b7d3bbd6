"""The Parquet lake: the whole database as plain Parquet files, and the analysis views computed
from those files alone by DuckDB on one machine or by Apache Spark on many.

Layout of a lake DIR (any Parquet engine reads it; no Hive partitions, see below):

    DIR/_iolab_manifest.json       schema version (migrations), row counts, the sources and their sha256
    DIR/<table>/part-schema.parquet   zero rows: the table's schema, so an empty table still reads
    DIR/<table>/part-NNNNN.parquet    rows of the sources added by export batch NNNNN (one per run)
    DIR/source_history/part-all.parquet catalogue tables (labels, places change in place): rewritten each run
    DIR/points/part-<source_id>.parquet  the time-series store's own files, copied byte for byte
    DIR/measurements/...           the public contract, batched like the tables
    DIR/views/<view>/*.parquet     written by `iolab lake views`

Incremental: the manifest lists every exported source (place) with its sha256, a fingerprint of
its labels and the batch holding its rows. A new run exports only sources the manifest lacks, in a
new batch; a batch one of whose sources changed (relabelled, removed) is written again.

Why no Hive partitions: study and system names are free text from sidecars (slashes, '=', '%',
NULL), which Hive paths must escape and every engine then un-escapes and re-types in its own way
(a study named "2009" comes back as an integer). Batch files keep every value a plain column and
Parquet row-group statistics still let engines skip files by study or tool.

Views: schemas/views/*.sql are the ONE definition. DuckDB runs them as written; for Spark each
statement is parsed by sqlglot (DuckDB dialect), DuckDB macros are expanded in place (Spark SQL
has no macros) and the result is generated as Spark SQL. A construct sqlglot cannot carry over is
rewritten in the view file itself into a form both engines accept.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

MANIFEST = "_iolab_manifest.json"
LAKE_FORMAT = 1
# tables whose rows change in place (labels, places): rewritten whole at every export. Every place
# is exported (source_history, with those that left the analysis); source_files is the view
# schemas/views/000_places.sql over it, computed in the lake like any other view, so the one
# definition of "a file in the analysis" serves DuckDB, Spark and the lake's own SQL alike.
CATALOGUE = ("source_history", "sidecar_targets", "point_files", "schema_history", "validation_results")
SCHEMA_FILE = "part-schema.parquet"


# ---- export --------------------------------------------------------------------------------------


def _q(path: Path | str) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _copy(con, sql: str, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name("." + dest.name + ".tmp")  # hidden from readers until complete
    con.execute(f"COPY ({sql}) TO {_q(tmp)} (FORMAT parquet, COMPRESSION zstd)")
    tmp.replace(dest)


def _tables(con) -> dict[str, list[str]]:
    rows = con.execute("""SELECT t.table_name, list(c.column_name ORDER BY c.column_index)
                          FROM duckdb_tables() t JOIN duckdb_columns() c USING (table_oid)
                          WHERE t.schema_name = 'main' GROUP BY ALL ORDER BY 1""").fetchall()
    return {t: cols for t, cols in rows}


def _fingerprints(con) -> dict[str, dict[str, Any]]:
    rows = con.execute("""SELECT source_id, content_id, sha256, status, labels FROM source_files""").fetchall()
    return {
        str(sid): {
            "content_id": cid,
            "sha256": sha,
            "status": st,
            "fingerprint": hashlib.sha256(json.dumps([cid, sha, st, labels], default=str).encode()).hexdigest(),
        }
        for sid, cid, sha, st, labels in rows
    }


def _batch_where(table: str, cols: list[str], ids: str) -> str | None:
    if table == "samples":
        return f"run_id IN (SELECT run_id FROM runs WHERE source_id IN ({ids}))"
    if table == "measurements" or "source_id" in cols:
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


def export(db_path: str | Path, lake: str | Path) -> dict[str, Any]:
    """Write (or bring up to date) the lake at ``lake`` from the database; return the manifest."""
    from . import db

    lake = Path(lake)
    lake.mkdir(parents=True, exist_ok=True)
    man_path = lake / MANIFEST
    old = json.loads(man_path.read_text()) if man_path.is_file() else {"sources": {}, "batches": {}}
    con = db.connect(db_path, read_only=True)
    try:
        tables = _tables(con)
        now = _fingerprints(con)
        # schema files: every table and the contract, so empty ones still have columns
        for t in [*tables, "measurements"]:
            _copy(con, f'SELECT * FROM "{t}" LIMIT 0', lake / t / SCHEMA_FILE)
        for t, cols in tables.items():  # the catalogue, and any table no source owns rows of
            if t in CATALOGUE or _batch_where(t, cols, "0") is None:
                _copy(con, f'SELECT * FROM "{t}"', lake / t / "part-all.parquet")
        # batches whose sources changed or vanished are written again, with the sources still there
        batches: dict[str, list[int]] = {b: ids for b, ids in old["batches"].items()}
        stale = {
            b
            for b, ids in batches.items()
            if any(now.get(str(i), {}).get("fingerprint") != old["sources"][str(i)]["fingerprint"] for i in ids)
        }
        for b in sorted(stale):
            batches[b] = [i for i in batches[b] if str(i) in now]
            _write_batch(con, lake, tables, int(b), batches[b])
            if not batches[b]:
                del batches[b]
        new = sorted(int(s) for s in now if s not in old["sources"])
        added = None
        if new:
            added = max((int(b) for b in old["batches"]), default=0) + 1
            batches[str(added)] = new
            _write_batch(con, lake, tables, added, new)
        points = _copy_points(con, lake)
        counts = {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in [*tables, "measurements"]}
        counts["points"] = sum(n for n in points.values())
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
    tmp = man_path.with_name(".manifest.tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    tmp.replace(man_path)
    return manifest


def _copy_points(con, lake: Path) -> dict[int, int]:
    """The store's Parquet files, one per source, copied as they are (only those not there yet)."""
    from . import db

    out = lake / "points"
    out.mkdir(parents=True, exist_ok=True)
    _copy(
        con,
        "SELECT NULL::INTEGER AS series_id, NULL::INTEGER AS sample_no, NULL::TIMESTAMP AS ts, "
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
            tmp = dest.with_name("." + dest.name + ".tmp")
            shutil.copyfile(store / name, tmp)
            tmp.replace(dest)
    return {sid: n for sid, (_, n) in files.items()}


# ---- the views, from the lake alone --------------------------------------------------------------


def view_files() -> list[Path]:
    from .config import VIEWS

    return sorted(VIEWS.glob("*.sql"))


# db.refresh_points_view's series_points and series_values, over the lake's points/ folder (its
# files are the store's own: series_id, sample_no, ts, value; the source comes from series)
POINT_VIEWS = [
    (
        "series_points",
        """SELECT p.series_id, s.source_id, p.sample_no, p.ts, p.value
        FROM points p JOIN series s ON s.series_id = p.series_id""",
    ),
    ("series_values", "SELECT series_id, source_id, sample_no, value FROM series_points"),
]


def lake_tables(lake: Path) -> list[str]:
    return sorted(d.name for d in Path(lake).iterdir() if d.is_dir() and (d / SCHEMA_FILE).exists())


def view_statements() -> list[tuple[str, str, str]]:
    """(kind, name, DuckDB SQL) of every statement of schemas/views/*.sql, in order."""
    import sqlglot
    from sqlglot import exp

    out = [("view", name, sql) for name, sql in POINT_VIEWS]
    for f in view_files():
        for stmt in sqlglot.parse(f.read_text(), read="duckdb"):
            if stmt is None:
                continue
            if not isinstance(stmt, exp.Create):
                raise TypeError(f"{f.name}: only CREATE VIEW / CREATE MACRO statements are expected")
            kind = str(stmt.args.get("kind")).lower()
            name = stmt.this.this.name if kind == "macro" else stmt.this.name
            out.append((kind, name, stmt.sql(dialect="duckdb")))
    return out


def _expand_macros(tree, macros: dict):
    """Replace every call of a DuckDB macro by its body with the arguments put in (repeatedly:
    macros call macros)."""
    from sqlglot import exp

    def put(node):
        if isinstance(node, exp.Anonymous) and node.name.lower() in macros:
            params, body = macros[node.name.lower()]
            args = dict(zip(params, node.expressions))
            new = body.copy().transform(
                lambda n: args[n.name].copy() if isinstance(n, exp.Column) and not n.table and n.name in args else n
            )
            return exp.Paren(this=new)
        return node

    for _ in range(10):
        before = tree.sql()
        tree = tree.transform(put)
        if tree.sql() == before:
            return tree
    raise ValueError("macros nest too deeply")


# DuckDB functions Spark has under another name or not at all, as Spark expressions of the same
# meaning (X, P: the arguments). Everything else is sqlglot's own DuckDB -> Spark translation.
SPARK_FORMS = {
    # product of a group: Spark SQL has no product aggregate
    "product": "AGGREGATE(COLLECT_LIST(X), CAST(1 AS DOUBLE), (acc, v) -> acc * v)",
    # json_type: only the two answers the views ask for
    "json_type": "CASE WHEN JSON_ARRAY_LENGTH(X) IS NOT NULL THEN 'ARRAY' "
    "WHEN JSON_OBJECT_KEYS(X) IS NOT NULL THEN 'OBJECT' END",
    # quantile_cont = Spark's exact, linearly interpolated percentile
    "quantile_cont": "PERCENTILE(X, P)",
    # string_agg(DISTINCT x, sep ORDER BY x): the sorted distinct values joined (Spark's listagg with
    # DISTINCT and WITHIN GROUP fails when written: ClassCastException ... SortOrder)
    "string_agg_distinct": "CASE WHEN COUNT(X) > 0 THEN ARRAY_JOIN(ARRAY_SORT(COLLECT_SET(X)), P) END",
    # GLOB patterns (* and ?) as LIKE patterns, with % and _ of the pattern taken literally
    "glob": "X LIKE REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(P, '!', '!!'), '%', '!%'), '_', '!_'), '*', '%'), "
    "'?', '_') ESCAPE '!'",
}
JSON_TYPES = {'["VARCHAR"]': "array<string>"}  # DuckDB from_json structures as Spark DDL types


def _spark_form(name: str, x, p=None):
    import sqlglot
    from sqlglot import exp

    args = {"X": x, "P": p}
    return exp.Paren(
        this=sqlglot.parse_one(SPARK_FORMS[name], read="spark").transform(
            lambda n: args[n.name].copy() if isinstance(n, exp.Column) and n.name in args and args[n.name] else n
        )
    )


def _for_spark(tree):
    from sqlglot import exp

    def fix(n):
        if isinstance(n, exp.Anonymous) and n.name.lower() == "product":
            return _spark_form("product", n.expressions[0])
        if isinstance(n, exp.JSONType):
            return _spark_form("json_type", n.this)
        if isinstance(n, exp.PercentileCont) and n.expression is not None:
            return _spark_form("quantile_cont", n.this, n.expression)
        if isinstance(n, exp.GroupConcat) and isinstance(n.this, exp.Order) and isinstance(n.this.this, exp.Distinct):
            (x,), order = n.this.this.expressions, n.this.expressions
            if len(order) == 1 and order[0].this == x and not order[0].args.get("desc"):
                return _spark_form("string_agg_distinct", x, n.args["separator"])
        if isinstance(n, exp.Glob):
            return _spark_form("glob", n.this, n.expression)
        if isinstance(n, exp.FromJson) and n.expression.is_string and n.expression.name in JSON_TYPES:
            return exp.FromJson(this=n.this, expression=exp.Literal.string(JSON_TYPES[n.expression.name]))
        return n

    return tree.transform(fix)


def spark_statements() -> list[tuple[str, str]]:
    """(view name, Spark SQL query) for every view, translated from the DuckDB definitions."""
    import sqlglot
    from sqlglot import exp

    macros: dict[str, tuple[list[str], Any]] = {}
    out = []
    for kind, name, sql in view_statements():
        tree = sqlglot.parse_one(sql, read="duckdb")
        if kind == "macro":
            macros[name.lower()] = ([p.name for p in tree.this.expressions], tree.expression)
            continue
        query = tree.expression if isinstance(tree, exp.Create) else tree
        query = _for_spark(_expand_macros(query, macros))
        out.append((name, query.sql(dialect="spark", unsupported_level=sqlglot.ErrorLevel.RAISE)))
    return out


def _duckdb_views(lake: Path):
    import duckdb

    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    for t in lake_tables(lake):
        if t != "views":
            con.execute(f'CREATE VIEW "{t}" AS SELECT * FROM read_parquet({_q(lake / t / "part-*.parquet")})')
    for name, sql in POINT_VIEWS:
        con.execute(f"CREATE VIEW {name} AS {sql}")
    for f in view_files():  # as written: DuckDB is the dialect they are written in
        con.execute(f.read_text())
    return con, [name for kind, name, _ in view_statements() if kind == "view"]


def views(
    lake: str | Path, engine: str = "duckdb", master: str | None = None, out: str | Path | None = None, spark=None
) -> dict[str, int]:
    """Compute every view from the lake and write each to ``out``/<view>/ (default DIR/views)."""
    lake = Path(lake)
    out = Path(out) if out else lake / "views"
    if not (lake / MANIFEST).is_file():
        raise FileNotFoundError(f"{lake} is not an iolab lake (no {MANIFEST}): run `iolab lake export` first")
    counts: dict[str, int] = {}
    if engine == "duckdb":
        con, names = _duckdb_views(lake)
        for name in names:
            d = out / name
            shutil.rmtree(d, ignore_errors=True)
            _copy(con, f'SELECT * FROM "{name}"', d / "part-0.parquet")
            counts[name] = parquet_rows(d)
        con.close()
        return counts
    if engine != "spark":
        raise ValueError(f"unknown engine {engine!r}: spark or duckdb")
    own = spark is None
    spark = spark or spark_session(master)
    try:
        for t in lake_tables(lake):
            if t != "views":
                spark.read.parquet(str(lake / t)).createOrReplaceTempView(t)
        # in dependency order; each view, once written, is read back from its Parquet so the views
        # built on it do not compute it again
        for name, sql in spark_statements():
            try:
                df = spark.sql(sql)
                df.write.mode("overwrite").parquet(str(out / name))
            except Exception as e:
                raise RuntimeError(f"Spark could not compute view {name}: {str(e).splitlines()[0]}") from e
            spark.read.schema(df.schema).parquet(str(out / name)).createOrReplaceTempView(name)
            counts[name] = parquet_rows(out / name)
    finally:
        if own:
            spark.stop()
    return counts


def parquet_rows(folder: Path) -> int:
    """Rows of the Parquet files of a folder, from their footers."""
    import pyarrow.parquet as pq

    return sum(pq.read_metadata(f).num_rows for f in Path(folder).glob("*.parquet"))


def spark_session(master: str | None = None, app: str = "iolab lake"):
    """A SparkSession: local[*] unless ``master`` names a cluster (spark://, yarn, k8s://...)."""
    from pyspark.sql import SparkSession

    b = SparkSession.builder.appName(app)
    if master:
        b = b.master(master)
    elif not _in_spark_submit():
        b = b.master("local[*]")
    if not master or master.startswith("local"):  # one machine, small data: few shuffle partitions
        b = b.config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
    import tempfile

    return (
        b.config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.warehouse.dir", str(Path(tempfile.gettempdir()) / "iolab-spark-warehouse"))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.ansi.enabled", "false")  # DuckDB semantics: NULL, not an error, on a bad cast
        # Spark 4 keeps a UNION's partitioning; with the target_volumes plan that ends in "Can't zip
        # RDDs with unequal numbers of partitions". Off, the union is shuffled like any other input.
        .config("spark.sql.unionOutputPartitioning", "false")
        .getOrCreate()
    )


def _in_spark_submit() -> bool:
    import os

    return "SPARK_SUBMIT_OPTS" in os.environ or os.environ.get("PYSPARK_GATEWAY_PORT") is not None


# ---- command line --------------------------------------------------------------------------------


def register(sub) -> None:
    from .config import default_db

    p = sub.add_parser("lake", help="a Parquet lake of the database; the views computed by DuckDB or Spark")
    s = p.add_subparsers(dest="lake_cmd", required=True, metavar="ACTION", help="export or views")
    e = s.add_parser("export", help="write the database as a Parquet lake (again: only what is new)")
    e.add_argument("--db", default=default_db(), help="the database to export (read-only)")
    e.add_argument(
        "--to", required=True, metavar="DIR", help="the lake folder (created; an existing lake gets only what is new)"
    )
    e.set_defaults(func=cmd_export)
    v = s.add_parser("views", help="compute every analysis view from the lake into DIR/views/<view>/")
    v.add_argument("--lake", required=True, metavar="DIR", help="a lake written by `iolab lake export`")
    v.add_argument(
        "--engine",
        choices=["spark", "duckdb"],
        default="duckdb",
        help="duckdb on this machine, or Apache Spark (local[*] unless --master)",
    )
    v.add_argument("--master", help="Spark master URL (default local[*]; spark://host:7077, yarn, k8s://...)")
    v.add_argument("--out", metavar="DIR", help="write the views here instead of DIR/views")
    v.set_defaults(func=cmd_views)


def cmd_export(args) -> int:
    from .terminal import console, markup

    if not Path(args.db).is_file():
        console(stderr=True).print(
            f"[red]No database at {markup(args.db)}[/]: ingest first (`iolab ingest DATA --db {markup(args.db)}`)."
        )
        return 2
    m = export(args.db, args.to)
    last = m["last_run"]
    console(stderr=True).print(
        f"{len(last['new_sources'])} new sources (batch {last['batch']}), "
        f"{len(last['rewritten_batches'])} batches rewritten, {m['row_counts']['measurements']:,} "
        f"measurements, {m['row_counts']['points']:,} points -> {markup(args.to)}"
    )
    return 0


def cmd_views(args) -> int:
    from .terminal import console, markup

    t0 = time.perf_counter()
    counts = views(args.lake, args.engine, args.master, args.out)
    console(stderr=True).print(
        f"{len(counts)} views computed by {args.engine} in {time.perf_counter() - t0:.1f} s "
        f"-> {markup(args.out or Path(args.lake) / 'views')}"
    )
    return 0


# ---- reading a lake (notebooks) -------------------------------------------------------------------


def read_view(lake: str | Path, name: str):
    """A view from DIR/views/<name>/ as a Polars DataFrame (whichever engine wrote it)."""
    import polars as pl

    files = sorted(p for p in (Path(lake) / "views" / name).glob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"no view {name} in {lake}/views: run `iolab lake views --lake {lake}`")
    return pl.read_parquet(files)


def lake_connection(lake: str | Path):
    """An in-memory DuckDB connection whose views and tables are the lake's, read with Polars: the
    computed views (DIR/views/) first, then the exported tables (not the time-series points)."""
    import duckdb
    import polars as pl

    lake = Path(lake)
    if not (lake / "views").is_dir():
        raise FileNotFoundError(f"no views in {lake}: run `iolab lake views --lake {lake}` first")
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    for d in sorted((lake / "views").iterdir()):
        if any(d.glob("*.parquet")):
            con.register(d.name, read_view(lake, d.name))
    done = {d.name for d in (lake / "views").iterdir()}
    for t in lake_tables(lake):
        if t not in done and t != "points":
            con.register(t, pl.read_parquet(sorted((lake / t).glob("part-*.parquet"))))
    return con
