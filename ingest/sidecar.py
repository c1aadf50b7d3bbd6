"""iolab.toml sidecars: labels for every file below the folder that holds one.

Sidecars are found upward from a file, as EditorConfig, git and ruff find their configuration: a
file gets the keys of the iolab.toml in its own folder and in every folder above it, the nearest one
winning, then the matching ``[files."<glob>"]`` tables of those sidecars. The search stops at a
sidecar that says ``root = true`` (the data folder's top: nothing above it is read) and below the
file system's top and the folders that hold everyone's (/tmp, /home...: paths.shared). So a file
gets the same labels whether it is ingested alone, with its folder or with any folder above it.

    root = true                         # this folder is the data folder: its paths and the default
                                        # study start here, whichever file or folder is ingested
    study = "esg-ds5020-2009"          # default: the first folder under the data root
    system = "IBM DS5020 Express"
    generation = "DS5020"
    firmware = "08.20.12.00"           # what was measured when: a trend's measurements (view trends)
    measurement = "after the upgrade"  # the measurement these files are, named (else the time rule)
    tiles = 4
    vms = 16
    config = "write cache enabled"      # stored as config_label
    price_usd = 82418
    watts = 950
    tags = ["published", "vmware"]

    [[targets]]                         # workload target -> array volume
    target = "JS_01"                    # as the tool names it; globs allowed ("*f:*")
    volume = "JS_01"                    # the logical drive / volume in the array profile
    drives = 8                          # declared drive count when no profile is loaded

    [labels]                            # free-form labels of your own (source_files.labels)
    owner = "lab 3"

    [files."*_tile1*"]                  # per-file overrides
    tiles = 1

Also: baseline = "<system>", criteria = [...], corrections = [...], generation_order = [...],
firmware_order = [...], orion_version = "...". Every key is checked (pydantic): an unknown one is refused with the file,
the line and a did-you-mean, and the folder's files are not ingested under wrong labels.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Any

from .paths import shared
from .regular import NotRegular, TooBig, read_small

NAME = "iolab.toml"
NOT_LABELS = ("files", "root")  # keys that say how sidecars apply, not what a file is


def _keys(loc: list[str]) -> list[str]:
    """The keys allowed where ``loc`` points: in a [[targets]] entry, a [files."<glob>"] table, or the top."""
    from .sidecar_schema import Labels, Sidecar, Target

    model = Target if loc[:1] == ["targets"] or loc[2:3] == ["targets"] else Labels if loc[:1] == ["files"] else Sidecar
    return sorted(model.model_fields)


WHAT = {
    "int_type": "a whole number",
    "float_type": "a number",
    "string_type": "text in quotes",
    "list_type": 'a list, such as ["a", "b"]',
    "greater_than": "greater than 0",
    "greater_than_equal": "0 or more",
    "dict_type": "a table",
    "string_too_short": "a name (a measurement named by nothing would be none)",
}


class SidecarError(Exception):
    pass


def line_of(text: str, key: str) -> int | None:
    """The first line that sets or opens ``key`` (``key =``, ``[key]``, ``[[key]]``, ``"key" =``)."""
    pat = re.compile(rf"""^\s*(\[\[?\s*)?["']?{re.escape(key)}["']?\s*(=|\]|\.)""")
    return next((i for i, line in enumerate(text.splitlines(), 1) if pat.search(line)), None)


def _explain(path: Path, text: str, err: Any) -> str:
    loc = [str(x) for x in err["loc"] if not isinstance(x, int)]
    key = loc[-1] if loc else "?"
    line = line_of(text, key if err["type"] != "missing" else loc[0])
    where = f"{path}" + (f", line {line}" if line else "")
    if err["type"] == "extra_forbidden":
        allowed = _keys(loc)
        from .names import did_you_mean, visible

        hint = did_you_mean(key, [k for k in allowed if k != key]) or f"; the keys here are: {', '.join(allowed)}"
        return f"{where}: unknown key '{visible('.'.join(loc))}'{hint}"
    if err["type"] == "missing":
        return (
            f"{where}: '{'.'.join(loc)}' is required (every [[targets]] entry names its target as the tool writes it)"
        )
    if err["type"] == "value_error":
        return f"{where}: {err['msg'].removeprefix('Value error, ')}"
    want = WHAT.get(err["type"], err["msg"].lower())
    return f"{where}: '{'.'.join(loc)}' should be {want}, got {err.get('input')!r}"


MAX_BYTES = 1 << 20  # a sidecar is a page of labels; far past that it is a mistake or an attack
MAX_TARGETS = 10_000  # [[targets]] entries, at the top and under every [files] table together
MAX_FILES = 10_000  # [files."<glob>"] tables


def _read(path: Path) -> str:
    """The sidecar's text, refused past MAX_BYTES before anything is parsed (memory stays bounded),
    and read only if it is a regular file: a FIFO, a device or a link into /proc (whose read blocks
    for ever, or never ends) is never read, and its folder's files wait as for a broken sidecar."""
    try:
        raw = read_small(path, MAX_BYTES)
    except TooBig:
        raise SidecarError(
            f"{path}: the sidecar is larger than {MAX_BYTES:,} bytes; a sidecar holds labels for a folder, "
            'so this is not one (or list targets with globs such as target = "sd*")'
        ) from None
    except NotRegular as e:
        raise SidecarError(f"{path}: the sidecar is {e}") from None
    return raw.decode("utf-8")


def _check_sizes(path: Path, data: dict[str, Any]) -> None:
    """Refuse more [files] tables or [[targets]] than any lab writes, before the schema check's cost."""
    files = data.get("files")
    files = files if isinstance(files, dict) else {}
    if len(files) > MAX_FILES:
        raise SidecarError(
            f"{path}: {len(files):,} [files] tables; a sidecar may have at most {MAX_FILES:,} "
            '(one glob such as [files."*-qd32*"] covers many files)'
        )
    tables = [data, *(t for t in files.values() if isinstance(t, dict))]
    n = sum(len(t["targets"]) for t in tables if isinstance(t.get("targets"), list))
    if n > MAX_TARGETS:
        raise SidecarError(
            f"{path}: {n:,} [[targets]] entries; a sidecar may list at most {MAX_TARGETS:,} "
            '(one entry with a glob such as target = "sd*" covers many targets)'
        )


def _load(path: Path) -> dict[str, Any]:
    """The sidecar's keys, checked against the schema; raises SidecarError naming file, line and key."""
    import tomllib

    try:
        text = _read(path)
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SidecarError(f"{path}: not valid TOML ({e})") from None
    _check_sizes(path, data)
    from pydantic import ValidationError

    from .sidecar_schema import Sidecar  # pydantic is imported only where a sidecar is found (a slow import)

    try:
        Sidecar.model_validate(data)
    except ValidationError as e:
        raise SidecarError("; ".join(_explain(path, text, err) for err in e.errors())) from None
    return data


class Sidecars:
    """Sidecars found upward from files, each read once for an ingest run."""

    def __init__(self, root: Path | None = None):
        # absolute, but links not resolved: a symlinked file is labelled by the folder the link sits in
        root = Path(os.path.abspath(root)) if root is not None else None
        self.root = root.parent if root is not None and not root.is_dir() else root
        self._cache: dict[Path, dict | None] = {}
        self._chains: dict[Path, list[Path]] = {}  # a folder's chain, once read whole

    def _at(self, folder: Path) -> dict | None:
        if folder not in self._cache:
            p = folder / NAME
            self._cache[folder] = _load(p) if p.is_file() or (p.exists() and not p.is_dir()) else None
        return self._cache[folder]

    def chain(self, folder: Path) -> list[Path]:
        """``folder`` and the folders above it whose sidecars apply there, nearest first: up to the
        one that says ``root = true``, never into a shared folder (paths.shared). SidecarError for a
        broken sidecar on the way."""
        if (known := self._chains.get(folder)) is not None:
            return known
        out: list[Path] = []
        at = folder
        while not shared(at):
            out.append(at)
            if (self._at(at) or {}).get("root") is True or at.parent == at:
                break
            at = at.parent
        self._chains[folder] = out
        return out

    def marked(self, folder: Path) -> Path | None:
        """The nearest folder at or above ``folder`` whose sidecar says ``root = true``: the data
        root of every file below it, whichever way it is ingested. A broken sidecar on the way
        says nothing (its files wait for it to be fixed)."""
        try:
            top = self.chain(Path(os.path.abspath(folder)))
        except SidecarError:
            return None
        return top[-1] if top and (self._cache.get(top[-1]) or {}).get("root") is True else None

    def above(self, folder: Path) -> Path | None:
        """The nearest sidecar strictly above ``folder`` (None: none, or a broken one on the way)."""
        try:
            chain = self.chain(Path(os.path.abspath(folder)))
        except SidecarError:
            return None
        return next((f / NAME for f in chain[1:] if self._cache.get(f) is not None), None)

    def labels_for(self, file: Path, root: Path | None = None) -> tuple[dict[str, Any], list[dict]]:
        """(labels, targets) for a file whose data root is ``root`` (the default study is the first
        folder under it); raises SidecarError for a broken sidecar."""
        file = Path(os.path.abspath(file))
        root = Path(os.path.abspath(root)) if root is not None else self.root or file.parent
        labels: dict[str, Any] = {}
        targets: list[dict] = []
        # default study: the folder directly under the data root, or the root itself for its own files
        try:
            rel = file.relative_to(root)
            labels["study"] = rel.parts[0] if len(rel.parts) > 1 else root.name
        except ValueError:
            labels["study"] = file.parent.name
        for folder in reversed(self.chain(file.parent)):
            data = self._at(folder)
            if not data:
                continue
            layers = [data] + [
                v
                for g, v in data.get("files", {}).items()
                if fnmatch.fnmatch(file.name, g) or fnmatch.fnmatch(str(file.relative_to(folder)), g)
            ]
            for layer in layers:
                targets = _apply(layer, labels, targets)
        if isinstance(labels.get("sla"), str):  # the bound as the view reads it, from the one reader (checked on load)
            from .sla_bound import parse

            labels["sla_bound"] = parse(labels["sla"]).label()
        return labels, targets


def _apply(layer: dict[str, Any], labels: dict[str, Any], targets: list[dict]) -> list[dict]:
    """One sidecar's (or [files] table's) keys onto ``labels``; the targets that hold after it."""
    for k, v in layer.items():
        if k in NOT_LABELS:
            continue
        if k == "labels":  # free-form labels, kept in source_files.labels
            labels.update(v)
        elif k == "targets":
            targets = [
                {
                    "target": t["target"],
                    "volume": t.get("volume"),
                    "drives": t.get("drives"),
                    "array_name": t.get("array"),
                }
                for t in v
            ]
        else:
            labels["config_label" if k == "config" else k] = v
    return targets
