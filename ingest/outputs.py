"""Folders iolab writes, kept apart from the data it reads (issue 40).

Every command that writes a folder (``report --out``, ``report --images``, ``lake export --to``,
``lake views --out``; ``export --out`` writes one file) first calls ``check``: a folder that is a
data root of the database, lies inside one or holds one is refused, and so is an existing folder
holding files iolab did not write. Then ``writing`` marks the folder as iolab's and, when the
command ends (done or not), records in the marker every file it wrote there:

    <folder>/.iolab-output      one JSON object a line: {"iolab_output": 2, "what": ...}, then per
                                file {"file": "<path below the folder>", "size": <bytes>, "ino": ...,
                                "mtime_ns": ..., "sha256": ...}

A marker proves a file is iolab's only by what iolab wrote there: a file is covered when its size is
the one listed and either it is the very file listed (the same inode and modification time: a copy
or another file never is) or its SHA-256 is the one listed (a copy of iolab's folder elsewhere).
``iolab ingest`` never reads covered files, reads every other file of the folder as data and says so;
a writer refuses a folder holding any file it cannot prove. A marker with no list (a text
``.iolab-output`` of an early iolab, a lake's ``_iolab_manifest.json`` or a views folder's
``_iolab_views.json`` alone, whatever they hold) covers nothing: an old or forged marker hides no
data. A list written before hashes (format 1: sizes only) still covers its files at their size.

Every file written into an output folder is listed before it takes its name (iolab.written tells
``recording`` of each rename), so a run stopped at any point, even by SIGKILL, leaves only files the
marker proves: the same command run again writes into the folder as it would into its own. Hidden
files are never data, and are not counted; iolab's own temporary files there are removed once their
process is gone.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from . import faults, guard, paths, written
from .regular import read_small_text
from .written import write_text

F = TypeVar("F", bound=Callable[..., Any])

MARK = ".iolab-output"
LAKE_MARK = "_iolab_manifest.json"
EXPORTS = "exports"
VIEWS_MARK = "_iolab_views.json"  # what `iolab lake views` computed (ingest/lake/owned.py)
MARKS = (MARK, LAKE_MARK, VIEWS_MARK)
LIST_FORMAT = 2
MARK_MAX = 256 << 20  # a marker lists a file in ~150 bytes: past this it is no marker of iolab's
HASH_MAX = 64 << 20  # a file this big is proven by its stamp alone (hashing a lake's points at every write)


class Refused(ValueError):
    """An output folder iolab will not write into (wrong usage: exit 2)."""


@dataclass
class Cover:
    """The files one marker says iolab wrote (``files``: path below ``folder`` -> size; None: a
    marker with no list, covering OLD_KINDS)."""

    folder: Path
    files: dict[str, list[dict[str, Any]]] | None  # path below the folder -> what each listing said of it
    what: str = ""  # "exports": files iolab wrote into a folder that is not its own (`export --out`)
    others: int = 0  # files below the folder it does not cover (met on a walk)
    examples: list[str] = field(default_factory=list)

    def covers(self, path: Path) -> bool:
        try:
            rel = path.relative_to(self.folder).as_posix()
        except ValueError:
            return False
        if path.name in MARKS:
            return True
        try:
            st = path.stat()
        except OSError:
            return False
        digest: list[str] = []  # computed once, if a listing needs it
        return any(_proves(e, path, st, digest) for e in (self.files or {}).get(rel, []))

    def note(self) -> str:
        shown = ", ".join(self.examples) + (", ..." if self.others > len(self.examples) else "")
        if self.files is None:
            return (
                f"{self.folder}: its iolab marker lists no files (an old or copied marker), so it covers none: "
                f"{self.others} file(s) there are read as data ({shown})"
            )
        return (
            f"{self.folder}: {self.others} file(s) there were not written by iolab, whatever its marker says: "
            f"read as data ({shown})"
        )


def _proves(entry: dict[str, Any], path: Path, st: os.stat_result, digest: list[str]) -> bool:
    """Whether a listing proves ``path`` (stat ``st``) is the file iolab wrote: its size, and its stamp
    (the very file) or its SHA-256 (a copy); a listing of format 1 has its size alone."""
    if entry.get("size") != st.st_size:
        return False
    if entry.get("ino") == st.st_ino and entry.get("mtime_ns") == st.st_mtime_ns:
        return True
    if "sha256" in entry:
        if not digest:
            digest.append(_sha256(path) or "")
        return entry["sha256"] == digest[0]
    return "ino" not in entry  # format 1: the size alone


def _sha256(path: Path) -> str | None:
    h = hashlib.sha256()
    try:
        with path.open("rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def listing(folder: Path, path: Path, st: os.stat_result, sha: str | None = None) -> dict[str, Any]:
    """What a marker says of one file iolab wrote: its path below ``folder``, size and stamp, and its
    SHA-256 when given or small enough to compute (HASH_MAX)."""
    entry: dict[str, Any] = {"file": Path(os.path.abspath(path)).relative_to(os.path.abspath(folder)).as_posix()}
    entry |= {"size": st.st_size, "ino": st.st_ino, "mtime_ns": st.st_mtime_ns}
    if sha is None and st.st_size <= HASH_MAX:
        sha = _sha256(path)
    return entry | ({"sha256": sha} if sha else {})


def read_cover(folder: Path) -> Cover | None:
    """The cover of the marker in ``folder``, if it holds one (a marker that is not a regular file of
    sane size, a FIFO or a link into /proc, is never read: it covers nothing)."""
    mark = folder / MARK
    if not mark.is_file():
        return Cover(folder, None) if any((folder / m).is_file() for m in MARKS) else None
    text = read_small_text(mark, MARK_MAX)
    lines = (text or "").splitlines()
    try:
        head = json.loads(lines[0]) if lines else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or "iolab_output" not in head:
        return Cover(folder, None)  # the text marker of an early iolab, or no marker at all
    files: dict[str, list[dict[str, Any]]] = {}
    for line in lines[1:]:
        with contextlib.suppress(ValueError, KeyError, TypeError, AttributeError):
            entry = json.loads(line)
            files.setdefault(str(entry["file"]), []).append(entry)
    return Cover(folder, files, str(head.get("what", "")))


class Marks:
    """The markers met on a walk from ``start`` down (and those of its parent folders)."""

    def __init__(self, start: Path) -> None:
        self.found: dict[Path, Cover] = {}
        start = Path(os.path.abspath(start))
        for parent in reversed(start.parents):
            self.visit(parent)

    def visit(self, folder: Path, names: list[str] | None = None) -> None:
        folder = Path(os.path.abspath(folder))
        if folder in self.found:
            return
        if names is not None and not any(m in names for m in MARKS):
            return
        if (c := read_cover(folder)) is not None:
            self.found[folder] = c

    def covers(self, path: Path, count: bool = True) -> bool:
        """Whether a marker above ``path`` covers it; if none does, it counts against those above it."""
        if not self.found:
            return False
        path = Path(os.path.abspath(path))
        above = [c for c in self.found.values() if path.is_relative_to(c.folder)]
        if any(c.covers(path) for c in above):
            return True
        if count:
            for c in above:
                c.others += 1
                if len(c.examples) < 3:
                    c.examples.append(path.relative_to(c.folder).as_posix())
        return False

    def notes(self) -> list[str]:
        return [c.note() for c in self.found.values() if c.others and c.what != EXPORTS]


def files_below(folder: Path) -> Iterator[Path]:
    """Every file below ``folder`` that is not hidden nor in a hidden folder (links not followed)."""
    for top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for n in names:
            if not n.startswith("."):
                yield Path(top) / n


def foreign(folder: Path) -> list[Path]:
    """The files below ``folder`` that no marker says iolab wrote."""
    if not folder.is_dir():
        return []
    marks = Marks(folder)
    out = []
    for top, dirs, names in os.walk(folder):
        marks.visit(Path(top), names)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out += [Path(top) / n for n in sorted(names) if not n.startswith(".") and not marks.covers(Path(top) / n)]
    return out


def check(out: Path, roots: list[str], option: str, db: Path | str | None = None) -> None:
    """Refuse ``out`` (Refused, with the reason) if it is, holds or lies in a data root or anything
    iolab keeps (iolab.guard: a database, its log or store, the cache), or holds files iolab did not
    write."""
    if why := guard.folder_refusal(out, db):
        raise Refused(f"{why}: iolab never writes where it keeps or reads anything. Give {option} another folder")
    where = paths.canonical(out)
    for root in roots:
        if paths.inside(str(where), root) or paths.inside(root, str(where)):
            how = "is" if str(where) == root else "lies inside" if paths.inside(str(where), root) else "holds"
            raise Refused(
                f"{out} {how} the data root {root}: iolab never writes where it reads data (the next ingest "
                f"would meet its own output). Give {option} a folder outside every data root (`iolab info` lists them)"
            )
    if out.exists() and not out.is_dir():
        raise Refused(f"{out} is a file, not a folder: give {option} a folder")
    if others := foreign(out):
        if exact := guard.foreign_refusal(others):
            raise Refused(f"{out} is no folder of iolab's: {exact}. Give {option} another folder")
        shown = ", ".join(str(p.relative_to(out)) for p in others[:5]) + (", ..." if len(others) > 5 else "")
        raise Refused(
            f"{out} already holds {len(others)} file(s) iolab did not write ({shown}), or that its marker does not "
            "prove iolab wrote: iolab writes only into a new or empty folder or one it wrote before, and never "
            f"overwrites your files. Give {option} another folder"
        )


def check_file(out: Path, roots: list[str], option: str, db: Path | str | None = None) -> None:
    """Refuse a file to write (``export --out``) that iolab reads or keeps (iolab.guard: a database,
    its log or store, the cache), inside a data root, or in no folder."""
    if why := guard.file_refusal(out, db):
        raise Refused(f"{why}: iolab never writes over what it keeps or reads. Give {option} another file")
    where = paths.canonical(out)
    for root in roots:
        if paths.inside(str(where), root) or paths.inside(os.path.realpath(out), root):
            raise Refused(
                f"{out} lies inside the data root {root}: the next ingest would read it as data. "
                f"Give {option} a path outside every data root (`iolab info` lists them)"
            )
    if not out.parent.is_dir():
        raise Refused(f"{out.parent} is no folder: give {option} a file in an existing folder")


def start(folder: Path, what: str) -> None:
    """Make ``folder`` (created) one of iolab's output folders: its marker, with a list (a list of an
    earlier format is brought to this one, keeping what it covers); what killed runs left there
    (their temporary files) is removed."""
    folder.mkdir(parents=True, exist_ok=True)
    written.sweep(folder, recursive=True)
    old = read_cover(folder)
    if old is not None and old.files is not None and all("ino" in e for es in old.files.values() for e in es):
        return
    seal(folder, what, since_ns=None)


def seal(folder: Path, what: str, since_ns: int | None) -> None:
    """Record in the marker of ``folder`` every file iolab wrote there: those its marker proves, and
    those written since ``since_ns`` (the command's start, for writers that name their files
    themselves, as Spark does: the folder held no other file then), each listed once as it is now."""
    old = read_cover(folder) or Cover(folder, {})
    lines = [json.dumps({"iolab_output": LIST_FORMAT, "what": what})]
    for f in sorted(files_below(folder)):
        try:
            st = f.stat()
        except OSError:
            continue
        if old.covers(f) or (since_ns is not None and st.st_mtime_ns >= since_ns):
            lines.append(json.dumps(listing(folder, f, st, _known_sha(old, f, st))))
    write_text(folder / MARK, "\n".join(lines) + "\n")


def _known_sha(cover: Cover, f: Path, st: os.stat_result) -> str | None:
    """The SHA-256 a listing of the very file ``f`` gave already (none is computed again)."""
    rel = f.relative_to(cover.folder).as_posix()
    same = (e for e in (cover.files or {}).get(rel, []) if e.get("ino") == st.st_ino and e.get("size") == st.st_size)
    return next((e["sha256"] for e in same if e.get("mtime_ns") == st.st_mtime_ns and "sha256" in e), None)


def record_file(path: Path) -> None:
    """A file iolab wrote into a folder not its own (`export --out`): listed in the folder's marker,
    so no ingest reads it as data; the folder's other files stay data, and no ingest says so."""
    start(path.parent, EXPORTS)
    record(path.parent, path)


def record(folder: Path, path: Path, sha: str | None = None) -> None:
    """Add one file iolab just wrote to the marker of ``folder`` (append: cheap per file)."""
    line = json.dumps(listing(folder, path, path.stat(), sha))
    with open(folder / MARK, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def _recorder(folder: Path) -> Callable[[Path, Path], None]:
    """What ``written`` calls before a temporary file takes its name below ``folder``: the file is
    listed, as it will be once renamed (its inode and times stay), before it can be seen."""

    folder = Path(os.path.abspath(folder))

    def record_before(path: Path, tmp: Path) -> None:
        if not (folder / MARK).is_file():  # not made iolab's yet (``start``): sealed when it is
            return
        st = tmp.stat()
        line = json.dumps(listing(folder, path, st, _sha256(tmp) if st.st_size <= HASH_MAX else None))
        with open(folder / MARK, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    return record_before


@contextlib.contextmanager
def writing(folder: Path, what: str) -> Iterator[Path]:
    """Mark ``folder`` as iolab's for the command's writes, and record them when it ends, however
    it ends; each file is listed before it takes its name, so even a killed run leaves none unlisted."""
    since = time.time_ns() - 1_000_000_000  # file times come from a coarser clock
    start(folder, what)
    try:
        with written.recording(folder, _recorder(folder)):
            yield folder
    except BaseException:
        with contextlib.suppress(OSError):  # the disk may be why it failed: that is said once, by the caller
            seal(folder, what, since)
        raise
    seal(folder, what, since)


def sealed(what: str, folder: str) -> Callable[[F], F]:
    """Decorate a function that writes the output folder named by its argument ``folder``: each file
    it writes there is listed before it takes its name, and when it ends, however it ends, the list
    is brought up to date (``seal``). The function makes the folder and its marker (``start``); a
    folder it did not make is left as it is."""

    def wrap(fn: F) -> F:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            where = Path(bound.arguments[folder])
            since = time.time_ns() - 1_000_000_000
            try:
                with written.recording(where, _recorder(where)):
                    result = fn(*args, **kwargs)
            except Refused:  # nothing was written
                raise
            except BaseException:
                if read_cover(where) is not None:
                    with contextlib.suppress(OSError):  # the disk may be why it failed: the caller says so once
                        seal(where, what, since)
                raise
            if read_cover(where) is not None:
                seal(where, what, since)
            return result

        return cast(F, run)

    return wrap


def cannot_write(e: BaseException) -> str | None:
    """Why a folder could not be written, naming it, if ``e`` says the environment refused (else None):
    iolab.faults, the one table of what the OS, DuckDB or Polars says and what it means."""
    return faults.describe(e, "the output folder")
