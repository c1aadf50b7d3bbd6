"""The lake's own SQL: DIR/views/_sql/, the views translated to Spark SQL over the lake's Parquet,
so a Spark user computes them without iolab (`spark-sql -f DIR/views/_sql/create_all.sql`, or each
line of it given to `spark.sql`).

    create_all.sql   the session settings the views need, one temporary view per table (its
                     Parquet folder under ${iolab.lake}), then every view in dependency order, each
                     cached once made so the views built on it do not compute it again (but the
                     views of every point, series_points and series_values: they stay views)
    <view>.sql       that view's CREATE statement alone (it needs the tables and the views before it)

Every statement is one line ending in ';' (lines starting with '--' are comments), so it can be
run line by line. The lake's folder is set once, on the `SET iolab.lake=...` line: change that line
when the lake moves (Spark substitutes ${iolab.lake} from the session's settings).
"""

from __future__ import annotations

from pathlib import Path

from ..outputs import temporary
from .common import lake_tables
from .translate import ROW_VIEWS, spark_statements

SQL_DIR = "_sql"
SCRIPT = "create_all.sql"
# what the views need of a Spark session (lake.spark_session sets them too)
SPARK_SQL_CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "false",  # DuckDB semantics: NULL, not an error, on a bad cast
    # Spark 4 keeps a UNION's partitioning; with the target_volumes plan that ends in "Can't zip
    # RDDs with unequal numbers of partitions". Off, the union is shuffled like any other input.
    "spark.sql.unionOutputPartitioning": "false",
}


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _one_line(sql: str, what: str) -> str:
    if "\n" in sql or "\r" in sql:
        raise ValueError(f"the Spark SQL of {what} spans lines: the lake's scripts need one statement a line")
    return sql + ";"


def spark_script(lake: Path) -> dict[str, str]:
    """File name -> text of every file of DIR/views/_sql/."""
    if "\n" in str(lake.resolve()):
        raise ValueError(f"{lake}: a lake folder whose name holds a line break cannot be named in a script")
    head = ["-- iolab lake views for Spark SQL: run with `spark-sql -f` or line by line with spark.sql"]
    head += [f"SET {k}={v};" for k, v in SPARK_SQL_CONF.items()]
    # the cached views' size estimates invite broadcasts a default 1 GB driver cannot build
    head.append("SET spark.sql.autoBroadcastJoinThreshold=-1;")
    head.append(f"SET iolab.lake={lake.resolve()};")
    tables = [
        _one_line(f"CREATE OR REPLACE TEMPORARY VIEW `{t}` USING parquet OPTIONS (path '${{iolab.lake}}/{t}')", t)
        for t in lake_tables(lake)
        if t != "views"
    ]
    files: dict[str, str] = {}
    body = []
    for name, query in spark_statements():
        create = _one_line(f"CREATE OR REPLACE TEMPORARY VIEW `{name}` AS {query}", name)
        files[f"{name}.sql"] = f"-- {name}: needs the lake's tables and the views before it in {SCRIPT}\n{create}\n"
        body += [create] if name in ROW_VIEWS else [create, f"CACHE TABLE `{name}`;"]
    files[SCRIPT] = "\n".join([*head, "-- the lake's tables", *tables, "-- the views, in order", *body]) + "\n"
    return files


def write_script(lake: Path) -> Path:
    """Write DIR/views/_sql/ afresh; its folder."""
    out = lake / "views" / SQL_DIR
    out.mkdir(parents=True, exist_ok=True)
    files = spark_script(lake)
    for old in out.glob("*.sql"):
        if old.name not in files:
            old.unlink()
    for name, text in files.items():
        with temporary(out / name) as tmp:
            tmp.write_text(text)
    return out
