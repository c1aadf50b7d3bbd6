"""`iolab formats` (every parser, what it reads, the tool versions its real corpus files show, what is known
unsupported) and `iolab detect FILE...` (which parser claims each file, and why; or why none does)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from types import ModuleType

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def register(sub) -> None:
    p = sub.add_parser("formats", help="every format iolab reads, the tool versions seen in its real files")
    p.add_argument("--corpus", default=str(CORPUS), help="folder of real files to read tool versions from")
    p.set_defaults(func=cmd_formats)
    p = sub.add_parser("detect", help="which parser claims each file, and why (nothing is stored)")
    p.add_argument("paths", nargs="+", help="files (or folders) to check; nothing is ingested")
    p.set_defaults(func=cmd_detect)


def describe(m: ModuleType) -> str:
    """What the module reads: the first line of its docstring."""
    return (m.__doc__ or "").strip().splitlines()[0].rstrip(".") if m.__doc__ else ""


def corpus_versions(corpus: Path) -> dict[str, dict[str, int]]:
    """FORMAT -> {tool version as parsed (or 'no version stated' / 'rejected'): files} over the real files."""
    from . import registry
    from .model import ParseError

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


def cmd_formats(args) -> int:
    from rich.table import Table

    from . import registry
    from .terminal import console, markup

    seen = corpus_versions(Path(args.corpus))
    t = Table(title="formats iolab reads", show_lines=False)
    t.add_column("format", no_wrap=True)
    t.add_column("module", no_wrap=True)
    for c in ("reads", "versions seen in real files (files)", "known unsupported"):
        t.add_column(c, overflow="fold")
    for m in registry.modules():
        versions = ", ".join(f"{v} ({n})" for v, n in sorted(seen.get(m.FORMAT, {}).items())) or "no real file"
        t.add_row(*(markup(x) for x in (m.FORMAT, m.__name__, describe(m), versions, "; ".join(unsupported(m)))))
    console().print(t)
    u = Table(title="known files iolab does not read", show_lines=False)
    u.add_column("file name ends with")
    u.add_column("why", overflow="fold")
    for suffix, why in registry.KNOWN_UNSUPPORTED.items():
        u.add_row(markup(suffix), markup(why))
    console().print(u)
    return 0


def detect(data: bytes, name: str) -> tuple[list[ModuleType], str]:
    """(claiming modules, reason in words): what `iolab ingest` would decide before parsing."""
    from . import registry

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


def cmd_detect(args) -> int:
    from rich.table import Table

    from .terminal import console, markup

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
