"""Shared by the fio parsers (fio_json, fio_terse, fio_log): option values as fio reads them, the
workload signature, and the per-direction numbers in canonical units.

Sizes (`bs=4k`) follow fio's parse.c (`__get_mult_bytes`): with the default `kb_base=1024`, SI-looking
prefixes are powers of two (`4k` = `4K` = `4kb` = 4096) and IEC prefixes are powers of ten
(`4KiB` = 4000: fio's "compatibility mode"); `kb_base=1000` swaps the two. Case does not matter.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal

from ..model import ParseResult

DIRECTIONS = ("read", "write", "trim")
# percentiles that become samples (all of them go to the fio_percentiles tool table)
NAMED_PERCENTILES = {
    50.0: "p50",
    90.0: "p90",
    95.0: "p95",
    99.0: "p99",
    99.5: "p99_5",
    99.9: "p99_9",
    99.95: "p99_95",
    99.99: "p99_99",
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([a-z%]*)\s*$", re.I)
_IEC = {"kib": 1, "mib": 2, "gib": 3, "tib": 4, "pib": 5}
_SI = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


def parse_size(text: str | None, kb_base: int = 1024) -> int | None:
    """Bytes of one fio size value (`4k`, `1M`, `64KiB`, `4096`); None when it is not a plain size."""
    if text is None:
        return None
    m = _SIZE.match(str(text))
    if not m or "%" in m.group(2):
        return None
    suffix = m.group(2).lower()
    power, mult = 0, kb_base
    if suffix[:3] in _IEC:
        power, mult = _IEC[suffix[:3]], 1000 if kb_base == 1024 else 1024
    elif suffix[:1] in _SI:
        power = _SI[suffix[:1]]
    if "." not in m.group(1):
        return int(m.group(1)) * mult**power  # exact however many digits
    v = float(m.group(1)) * mult**power
    return round(v) if math.isfinite(v) else int(Decimal(m.group(1)) * mult**power)


def block_size(bs: str | None, kb_base: int = 1024) -> int | None:
    """`bs=4k` -> 4096; `bs=4k,4k` (read,write[,trim]) -> 4096 when every given size is the same, else None."""
    if bs is None:
        return None
    sizes = {parse_size(p, kb_base) for p in str(bs).split(",") if p.strip()}
    return sizes.pop() if len(sizes) == 1 and None not in sizes else None


def _pct(text: str | None) -> float | None:
    if text is None:
        return None
    values = {v.strip() for v in str(text).split(",") if v.strip()}
    try:
        return float(values.pop()) if len(values) == 1 else None
    except ValueError:
        return None


def read_random_pct(opts: dict[str, str]) -> tuple[float | None, float | None]:
    """(read %, random %) from rw, rwmixread/rwmixwrite and percentage_random, as fio applies them."""
    rw = opts.get("rw", opts.get("readwrite"))
    if rw is None:
        return None, None
    base = str(rw).split(":")[0].strip().lower()
    seq = base.removeprefix("rand")
    if seq in ("read",):
        read = 100.0
    elif seq in ("write",):
        read = 0.0
    elif seq in ("rw", "readwrite"):
        mixr, mixw = _pct(opts.get("rwmixread")), _pct(opts.get("rwmixwrite"))
        read = mixr if mixr is not None else (100.0 - mixw if mixw is not None else 50.0)
    else:  # trim, trimwrite, randtrimwrite: not a read/write mix
        read = None
    if base.startswith("rand"):
        given = _pct(opts.get("percentage_random"))
        random = given if given is not None else (None if "percentage_random" in opts else 100.0)
    else:
        random = 0.0
    return read, random


def flag(opts: dict[str, str], key: str) -> bool:
    """A fio boolean option: present and not 0/false."""
    return key in opts and str(opts[key]).strip().lower() not in ("0", "false", "no", "off")


@dataclass
class Direction:
    """One direction's numbers, canonical units (bytes, bytes/s, ms)."""

    name: str  # read, write, trim, or mixed (unified_rw_reporting)
    ios: float | None = None
    io_bytes: float | None = None
    bw_bytes_per_s: float | None = None
    iops: float | None = None
    runtime_ms: float | None = None
    lat: dict[str, dict[str, float | None]] = field(default_factory=dict)  # slat/clat/lat -> min/max/mean/stddev (ms)
    percentiles: dict[str, dict[float, float]] = field(default_factory=dict)  # clat/lat -> {99.0: ms}

    @property
    def active(self) -> bool:
        """Did I/O in this direction (fio writes zeros, not blanks, for a direction that did none)."""
        return any(v for v in (self.ios, self.io_bytes, self.iops))


_STAT_NAMES = {"slat": "slat", "clat": "clat", "lat": "latency"}
_BYTES = {"read": "bytes_read", "write": "bytes_written", "trim": "bytes_trimmed"}


def metric(prefix: str | None, direction: str, stat: str) -> str:
    """avg + read + lat -> avg_read_latency_ms; a `mixed` direction has no direction part."""
    parts = [prefix, None if direction == "mixed" else direction, _STAT_NAMES[stat]]
    return "_".join(p for p in parts if p) + "_ms"


def add_direction(res: ParseResult, key: str, d: Direction, line_no: int | None, scope: str = "all") -> None:
    """Samples of one direction. Throughput of read and write always (0 is a true value), trim only
    when it did any; latency only when the direction did I/O (fio's zeros there mean 'no data').
    ``scope`` is `all` for a job (or a group_reporting group), `test` for a client/server run's
    `All clients` sum (see fio_json)."""
    if d.name == "trim" and not d.active:
        return
    pre = "" if d.name == "mixed" else f"{d.name}_"
    res.add(key, scope, f"{pre}iops", d.iops, "IO/s", line_no=line_no)
    res.add(
        key, scope, f"{pre}mbps", None if d.bw_bytes_per_s is None else d.bw_bytes_per_s / 1e6, "MB/s", line_no=line_no
    )
    res.add(key, scope, f"{pre}ios", d.ios, "count", line_no=line_no)
    if d.name in _BYTES:
        res.add(key, scope, _BYTES[d.name], d.io_bytes, "bytes", line_no=line_no)
    if not d.active:
        return
    for stat, values in d.lat.items():
        for prefix, v in values.items():
            res.add(key, scope, metric(prefix, d.name, stat), v, "ms", line_no=line_no)
    # fio's default percentiles are of completion latency and are what fio users quote as latency
    # percentiles; with lat_percentiles=1 fio gives total-latency ones: those then take the name.
    primary = "lat" if d.percentiles.get("lat") else "clat"
    for stat, pcts in d.percentiles.items():
        for p, v in pcts.items():
            if p in NAMED_PERCENTILES:
                res.add(
                    key,
                    scope,
                    metric(NAMED_PERCENTILES[p], d.name, "lat" if stat == primary else stat),
                    v,
                    "ms",
                    line_no=line_no,
                )


def add_totals(res: ParseResult, key: str, dirs: list[Direction], scope: str = "all") -> None:
    """Run totals (`iops`, `mbps`): the sum of the directions fio reports separately (derived, so no
    line of the file holds them: line_no is left empty). Only where every direction states its part
    (an idle trim aside, as add_direction leaves it out): a sum of some of them is no total of the run."""
    if any(d.name == "mixed" for d in dirs):
        return  # unified_rw_reporting: fio states the totals itself
    parts = [d for d in dirs if d.name != "trim" or d.active]
    for m, attr, unit, scale in (("iops", "iops", "IO/s", 1.0), ("mbps", "bw_bytes_per_s", "MB/s", 1e-6)):
        vals = [getattr(d, attr) for d in parts]
        if vals and None not in vals:
            res.add(key, scope, m, sum(vals) * scale, unit)


def plat_idx_to_val(idx: int, bits: int = 6) -> int:
    """fio's histogram bin index -> the bin's representative latency (stat.c plat_idx_to_val)."""
    val = 1 << bits
    if idx < (val << 1):
        return idx
    error_bits = (idx >> bits) - 1
    base = 1 << (error_bits + bits)
    return int(base + ((idx % val) + 0.5) * (1 << error_bits))
