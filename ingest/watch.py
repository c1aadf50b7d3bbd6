"""`iolab watch DIR`: keep a database equal to its folder as files land, change and leave.

A file-watching library (watchdog: inotify on Linux, polling where inotify is missing or out of
watches, or with ``poll``) tells of every change below DIR. Changes are noted (``Changes``), not acted
on: a path is ingested once it has been quiet for ``quiet`` seconds with the same size and modification
time (a file still being written is waited for, never read half-written), and every path that has
settled by then goes into one ingest (``targets``: the folders they are in, each once; a burst of
thousands of files is one ingest, not one per event). The ingest is ``batch.ingest_paths``, the one
every door uses, whole file or nothing; the database is open (its write lock held) only while it
runs, so `iolab info` and `iolab report` read it in between. Reports named with ``reports`` are
rendered again, by `iolab report` in a process of its own, after an ingest that changed the data.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import batch, db
from .files import IGNORED_SUFFIXES, walk
from .outcome import Report, Status
from .sidecar import NAME as SIDECAR
from .store import places

QUIET_S = 1.0  # a path settles once it has been this long without a change of size or time
TICK_S = 0.2  # how often the changes are looked at


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


@dataclass
class Changes:
    """The paths changed below the watched folder and not ingested yet, each with when it last
    changed and its size and time then; noted from the watcher's thread, taken from the main one."""

    clock: Callable[[], float] = time.monotonic
    seen: dict[Path, tuple[float, tuple[int, int] | None]] = field(default_factory=dict)
    first: float | None = None  # when the oldest change not yet ingested was noted
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, path: Path) -> None:
        now, stat = self.clock(), _stat(path)
        with self.lock:
            self.seen[path] = (now, stat)
            self.first = now if self.first is None else self.first

    def settled(self, quiet: float) -> tuple[list[Path], set[Path], float | None]:
        """(the paths quiet for ``quiet`` seconds whose size and time are still those of their last
        change, taken out; the paths still changing; when the oldest change taken was noted)."""
        now = self.clock()
        with self.lock:
            ready, waiting = [], set()
            for path, (when, stat) in list(self.seen.items()):
                if now - when < quiet:
                    waiting.add(path)
                elif (now_stat := _stat(path)) != stat:  # written to without a word (a network share)
                    self.seen[path] = (now, now_stat)
                    waiting.add(path)
                else:
                    ready.append(path)
                    del self.seen[path]
            first = self.first if ready else None
            if ready:
                self.first = min((w for w, _ in self.seen.values()), default=None)
            return sorted(ready), waiting, first


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def targets(ready: Iterable[Path], waiting: set[Path]) -> list[Path]:
    """The paths one ingest takes for the changes ``ready``: the folder of each file changed (a
    sidecar's folder: every file it labels), each once (a folder inside another is the other's); a
    path gone from disk as itself (its places leave). A folder holding a path still ``waiting`` is
    given file by file, without those: a file being written is never read half-written."""
    units, gone = set(), set()
    for p in ready:
        if p.is_dir():
            units.add(p)
        elif p.name == SIDECAR or os.path.lexists(p):
            units.add(p.parent)
        else:
            gone.add(p)
    folders = [u for u in sorted(units) if not any(o != u and _inside(u, o) for o in units)]
    writing = {w for w in waiting if not w.is_dir()}  # a folder's own change (made, moved in) holds nothing up
    out: list[Path] = []
    for folder in folders:
        if any(_inside(w, folder) for w in writing):
            out += [f for _, f in walk([folder]) if f not in writing]
        else:
            out.append(folder)
    return out + sorted(g for g in gone if not any(_inside(g, f) for f in folders))


def ignored(root: Path, skip: list[Path]) -> Callable[[Path], bool]:
    """Whether a path's change is none of the data's: a hidden file or folder, a file the ingest never
    reads (the database, its write-ahead log and store), or one below ``skip`` (the report folders)."""

    def test(path: Path) -> bool:
        if any(_inside(path, s) for s in skip) or not _inside(path, root):
            return True
        rel = path.relative_to(root).parts
        return any(part.startswith(".") for part in rel) or (
            path.name != SIDECAR and path.suffix.lower() in IGNORED_SUFFIXES
        )

    return test


def _handler(changes: Changes, skip: Callable[[Path], bool]) -> Any:
    from watchdog.events import FileSystemEventHandler

    class Noted(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            if event.is_directory and event.event_type in ("modified", "opened", "closed_no_write"):
                return  # a folder's own time changes with its files, which say so themselves
            if event.event_type in ("opened", "closed_no_write"):
                return  # read, not written
            for raw in (event.src_path, getattr(event, "dest_path", "")):
                if raw:
                    path = Path(os.fsdecode(raw))
                    if not skip(path):
                        changes.note(path)

    return Noted()


def observer(root: Path, handler: Any, poll: bool) -> tuple[Any, str]:
    """A started watchdog observer of ``root`` (recursive) and how it watches: inotify where the
    system has it and has watches left, else polling the folder (``poll``: polling in any case)."""
    from watchdog.observers.polling import PollingObserver

    if not poll:
        from watchdog.observers import Observer

        obs = Observer()
        try:
            obs.schedule(handler, str(root), recursive=True)
            obs.start()
            return obs, type(obs).__name__.removesuffix("Observer").lower() or "native"
        except OSError as e:  # inotify out of watches or instances: max_user_watches (iolab doctor)
            obs.stop()
            why = f"{e.strerror or e}; polling instead (iolab doctor says how to raise the limit)"
    else:
        why = "polling (--poll)"
    obs = PollingObserver(timeout=1.0)
    obs.schedule(handler, str(root), recursive=True)
    obs.start()
    return obs, why


class Fault(Exception):
    """The environment failed an ingest (a full disk, a database gone read-only): watching stops."""


def ingest(db_path: Path, paths: list[Path]) -> Report:
    """Ingest ``paths`` into the database, open only meanwhile; a path gone from disk is kept only
    where the database holds places below it (a file made and removed between two looks is nothing)."""
    con = db.open_db(db_path)
    try:
        gone = [p for p in paths if not os.path.lexists(p)]
        held = {p for p in gone if places.places_under(con, [places.text(places.canonical(p))])}
        paths = [p for p in paths if p not in gone or p in held]
        return batch.ingest_paths(con, paths, parallel=True) if paths else Report()
    finally:
        con.close()


def changed(report: Report) -> bool:
    """Whether an ingest changed what the database holds (anything but unchanged files)."""
    return any(o.status != Status.UNCHANGED for o in report.outcomes) or bool(report.notes)


def summary(report: Report) -> str:
    """An ingest in a few words: each outcome counted, the fault if any."""
    counts: dict[str, int] = {}
    for o in report.outcomes:
        counts[str(o.status)] = counts.get(str(o.status), 0) + 1
    said = ", ".join(f"{n:,} {s}" for s, n in counts.items() if s != Status.UNCHANGED) or "nothing changed"
    return f"{said}; stopped: {report.fault}" if report.fault else said


class Renders:
    """`iolab report --db DB --out OUT` for each of the report folders, in a process of their own,
    one render at a time; asked again while one runs, it renders once more when that one ends."""

    def __init__(self, db_path: Path, outs: list[Path], tell: Callable[[str], None], log: Path) -> None:
        self.db, self.outs, self.tell = db_path, outs, tell
        self.wanted = False
        self.log = log
        self.running: tuple[Path, subprocess.Popen] | None = None
        self.queue: list[Path] = []

    def want(self) -> None:
        self.wanted = bool(self.outs)

    def poll(self) -> None:
        """Start, or note the end of, a render; never waits."""
        if self.running is not None:
            out, proc = self.running
            if proc.poll() is None:
                return
            said = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
            self.tell(f"report {out}: {said[-1] if said else 'exit ' + str(proc.returncode)}")
            self.running = None
        if not self.queue and self.wanted:
            self.queue, self.wanted = list(self.outs), False
        if self.queue:
            out = self.queue.pop(0)
            cmd = [sys.executable, "-m", "iolab", "report", "--db", str(self.db), "--out", str(out)]
            with self.log.open("wb") as log:  # read when it ends: a pipe would fill and stop it
                proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            self.running = (out, proc)

    def stop(self) -> None:
        """End a render under way (it removes its own temporary files on SIGTERM) and wait for it."""
        if self.running is not None:
            proc = self.running[1]
            if proc.poll() is None:
                proc.terminate()
            proc.wait()
            self.running = None

    def busy(self) -> bool:
        return self.running is not None or bool(self.queue) or self.wanted


def run(
    root: Path,
    db_path: Path,
    reports: list[Path],
    tell: Callable[[str], None],
    quiet: float = QUIET_S,
    poll: bool = False,
    until: Callable[[], bool] = lambda: False,
) -> None:
    """Watch ``root`` until Ctrl-C (KeyboardInterrupt, raised to the caller once everything is
    stopped) or ``until()``: first an ingest of the whole folder (what changed while nobody watched),
    then one of the folders changed each time changes have settled; ``reports`` rendered after each
    ingest that changed the data. ``tell`` hears a line per ingest and render."""
    import tempfile

    changes = Changes()
    skip = ignored(root, [*reports, db_path.with_name(db_path.name + ".points")])
    watching, how = observer(root, _handler(changes, skip), poll)
    with tempfile.TemporaryDirectory(prefix="iolab-watch-") as tmp:
        renders = Renders(db_path, reports, tell, Path(tmp) / "report.log")
        try:
            tell(f"watching {root} ({how}) -> {db_path}")
            cycle(db_path, [root], None, renders, tell)
            while not until():
                time.sleep(TICK_S)
                ready, waiting, first = changes.settled(quiet)
                if ready:
                    cycle(db_path, targets(ready, waiting), first, renders, tell)
                renders.poll()
        finally:
            renders.stop()
            watching.stop()
            watching.join()


def cycle(db_path: Path, paths: list[Path], first: float | None, renders: Renders, tell: Callable[[str], None]) -> None:
    """One ingest of ``paths``, said in a line (with the time since the first change it takes in)."""
    report = ingest(db_path, paths)
    if report.fault:
        raise Fault(report.fault)
    after = f" ({time.monotonic() - first:.1f} s after the change)" if first is not None else ""
    tell(f"{time.strftime('%H:%M:%S')} {summary(report)}{after}")
    if changed(report):
        renders.want()
