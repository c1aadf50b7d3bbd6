"""One folder per study under ``iolab report --out``, never shared.

A study's folder is named by ``slug`` (its own name when that is plain, else a slug plus a short hash).
Two studies can still get the same slug: a study ``a b`` is ``a-b-<hash>``, and a study literally named
``a-b-<hash>`` is that too; ``Study`` and ``study`` are one folder on a file system that ignores case.
Without more they overwrote each other's pages, print edition and chart images, exit 0.

The rule (``assign``), the same on every render:

1. a folder whose render record (``<folder>/.iolab-render.json``) names a study stays that study's: a
   study keeps the folder it was first written to, and a study no longer in the database keeps its
   folder from being given to another (its pages are never overwritten by someone else's);
2. every other study gets its slug if no study holds it yet (names compared ignoring case), the
   studies whose slug is their own name first, then the others by name;
3. a study whose slug is taken gets the first free of ``<slug>-2``, ``<slug>-3``, ...

The record says which study a folder holds, so the index, the print edition and the chart images
follow it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from ..regular import read_small_text

RECORD = ".iolab-render.json"


def slug(study: str) -> str:
    """A folder name for a study: itself when already plain, else a slug plus a short hash."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}", study) and ".." not in study:
        return study
    base = re.sub(r"[^a-z0-9]+", "-", study.lower()).strip("-")[:60] or "study"
    return f"{base}-{hashlib.sha256(study.encode()).hexdigest()[:8]}"


def read_record(folder: Path) -> dict:
    """A folder's render record: {"study": name, "pages": {notebook: fingerprint}}; a record written
    before it named its study ({notebook: fingerprint}) reads as one without a study."""
    try:
        record = json.loads(read_small_text(folder / RECORD, 16 << 20) or "")
    except ValueError:  # none, or not a regular file of sane size (never read), or not JSON
        return {"pages": {}}
    if not isinstance(record, dict):
        return {"pages": {}}
    if isinstance(record.get("pages"), dict) and isinstance(record.get("study"), str):
        return record
    return {"pages": {k: v for k, v in record.items() if isinstance(v, str)}}


def recorded(out: Path) -> dict[str, str]:
    """Folder name -> study, for every folder under ``out`` whose render record names its study."""
    found = {}
    for f in sorted(out.glob(f"*/{RECORD}")):
        study = read_record(f.parent).get("study")
        if isinstance(study, str) and not f.parent.is_symlink():
            found[f.parent.name] = study
    return found


def assign(out: Path, studies: list[str]) -> dict[str, str]:
    """Study -> its folder name under ``out``, unique among the studies and the folders recorded there
    (the rule in this module's docstring); outputs.Refused if one of them leads outside ``out``."""
    held = recorded(out)
    mine = {s: f for f, s in sorted(held.items()) if s in studies}
    taken = {f.casefold() for f in held}
    plain = sorted(s for s in studies if s not in mine and slug(s) == s)
    others = sorted(s for s in studies if s not in mine and slug(s) != s)
    for study in plain + others:
        base = name = slug(study)
        n = 1
        while name.casefold() in taken:
            n += 1
            name = f"{base}-{n}"
        mine[study] = name
        taken.add(name.casefold())
    for folder in mine.values():  # one that became a link out of ``out`` is refused (exit 2), never written
        inside(out, out / folder)
    return mine


def inside(out: Path, path: Path) -> Path:
    """``path`` if it lies inside ``out``; refuse anything else (never write outside --out): a study's
    folder replaced by a link elsewhere (into a data root, say) is wrong usage, exit 2."""
    from ..outputs import Refused

    if not path.resolve().is_relative_to(out.resolve()):
        raise Refused(
            f"{path} leads outside {out} (to {path.resolve()}): a link there, where iolab wrote a study's folder. "
            "iolab writes only inside --out; remove the link, or give --out another folder"
        )
    return path
