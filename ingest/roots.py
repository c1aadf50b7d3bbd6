"""Data roots as the disk shows them: which folders may be one (``refusal``), and a data root moved
whole (``find_moves``, applied by ``places.move_root``).

A data root is a folder of results the user keeps: the file system's top, the system's own folders
and the home folder itself are refused (``iolab ingest --allow-root`` for the rare case), and a
folder on a special file system (/proc, /sys...: files.SPECIAL_FS) is never one.

A root moved whole (``mv lab lab2; iolab ingest lab2``) is one root that moved: when a root is gone
from disk and every file of it in the analysis is under the folder named, at the same relative path
with the same bytes (the same stamp, else the same sha256), its places take their new paths and the
root its new folder. A root found only in part is not a move: the folder named is a new root (its
files are known content in a new place), and the old root's files stay in the analysis until its
folder is named (`iolab ingest OLD NEW` moves those found in NEW and takes the rest out).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import files
from .paths import SYSTEM, TOP
from .store import places

if TYPE_CHECKING:
    from .store.index import Index

__all__ = ["SYSTEM", "TOP", "Move", "find_moves", "refusal"]


def refusal(path: Path, allow: bool = False) -> str | None:
    """Why ``path`` (the folder it names, or the folder of a file) cannot be a data root, else None.
    ``allow`` (--allow-root) lifts every rule but the special file systems'."""
    folder = places.canonical(path)
    if kind := files.special_fs(folder):
        return f"{folder} is on a {kind} file system (the kernel's or a device's state, not results): never read"
    if not folder.is_dir() and (folder.exists() or folder.is_symlink()):
        folder = folder.parent
    if allow or not os.path.lexists(folder):
        return None
    home = places.canonical(Path.home())
    if system := next((s for s in SYSTEM if places.inside(folder, s)), None) or _lib(folder):
        what = (
            "one of the system's folders" if str(folder) == system else f"inside {system}, one of the system's folders"
        )
    elif str(folder) in TOP:
        what = "a folder that holds other folders, not results"
    elif folder == home:
        what = "your home folder itself"
    elif places.inside(home, folder):
        what = f"a folder holding your home folder ({home})"
    else:
        return None
    return (
        f"{folder} is {what}: a data root is the folder of your results (such as ~/lab/data); "
        "name that folder, or add --allow-root if you mean it"
    )


def _lib(folder: Path) -> str | None:
    """/lib, /lib32, /lib64, /libx32... (the system's libraries), when ``folder`` is one or below it."""
    top = folder.parts[1] if len(folder.parts) > 1 else ""
    return f"/{top}" if top.startswith("lib") else None


# ---- a data root moved whole ----------------------------------------------------------------------


@dataclass
class Move:
    """A vanished root ``old`` found whole at ``new``: each place's new identity and, where the
    file was hashed to know it, its new stamp."""

    old: Path
    new: Path
    places: dict[str, tuple[Path, places.Stamp]] = field(default_factory=dict)  # old abs_path -> (new, stamp)


def find_moves(index: Index, given: list[Path]) -> tuple[list[Move], list[str]]:
    """The roots moved to the given folders (canonical), and notes for roots found there only in
    part. Only a given folder that no root holds is looked at, and only roots gone from disk.
    Reads the store's ``index`` and the disk (hashes files moved between disks), writes nothing."""
    roots = [Path(r) for r in index.roots]
    vanished = [r for r in roots if not os.path.lexists(r)]
    if not vanished:
        return [], []
    moves: list[Move] = []
    notes: list[str] = []
    for g in given:
        folder = g if g.is_dir() else g.parent
        if not g.exists() or any(
            places.inside(folder, r) or places.inside(r, folder) for r in roots if r not in vanished
        ):
            continue
        found = []
        for old in vanished:
            if places.inside(old, folder) or any(m.old == old for m in moves):
                continue
            move, note = _look(index, old, folder)
            if move is not None:
                found.append(move)
            elif note:
                notes.append(note)
        for m in found:  # two roots found at one folder (or one inside the other): neither is taken
            if clash := [
                o for o in found if o is not m and (places.inside(o.new, m.new) or places.inside(m.new, o.new))
            ]:
                notes.append(
                    f"the files of {m.old} and of {', '.join(str(o.old) for o in clash)}, data roots gone from "
                    f"disk, are all under {m.new}: neither is taken as moved there"
                )
            else:
                moves.append(m)
    return moves, notes


def _look(index: Index, old: Path, folder: Path) -> tuple[Move | None, str | None]:
    """Whether the vanished root ``old`` is whole under ``folder``: as ``folder`` itself, or, when a
    vanished folder above it moved, as the same subfolder of ``folder``."""
    held = index.in_root(places.text(old))
    if not held:
        return None, None
    best, best_at = 0, folder
    for above in [old, *old.parents]:
        if os.path.lexists(above) or above == above.parent:
            break
        new = folder / old.relative_to(above)
        if not new.is_dir():
            continue
        move = Move(old, new)
        same = 0
        for abs_path, stamp, sha in held:
            target = new / Path(abs_path).relative_to(old)
            if (now := _same(target, stamp, sha)) is None:
                continue
            same += 1
            move.places[abs_path] = (places.canonical(target), now)
        if same == len(held):
            return move, None
        if same > best:
            best, best_at = same, new
    if not best:
        return None, None
    return None, (
        f"{old} is gone from disk and only {best} of its {len(held)} files are under {best_at} at the same "
        f"relative path with the same bytes: not taken as a move. {folder} is a data root of its own; the files "
        f"of {old} stay in the analysis until you name it (`iolab ingest {old} {folder}` moves those found and "
        "takes the rest out)"
    )


def _same(target: Path, stamp: places.Stamp, sha: str) -> places.Stamp | None:
    """The file's stamp when ``target`` holds the bytes a place had (the same stamp, else the same
    sha256), else None."""
    try:
        now = files.stamp(target)
        if now == stamp:
            return now
        if now[0] != stamp[0]:
            return None
        return now if files.hash_file(target)[0] == sha else None
    except OSError:
        return None
