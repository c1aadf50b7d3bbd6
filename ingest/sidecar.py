"""iolab.toml sidecars: labels for every file below the folder that holds one.

Sidecars nest: a file gets the keys of every iolab.toml from the ingest root down to its own
folder, the nearest one winning, then the matching ``[files."<glob>"]`` tables of those sidecars.

    study = "esg-ds5020-2009"          # default: the folder's name under the ingest root
    system = "IBM DS5020 Express"
    generation = "DS5020"
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

    [files."*_tile1*"]                  # per-file overrides
    tiles = 1
"""
from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path
from typing import Any

NAME = "iolab.toml"
TYPES: dict[str, type | tuple] = {
    "study": str, "system": str, "generation": str, "tiles": int, "vms": int, "config": str,
    "price_usd": (int, float), "watts": (int, float), "tags": list,
}


class SidecarError(Exception):
    pass


def _load(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SidecarError(f"{path}: not valid TOML ({e})") from None
    for k, t in TYPES.items():
        if k in data and (isinstance(data[k], bool) or not isinstance(data[k], t)):  # TOML true is not a number
            raise SidecarError(f"{path}: '{k}' should be {getattr(t, '__name__', 'a number')}, got {data[k]!r}")
    for t in data.get("targets", []):
        if not isinstance(t, dict) or "target" not in t:
            raise SidecarError(f"{path}: every [[targets]] entry needs target = \"<name as the tool writes it>\"")
        if "drives" in t and (not isinstance(t["drives"], int) or t["drives"] <= 0):
            raise SidecarError(f"{path}: targets.drives must be a positive whole number, got {t['drives']!r}")
    return data


class Sidecars:
    """Caches parsed sidecars for one ingest run."""

    def __init__(self, root: Path):
        self.root = root.resolve() if root.is_dir() else root.resolve().parent
        self._cache: dict[Path, dict | None] = {}

    def _at(self, folder: Path) -> dict | None:
        if folder not in self._cache:
            p = folder / NAME
            self._cache[folder] = _load(p) if p.is_file() else None
        return self._cache[folder]

    def labels_for(self, file: Path) -> tuple[dict[str, Any], list[dict]]:
        """(labels, targets) for a file; raises SidecarError for a broken sidecar."""
        file = file.resolve()
        chain: list[Path] = []
        folder = file.parent
        while True:
            chain.append(folder)
            if folder == self.root or folder.parent == folder or self.root not in folder.parents:
                break
            folder = folder.parent
        labels: dict[str, Any] = {}
        targets: list[dict] = []
        # default study: the folder directly under the ingest root, or the root itself for its own files
        try:
            rel = file.relative_to(self.root)
            labels["study"] = rel.parts[0] if len(rel.parts) > 1 else self.root.name
        except ValueError:
            labels["study"] = file.parent.name
        for folder in reversed(chain):
            data = self._at(folder)
            if not data:
                continue
            layers = [data] + [
                v for g, v in data.get("files", {}).items()
                if fnmatch.fnmatch(file.name, g) or fnmatch.fnmatch(str(file.relative_to(folder)), g)
            ]
            for layer in layers:
                for k, v in layer.items():
                    if k in ("files",):
                        continue
                    if k == "targets":
                        targets = [
                            {"target": t["target"], "volume": t.get("volume"), "drives": t.get("drives"),
                             "array_name": t.get("array")} for t in v
                        ]
                    else:
                        labels["config_label" if k == "config" else k] = v
        return labels, targets
