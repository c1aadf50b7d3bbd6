"""The database, as the rest of iolab uses it: ``from iolab import db``. The code lives in
ingest/store/ (one module per concern); this module names what is public."""

from .store.connect import DatabaseBusy, DatabaseProblem, connect, reader, transaction
from .store.points import (
    STORE_MARK,
    drop_points,
    points_of,
    refresh_points_view,
    store_dir,
    store_id,
    store_problems,
)
from .store.schema import check_version, create_views, from_template, migrate, open_db
from .store.writer import ArrowStream, Writer, frame_rows, with_constants, write_result

__all__ = [
    "STORE_MARK",
    "ArrowStream",
    "DatabaseBusy",
    "DatabaseProblem",
    "Writer",
    "check_version",
    "connect",
    "create_views",
    "drop_points",
    "frame_rows",
    "from_template",
    "migrate",
    "open_db",
    "points_of",
    "reader",
    "refresh_points_view",
    "store_dir",
    "store_id",
    "store_problems",
    "transaction",
    "with_constants",
    "write_result",
]
