"""What every part of the lake shares: its file names, and quoting and writing Parquet with DuckDB."""

from __future__ import annotations

from pathlib import Path

MANIFEST = "_iolab_manifest.json"
RUNNING = "_iolab_export_running.json"  # an export under way (or one that did not finish): its start
# 2: series_stats, exported with each batch; 3: ids derived from content (schemas/V100): batches and
# the manifest's sources are contents, each point names its series by column_no. A lake of an
# earlier format is written again, batch by batch.
LAKE_FORMAT = 3
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
    from ..written import replacing_by_name

    dest.parent.mkdir(parents=True, exist_ok=True)
    with replacing_by_name(dest) as tmp:  # hidden from readers until complete; removed if the write fails
        # USE_TMP_FILE false: the file is a temporary one already; DuckDB's own (tmp_<name>, not hidden)
        # was left in the lake by a killed export, and refused the next one
        con.execute(f"COPY ({sql}) TO {_q(tmp)} (FORMAT parquet, COMPRESSION zstd, USE_TMP_FILE false)")


def data_roots(lake: Path) -> list[str]:
    """The data roots of the database a lake was exported from (its copy of data_roots)."""
    import pyarrow.parquet as pq

    files = sorted((Path(lake) / "data_roots").glob("part-*.parquet"))
    return [str(p) for f in files for p in pq.read_table(f, columns=["path"]).column("path").to_pylist()]


def lake_tables(lake: Path) -> list[str]:
    return sorted(d.name for d in Path(lake).iterdir() if d.is_dir() and (d / SCHEMA_FILE).exists())


def parquet_rows(folder: Path) -> int:
    """Rows of the Parquet files of a folder, from their footers."""
    import pyarrow.parquet as pq

    return sum(pq.read_metadata(f).num_rows for f in Path(folder).glob("*.parquet"))


# The lake's points/ holds the store's own files: each point names its series by column_no and its
# file is part-<source_id>.parquet. Each engine's `points` adds the source_id from the file's name,
# so series_points (translate.POINT_VIEWS) needs no join. The raw files are iolab_point_files.
POINT_FILES = "iolab_point_files"
_PART = "'part-([0-9]+)[.]parquet$'"
POINTS_COLUMNS = "column_no, sample_no, ts, value"


def points_duckdb(lake: Path) -> str:
    """DuckDB's `points` over the lake's points/ folder."""
    source = f"TRY_CAST(regexp_extract(filename, {_PART}, 1) AS BIGINT)"
    files = _q(Path(lake) / "points" / "part-*.parquet")
    return f"SELECT {source} AS source_id, {POINTS_COLUMNS} FROM read_parquet({files}, filename = true)"


def points_spark() -> str:
    """Spark SQL's `points` over the temporary view POINT_FILES of the lake's points/ folder."""
    return (
        f"SELECT CAST(regexp_extract(input_file_name(), {_PART}, 1) AS BIGINT) AS source_id, {POINTS_COLUMNS} "
        f"FROM {POINT_FILES}"
    )
