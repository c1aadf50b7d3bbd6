"""Options several commands share, defined once (the pattern of dbt-core's cli/params.py): every
command that reads a database takes the same ``--db`` with the same default and help."""

from __future__ import annotations

import argparse

from ..config import default_db

DEFAULT_DB = default_db()
FOUND = "default: $IOLAB_DB, else data/iolab.duckdb here or in the nearest folder above holding one"


def db(parser: argparse.ArgumentParser, *, writes: bool = False, text: str = "") -> None:
    """``--db FILE``; ``writes``: the command creates the database when it is missing (only ingest).
    Left out, the command's dispatch finds it (``resolve_db``)."""
    if not text:
        text = "the DuckDB database file (" + ("created by ingest" if writes else "never created by this command")
        text += ")"
    parser.add_argument("--db", default=None, help=f"{text}; {FOUND}")


def resolve_db(args: argparse.Namespace) -> None:
    """Fill a --db left out: ``config.find_db`` (``$IOLAB_DB``, else the project's database found from
    the current folder upward, as git finds its repository); ``args.db_found`` says how."""
    from ..config import find_db

    if getattr(args, "db", "") is None:
        args.db, args.db_found = find_db()
    elif hasattr(args, "db"):
        args.db_found = "--db"


def study(parser: argparse.ArgumentParser, *, help: str, required: bool = False) -> None:
    """``--study NAME``: one study of the database (a name that is none is wrong usage, exit 2)."""
    parser.add_argument("--study", required=required, help=help)


def output(parser: argparse.ArgumentParser) -> None:
    """``--format table|json``: the command's results as tables for a reader, or as one JSON document
    on standard output for a program (``write_json``); progress and notes stay on standard error."""
    parser.add_argument(
        "--format",
        choices=["table", "json"],
        default="table",
        help="table for a reader, or json: one JSON object on standard output (docs/commands.md lists its keys)",
    )


def write_json(doc: object) -> None:
    """The one JSON shape of every command: one object, indented, keys in snake_case, numbers as
    numbers, a missing value as null; a date, path or other value as its text."""
    import json
    import sys

    sys.stdout.write(json.dumps(doc, indent=1, default=str) + "\n")
