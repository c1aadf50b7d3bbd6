"""`iolab detect FILE...`: which parser claims each file, and why; or why none does. Nothing is stored."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import ModuleType
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("detect", help="which parser claims each file, and why (nothing is stored)")
    p.add_argument("paths", nargs="+", help="files (or folders) to check; nothing is ingested")
    p.set_defaults(func=cmd_detect)


def detect(data: bytes, name: str) -> tuple[list[ModuleType], str]:
    """(claiming modules, reason in words): what `iolab ingest` would decide before parsing."""
    from .. import registry

    if not data.strip():
        return [], "the file is empty"
    mods = registry.sniff(data[: registry.HEAD_BYTES], name)
    if len(mods) == 1:
        return mods, getattr(mods[0], "SNIFF_RULE", f"{mods[0].FORMAT}'s sniffer accepts it")
    if len(mods) > 1:
        return mods, (
            "more than one parser claims it, so ingest rejects it: "
            + "; ".join(f"{m.FORMAT}: {getattr(m, 'SNIFF_RULE', 'its sniffer accepts it')}" for m in mods)
        )
    return [], registry.unsupported_hint(name) or "no parser recognises the first 64 KiB (see `iolab formats`)"


def cmd_detect(args: argparse.Namespace) -> int:
    from rich.table import Table

    from ..terminal import console, markup

    t = Table(title="detect", show_lines=False)
    for c in ("file", "parser", "why"):
        t.add_column(c, overflow="fold")
    unclaimed = 0
    for raw in args.paths:
        p = Path(raw)
        try:
            with p.open("rb") as f:
                data = f.read(64 * 1024)
        except OSError as e:
            t.add_row(markup(raw), "-", markup(f"cannot read: {e.strerror or e}"))
            unclaimed += 1
            continue
        mods, why = detect(data, p.name)
        unclaimed += len(mods) != 1
        t.add_row(markup(raw), markup(", ".join(m.FORMAT for m in mods) or "none"), markup(why))
    console().print(t)
    return 1 if unclaimed else 0
