"""The store's index as plain records, read in one go: what an ingest plans against (ingest/plan.py).

Its data roots and every place in the analysis (places.Known: stamp, labels, bytes, status), so the
plan asks the database nothing while it decides; a dry run against a database that does not exist
plans against the empty index.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import ids, places

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection


@dataclass
class Index:
    """``roots``: the data roots (canonical text); ``known``: every place in the analysis by its
    identity (its canonical path as text)."""

    roots: list[str] = field(default_factory=list)
    known: dict[str, places.Known] = field(default_factory=dict)

    def in_root(self, root: str) -> list[tuple[str, places.Stamp, str]]:
        """(abs_path, stamp, sha256) of every place below the root ``root`` (places.places_in_root)."""
        return sorted((a, k.stamp, k.sha) for a, k in self.known.items() if places.inside(a, root))

    def holders(self) -> dict[str, list[tuple[str, places.Known]]]:
        """The places whose bytes are parsed and stored ('ok'), by sha256, ordered by path
        (places.stored_copies)."""
        out: dict[str, list[tuple[str, places.Known]]] = defaultdict(list)
        for a, k in sorted(self.known.items(), key=lambda ak: (ak[1].path, ak[0])):
            if k.status == "ok":
                out[k.sha].append((a, k))
        return out

    def moved(self, old: Path, new: Path, found: dict[str, tuple[Path, places.Stamp]]) -> None:
        """The root ``old`` moved whole to ``new`` (roots.Move): its places take their new paths,
        stamps and ids, as places.move_root writes them."""
        base = new.parent if new.parent != new else new
        for abs_path, (target, stamp) in found.items():
            if (k := self.known.pop(abs_path, None)) is None:
                continue
            moved_to = places.text(target)
            k.path, k.stamp = places.text(target.relative_to(base)), stamp
            k.source_id = ids.place_id(moved_to, k.sha)
            self.known[moved_to] = k
        self.roots = sorted(places.text(new) if r == places.text(old) else r for r in self.roots)


def read(con: DuckDBPyConnection) -> Index:
    """The index of the database ``con`` (two queries)."""
    return Index(places.roots(con), places.known_places(con))
