"""What `iolab lake views` may touch: a views folder says which export it was computed from and
which folders in it are its own (DIR/views/_iolab_views.json), so a new export shows it stale and
a folder iolab did not write is never emptied."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from .common import MANIFEST

VIEWS_MANIFEST = "_iolab_views.json"
OUTPUT_MARKER = ".iolab-output"  # name kept for a marker file; the lake root is known by MANIFEST


class NotOurs(Exception):
    """A folder `iolab lake views --out` will not write into: it holds files iolab did not write."""


def export_id(lake: Path) -> str:
    """The export a lake is at: the sha256 of its manifest (every export rewrites it)."""
    return hashlib.sha256((lake / MANIFEST).read_bytes()).hexdigest()


def read(out: Path) -> dict | None:
    f = out / VIEWS_MANIFEST
    return json.loads(f.read_text()) if f.is_file() else None


def claim(lake: Path, out: Path) -> set[str]:
    """Make sure ``out`` may be written; the view folders an earlier run wrote there."""
    mine = read(out)
    if mine is not None:
        return set(mine.get("views", []))
    default = out.resolve() == (lake / "views").resolve()
    others = [p.name for p in out.iterdir() if p.name != "_sql"] if out.is_dir() else []
    if others and not default:
        shown = ", ".join(sorted(others)[:5])
        raise NotOurs(
            f"{out} already holds files iolab did not write ({shown}{', ...' if len(others) > 5 else ''}) "
            f"and no {VIEWS_MANIFEST}: give --out an empty or new folder, or one `iolab lake views` wrote"
        )
    return set()


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
    tmp = out / f".{VIEWS_MANIFEST}.tmp"
    tmp.write_text(json.dumps(record, indent=1))
    tmp.replace(out / VIEWS_MANIFEST)


def status(lake: Path, out: Path | None = None) -> str:
    """'missing', 'stale' (computed from another export than the lake's) or 'current'."""
    mine = read(out or lake / "views")
    if mine is None:
        return "missing"
    return "current" if mine.get("export") == export_id(lake) else "stale"
