"""What no writer may touch: the one guard every command that writes a file or a folder calls
(``export --out``, ``report --out`` and ``--images``, the print edition, ``lake export --to``,
``lake views --out``), through iolab.outputs.check and check_file.

iolab reads or keeps, and so never overwrites, nor writes into or around:
* a DuckDB database: the one ``--db`` names and any other (known by its first bytes, whatever its
  name), its write-ahead log (``<db>.wal``), its temporary folder (``<db>.tmp``) and its time-series
  store (``<db>.points/``);
* iolab's cache folder (the template a new database is copied from, the kept notebooks and Vega
  bundle) and iolab's own files (its package, schemas, notebooks and report templates);
* the data roots (checked by iolab.outputs: a file in one would be read as data).

Every path is compared as the file system resolves it (links followed), so a link named as the
output is refused for what it points to.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import config
from .regular import open_regular

DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of every DuckDB database file


def is_duckdb(path: Path) -> bool:
    """Whether ``path`` is a DuckDB database file (its header), read only if it is a regular file."""
    try:
        with open_regular(path) as f:
            return f.read(12)[8:12] == DUCKDB_MAGIC
    except OSError:
        return False


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def kept(db: Path | str | None) -> dict[Path, str]:
    """Every place iolab keeps something, resolved, with what it is."""
    places = {
        _real(config.cache_dir()): "iolab's cache folder (the template new databases are copied from)",
        _real(Path(__file__).parent): "iolab's own package",
        _real(config.SCHEMAS): "iolab's schemas",
        _real(config.resource_dir("notebooks")): "iolab's report notebooks",
    }
    if db:
        base = _real(db)
        places |= {
            base: "the database",
            base.with_name(base.name + ".wal"): "the database's write-ahead log",
            base.with_name(base.name + ".tmp"): "the database's temporary folder",
            base.with_name(base.name + ".points"): "the database's time-series store",
        }
    return places


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _store_of_a_database(path: Path) -> Path | None:
    """The ``<db>.points`` folder holding ``path`` (or ``path`` itself) beside a DuckDB file, if any."""
    for p in (path, *path.parents):
        if p.name.endswith(".points") and is_duckdb(p.with_name(p.name.removesuffix(".points"))):
            return p
    return None


def file_refusal(target: Path, db: Path | str | None) -> str | None:
    """Why ``target`` (a file to write) must not be written, else None."""
    where = _real(target)
    for place, what in kept(db).items():
        if _inside(where, place):
            return f"{target} is {what} ({place})" if where == place else f"{target} lies inside {what} ({place})"
    if is_duckdb(where):
        return f"{target} is a DuckDB database: iolab never writes over one"
    if where.suffix == ".wal" and is_duckdb(where.with_suffix("")):
        return f"{target} is the write-ahead log of the DuckDB database {where.with_suffix('')}"
    if store := _store_of_a_database(where.parent):
        return f"{target} lies inside {store}, the time-series store of the database beside it"
    return None


def folder_refusal(folder: Path, db: Path | str | None) -> str | None:
    """Why ``folder`` (an output folder) must not be written into, else None: it is, lies inside or
    holds something iolab keeps, or lies inside another database's store."""
    where = _real(folder)
    if is_duckdb(where):
        return f"{folder} is a DuckDB database, not a folder"
    for place, what in kept(db).items():
        if _inside(where, place):
            how = "is" if where == place else "lies inside"
            return f"{folder} {how} {what} ({place})"
        if _inside(place, where) and (place.exists() or place.is_symlink()):
            return f"{folder} holds {what} ({place})"
    if store := _store_of_a_database(where):
        return f"{folder} lies inside {store}, the time-series store of the database beside it"
    return None


def foreign_refusal(files: list[Path]) -> str | None:
    """A more exact reason than "files iolab did not write" when one of them is a database or its log."""
    for f in files:
        if is_duckdb(f):
            return f"it holds the DuckDB database {f}"
        if f.suffix == ".wal" and is_duckdb(f.with_suffix("")):
            return f"it holds the write-ahead log {f} of a DuckDB database"
    return None
