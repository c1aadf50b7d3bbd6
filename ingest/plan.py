"""An ingest's plan: what it will do, decided from the folder and the store's index before anything
is written, as Terraform plans before it applies and rsync --dry-run lists what it would copy.

``make`` reads the disk (stat, sidecars, hashes) and the store's index (ingest/store/index.py: plain
records, read once), never the database: the data roots after the ingest (a root moved whole, a
folder named above roots taking their place), and per file one step: new, changed, moved, copy,
relabelled, unchanged, refused (with the reason), with the labels its sidecars give it; then the
places under the folders named that are no longer on disk (removed). ``batch.apply`` writes it.

A file of HASH_BESIDE_BYTES or more is hashed beside its parse when the plan is applied (a capture
is read once): until then its step says new or changed by its path, and the application may find
its bytes stored already (then it is moved or a copy, as the application says). ``hash_all``
(``iolab ingest --dry-run``) hashes them too, so the plan says exactly what an ingest would do.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import ModuleType

from . import files
from .files import Incoming, NotRegular, display_path, hash_file, stamp, unreadable_folder
from .outcome import Outcome, Status
from .parsing import parser_for
from .roots import Move, find_moves
from .sidecar import SidecarError, Sidecars
from .store import places
from .store.index import Index

SIDECAR_BROKEN = "its sidecar is broken"


class Action(StrEnum):
    """What the application does with a file (or a place)."""

    NEW = "new"  # bytes the store does not hold: parsed and stored
    CHANGED = "changed"  # other bytes at a known place: parsed, and they replace the old version
    MOVED = "moved"  # the bytes of a place no longer on disk: that place moves here, nothing read again
    COPY = "copy"  # bytes another place holds: a new place reads its rows, labelled where it is
    RELABELLED = "relabelled"  # the same bytes at the same place, with other labels or targets
    UNCHANGED = "unchanged"  # as stored
    REMOVED = "removed"  # a place no longer on disk: it leaves the analysis
    REFUSED = "refused"  # not stored: the reason says why


@dataclass
class Step:
    """One file's (or a removed place's) part of the plan."""

    path: str  # as the terminal shows it; a removed place: as stored
    action: Action
    reason: str | None = None
    file: Incoming | None = None
    mod: ModuleType | str | None = None  # the parser that claims the file, or why none does
    outcome: Outcome | None = None  # decided here: the application only says it
    retire: int | None = None  # a place that leaves the analysis first (its sidecar broke)
    restamp: bool = False  # the same bytes with new times: the application records the stamp

    @property
    def labels(self) -> dict:
        return self.file.labels if self.file is not None else {}

    @property
    def changes(self) -> bool:
        """Whether applying this step changes what the analysis holds (a refused file read again
        changes nothing)."""
        return self.action not in (Action.UNCHANGED, Action.REFUSED) or self.retire is not None or self.restamp


@dataclass
class Plan:
    roots: places.Roots  # the data roots after the application
    added: list[Path] = field(default_factory=list)  # rows of data_roots to add
    dropped: list[Path] = field(default_factory=list)  # and to drop (a folder named above them)
    moves: list[Move] = field(default_factory=list)  # roots moved whole
    steps: list[Step] = field(default_factory=list)  # the files in walk order, then the removed places
    missing: dict[str, places.Known] = field(default_factory=dict)  # places below the paths not on disk
    scopes: list[str] = field(default_factory=list)  # the paths named, canonical
    folders: list[str] = field(default_factory=list)  # those of them that are folders
    sidecars: Sidecars = field(default_factory=Sidecars)
    stored: set[str] = field(default_factory=set)  # the sha256 of every place in the analysis

    @property
    def notes(self) -> list[str]:
        return self.roots.notes

    todo: list[Incoming] = field(default_factory=list)  # the files, each once, in walk order
    pending: Callable[[Incoming], Step] | None = None  # decides a file's step (None: all decided)
    gone: dict[str, places.Known] = field(default_factory=dict)  # the missing places no file moved from

    def decided(self) -> Iterator[Step]:
        """The files' steps in walk order, each decided as it is asked for (so an application's
        workers parse a file while the next is looked at), then the places removed."""
        if self.pending is None:
            yield from self.files()
            return
        decide, self.pending = self.pending, None
        for f in self.todo:
            self.steps.append(step := decide(f))
            yield step
        removed = sorted(self.gone.values(), key=lambda k: k.path)
        self.steps += [Step(k.path, Action.REMOVED, "no longer on disk: it leaves the analysis") for k in removed]

    def files(self) -> list[Step]:
        return [s for s in self.steps if s.file is not None]

    def changes(self) -> list[Step]:
        """The steps that change the analysis; with no root moved, added or dropped, none: the
        folder is what the store holds (a plan made right after its application)."""
        for _ in self.decided():  # every step decided
            pass
        return [s for s in self.steps if s.changes]

    def empty(self) -> bool:
        return not (self.changes() or self.moves or self.added or self.dropped)


def make(
    paths: list[Path],
    walked: list[tuple[Path, Path]],
    index: Index,
    *,
    verify: bool = False,
    hash_all: bool = False,
    lazy: bool = False,
) -> Plan:
    """The plan of an ingest of ``paths`` (their files ``walked``: files.walk) into a store whose
    index is ``index`` (changed in place as the plan's root moves change it). ``verify`` hashes
    files whose stamp is unchanged; ``hash_all`` hashes the big files too (see the module);
    ``lazy``: each file is decided when Plan.decided comes to it (the index is not read again)."""
    sidecars = Sidecars()
    given = [places.canonical(p) for p in paths]
    lifted = [sidecars.marked(g if g.is_dir() else g.parent) or g for g in given]
    moves, move_notes = find_moves(index, lifted)
    for m in moves:
        index.moved(m.old, m.new, m.places)
    before = set(index.roots)
    roots, added, dropped = settle([Path(r) for r in index.roots], lifted, sidecars)
    roots.notes[:0] = [f"data root moved from {m.old} to {m.new}" for m in moves] + move_notes
    roots.notes += _unmarked(roots, before, sidecars)
    scopes = [places.text(g) for g in given]
    plan = Plan(roots, added, dropped, moves, scopes=scopes, sidecars=sidecars)
    plan.folders = [s for s, p in zip(scopes, paths) if Path(p).is_dir()]
    plan.stored = {k.sha for k in index.known.values()}
    plan.todo = [f for f in _incoming(walked, roots) if not _vanished(f, index.known)]
    plan.missing = _missing(index.known, plan.todo, scopes)
    plan.gone, seen, holders = dict(plan.missing), dict[str, str](), index.holders()

    def decide(f: Incoming) -> Step:
        return _step(f, sidecars, index.known.get(f.place.abs_path), verify, hash_all, holders, plan.gone, seen)

    plan.pending = decide
    if not lazy:
        plan.changes()
    return plan


def settle(existing: list[Path], given: list[Path], sidecars: Sidecars) -> tuple[places.Roots, list[Path], list[Path]]:
    """Each given folder (a file: its folder) part of a root: (the roots after, those added, those
    dropped). Roots never nest: a folder named above roots takes their place, marked or not; the
    files below a folder marked ``root = true`` are anchored there all the same (places.Roots.of)."""
    paths, added, dropped, notes = list(existing), list[Path](), list[Path](), list[str]()
    for g in given:
        if not os.path.lexists(g):  # a path gone from disk is named to take its places out, never a root
            continue
        folder = g if g.is_dir() else g.parent
        if any(places.inside(folder, r) for r in paths):
            continue
        swallowed = [r for r in paths if places.inside(r, folder)]
        for r in swallowed:
            paths.remove(r)
            added.remove(r) if r in added else dropped.append(r)
        paths.append(folder)
        added.append(folder)
        if swallowed:
            notes.append(f"{folder} is now the data root in place of {', '.join(map(str, swallowed))}")
        elif len(paths) > 1:
            notes.append(f"{folder} is a new data root; this database now mirrors {len(paths)} folders")
    return places.Roots(sorted(paths), notes, sidecars.marked), added, dropped


def _unmarked(roots: places.Roots, before: set[str], sidecars: Sidecars) -> list[str]:
    """A word for each new data root with a sidecar above it: those sidecars apply to its files,
    but their paths and default study start at the root, which another way in would not."""
    notes = []
    for r in roots.paths:
        if places.text(r) not in before and sidecars.marked(r) is None and (side := sidecars.above(r)) is not None:
            notes.append(
                f"{r} is a new data root: its files get the labels of {side} above it, but their paths and "
                "their study, unless a sidecar names it, start at this folder. If your data folder is above "
                "it, ingest that folder, or say `root = true` in its iolab.toml: then every file and folder "
                "you name inside it gives the same"
            )
    return notes


def _incoming(walked: list[tuple[Path, Path]], roots: places.Roots) -> list[Incoming]:
    """Each file once, with its place and data root."""
    out: dict[str, Incoming] = {}
    for _, path in walked:
        where = places.canonical(path)
        f = Incoming(path, display_path(path), places.Place(roots.shown(where), places.text(where)), where)
        f.root = roots.of(where)
        out.setdefault(f.place.abs_path, f)
    return list(out.values())


def _vanished(f: Incoming, known: dict[str, places.Known]) -> bool:
    """A path named to ingest that is gone from disk but held places: they leave (no error)."""
    if f.path.exists() or f.path.is_symlink():
        return False
    return any(places.inside(k, f.place.abs_path) for k in known)


def _missing(known: dict[str, places.Known], todo: list[Incoming], scopes: list[str]) -> dict[str, places.Known]:
    """The places below the paths named whose files the walk did not find; never those in a folder
    that cannot be listed (not seen is not gone)."""
    found = {f.place.abs_path for f in todo}
    missing = {a: k for a, k in known.items() if a not in found and any(places.inside(a, s) for s in scopes)}
    shut = [f.place.abs_path for f in todo if unreadable_folder(f.path)]
    return {a: k for a, k in missing.items() if not any(places.inside(a, s) for s in shut)}


def _step(
    f: Incoming,
    sidecars: Sidecars,
    known: places.Known | None,
    verify: bool,
    hash_all: bool,
    holders: dict[str, list[tuple[str, places.Known]]],
    gone: dict[str, places.Known],
    seen: dict[str, str],
) -> Step:
    """The file's step: decided by its stamp and labels, else by its bytes against the index."""
    early = _open(f, sidecars, known, verify, hash_all)
    if early is not None:
        if early.status == Status.UNCHANGED:
            return Step(f.shown, Action.UNCHANGED, file=f, outcome=early)
        broke = known.source_id if known is not None and (early.reason or "").startswith(SIDECAR_BROKEN) else None
        return Step(f.shown, Action.REFUSED, early.reason, f, outcome=early, retire=broke)
    mod = parser_for(f)
    step = Step(f.shown, *_by_content(f, known, holders, gone, seen), file=f, mod=mod)
    step.restamp = step.action == Action.UNCHANGED  # hashed, so its stamp changed
    if isinstance(mod, str) and step.action in (Action.NEW, Action.CHANGED):
        step.action, step.reason = Action.REFUSED, mod
    return step


def _by_content(
    f: Incoming,
    known: places.Known | None,
    holders: dict[str, list[tuple[str, places.Known]]],
    gone: dict[str, places.Known],
    seen: dict[str, str],
) -> tuple[Action, str | None]:
    """What the file's bytes make it (storing._known_place decides the same when it writes): the
    bytes of a place gone from disk, of this very place, of another place, or new."""
    if not f.sha:  # a big file, hashed beside its parse: its path says what it is until then
        return (Action.CHANGED if known is not None else Action.NEW), None
    held = holders.get(f.sha, [])
    if moved := next((k for a, k in held if gone.pop(a, None) is not None), None):
        return Action.MOVED, f"moved from {moved.path}"
    if known is not None and known.sha == f.sha:
        if known.status != "ok":
            return Action.REFUSED, f"rejected before ({known.error}): read again"
        if places.same_labels(known, f.place.path, f.labels, f.targets):
            return Action.UNCHANGED, "the same bytes with new times"
        return Action.RELABELLED, None
    if held:
        return Action.COPY, f"same content as {held[0][1].path}"
    if f.sha in seen:
        return Action.COPY, f"same content as {seen[f.sha]}, new in this ingest"
    seen[f.sha] = f.shown
    return (Action.CHANGED if known is not None else Action.NEW), None


def _open(f: Incoming, sidecars: Sidecars, known: places.Known | None, verify: bool, hash_all: bool) -> Outcome | None:
    """Stat, label and hash the file (a big one: its head, unless ``hash_all``); an Outcome when that
    already decides it (unchanged, unreadable, not a regular file, its sidecar broken)."""
    if why := unreadable_folder(f.path):
        reason = f"cannot read this folder ({why}): the files of it in the analysis stay there, unread"
        return Outcome(f.shown, Status.UNREADABLE, reason=reason)
    try:
        f.stamp = f.place.stamp = stamp(f.path)
        f.labels, f.targets = sidecars.labels_for(f.where, f.root)
        if known is not None:
            fresh = not verify and known.status == "ok" and known.stamp == f.stamp
            if fresh and places.same_labels(known, f.place.path, f.labels, f.targets):
                return Outcome(f.shown, Status.UNCHANGED)  # same size, times, inode and labels: not even hashed
            f.replaces = known.source_id
        if f.stamp[0] >= files.HASH_BESIDE_BYTES and not hash_all:
            files.read_head(f)
        else:
            f.sha, f.size, f.head = hash_file(f.path)
    except FileNotFoundError:
        if f.path.is_symlink():
            return Outcome(f.shown, Status.UNREADABLE, reason=f"a link to {os.readlink(f.path)}, which does not exist")
        return Outcome(f.shown, Status.UNREADABLE, reason="the file does not exist")
    except IsADirectoryError:
        return Outcome(f.shown, Status.UNREADABLE, reason="this is a folder, not a file")
    except NotRegular as e:
        return Outcome(f.shown, Status.SKIPPED, reason=str(e))
    except OSError as e:
        return Outcome(f.shown, Status.UNREADABLE, reason=f"cannot read it: {e.strerror or e}")
    except SidecarError as e:
        return Outcome(
            f.shown, Status.UNREADABLE, reason=f"{SIDECAR_BROKEN}: {e}; it is out of the analysis until it is fixed"
        )
    return None
