"""The render's validation, kept beside its pages and reused while the data and the checks are unchanged.

A render validates each study it renders (the footer of its pages: which suites ran, how many
expectations were met, when). On a study of five pages that was most of the render's own work: Great
Expectations' import (2.9 s of CPU) and its checks (1.1 s), paid again by every ``--force``. The
footers of the last validation are kept in ``<out>/.iolab-validation.json`` with the key they were
made under (``key``): the content of every table of the snapshot (``plan.content_digest``), the
suites (validation/), the views and page helpers, iolab's and Great Expectations' versions. A render
whose key is the same takes the footers from there and imports nothing; any change to the data or the
checks gives another key, and the study is validated again. A footer says when its validation ran, so
a reused one still says when (and what) was validated.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from importlib import metadata
from pathlib import Path

from ..config import SUITES
from ..written import write_text
from .plan import HELPER_FOLDERS, code_digest

KEPT = ".iolab-validation.json"


def key(data: str) -> str:
    """The key of a validation of data whose ``plan.content_digest`` is ``data``."""
    from .. import __version__

    try:
        gx = metadata.version("great_expectations")
    except metadata.PackageNotFoundError:
        gx = "absent"
    code = code_digest([*HELPER_FOLDERS, SUITES])
    return hashlib.sha256(f"{__version__}|great_expectations {gx}|{data}|{code}".encode()).hexdigest()


def source(db: Path) -> list:
    """What the database's files look like (name, size, time of change of the file, its WAL and its
    points store): a render reads this before its snapshot, to guess whether its validation is kept."""
    sig = []
    for f in (db, db.with_name(db.name + ".wal"), db.with_name(db.name + ".points")):
        with contextlib.suppress(OSError):
            st = f.stat()
            sig.append([f.name, st.st_size, st.st_mtime_ns])
    return sig


def _read(out: Path) -> dict:
    try:
        doc = json.loads((out / KEPT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def kept(out: Path, k: str) -> dict[str, str]:
    """The footers kept in ``out`` under key ``k`` (study -> footer HTML); none for another key, or
    a file that is not one this module wrote."""
    doc = _read(out)
    footers = doc.get("footers") if doc.get("key") == k else None
    if not isinstance(footers, dict):
        return {}
    return {s: f for s, f in footers.items() if isinstance(s, str) and isinstance(f, str)}


def keep(out: Path, k: str, footers: dict[str, str], db: Path) -> None:
    """Keep ``footers`` in ``out`` under key ``k``, with those already kept under it (other studies
    rendered before with ``--study``), and what ``db`` looked like (``source``). A folder that cannot
    be written keeps nothing: its pages say why."""
    every = kept(out, k) | footers
    doc = {"key": k, "source": source(db), "footers": every}
    with contextlib.suppress(OSError):
        write_text(out / KEPT, json.dumps(doc, sort_keys=True))


def footers(out: Path, k: str, studies: set[str], validate, db: Path) -> dict[str, str]:
    """Each study's footer: kept under ``k`` in ``out``, else ``validate(studies left)`` (then kept,
    with what the database ``db`` looks like)."""
    have = kept(out, k)
    found = {s: have[s] for s in studies if s in have}
    left = studies - found.keys()
    if left:
        made = validate(left)
        keep(out, k, made, db)
        found |= made
    elif _read(out).get("source") != source(db):  # the same data in files changed since: the next guess
        keep(out, k, {}, db)
    return found


def likely_kept(out: Path, db: Path, studies: list[str] | None) -> bool:
    """A guess, before the snapshot (its content decides): the validation kept in ``out`` was of
    ``db`` as its files are now, and holds every study asked for (None: it holds any)."""
    doc = _read(out)
    footers = doc.get("footers")
    if doc.get("source") != source(db) or not isinstance(footers, dict) or not footers:
        return False
    return studies is None or set(studies) <= footers.keys()
