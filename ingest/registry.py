"""Format discovery: every module in ingest/formats with FORMAT, VERSION, sniff() and parse().

Adding a format = adding one module (and its fixtures); nothing here changes.
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType

from . import formats
from .model import decode_text

HEAD_BYTES = 64 * 1024


@functools.cache  # the package's modules do not change while a process runs
def modules() -> tuple[ModuleType, ...]:
    found = []
    for info in sorted(pkgutil.iter_modules(formats.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        m = importlib.import_module(f"{formats.__name__}.{info.name}")
        if all(hasattr(m, a) for a in ("FORMAT", "VERSION", "sniff", "parse")):
            found.append(m)
    return tuple(found)


def head_text(data: bytes) -> str:
    """The first 64 KiB as text, decoded leniently (sniffers must not fail on odd bytes)."""
    head = data[:HEAD_BYTES]
    try:
        return decode_text(head)
    except Exception:
        return head.decode("latin-1")


def sniff(data: bytes, name: str) -> list[ModuleType]:
    """Every format module that claims the content (``name`` only breaks ties a format documents)."""
    head = head_text(data)
    claimed = []
    for m in modules():
        try:
            if m.sniff(head, name):
                claimed.append(m)
        except Exception:  # a sniffer that chokes on odd bytes does not claim the file
            pass
    return claimed


# Files we know of but whose shape no public example shows: say so instead of "not recognised".
KNOWN_UNSUPPORTED = {
    "_hist.txt": "ORION latency histograms (_hist.txt): no public example of this file was found, so iolab "
                 "does not read it yet; the 12c+ summary's histogram lines are read (orion_histograms)",
    "_trace.txt": "ORION trace (_trace.txt): no public example of this file was found, so iolab does not read it yet",
    ".blg": "binary perfmon log (.blg): convert it with `relog file.blg -f csv -o file.csv` and ingest the CSV",
}


def unsupported_hint(name: str) -> str | None:
    return next((why for suffix, why in KNOWN_UNSUPPORTED.items() if name.lower().endswith(suffix)), None)
