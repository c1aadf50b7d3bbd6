"""Reading ahead: the first file of an ingest into a new database, when it is a big capture,
starts streaming its points before the database is made.

Making the database (importing DuckDB, copying the template, its first connect, the queries that
place the file: ~0.1 s) and the pass over the capture share nothing, and a new database can know
nothing of the file, so the pass may as well run meanwhile: Polars streams outside the lock Python
holds while it imports and queries. The ingest then meets the file as usual and takes the parse
from here (``Ahead.take``) if the file is as it was and its parser the one chosen here (the pass
needs no id: each point names its series by column). Anything else, and the pass is abandoned
(``Ahead.drop``) and the file read as always. In a database that exists the file may be stored
already, and reading it ahead could cost a whole pass for nothing: nothing is read ahead there.

The pass writes a hidden file beside the database (the store's folder is named after the
database's store id, unknown yet); ``done`` moves it into the store. A crash leaves that file:
the next open removes it, once its process is gone (store.points.clean_ahead).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from . import archives, files, registry
from .parsing import streams
from .store.places import Stamp
from .store.points import StreamingPoints, ahead_file


@dataclass
class Ahead:
    path: Path
    stamp: Stamp
    module: ModuleType
    result: Any  # the ParseResult, its points streaming (until taken)
    streaming: StreamingPoints

    def take(self, f: files.Incoming, mod: ModuleType) -> Any:
        """The parse of ``f`` read ahead, if it is this file as it was, for the same parser."""
        if self.result is None or (f.path, f.stamp, mod) != (self.path, self.stamp, self.module):
            return None
        result, self.result = self.result, None
        return result

    def drop(self, wait: bool = True) -> None:
        """At the ingest's end: the pass's file is removed unless the ingest stored it (taken, a
        pass is done or abandoned by then; StreamingPoints.abandon leaves a file moved away alone)."""
        self.result = None
        self.streaming.abandon(wait)


def read_ahead(walked: list[tuple[Path, Path]], db: Path) -> Ahead | None:
    """Start streaming the first walked file, if the database ``db`` is new and the file a big capture."""
    if not walked or str(db) == ":memory:" or db.exists() or not db.parent.is_dir():
        return None
    path = walked[0][1]
    try:
        stamp = files.stamp(path)
        if stamp[0] < files.HASH_BESIDE_BYTES:
            return None
        with files.open_regular(path) as fh:
            head = fh.read(registry.HEAD_BYTES)
        mod = registry.claim(head, path.name).module
        if mod is None or not streams(mod) or head.startswith(archives.GZIP):
            return None
        result = registry.parse_path(mod, path, path.name)
        result.points = StreamingPoints(result.points, None, ahead_file(db, os.getpid()))
    except Exception:  # the ingest meets the file again, and says what is wrong with it
        return None
    return Ahead(path, stamp, mod, result, result.points)
