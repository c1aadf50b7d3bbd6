"""Places: where each raw file is, and which of them are in the analysis. data/ is the truth.

A database mirrors one or more folders, its *data roots* (table ``data_roots``). The first ingest
of a folder makes it a root; an ingest of a folder inside a root refreshes that part of it; an
ingest of a folder holding roots makes it the root in their stead; a root gone from disk whose every
file is under a folder named has moved there (ingest/roots.py). A file's place is its absolute
path with every folder's links resolved (``canonical``), so the same file reached by another
spelling, current folder or symlinked parent is the same place. A folder whose sidecar says
``root = true`` is the data root of every file below it, whichever of them is named; a file's
path is stored relative to the folder holding its data root, and the default study is the first
folder under that root. Sidecars apply upward from a file (ingest/sidecar.py).

Every place ever found is a row of ``source_history``; the view ``source_files`` shows those in the
analysis. A place leaves when its file is gone from a folder that is ingested again (``deleted``),
when it turns up elsewhere with the same bytes (``moved``: the same place, a new path), when its
bytes change (``replaced`` by the new version), or by ``iolab remove`` (``removed``). Parsed rows
whose content no place in the analysis uses any more are deleted with them (``purge``).

A place's id is derived from where it is and what it holds, its parsed rows' from what it holds
(ingest/store/ids.py): a place that moves takes the id of its new place (``rekey``), and a row of
history whose id a place needs again takes a history id (``free_id``).

This module owns every query on source_history and data_roots.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..paths import canonical, inside, text  # noqa: F401  (read from here too)
from . import ids

if TYPE_CHECKING:  # DuckDB is imported where a connection is made (iolab.store.connect)
    from duckdb import DuckDBPyConnection

Stamp = tuple[int, int | None, int | None, int | None]  # size, mtime_ns, ctime_ns, inode
LABEL_COLUMNS = ("study", "system", "generation", "tiles", "vms", "config_label", "price_usd", "watts", "tags")


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


# ---- data roots ------------------------------------------------------------------------------------


@dataclass
class Roots:
    """The database's data roots after this ingest named ``given``; ``notes`` say what changed.
    ``marked``: the nearest folder at or above a folder whose sidecar says ``root = true``
    (sidecar.Sidecars.marked), which is its files' data root whatever the database mirrors."""

    paths: list[Path]
    notes: list[str]
    marked: Callable[[Path], Path | None] | None = None

    def of(self, place: Path) -> Path:
        """The data root of ``place``: the folder marked ``root = true`` nearest above it, else the
        deepest root holding it (the given folders were made roots, so there is one)."""
        if self.marked is not None and (marked := self.marked(place.parent)) is not None:
            return marked
        holding = [r for r in self.paths if inside(place, r)]
        return max(holding, key=lambda r: len(r.parts)) if holding else place.parent

    def shown(self, place: Path) -> str:
        """The place as stored in source_history.path: relative to the folder holding its root."""
        root = self.of(place)
        base = root.parent if root.parent != root else root
        return text(place.relative_to(base))


def write_roots(con: DuckDBPyConnection, added: Iterable[Path], dropped: Iterable[Path]) -> None:
    """The data roots an ingest's plan settled (plan.settle): ``dropped`` ones leave ``data_roots``
    (a folder named above them took their place), ``added`` ones come in."""
    for r in dropped:
        con.execute("DELETE FROM data_roots WHERE path = ?", [text(r)])
    for r in added:
        con.execute("INSERT INTO data_roots VALUES (?, ?)", [text(r), now()])


def roots(con: DuckDBPyConnection) -> list[str]:
    return [p for (p,) in con.execute("SELECT path FROM data_roots ORDER BY path").fetchall()]


def places_in_root(con: DuckDBPyConnection, root: str) -> list[tuple[str, Stamp, str]]:
    """(abs_path, stamp, sha256) of every place in the analysis below the root ``root``."""
    rows = con.execute(
        """SELECT abs_path, size_bytes, mtime_ns, ctime_ns, inode, sha256 FROM source_history
           WHERE left_at IS NULL AND (abs_path = ? OR starts_with(abs_path, ?)) ORDER BY abs_path""",
        [root, root.rstrip("/") + "/"],
    ).fetchall()
    return [(a, (size, mtime, ctime, inode), sha) for a, size, mtime, ctime, inode, sha in rows]


def move_root(con: DuckDBPyConnection, old: Path, new: Path, moved: dict[str, tuple[Path, Stamp]]) -> None:
    """The root ``old`` moved whole to ``new`` (roots.find_moves): its places take their new paths,
    stamps and ids, the root its new folder (its added_at kept). Inside the caller's transaction."""
    import pyarrow as pa

    base = new.parent if new.parent != new else new
    held = con.execute(
        "SELECT abs_path, source_id, sha256 FROM source_history WHERE left_at IS NULL AND list_contains(?, abs_path)",
        [list(moved)],
    ).fetchall()
    known = {a: (sid, sha) for a, sid, sha in held}
    olds = [a for a in moved if a in known]
    new_ids = [ids.place_id(text(moved[a][0]), known[a][1]) for a in olds]
    for i in new_ids:
        free_id(con, i)
    rows = pa.table(  # one UPDATE for every place (one per place scanned the table each time)
        {
            "old": olds,
            "old_id": pa.array([known[a][0] for a in olds], pa.int64()),
            "new_id": pa.array(new_ids, pa.int64()),
            "path": [text(moved[a][0].relative_to(base)) for a in olds],
            "abs_path": [text(moved[a][0]) for a in olds],
            "mtime_ns": pa.array([moved[a][1][1] for a in olds], pa.int64()),
            "ctime_ns": pa.array([moved[a][1][2] for a in olds], pa.int64()),
            "inode": pa.array([moved[a][1][3] for a in olds], pa.int64()),
        }
    )
    con.register("iolab_moved_places", rows)
    try:
        con.execute("""
            UPDATE source_history h SET path = m.path, abs_path = m.abs_path, mtime_ns = m.mtime_ns,
                   ctime_ns = m.ctime_ns, inode = m.inode, source_id = m.new_id
            FROM iolab_moved_places m WHERE h.abs_path = m.old AND h.left_at IS NULL""")
        con.execute(
            "UPDATE sidecar_targets t SET source_id = m.new_id FROM iolab_moved_places m WHERE t.source_id = m.old_id"
        )
        con.execute(
            "UPDATE source_history h SET left_for = m.new_id FROM iolab_moved_places m WHERE h.left_for = m.old_id"
        )
    finally:
        con.unregister("iolab_moved_places")
    con.execute("UPDATE data_roots SET path = ? WHERE path = ?", [text(new), text(old)])


def gone_roots(con: DuckDBPyConnection) -> list[str]:
    """Roots gone from disk that hold no place in the analysis any more (``drop_roots`` them)."""
    return [r for r in roots(con) if not os.path.lexists(r) and not places_in_root(con, r)]


# ---- places in the analysis ------------------------------------------------------------------------


@dataclass
class Known:
    """An active place as a re-ingest needs it: what decides whether its file changed."""

    source_id: int
    status: str
    path: str
    stamp: Stamp
    labels: str | None
    targets: list
    sha: str = ""  # its bytes' sha256
    error: str | None = None  # why it was rejected (status 'rejected')


def adopt_legacy(con: DuckDBPyConnection) -> None:
    """Places recorded before places had an identity (abs_path NULL) stored their path as typed,
    relative to the folder iolab ran in; they get the identity that path has from here."""
    rows = con.execute("SELECT source_id, path, sha256, left_at FROM source_history WHERE abs_path IS NULL").fetchall()
    for sid, path, sha, left_at in rows:
        abs_path = text(canonical(Path(path)))
        con.execute("UPDATE source_history SET abs_path = ? WHERE source_id = ?", [abs_path, sid])
        if left_at is None:
            rekey(con, sid, ids.place_id(abs_path, sha))


def known_places(con: DuckDBPyConnection) -> dict[str, Known]:
    """Every place in the analysis by identity, in one query (a large re-ingest asks nothing per file)."""
    rows = con.execute("""
        SELECT h.abs_path, h.source_id, h.status, h.path, h.size_bytes, h.mtime_ns, h.ctime_ns, h.inode, h.labels,
               list((t.target, t.volume, t.drives, t.array_name)) FILTER (t.target IS NOT NULL), h.sha256, h.error
        FROM source_history h LEFT JOIN sidecar_targets t USING (source_id)
        WHERE h.left_at IS NULL AND h.abs_path IS NOT NULL GROUP BY ALL""").fetchall()
    return {
        abs_path: Known(
            sid, status, path, (size, mtime, ctime, inode), labels, sorted(map(tuple, t or []), key=repr), sha, error
        )
        for abs_path, sid, status, path, size, mtime, ctime, inode, labels, t, sha, error in rows
    }


def same_labels(k: Known, path: str, labels: dict, targets: list[dict]) -> bool:
    new_targets = sorted(_target_rows(targets), key=repr)
    return (
        k.path == path and json.loads(k.labels or "{}") == json.loads(labels_json(labels)) and k.targets == new_targets
    )


def _target_rows(targets: list[dict]) -> list[tuple]:
    return [(t["target"], t.get("volume"), t.get("drives"), t.get("array_name")) for t in targets]


def stored_copies(con: DuckDBPyConnection, sha: str, abs_path: str) -> list[tuple]:
    """Places in the analysis holding these bytes parsed: this one first, then by path."""
    return con.execute(
        """SELECT source_id, content_id, path, abs_path, format, parser, parser_version, tool_version, study
           FROM source_history WHERE sha256 = ? AND status = 'ok' AND left_at IS NULL
           ORDER BY abs_path = ? DESC, path, abs_path""",
        [sha, abs_path],
    ).fetchall()


def active_shas(con: DuckDBPyConnection) -> set[str]:
    return {s for (s,) in con.execute("SELECT DISTINCT sha256 FROM source_history WHERE left_at IS NULL").fetchall()}


def is_stored(con: DuckDBPyConnection, sha: str) -> bool:
    q = "SELECT count(*) FROM source_history WHERE sha256 = ? AND status = 'ok' AND left_at IS NULL"
    return bool(con.execute(q, [sha]).fetchall()[0][0])


# ---- writing places ----------------------------------------------------------------------------------


def labels_json(labels: dict[str, Any]) -> str:
    """The labels as stored in source_history.labels (compared to decide whether a place changed)."""
    return json.dumps(labels, default=str, sort_keys=True)


def _label_values(labels: dict[str, Any]) -> list[Any]:
    return [labels.get(k) for k in LABEL_COLUMNS] + [labels_json(labels)]


def free_id(con: DuckDBPyConnection, source_id: int) -> None:
    """Make the place id ``source_id`` free: a row of history holding it (the place left, and is
    back) takes its next free history id. A place in the analysis holding it is a collision."""
    rows = con.execute(
        "SELECT abs_path, sha256, left_at FROM source_history WHERE source_id = ?", [source_id]
    ).fetchall()
    if not rows:
        return
    abs_path, sha, left_at = rows[0]
    if left_at is None:
        raise ValueError(f"place id {source_id} is taken by {abs_path}: please report it with this file")
    n = 1
    while con.execute(
        "SELECT count(*) FROM source_history WHERE source_id = ?", [new := ids.history_id(abs_path or "", sha, n)]
    ).fetchall()[0][0]:
        n += 1
    rekey(con, source_id, new)


def rekey(con: DuckDBPyConnection, old: int, new: int) -> int:
    """The place ``old`` takes the id ``new`` (its place changed), with what names it; returns ``new``."""
    if old == new:
        return new
    free_id(con, new)
    con.execute("UPDATE source_history SET source_id = ? WHERE source_id = ?", [new, old])
    con.execute("UPDATE sidecar_targets SET source_id = ? WHERE source_id = ?", [new, old])
    con.execute("UPDATE source_history SET left_for = ? WHERE left_for = ?", [new, old])
    return new


@dataclass
class Place:
    """Where a file is: its stored path, identity and the stamp that tells a later run it is unchanged."""

    path: str
    abs_path: str
    stamp: Stamp = (0, None, None, None)


_COLUMNS = (
    "source_id, content_id, path, abs_path, sha256, size_bytes, format, parser, parser_version, tool_version, "
    "ingested_at, status, error, error_line, mtime_ns, ctime_ns, inode, " + ", ".join(LABEL_COLUMNS) + ", labels"
)


def record(
    con: DuckDBPyConnection,
    place: Place,
    *,
    sha256: str,
    size: int,
    status: str,
    fmt: str | None = None,
    parser: str | None = None,
    parser_version: str | None = None,
    tool_version: str | None = None,
    error: str | None = None,
    error_line: int | None = None,
    labels: dict | None = None,
) -> int:
    """A new place, with its id; its parsed rows are those of its bytes' content id (ids.py)."""
    sid = ids.place_id(place.abs_path, sha256)
    free_id(con, sid)
    values = [sid, ids.content_id(sha256), place.path, place.abs_path, sha256, size, fmt]
    values += [parser, parser_version, tool_version, now(), status, error, error_line, *place.stamp[1:]]
    values += _label_values(labels or {})
    con.execute(f"INSERT INTO source_history ({_COLUMNS}) VALUES ({', '.join(['?'] * len(values))})", values)
    return sid


def confirm(con: DuckDBPyConnection, source_id: int, place: Place, sha: str) -> int:
    """The place's file was read again with the same bytes (``sha``): remember where and its stamp;
    a file found at another place (moved) takes that place's id. Returns the place's id."""
    _, mtime, ctime, inode = place.stamp
    con.execute(
        "UPDATE source_history SET path = ?, abs_path = ?, mtime_ns = ?, ctime_ns = ?, inode = ? WHERE source_id = ?",
        [place.path, place.abs_path, mtime, ctime, inode, source_id],
    )
    return rekey(con, source_id, ids.place_id(place.abs_path, sha))


def update_labels(con: DuckDBPyConnection, source_id: int, labels: dict, targets: list[dict]) -> bool:
    """Sidecars can change after a file was ingested: refresh this place's labels and target map.
    Returns whether anything changed; nothing is written when nothing did."""
    old = con.execute("SELECT labels FROM source_history WHERE source_id = ?", [source_id]).fetchall()
    old_targets = con.execute(
        "SELECT target, volume, drives, array_name FROM sidecar_targets WHERE source_id = ?", [source_id]
    ).fetchall()
    if (
        old
        and json.loads(old[0][0] or "{}") == json.loads(labels_json(labels))
        and sorted(old_targets, key=repr) == sorted(_target_rows(targets), key=repr)
    ):
        return False
    sets = ", ".join(f"{k} = ?" for k in LABEL_COLUMNS) + ", labels = ?"
    con.execute(f"UPDATE source_history SET {sets} WHERE source_id = ?", [*_label_values(labels), source_id])
    con.execute("DELETE FROM sidecar_targets WHERE source_id = ?", [source_id])
    write_targets(con, source_id, targets)
    return True


def write_targets(con: DuckDBPyConnection, source_id: int, targets: list[dict]) -> None:
    """The sidecar's target map for a place (host target -> array volume)."""
    rows = [[source_id, *t] for t in _target_rows(targets)]
    if rows:
        q = "INSERT INTO sidecar_targets (source_id, target, volume, drives, array_name) VALUES (?, ?, ?, ?, ?)"
        con.executemany(q, rows)


def forget_rejected(con: DuckDBPyConnection, sha: str, abs_path: str) -> None:
    """A file rejected before is tried again (the parser may have improved): its old record goes."""
    con.execute(
        "DELETE FROM source_history WHERE sha256 = ? AND abs_path = ? AND status = 'rejected' AND left_at IS NULL",
        [sha, abs_path],
    )


# ---- leaving the analysis ------------------------------------------------------------------------


def retire(con: DuckDBPyConnection, source_ids: Iterable[int], reason: str, left_for: int | None = None) -> None:
    """These places leave the analysis (their history stays); call ``purge`` after."""
    for sid in source_ids:
        con.execute(
            "UPDATE source_history SET left_at = ?, left_reason = ?, left_for = ? WHERE source_id = ? AND left_at IS NULL",
            [now(), reason, left_for, sid],
        )


def places_under(con: DuckDBPyConnection, folders: list[str], study: str | None = None) -> list[tuple[int, str]]:
    """(source_id, path) of the places in the analysis below any of ``folders`` (canonical) or in ``study``."""
    rows = con.execute("SELECT source_id, path, abs_path, study FROM source_history WHERE left_at IS NULL").fetchall()
    return [
        (sid, path)
        for sid, path, abs_path, s in rows
        if (study is not None and s == study) or any(inside(abs_path or "", f) for f in folders)
    ]


def drop_roots(con: DuckDBPyConnection, folders: list[str]) -> None:
    for f in folders:
        con.execute("DELETE FROM data_roots WHERE path = ? OR starts_with(path, ?)", [f, f.rstrip("/") + "/"])


def unused_contents(con: DuckDBPyConnection) -> list[int]:
    """Content ids whose parsed rows are stored (a place of them not purged) but no place in the
    analysis reads any more."""
    return [
        c
        for (c,) in con.execute("""
            SELECT DISTINCT h.content_id FROM source_history h
            WHERE h.status = 'ok' AND h.purged_at IS NULL AND NOT EXISTS (
                SELECT 1 FROM source_history a WHERE a.content_id = h.content_id AND a.left_at IS NULL AND a.status = 'ok')
            ORDER BY 1""").fetchall()
    ]


def content_state(con: DuckDBPyConnection, sha: str) -> tuple[str | None, bool]:
    """What the store holds under the content id of ``sha``: other bytes' sha256 when their id is the
    same (a collision, ids.py), and whether parsed rows are stored (some place of it, in the
    analysis or not yet purged). One query: it is asked for every file written."""
    other, stored = con.execute(
        """SELECT min(sha256) FILTER (sha256 <> $sha), count(*) FILTER (status = 'ok' AND purged_at IS NULL) > 0
           FROM source_history WHERE content_id = $id""",
        {"sha": sha, "id": ids.content_id(sha)},
    ).fetchall()[0]
    return other, bool(stored)


def has_points(con: DuckDBPyConnection, content: int) -> bool:
    """Whether a time-series file of ``content`` is recorded (then its file is not another's to remove)."""
    return bool(con.execute("SELECT count(*) FROM point_files WHERE source_id = ?", [content]).fetchall()[0][0])


def content_tables(con: DuckDBPyConnection) -> list[str]:
    """Every table holding a file's parsed rows by source_id (tool tables, runs, series, points...)."""
    rows = con.execute("""
        SELECT DISTINCT c.table_name FROM information_schema.columns c
        JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE t.table_type = 'BASE TABLE' AND c.column_name = 'source_id'
          AND c.table_name NOT IN ('source_history', 'sidecar_targets', 'runs')
        ORDER BY 1""").fetchall()
    return [t for (t,) in rows]


def purge(con: DuckDBPyConnection, contents: list[int]) -> None:
    """Delete the parsed rows of ``contents`` (inside the caller's transaction; the caller removes
    their time-series files once it has committed)."""
    if not contents:
        return
    listed = ", ".join(str(int(c)) for c in contents)
    con.execute(f"DELETE FROM samples WHERE run_id IN (SELECT run_id FROM runs WHERE source_id IN ({listed}))")
    for table in content_tables(con):
        con.execute(f'DELETE FROM "{table}" WHERE source_id IN ({listed})')
    con.execute(f"DELETE FROM runs WHERE source_id IN ({listed})")
    con.execute(
        f"UPDATE source_history SET purged_at = ? WHERE content_id IN ({listed}) AND status = 'ok' AND purged_at IS NULL",
        [now()],
    )


def purge_unused(con: DuckDBPyConnection) -> None:
    """Delete the parsed rows (and time-series files) that no place in the analysis reads any more."""
    from .connect import transaction
    from .points import drop_points, refresh_points_view

    contents = unused_contents(con)
    if not contents:
        return
    with transaction(con):
        purge(con, contents)
    for c in contents:
        drop_points(con, c)
    refresh_points_view(con)
