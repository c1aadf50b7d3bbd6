"""`iolab detect PATH...`: which parser claims each file, and why; or why none does. Nothing is stored.

The answer is the one `iolab ingest` gives (registry.claim on the same first 64 KiB); folders are
walked as ingest walks them, and only regular files are read (a FIFO or a device is named, never
opened for reading).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from types import ModuleType
from typing import Any

from . import params, requires
from .tables import JSON, Col, table


def register(sub: Any) -> None:
    p = sub.add_parser("detect", help="which parser claims each file, and why (nothing is stored)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (walked as ingest walks them)")
    params.output(p)
    p.set_defaults(func=cmd_detect)


def detect(data: bytes, name: str) -> tuple[list[ModuleType], str]:
    """(claiming modules, reason in words): what `iolab ingest` decides before parsing."""
    from .. import registry

    c = registry.claim(data[: registry.HEAD_BYTES], name)
    return list(c.candidates), c.reason


def examine(path: Path) -> tuple[str, str, bool]:
    """(parser or 'none', why, claimed) for one path, reading it only if it is a regular file."""
    from .. import batch, registry

    if not path.exists() and not path.is_symlink():
        return "none", "it does not exist", False
    try:
        with batch.open_regular(path) as f:
            head = f.read(registry.HEAD_BYTES)
    except batch.NotRegular as e:
        return "none", str(e), False
    except OSError as e:
        return "none", f"cannot read it: {e.strerror or e}", False
    c = registry.claim(head, path.name)
    return ", ".join(m.FORMAT for m in c.candidates) or "none", c.reason, c.module is not None


def cmd_detect(args: argparse.Namespace) -> int:
    from .. import batch

    if (code := requires.not_found(args.paths)) is not None:
        return code
    files = []
    for _, path in batch.walk([Path(p) for p in args.paths]):
        parser, why, claimed = examine(path)
        files.append(
            {
                "path": str(path),
                "parsers": [] if parser == "none" else parser.split(", "),
                "why": why,
                "claimed": claimed,
            }
        )
    unclaimed = sum(not f["claimed"] for f in files)
    if args.format == "json":
        params.write_json({"files": files, "claimed": len(files) - unclaimed, "unclaimed": unclaimed})
    else:
        _print(files)
    return requires.EXIT_REJECTED if unclaimed else requires.EXIT_OK


COLUMNS = [
    Col("file", key=True, wrap=30, fold=True),
    Col("parser", key=True),
    Col("why", drop=1, keep=True, shorten=True),
]


def _print(files: list[dict[str, Any]]) -> None:
    from ..terminal import shown

    rows = [[shown(f["path"]), shown(", ".join(f["parsers"]) or "none"), shown(f["why"])] for f in files]
    table("detect", COLUMNS, rows, JSON)
