"""What `iolab lake views` may touch: a views folder says which export it was computed from and
which folders in it are its own (DIR/views/_iolab_views.json), so a new export shows it stale and
a folder iolab did not write is never emptied."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from .. import outputs
from ..processes import started
from ..regular import read_small_text
from ..written import write_text
from .common import MANIFEST, RUNNING, data_roots

VIEWS_MANIFEST = outputs.VIEWS_MARK


class NotOurs(outputs.Refused):
    """A folder `iolab lake views --out` will not write into: in a data root, or holding files iolab
    did not write (the rule of every output folder: iolab.outputs.check)."""


def export_id(lake: Path) -> str:
    """The export a lake is at: the sha256 of its manifest (every export rewrites it)."""
    return hashlib.sha256((lake / MANIFEST).read_bytes()).hexdigest()


def read(out: Path) -> dict | None:
    text = read_small_text(out / VIEWS_MANIFEST, 16 << 20)  # a regular file of sane size, or none
    try:
        record = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def claim(lake: Path, out: Path) -> set[str]:
    """Make sure ``out`` may be written (outputs.check: outside the data roots the lake was exported
    from, holding no file iolab did not write); the view folders an earlier run wrote there."""
    try:
        made_from = json.loads((lake / MANIFEST).read_text()).get("database")
    except (OSError, ValueError, AttributeError):
        made_from = None
    try:
        outputs.check(out, data_roots(lake), "--out", made_from)
    except outputs.Refused as e:
        raise NotOurs(str(e)) from None
    mine = read(out)
    return set(mine.get("views", [])) if mine is not None else set()


def mark(lake: Path, out: Path, engine: str, names: list[str], done: bool = True) -> None:
    """Record the views in ``out`` as iolab's; computed from the lake's export once ``done`` (until
    then, from none: a run that stops half way leaves them stale, and still its own)."""
    record = {
        "export": export_id(lake) if done else None,
        "lake": str(lake.resolve()),
        "engine": engine,
        "computed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "views": sorted(names),
    }
    write_text(out / VIEWS_MANIFEST, json.dumps(record, indent=1))


def incomplete(lake: Path) -> str | None:
    """Why the lake is not whole (an export that did not finish, or none that did), else None."""
    text = read_small_text(lake / RUNNING, 1 << 20)
    if text is not None:
        try:
            run = json.loads(text)
            pid, start = str(run["by"]).split("-", 1)
            when = str(run["started_at"])
        except (ValueError, KeyError, TypeError):
            pid, start, when = "0", "", "?"
        if started(pid) == start:
            return f"an export started at {when} is still running"
        return (
            f"the export started at {when} did not finish (stopped, killed, or its disk full): "
            "`iolab lake export` again goes on from there"
        )
    if not (lake / MANIFEST).is_file():
        return "no export has finished here: `iolab lake export` writes one"
    return None


def status(lake: Path, out: Path | None = None) -> str:
    """'incomplete' (an export did not finish), 'missing', 'stale' (computed from another export
    than the lake's) or 'current'."""
    if incomplete(lake):
        return "incomplete"
    mine = read(out or lake / "views")
    if mine is None:
        return "missing"
    return "current" if mine.get("export") == export_id(lake) else "stale"
