"""`iolab formats`: every parser, what it reads, the tool versions its real corpus files show, and what
is known unsupported."""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

from .tables import Col

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus"
# the versions the real corpus files show, shipped with the package (an installed wheel has no
# tests/corpus): written by `make golden` (write_seen), checked current by tests/test_formats_cli.py
SEEN = Path(__file__).resolve().parents[1] / "formats" / "versions_seen.json"


def register(sub: Any) -> None:
    p = sub.add_parser("formats", help="every format iolab reads, the tool versions seen in its real files")
    p.add_argument("--corpus", help="a folder of real files to read tool versions from (default: those shipped)")
    from . import params

    params.output(p)
    p.set_defaults(func=cmd_formats)


def shipped_versions() -> dict[str, dict[str, int]]:
    import json

    return json.loads(SEEN.read_text()) if SEEN.is_file() else {}


def write_seen(corpus: Path = CORPUS) -> None:
    """Record the versions the real corpus files show in the package (make golden calls it)."""
    import json

    seen = {f: dict(sorted(v.items())) for f, v in sorted(corpus_versions(corpus).items())}
    SEEN.write_text(json.dumps(seen, indent=1, sort_keys=True) + "\n")


def describe(m: ModuleType) -> str:
    """What the module reads: the first line of its docstring."""
    return (m.__doc__ or "").strip().splitlines()[0].rstrip(".") if m.__doc__ else ""


def corpus_versions(corpus: Path) -> dict[str, dict[str, int]]:
    """FORMAT -> {tool version as parsed (or 'no version stated' / 'rejected'): files} over the real files."""
    from .. import registry
    from ..model import ParseError

    seen: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for p in sorted(corpus.rglob("*")) if corpus.is_dir() else []:
        if not p.is_file() or p.name == "MANIFEST.tsv":
            continue
        mods = registry.sniff(p.read_bytes()[: registry.HEAD_BYTES], p.name)
        if len(mods) != 1:
            continue
        m = mods[0]
        try:
            res = m.parse_path(p, p.name) if hasattr(m, "parse_path") else m.parse(p.read_bytes(), p.name)
            seen[m.FORMAT][res.tool_version or "no version stated"] += 1
        except ParseError:
            seen[m.FORMAT]["rejected"] += 1
    return seen


def unsupported(m: ModuleType) -> list[str]:
    return list(getattr(m, "UNSUPPORTED", []))


def catalogue(seen: dict[str, dict[str, int]]) -> dict[str, Any]:
    """What ``iolab formats`` says, as one object (its --format json)."""
    from .. import registry

    return {
        "formats": [
            {
                "format": m.FORMAT,
                "module": m.__name__,
                "reads": describe(m),
                "versions_seen": dict(sorted(seen.get(m.FORMAT, {}).items())),
                "unsupported": unsupported(m),
            }
            for m in registry.modules()
        ],
        "not_read": [{"suffix": suffix, "why": why} for suffix, why in registry.KNOWN_UNSUPPORTED.items()],
    }


def cmd_formats(args: argparse.Namespace) -> int:
    from . import params, requires

    if args.corpus and (code := requires.not_found([args.corpus], "--corpus")) is not None:
        return code
    doc = catalogue(corpus_versions(Path(args.corpus)) if args.corpus else shipped_versions())
    if args.format == "json":
        params.write_json(doc)
    else:
        _print(doc)
    return 0


FORMATS = [
    Col("format", key=True),
    Col("module", drop=4),
    Col("reads", drop=2, shorten=True),
    Col("versions seen in real files (files)", drop=1, shorten=True),
    Col("known unsupported", drop=3, shorten=True),
]
NOT_READ = [Col("file name ends with", key=True), Col("why", drop=1, shorten=True)]


def _print(doc: dict[str, Any]) -> None:
    from ..terminal import shown
    from .tables import JSON, table

    rows = [
        [shown(f["format"]), shown(f["module"]), shown(f["reads"])]
        + [shown(", ".join(f"{v} ({n})" for v, n in f["versions_seen"].items()) or "no real file")]
        + [shown("; ".join(f["unsupported"]))]
        for f in doc["formats"]
    ]
    table("formats iolab reads", FORMATS, rows, JSON)
    table("known files iolab does not read", NOT_READ, [[shown(r["suffix"]), shown(r["why"])] for r in doc["not_read"]])
