"""Options several commands share, defined once (the pattern of dbt-core's cli/params.py): every
command that reads a database takes the same ``--db`` with the same default and help."""

from __future__ import annotations

import argparse

from ..config import default_db

DEFAULT_DB = default_db()


def db(parser: argparse.ArgumentParser, *, writes: bool = False) -> None:
    """``--db FILE``; ``writes``: the command creates the database when it is missing (only ingest)."""
    if writes:
        text = "the DuckDB database file (created by ingest; $IOLAB_DB sets the default)"
    else:
        text = "the DuckDB database file (never created by this command; $IOLAB_DB sets the default)"
    parser.add_argument("--db", default=DEFAULT_DB, help=text)


def study(parser: argparse.ArgumentParser, *, help: str, required: bool = False) -> None:
    """``--study NAME``: one study of the database (a name that is none is wrong usage, exit 2)."""
    parser.add_argument("--study", required=required, help=help)
