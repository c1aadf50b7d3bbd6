"""The lake's own SQL: DIR/views/_sql/, the views translated to Spark SQL over the lake's Parquet,
so a Spark user computes them without iolab (`spark-sql -f DIR/views/_sql/create_all.sql`, or each
line of it given to `spark.sql`).

    create_all.sql   the session settings the views need (SCRIPT_CONF: adaptive execution, few
                     shuffle partitions to start from, no whole-stage code generation for the wide
                     views), one temporary view per table (its Parquet folder under ${iolab.lake}),
                     then every view in dependency order, each written once made to its Parquet
                     folder under ${iolab.out} and read back from there, so the views built on it
                     read a few files instead of planning (and computing) it again: no plan grows
                     with the views below it and nothing is cached in the driver's memory. The
                     views of every point, series_points and series_values, stay views (a copy
                     would be the lake again).
    <view>.sql       that view's CREATE statement alone (it needs the tables and the views before it)

Every statement is one line ending in ';' (lines starting with '--' are comments), so it can be
run line by line. The lake's folder is set once, on the `SET iolab.lake=...` line, and where the
views go on the `SET iolab.out=...` line (default: DIR.spark-views beside the lake, so the lake's
own folders hold only what iolab wrote): change those lines when the lake moves (Spark substitutes
${iolab.lake} and ${iolab.out} from the session's settings).
"""

from __future__ import annotations

from pathlib import Path

from ..written import write_text
from .common import POINT_FILES, lake_tables, points_spark
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
    # the plans of the wide views are long: printed whole, not with a warning that they were cut
    "spark.sql.debug.maxToStringFields": "1000",
}
# what create_all.sql sets besides, for a session with Spark's defaults (spark-sql, a 1 GB driver)
SCRIPT_CONF = {
    # shuffle partitions from the data: Spark's 200 coalesced to what each shuffle holds (a cluster
    # keeps its parallelism for the points, the small views get a partition or two)
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
}
# Views whose whole-stage generated code outgrows the JVM's 64 KB a method: Spark compiles, fails,
# logs the error with the plan (two hundred lines) and runs them interpreted anyway. Run them
# interpreted from the start (the same result, the compile and the noise saved).
NO_WHOLE_STAGE = frozenset({"trends"})
OUT_SUFFIX = ".spark-views"


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _one_line(sql: str, what: str) -> str:
    if "\n" in sql or "\r" in sql:
        raise ValueError(f"the Spark SQL of {what} spans lines: the lake's scripts need one statement a line")
    return sql + ";"


def out_folder(lake: Path) -> Path:
    """Where create_all.sql writes the views unless its `SET iolab.out` line is changed."""
    lake = lake.resolve()
    return lake.with_name(lake.name + OUT_SUFFIX)


def spark_script(lake: Path) -> dict[str, str]:
    """File name -> text of every file of DIR/views/_sql/."""
    if "\n" in str(lake.resolve()):
        raise ValueError(f"{lake}: a lake folder whose name holds a line break cannot be named in a script")
    head = ["-- iolab lake views for Spark SQL: run with `spark-sql -f` or line by line with spark.sql"]
    head += [f"SET {k}={v};" for k, v in {**SPARK_SQL_CONF, **SCRIPT_CONF}.items()]
    head.append(f"SET iolab.lake={lake.resolve()};")
    head.append(f"SET iolab.out={out_folder(lake)};")
    tables = [
        _one_line(
            f"CREATE OR REPLACE TEMPORARY VIEW `{POINT_FILES if t == 'points' else t}` USING parquet "
            f"OPTIONS (path '${{iolab.lake}}/{t}')",
            t,
        )
        for t in lake_tables(lake)
        if t != "views"
    ]
    if "points" in lake_tables(lake):  # the points with the source their file is named by
        tables.append(_one_line(f"CREATE OR REPLACE TEMPORARY VIEW `points` AS {points_spark()}", "points"))
    files: dict[str, str] = {}
    body = []
    for name, query in spark_statements():
        create = _one_line(f"CREATE OR REPLACE TEMPORARY VIEW `{name}` AS {query}", name)
        files[f"{name}.sql"] = f"-- {name}: needs the lake's tables and the views before it in {SCRIPT}\n{create}\n"
        body.append(create)
        if name not in ROW_VIEWS:
            folder = f"'${{iolab.out}}/{name}'"
            write = f"INSERT OVERWRITE DIRECTORY {folder} USING parquet SELECT * FROM `{name}`;"
            if name in NO_WHOLE_STAGE:
                off, on = (f"SET spark.sql.codegen.wholeStage={v};" for v in ("false", "true"))
                body += [off, write, on]
            else:
                body.append(write)
            body.append(f"CREATE OR REPLACE TEMPORARY VIEW `{name}` USING parquet OPTIONS (path {folder});")
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
        write_text(out / name, text)
    return out
