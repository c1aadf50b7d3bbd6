"""Reading a lake (notebooks): the computed views and the exported tables, with Polars."""

from __future__ import annotations

from pathlib import Path

from .common import lake_tables


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
