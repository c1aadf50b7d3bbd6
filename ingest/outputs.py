"""Folders iolab writes, kept apart from the data it reads (issue 40).

Every command that writes a folder (``report --out``, ``report --images``, ``lake export --to``,
``lake views --out``; ``export --out`` writes one file) first calls ``check``: a folder that is a
data root of the database, lies inside one or holds one is refused, and so is an existing folder
holding files iolab did not write. Then ``writing`` marks the folder as iolab's and, when the
command ends (done or not), records in the marker every file it wrote there:

    <folder>/.iolab-output      one JSON object a line: {"iolab_output": 1, "what": ...}, then
                                {"file": "<path below the folder>", "size": <bytes>} per file

A marker covers only the files it lists, at the size listed: `iolab ingest` never reads those, and
reads every other file of the folder as data (saying that the marker did not cover them), so a
marker copied into a user's folder hides nothing. A lake's ``_iolab_manifest.json`` and a views folder's
``_iolab_views.json`` are markers too. A marker with no list (written by iolab before the list
existed: a text ``.iolab-output``, or a lake's or views folder's manifest alone) covers only the kinds of files iolab writes there and no parser reads
(``OLD_KINDS``); any other file beside it is read. Hidden files are never data, and are not counted.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import inspect
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from . import paths
from .written import write_text

F = TypeVar("F", bound=Callable[..., Any])

MARK = ".iolab-output"
LAKE_MARK = "_iolab_manifest.json"
EXPORTS = "exports"
VIEWS_MARK = "_iolab_views.json"  # what `iolab lake views` computed (ingest/lake/owned.py)
MARKS = (MARK, LAKE_MARK, VIEWS_MARK)
LIST_FORMAT = 1
# what a marker with no list covers: the kinds of files iolab writes into its output folders
# (pages, print editions, charts, Parquet, Spark SQL, its own manifests), none of which a parser reads
OLD_KINDS = (".html", ".pdf", ".svg", ".png", ".parquet", ".sql")
OLD_NAMES = ("_iolab_views.json", "_SUCCESS")  # lake views' record; Spark's mark of a folder written whole


class Refused(ValueError):
    """An output folder iolab will not write into (wrong usage: exit 2)."""


@dataclass
class Cover:
    """The files one marker says iolab wrote (``files``: path below ``folder`` -> size; None: a
    marker with no list, covering OLD_KINDS)."""

    folder: Path
    files: dict[str, int] | None
    what: str = ""  # "exports": files iolab wrote into a folder that is not its own (`export --out`)
    others: int = 0  # files below the folder it does not cover (met on a walk)
    examples: list[str] = field(default_factory=list)

    def covers(self, path: Path, size: int | None = None) -> bool:
        try:
            rel = path.relative_to(self.folder).as_posix()
        except ValueError:
            return False
        if path.name in MARKS:
            return True
        if self.files is None:
            return path.suffix.lower() in OLD_KINDS or path.name in OLD_NAMES
        want = self.files.get(rel)
        return want is not None and want == (size if size is not None else _size(path))

    def note(self) -> str:
        shown = ", ".join(self.examples) + (", ..." if self.others > len(self.examples) else "")
        if self.files is None:
            return (
                f"{self.folder}: its iolab marker lists no files (written before iolab kept one), so it covers "
                f"only files of the kinds iolab writes ({', '.join(OLD_KINDS)}); {self.others} other file(s) "
                f"there are read as data ({shown})"
            )
        return (
            f"{self.folder}: {self.others} file(s) there were not written by iolab, whatever its marker says: "
            f"read as data ({shown})"
        )


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def read_cover(folder: Path) -> Cover | None:
    """The cover of the marker in ``folder``, if it holds one."""
    mark = folder / MARK
    if not mark.is_file():
        return Cover(folder, None) if any((folder / m).is_file() for m in MARKS) else None
    try:
        lines = mark.read_text(encoding="utf-8", errors="replace").splitlines()
        head = json.loads(lines[0]) if lines else None
    except (OSError, ValueError):
        head = None
    if not isinstance(head, dict) or "iolab_output" not in head:
        return Cover(folder, None)  # the text marker of an earlier iolab
    files: dict[str, int] = {}
    for line in lines[1:]:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            entry = json.loads(line)
            files[str(entry["file"])] = int(entry["size"])
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
        size = _size(path)
        above = [c for c in self.found.values() if path.is_relative_to(c.folder)]
        if any(c.covers(path, size) for c in above):
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


def check(out: Path, roots: list[str], option: str) -> None:
    """Refuse ``out`` (Refused, with the reason) if it is, holds or lies in a data root, or holds
    files iolab did not write."""
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
        shown = ", ".join(str(p.relative_to(out)) for p in others[:5]) + (", ..." if len(others) > 5 else "")
        raise Refused(
            f"{out} already holds {len(others)} file(s) iolab did not write ({shown}), or that a run of iolab "
            "stopped before it could list them: iolab writes only into a new or empty folder or one it wrote "
            f"before, and never overwrites your files. Give {option} another folder"
        )


def check_file(out: Path, roots: list[str], option: str) -> None:
    """Refuse a file to write (``export --out``) inside a data root, or in no folder."""
    where = paths.canonical(out)
    for root in roots:
        if paths.inside(str(where), root):
            raise Refused(
                f"{out} lies inside the data root {root}: the next ingest would read it as data. "
                f"Give {option} a path outside every data root (`iolab info` lists them)"
            )
    if not out.parent.is_dir():
        raise Refused(f"{out.parent} is no folder: give {option} a file in an existing folder")


def start(folder: Path, what: str) -> None:
    """Make ``folder`` (created) one of iolab's output folders: its marker, with a list (an old
    marker is brought to the list format, keeping what it covers)."""
    folder.mkdir(parents=True, exist_ok=True)
    old = read_cover(folder)
    if old is not None and old.files is not None:
        return
    seal(folder, what, since_ns=None)


def seal(folder: Path, what: str, since_ns: int | None) -> None:
    """Record in the marker of ``folder`` every file iolab wrote there: those its marker covered,
    and those written since ``since_ns`` (the command's start: the folder held no other file then)."""
    old = read_cover(folder) or Cover(folder, {})
    lines = [json.dumps({"iolab_output": LIST_FORMAT, "what": what})]
    for f in sorted(files_below(folder)):
        try:
            st = f.stat()
        except OSError:
            continue
        if old.covers(f, st.st_size) or (since_ns is not None and st.st_mtime_ns >= since_ns):
            lines.append(json.dumps({"file": f.relative_to(folder).as_posix(), "size": st.st_size}))
    write_text(folder / MARK, "\n".join(lines) + "\n")


def record_file(path: Path) -> None:
    """A file iolab wrote into a folder not its own (`export --out`): listed in the folder's marker,
    so no ingest reads it as data; the folder's other files stay data, and no ingest says so."""
    start(path.parent, EXPORTS)
    record(path.parent, path)


def record(folder: Path, path: Path) -> None:
    """Add one file iolab just wrote to the marker of ``folder`` (append: cheap per file)."""
    line = json.dumps({"file": path.relative_to(folder).as_posix(), "size": path.stat().st_size})
    with open(folder / MARK, "a", encoding="utf-8") as f:
        f.write(line + "\n")


@contextlib.contextmanager
def writing(folder: Path, what: str) -> Iterator[Path]:
    """Mark ``folder`` as iolab's for the command's writes, and record them when it ends, however
    it ends (a marker not sealed leaves the files unlisted: the next run refuses the folder)."""
    since = time.time_ns() - 1_000_000_000  # file times come from a coarser clock
    start(folder, what)
    try:
        yield folder
    except BaseException:
        with contextlib.suppress(OSError):  # the disk may be why it failed: that is said once, by the caller
            seal(folder, what, since)
        raise
    seal(folder, what, since)


def sealed(what: str, folder: str) -> Callable[[F], F]:
    """Decorate a function that writes the output folder named by its argument ``folder``: when it
    ends, however it ends, the files it wrote there are recorded (``seal``). The function makes the
    folder and its marker (``start``); a folder it did not make is left as it is."""

    def wrap(fn: F) -> F:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            where = Path(bound.arguments[folder])
            since = time.time_ns() - 1_000_000_000
            try:
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


# what the OS (or DuckDB, or Polars, in words) says when a folder cannot be written, and what it means
_CANNOT = [
    (errno.ENOSPC, "No space left on device", "the disk is full"),
    (errno.EDQUOT, "Disk quota exceeded", "the disk quota is used up"),
    (errno.EROFS, "Read-only file system", "it is on a read-only file system"),
    (errno.EACCES, "Permission denied", "iolab may not write there (permissions)"),
    (errno.EPERM, "Operation not permitted", "iolab may not write there (permissions)"),
]


def cannot_write(e: BaseException) -> str | None:
    """Why a folder could not be written, if ``e`` says the environment refused (else None)."""
    code = getattr(e, "errno", None)
    text = str(e)
    for no, words, meaning in _CANNOT:
        if code == no or words.lower() in text.lower():
            return f"{meaning} ({errno.errorcode[no]})"
    return None
