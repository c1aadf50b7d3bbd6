"""Walk paths, sniff, parse, and store each file whole or not at all.

A file is hashed (a big one beside its parse), checked against what is stored, sniffed, parsed
(with many files, by worker processes) and stored: small files 64 to a transaction (_Batch), a
time-series capture in its own (its points streamed to the Parquet store)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from duckdb import DuckDBPyConnection

from . import archives, db, files, parsing, plan
from .files import Incoming, NotRegular, display_path, hash_file, open_regular, walk
from .outcome import EnvironmentFault, Outcome, Report, Status, environment_fault, interrupted, stop_if_interrupted
from .parsing import Bad, Bug, Changed, Parse, Parsed, Workers, parse_job, streams
from .plan import Plan, Step
from .store import index, places
from .storing import _known_place, _reject, _rollback, _Settled, _store, _supersede, _write, unfinished  # noqa: F401

if TYPE_CHECKING:
    from .ahead import Ahead

__all__ = [  # what other modules and the tests use of an ingest
    "EnvironmentFault",
    "NotRegular",
    "Outcome",
    "Report",
    "Status",
    "display_path",
    "hash_file",
    "apply",
    "ingest_paths",
    "interrupted",
    "open_regular",
    "parse_job",
    "remove",
    "walk",
]


class _Batch:
    """Parsed small files waiting to be stored together.

    A commit cost more than storing a small file's rows, so up to MAX_FILES files (or MAX_ROWS rows)
    share one transaction. Each file stays atomic: if any of them fails to store, the batch is rolled
    back and its files are stored again one transaction each, where the bad one is rejected alone.
    Time series (a Parquet file each) and streamed captures are stored on their own, as before."""

    MAX_FILES, MAX_ROWS = 64, 1_000_000

    def __init__(self) -> None:
        self.items: list[tuple[Incoming, ModuleType, Any]] = []
        self.rows = 0
        self.shas: set[str] = set()
        self.done: list[Outcome] = []  # outcomes of stored batches, not yet reported

    @staticmethod
    def takes(mod: ModuleType, result: Any) -> bool:
        return not streams(mod) and result.points is None

    def add(self, con: DuckDBPyConnection, f: Incoming, mod: ModuleType, result: Any) -> None:
        self.items.append((f, mod, result))
        self.shas.add(f.sha)
        self.rows += len(result.samples) + sum(len(t) for t in result.tables.values())
        if len(self.items) >= self.MAX_FILES or self.rows >= self.MAX_ROWS:
            self.flush(con)

    def flush(self, con: DuckDBPyConnection) -> None:
        items, self.items, self.rows, self.shas = self.items, [], 0, set()
        if not items:
            return
        con.execute("BEGIN")
        try:
            writer = db.Writer(con)
            outcomes = [_write(con, f, mod, result, writer) for f, mod, result in items]
            writer.flush()
            con.execute("COMMIT")
        except BaseException as e:
            _rollback(con)
            stop_if_interrupted(e)
            if fault := environment_fault(e):
                raise EnvironmentFault(fault) from e
            outcomes = [_store(con, f, mod, result) for f, mod, result in items]
        self.done.extend(outcomes)

    def drain(self) -> list[Outcome]:
        out, self.done = self.done, []
        return out


def _prepare(
    con: DuckDBPyConnection, step: Step, settle: Callable[[str], None], seen: set[str] | None = None
) -> Outcome | ModuleType:
    """Everything before parsing a file the plan did not decide alone: its known content, its parser.
    ``settle`` stores whatever is still being parsed or waits in a batch (the same bytes may be there);
    ``seen``: every sha256 the database or this run has met (None: ask the database each time).
    A big file is hashed now, beside its parse; if its parser streams it, it is parsed while its hash
    is still being computed (_known_content runs after the parse then)."""
    f, mod = step.file, step.mod
    assert f is not None and mod is not None
    if not f.sha:
        files.hash_beside(f)
    if f.hashing is None and (place := _known_content(con, f, settle, seen)) is not None:
        return place
    streamed = streams(mod) and not f.head.startswith(archives.GZIP)  # a .gz is hashed before it is decompressed
    if (
        f.hashing is not None
        and not streamed
        and (place := files.await_hash(f) or _known_content(con, f, settle, seen))
    ):
        return place
    return _reject(con, f, mod) if isinstance(mod, str) else mod


def _known_content(
    con: DuckDBPyConnection, f: Incoming, settle: Callable[[str], None], seen: set[str] | None
) -> Outcome | None:
    """The outcome when these bytes are stored already (see _known_place); None when they are new."""
    if seen is None or f.sha in seen:  # these bytes may be stored already
        settle(f.sha)
        if (place := _known_place(con, f)) is not None:
            return place
        places.forget_rejected(con, f.sha, f.place.abs_path)
    if seen is not None:
        seen.add(f.sha)
    return None


def _parse_here(
    con: DuckDBPyConnection, f: Incoming, mod: ModuleType, settle: Callable[[str], None], seen: set[str] | None
) -> Parse | Outcome:
    """Parse in this process. A big streamed file's hash goes on beside its streaming (_write), unless
    the parse failed: then it is awaited here, and the content checked, before the file is rejected."""
    result = parsing.parsed(f, mod)
    failed = not isinstance(result, Parsed)
    if f.hashing is not None and failed and (place := files.await_hash(f) or _known_content(con, f, settle, seen)):
        return place
    return result


def _finish(
    con: DuckDBPyConnection, f: Incoming, mod: ModuleType, parsed: Parse, batch: _Batch | None
) -> Outcome | None:
    """Store a parsed file, or record why it could not be parsed. None: it waits in ``batch``."""
    match parsed:
        case Changed():
            return Outcome(
                f.shown, Status.UNREADABLE, reason="the file changed while it was being read; ingest it again"
            )
        case Bad(reason, line):
            return _reject(con, f, reason, line, mod)
        case Bug(message):
            return _reject(
                con, f, f"internal error in {mod.__name__} ({message}); please report it with this file", None, mod
            )
    assert isinstance(parsed, Parsed)
    if batch is not None and batch.takes(mod, parsed.result):
        batch.add(con, f, mod, parsed.result)
        return None
    return _store(con, f, mod, parsed.result)


class _Run:
    """One ``ingest_paths`` call: files go in in order, parsed here or by workers, stored in batches."""

    def __init__(
        self,
        con: DuckDBPyConnection,
        on_file: Callable[[Outcome], None] | None,
        plan: Plan,
        parallel: bool,
        ahead: Ahead | None = None,
    ) -> None:
        self.con, self.on_file, self.ahead = con, on_file, ahead
        self.report = Report(notes=list(plan.notes))
        self.batch = _Batch()
        self.workers = Workers(len(plan.todo), parallel)
        self.inflight: deque[tuple[Incoming, ModuleType, Any]] = deque()
        self.seen = set(plan.stored)

    def tell(self, outcome: Outcome | None = None) -> None:
        for o in self.batch.drain() + ([outcome] if outcome else []):
            self.report.outcomes.append(o)
            if o.status == Status.INGESTED and o.reason:
                self.report.warnings.append(f"{o.path}: {o.reason}")
            if self.on_file:
                self.on_file(o)

    def settle(self, sha: str | None = None) -> None:
        """Store what is in flight and in the batch when ``sha`` is among it (None: always)."""
        if sha is None or sha in self.batch.shas or any(f.sha == sha for f, _, _ in self.inflight):
            while self.inflight:
                self.finish_oldest()
            self.batch.flush(self.con)
            self.tell()

    def finish_oldest(self) -> None:
        f, mod, future = self.inflight.popleft()
        try:
            parsed = future.result()
        except Exception:  # the result could not come back (not picklable, a worker died): parse here
            parsed = parsing.parsed(f, mod)
        self.guarded(f, lambda: _finish(self.con, f, mod, parsed, self.batch))

    def guarded(self, f: Incoming, step: Callable[[], Outcome | None]) -> None:
        """Run one file's step; an environment fault stops the run, any other error is that file's."""
        try:
            outcome = step()
        except EnvironmentFault:
            raise
        except BaseException as e:  # never let one file take the batch down (Rust panics included)
            stop_if_interrupted(e)
            _rollback(self.con)
            if fault := environment_fault(e):  # e.g. recording a rejection failed: the disk, not the file
                raise EnvironmentFault(fault) from e
            reason = f"internal error ({type(e).__name__}: {e}); please report it with this file"
            outcome = Outcome(f.shown, Status.UNREADABLE, reason=reason)
        self.tell(outcome)

    def file(self, planned: Step) -> None:
        f = planned.file
        assert f is not None

        def step() -> Outcome | None:
            if planned.outcome is not None:  # decided by the plan (unchanged, refused before reading)
                if planned.retire is not None:  # out of the analysis until its sidecar is fixed
                    with db.transaction(self.con):
                        places.retire(self.con, [planned.retire], "sidecar broken")
                return planned.outcome
            mod = _prepare(self.con, planned, self.settle, self.seen)
            if isinstance(mod, Outcome):
                return mod
            if self.workers.takes(f, mod) and (future := self.workers.submit(f, mod)) is not None:
                self.inflight.append((f, mod, future))
                return None
            if self.ahead is not None and (result := self.ahead.take(f, mod)) is not None:
                return _finish(self.con, f, mod, Parsed(result), self.batch)
            parsed = _parse_here(self.con, f, mod, self.settle, self.seen)
            return parsed if isinstance(parsed, Outcome) else _finish(self.con, f, mod, parsed, self.batch)

        self.guarded(f, step)
        while len(self.inflight) > self.workers.WINDOW * self.workers.n:
            self.finish_oldest()

    def leave(self, missing: dict[str, places.Known]) -> None:
        """Places below the ingested paths whose files are gone leave the analysis, with their rows
        when no other place reads them; a root gone from disk with nothing left is no longer a root."""
        if missing:
            with db.transaction(self.con):
                places.retire(self.con, [k.source_id for k in missing.values()], "deleted")
        for k in sorted(missing.values(), key=lambda k: k.path):
            self.tell(Outcome(k.path, Status.GONE, reason="no longer on disk: it left the analysis"))
        places.purge_unused(self.con)
        if gone := places.gone_roots(self.con):
            with db.transaction(self.con):
                places.drop_roots(self.con, gone)
        self.report.notes += [
            f"{r} is gone from disk and nothing of it is in the analysis: no longer a data root" for r in gone
        ]

    def checks(self, planned: Plan) -> None:
        """What the stored studies say after the run: sidecars naming what their study lacks, copies
        labelled otherwise, measurements the time rule split."""
        studies = [s.labels.get("study") for s in planned.files()]
        self.check_declared({s for s in studies if s}, planned.folders)
        self.check_copies(set(studies))
        changed = {o.path for o in self.report.outcomes if o.status != Status.UNCHANGED}
        self.check_splits({s.labels["study"] for s in planned.files() if s.labels.get("study") and s.path in changed})

    def check_declared(self, studies: set[str], scopes: list[str]) -> None:
        """A sidecar naming a system, generation or criterion its study does not have (declared.py),
        said when the ingest named the sidecar's folder (or one above it): a file or subfolder
        ingested alone does not hold the rest of the study its sidecars speak of."""
        if not studies:  # no study was touched: nothing it declares can have changed
            return
        from . import declared

        for p in declared.problems(self.con, studies):
            if p.sidecar is not None and not any(places.inside(places.canonical(p.sidecar.parent), s) for s in scopes):
                continue
            where = display_path(p.sidecar) if p.sidecar else f"the iolab.toml of study {p.study}"
            self.tell(Outcome(where, Status.REJECTED, reason=p.reason(), line=p.line))

    def check_splits(self, studies: set[str]) -> None:
        """Each session of a system the time rule took apart from its earlier runs, or as more repeats of
        them (view measurement_splits), said for the studies this run changed (declared.splits)."""
        if studies:
            from . import declared

            self.report.measured += declared.splits(self.con, studies)

    def check_copies(self, studies: set[str | None], shown: int = 5) -> None:
        """A file whose bytes another file of its study holds, labelled otherwise (view study_copies):
        the study counts them once, with the other's labels. Said once per run, the first few by name."""
        if not studies:
            return
        named = sorted(s for s in studies if s is not None)
        rows = self.con.execute(
            """SELECT path, system, counted_path, counted_system FROM study_copies
               WHERE other_labels AND (list_contains(?, study) OR (study IS NULL AND ?)) ORDER BY path""",
            [named, None in studies],
        ).fetchall()
        for path, system, counted, counted_system in rows[:shown]:
            self.report.warnings.append(copy_warning(path, system, counted, counted_system))
        if len(rows) > shown:
            self.report.warnings.append(
                f"{len(rows) - shown} more copies like these (`iolab export study_copies` lists every one)"
            )


def copy_warning(path: str, system: str | None, counted: str, counted_system: str | None) -> str:
    """What a study does with a copy labelled otherwise (view study_copies), and what to do."""
    if system != counted_system:
        how = f"as system '{system or '(none)'}' where that one says '{counted_system or '(none)'}'"
        counts = f"once, as system '{counted_system or '(none)'}'"
    else:
        how, counts = "with other labels", "once, with that one's labels"
    return (
        f"{path} is a copy of {counted} (the same bytes) in the same study, labelled {how}: "
        f"the study counts the run {counts}. Keep one copy, or put each system's own result file under it"
    )


def ingest_paths(
    con: DuckDBPyConnection,
    paths: list[Path],
    on_file: Callable[[Outcome], None] | None = None,
    files: list[tuple[Path, Path]] | None = None,
    verify: bool = False,
    parallel: bool = False,
    ahead: Ahead | None = None,
) -> Report:
    """Ingest every file below ``paths``, so that what the database holds of them is what they hold
    now: new and changed files are read, places whose files are gone leave (places.py says how).
    The plan first (ingest/plan.py: it reads the store's index once and writes nothing), then its
    application (``apply``). ``verify`` hashes even files whose size, times and inode are unchanged.

    ``parallel``: with many files, parse them in worker processes (spawned: the program's main
    module is imported again in each, so a script must keep its work under ``if __name__ ==
    "__main__":``; the ``iolab`` command does). ``ahead``: the first file, read ahead (ingest/ahead.py)."""
    notes: list[str] = []  # output markers that did not cover every file beside them
    files = files if files is not None else list(walk(paths, notes))
    try:
        try:
            with db.transaction(con):  # places of a database older than places' identity get it first
                places.adopt_legacy(con)
            planned = plan.make(paths, files, index.read(con), verify=verify, lazy=True)
        except Exception as e:
            if fault := environment_fault(e):
                return Report(fault=fault)
            raise
        report = apply(con, planned, on_file, parallel, ahead)
        report.warnings[:0] = notes
        return report
    finally:
        if ahead is not None:  # not taken: the file was not read after all, or not as it was
            ahead.drop(wait=not interrupted.is_set())


def apply(
    con: DuckDBPyConnection,
    planned: Plan,
    on_file: Callable[[Outcome], None] | None = None,
    parallel: bool = False,
    ahead: Ahead | None = None,
) -> Report:
    """Write the plan: the roots it moved, added and dropped, then each file in the plan's order
    (parsed here or by workers, stored in batches), then the places it found gone; what each file
    became is said to ``on_file``. The only part of an ingest that writes to the database."""
    try:
        with db.transaction(con):
            for m in planned.moves:
                places.move_root(con, m.old, m.new, m.places)
            places.write_roots(con, planned.added, planned.dropped)
    except Exception as e:
        if fault := environment_fault(e):
            return Report(fault=fault)
        raise
    run = _Run(con, on_file, planned, parallel, ahead)
    stopping = True  # until the run ends normally: Ctrl-C ends the workers rather than awaiting them
    try:
        for step in planned.decided():
            if step.file is None:  # the places removed: run.leave retires those no file moved from
                continue
            stop_if_interrupted()
            assert step.file is not None
            step.file.missing = planned.missing
            run.file(step)
        run.settle()
        run.leave(planned.missing)
        run.checks(planned)
        stopping = False
    except EnvironmentFault as e:
        stopping = False
        run.report.fault = str(e)
        run.tell()  # what a batch stored before the fault
    finally:
        run.workers.stop() if stopping else run.workers.close()
    order = {s.path: i for i, s in enumerate(planned.files())}
    run.report.outcomes.sort(key=lambda o: order.get(o.path, len(order)))  # batches report late: walk order
    return run.report


def remove(con: DuckDBPyConnection, paths: list[Path], study: str | None = None) -> list[Outcome]:
    """Take the places below ``paths`` (on disk or not), or of ``study``, out of the analysis, with
    the rows no other place reads; a path that is a data root, or holds some, is no longer mirrored."""
    folders = [places.text(places.canonical(p)) for p in paths]
    gone = places.places_under(con, folders, study)
    with db.transaction(con):
        places.retire(con, [sid for sid, _ in gone], "removed")
        places.drop_roots(con, folders)
    places.purge_unused(con)
    return [Outcome(path, Status.REMOVED, reason="taken out of the analysis (iolab remove)") for _, path in gone]
