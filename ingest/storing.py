"""One parsed file into the store, whole or not at all: its rows, its place (source_history), the
earlier version it replaces, and what happens when the same bytes turn out to be stored already.
``iolab.batch`` (the run over many files) calls these; they were part of it until it outgrew a
module's 500 lines.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from duckdb import DuckDBPyConnection

from . import archives, db, files
from .files import Incoming, stamp
from .model import ParseError
from .outcome import EnvironmentFault, Outcome, Status, environment_fault, stop_if_interrupted
from .parsing import streams
from .store import ids, places


def _known_place(con: DuckDBPyConnection, f: Incoming) -> Outcome | None:
    """Content already parsed: nothing is parsed again. Found where it was, the place keeps (or
    gets) its labels; found where a place that is no longer on disk was, that place moved here;
    found beside a place that is still there (a copy in a second study), it becomes a new place
    that reads the first place's rows, labelled where it is (in the same study it counts once)."""
    rows = places.stored_copies(con, f.sha, f.place.abs_path)
    if not rows:
        return None
    missing = f.missing
    moved = next((r for r in rows if r[3] in missing), None)
    sid, _, ppath, pabs, fmt, parser, parser_version, tool_version, pstudy = moved or rows[0]
    with db.transaction(con):
        if pabs == f.place.abs_path or moved:
            changed = places.update_labels(con, sid, f.labels, f.targets)
            sid = places.confirm(con, sid, f.place, f.sha)
            _supersede(con, f, sid)
            if moved:
                del missing[pabs]
                return Outcome(f.shown, Status.MOVED, fmt, reason=f"moved from {ppath}")
            return Outcome(f.shown, Status.RELABELLED if changed else Status.UNCHANGED)
        place = places.record(
            con, f.place, sha256=f.sha, size=f.size, status="ok", fmt=fmt, parser=parser,
            parser_version=parser_version, tool_version=tool_version, labels=f.labels,
        )  # fmt: skip
        places.write_targets(con, place, f.targets)
        _supersede(con, f, place)
    how = "counted once in the study" if pstudy == f.labels.get("study") else "stored once, labelled here too"
    return Outcome(f.shown, Status.PLACED, fmt, reason=f"same content as {ppath}: {how}")


def _supersede(con: DuckDBPyConnection, f: Incoming, new_id: int) -> None:
    """The place's earlier version (other bytes at the same path) leaves the analysis for ``new_id``."""
    if f.replaces is not None and f.replaces != new_id:
        places.retire(con, [f.replaces], "replaced", new_id)


def _rollback(con: DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except Exception:  # nothing to roll back, or the database is gone: the fault is reported by the caller
        pass


def _reject(
    con: DuckDBPyConnection, f: Incoming, reason: str, line: int | None = None, mod: ModuleType | None = None
) -> Outcome:
    fmt = getattr(mod, "FORMAT", None)
    with db.transaction(con):
        sid = places.record(
            con, f.place, sha256=f.sha, size=f.size, status="rejected", fmt=fmt, parser=mod.__name__ if mod else None,
            parser_version=getattr(mod, "VERSION", None), error=reason, error_line=line, labels=f.labels,
        )  # fmt: skip
        _supersede(con, f, sid)
    return Outcome(f.shown, Status.REJECTED, fmt, reason, line)


class _Settled(Exception):
    """Writing a file stopped because its outcome is known after all (see _await_content)."""

    def __init__(self, outcome: Outcome | None) -> None:
        self.outcome = outcome  # None: the same bytes are stored already (a place)


def _write(
    con: DuckDBPyConnection, f: Incoming, mod: ModuleType, result: Any, writer: db.Writer | None = None
) -> Outcome:
    """Write every row of one parsed file, then record its place, inside the caller's transaction
    (with a ``writer``, its rows are queued there for the caller to flush). A big capture is
    streamed while its hash is still being computed (_hash_beside): its content (and the id its
    rows are written under, made of it) is known once its pass has started, and its points are
    waited for last."""
    w = writer or db.Writer(con)
    f.source_id = None
    try:
        counts = db.write_result(con, lambda: _content(con, f), result, w)
        place = places.record(
            con, f.place, sha256=f.sha, size=f.size, status="ok", fmt=mod.FORMAT, parser=mod.__name__,
            parser_version=mod.VERSION, labels=f.labels, tool_version=result.tool_version,
        )  # fmt: skip
        places.write_targets(con, place, f.targets)
        archives.record(con, place, result)
        _supersede(con, f, place)
        if writer is None:
            w.flush()
    except BaseException as e:
        w.abandon(wait=not isinstance(e, KeyboardInterrupt))
        raise
    if streams(mod) and stamp(f.path) != f.stamp:
        raise ParseError("the file changed while it was being read; ingest it again")
    said = "; ".join(filter(None, [*getattr(result, "notes", []), unfinished(result)])) or None
    return Outcome(f.shown, Status.INGESTED, mod.FORMAT, reason=said, counts=counts)


def _content(con: DuckDBPyConnection, f: Incoming) -> int:
    """The content id the file's rows go under (ingest/store/ids.py), once its sha256 is known. Rows of
    these bytes left from a place that is out of the analysis and not yet purged (a file replaced
    earlier in this run, an ingest cut short) are deleted first: the same bytes, the same rows."""
    _await_content(con, f)
    content = ids.content_id(f.sha)
    other, stored = places.content_state(con, f.sha)
    if other is not None:
        raise ParseError(
            f"its content id ({content}, the first 62 bits of its SHA-256) is that of other bytes (sha256 {other}), "
            "a chance of 1 in 4.6 x 10^18 for a pair of files: please report it with this file"
        )
    f.source_id = content
    if stored:
        places.purge(con, [content])
    return content


def unfinished(result: Any) -> str | None:
    """What an ingested file's runs that stopped early are (status 'unterminated': intervals but no
    summary line), said with the file's outcome; None when every run finished."""
    cut = [r for r in result.runs if r.status == "unterminated"]
    if not cut:
        return None
    names = ", ".join(f"{r.key} ({r.workload})" if r.workload else r.key for r in cut[:5])
    more = f" and {len(cut) - 5} more" if len(cut) > 5 else ""
    return (
        f"{len(cut)} of its {len(result.runs)} runs did not finish ({names}{more}): the file has no summary "
        "line for them, so they are stored with status 'unterminated' and no averages (their interval "
        "lines, where the file has them, as time series)"
    )


def _await_content(con: DuckDBPyConnection, f: Incoming) -> None:
    """For a file hashed beside its streaming: its sha256 now, and _Settled if these bytes are stored."""
    if f.hashing is None:
        return
    if (unreadable := files.await_hash(f)) is not None:
        raise _Settled(unreadable)
    if places.is_stored(con, f.sha):
        raise _Settled(None)
    places.forget_rejected(con, f.sha, f.place.abs_path)


def _store(con: DuckDBPyConnection, f: Incoming, mod: ModuleType, result: Any) -> Outcome:
    """One file in its own transaction; a failure leaves nothing behind."""
    con.execute("BEGIN")
    f.source_id = None
    try:
        outcome = _write(con, f, mod, result)
        con.execute("COMMIT")
    except BaseException as e:
        _rollback(con)  # first: a caller that goes on after Ctrl-C must not commit half a file
        stop_if_interrupted(e)
        if f.source_id is not None and not places.has_points(con, f.source_id):
            db.drop_points(con, f.source_id)
        if isinstance(e, _Settled):  # the streaming was for nothing: the same bytes are stored, or unreadable
            return e.outcome or _known_place(con, f) or Outcome(f.shown, Status.UNCHANGED)
        if (unreadable := files.await_hash(f)) is not None:
            return unreadable
        if isinstance(e, ParseError):  # streamed data (time series) can fail after parse() returned
            return _reject(con, f, e.reason, e.line, mod)
        if fault := environment_fault(e):
            raise EnvironmentFault(fault) from e
        return _reject(con, f, f"could not store the parsed rows ({type(e).__name__}: {e})", None, mod)
    if "points" in outcome.counts:
        db.refresh_points_view(con)
    return outcome
