"""`iolab lake views`: every view computed from the lake alone, by DuckDB or Spark."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from .. import outputs
from .common import MANIFEST, POINT_FILES, _copy, _q, lake_tables, parquet_rows, points_duckdb, points_spark
from .owned import claim, mark
from .script import NO_WHOLE_STAGE, SPARK_SQL_CONF
from .translate import EXPORTED, POINT_VIEWS, ROW_VIEWS, needed, spark_statements, view_files, view_statements

Step = Callable[[int, int, str], None]  # step(number, total, view): the view starts (progress)
SETUP = "reading the lake's tables, defining the views"  # the first step, before any view (seconds)


def _duckdb_views(lake: Path):
    import duckdb

    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    for t in lake_tables(lake):
        if t == "points":
            con.execute(f"CREATE VIEW points AS {points_duckdb(lake)}")
        elif t != "views":
            con.execute(f'CREATE VIEW "{t}" AS SELECT * FROM read_parquet({_q(lake / t / "part-*.parquet")})')
    for name, sql in POINT_VIEWS:
        con.execute(f"CREATE VIEW {name} AS {sql}")
    for f in view_files():  # as written: DuckDB is the dialect they are written in
        con.execute(f.read_text())
    for t in EXPORTED:  # the lake's rows, not the definition over every point just made
        con.execute(f'CREATE OR REPLACE VIEW "{t}" AS SELECT * FROM read_parquet({_q(lake / t / "part-*.parquet")})')
    return con, [name for kind, name, _ in view_statements() if kind == "view"]


def views(
    lake: str | Path,
    engine: str = "duckdb",
    master: str | None = None,
    out: str | Path | None = None,
    spark=None,
    only: list[str] | None = None,
    step: Step | None = None,
    verbose: bool = False,
) -> dict[str, int]:
    """Compute every view from the lake and write each to ``out``/<view>/ (default DIR/views).
    With ``only``, those views and the views they read, no others: the folder then holds just them.
    ``step(number, total, view)`` is called as each view starts (the command line's progress).
    Spark's warnings are shown with ``verbose`` only (a session made here logs errors alone)."""
    lake = Path(lake)
    out = Path(out) if out else lake / "views"
    if not (lake / MANIFEST).is_file():
        raise FileNotFoundError(f"{lake} is not an iolab lake (no {MANIFEST}): run `iolab lake export` first")
    if engine not in ("duckdb", "spark"):
        raise ValueError(f"unknown engine {engine!r}: spark or duckdb")
    if rows := sorted(set(only or ()) & ROW_VIEWS):
        raise ValueError(
            f"{', '.join(rows)}: rows of the lake row for row (every point with its source, or every number of "
            "a current measurement), a view that is not written to views/ (it would copy the whole lake); "
            "views/_sql defines it for Spark, and the views over it (`iolab lake views --view series_summary`, "
            "--view latency_percentiles) read it through"
        )
    keep = needed(only) if only else None
    before = claim(lake, out)
    every = [n for k, n, _ in view_statements() if k == "view" and (keep is None or n in keep) and n not in ROW_VIEWS]
    with outputs.writing(out, "lake views"):  # every file written is listed in its marker, however it ends
        mark(lake, out, engine, sorted(before | set(every)), done=False)  # ours, from no export yet
        tell = _teller(step, [SETUP, *every])
        if engine == "duckdb":
            counts = _duckdb(lake, out, keep, tell)
        else:
            counts = _spark(lake, out, master, spark, keep, tell, verbose)
        for gone in before - set(counts):  # ours, not computed now (an earlier definition, or not in only)
            shutil.rmtree(out / gone, ignore_errors=True)
        mark(lake, out, engine, list(counts))
    return counts


class TooBig(RuntimeError):
    """DuckDB ran out of memory on one view (an exact percentile holds every value of its groups)."""

    def __init__(self, view: str, why: str) -> None:
        self.view = view
        super().__init__(
            f"DuckDB ran out of memory computing view {view} on this machine ({why}). A lake this size is "
            "Spark's: `iolab lake views --engine spark --master spark://HOST:7077` (see docs/lake.md)"
        )


def _teller(step: Step | None, every: list[str]) -> Callable[[str], None]:
    """``tell(view)``: the view starts, as ``step(number, len(every), view)``."""
    number = {name: i for i, name in enumerate(every, 1)}
    return lambda name: step(number[name], len(every), name) if step and name in number else None


def _duckdb(lake: Path, out: Path, keep: set[str] | None, tell: Callable[[str], None]) -> dict[str, int]:
    import duckdb

    counts: dict[str, int] = {}
    tell(SETUP)
    con, names = _duckdb_views(lake)
    for name in (n for n in names if (keep is None or n in keep) and n not in ROW_VIEWS):
        tell(name)
        d = out / name
        shutil.rmtree(d, ignore_errors=True)
        try:
            _copy(con, f'SELECT * FROM "{name}"', d / "part-0.parquet")
        except duckdb.OutOfMemoryException as e:
            con.close()
            raise TooBig(name, str(e).splitlines()[0]) from None
        counts[name] = parquet_rows(d)
    con.close()
    return counts


def _spark(
    lake: Path,
    out: Path,
    master: str | None,
    spark,
    keep: set[str] | None,
    tell: Callable[[str], None],
    verbose: bool = False,
) -> dict[str, int]:
    counts: dict[str, int] = {}
    own = spark is None
    tell(SETUP)
    spark = spark or spark_session(master)
    if own and not verbose:
        spark.sparkContext.setLogLevel("ERROR")
    try:
        for t in lake_tables(lake):
            if t != "views":
                spark.read.parquet(str(lake / t)).createOrReplaceTempView(POINT_FILES if t == "points" else t)
            if t == "points":
                spark.sql(points_spark()).createOrReplaceTempView("points")
        # in dependency order; each view, once written, is read back from its Parquet so the views
        # built on it do not compute it again
        for name, sql in spark_statements():
            if keep is not None and name not in keep:
                continue
            tell(name)
            try:
                df = spark.sql(sql)
                if name in ROW_VIEWS:
                    df.createOrReplaceTempView(name)
                    continue
                _write(spark, df, name, out / name)
            except Exception as e:
                raise RuntimeError(f"Spark could not compute view {name}: {str(e).splitlines()[0]}") from e
            spark.read.schema(df.schema).parquet(str(out / name)).createOrReplaceTempView(name)
            counts[name] = parquet_rows(out / name)
    finally:
        if own:
            spark.stop()
    return counts


def _write(spark, df, name: str, folder: Path) -> None:
    """One view to its Parquet folder (interpreted, not compiled, where the code would outgrow the JVM)."""
    if name not in NO_WHOLE_STAGE:
        df.write.mode("overwrite").parquet(str(folder))
        return
    before = spark.conf.get("spark.sql.codegen.wholeStage")
    spark.conf.set("spark.sql.codegen.wholeStage", "false")
    try:
        df.write.mode("overwrite").parquet(str(folder))
    finally:
        spark.conf.set("spark.sql.codegen.wholeStage", before)


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

    b = b.config("spark.ui.showConsoleProgress", "false").config(
        "spark.sql.warehouse.dir", str(Path(tempfile.gettempdir()) / "iolab-spark-warehouse")
    )
    for k, v in SPARK_SQL_CONF.items():
        b = b.config(k, v)
    return b.getOrCreate()


def _in_spark_submit() -> bool:
    import os

    return "SPARK_SUBMIT_OPTS" in os.environ or os.environ.get("PYSPARK_GATEWAY_PORT") is not None
