"""The one metric vocabulary: every canonical metric, its unit, the scopes it may carry, what it is
(role) and which way is better, and the unit factors parsers use to reach canonical units.

``ParseResult.add`` refuses a (metric, unit, scope) that is not listed here: a parser that invents a
name or stores a number in the wrong unit is a programming error and fails at once, in its tests.
The metric table of schemas/README.md is generated from ``ENTRIES`` (``python -m
iolab.vocabulary_table`` prints it; tests/test_vocabulary.py checks the README holds exactly that).

Adding a metric is one line: an ``Entry(names, unit, scopes, source, kind="<role> [lower|higher]")``
in ``ENTRIES`` (ingest/metrics.py). ``names`` is a brace pattern: ``"{,read_,write_}iops"`` stands for ``iops``,
``read_iops`` and ``write_iops``. ``kind`` is decided on the metric's meaning: its role (one of
``ROLES`` below) and ``lower`` or ``higher`` when a smaller or larger value is better
(nothing when neither is). ``headline`` names the metrics that stand for a whole run: its throughput
(``iops``, ``mbps``) and its average latency (``avg_latency_ms``, per direction where a tool states no
other: fio); ``log_io`` marks a transaction log's I/O. A name may appear in several entries if unit, role and
direction agree; its allowed scopes are then the union. The views read all this from the
``metric_vocabulary`` table (ingest/vocabulary_table.py), never from the names.

Units (see the Units table in schemas/README.md): ``IO/s``, ``MB/s`` (10^6 B/s), ``ms``, ``%``,
``count``, ``bytes``, ``s``, ``1/s``, ``1/h``, ``TB``, ``USD``, ``bool`` and, for time series
only, ``MBytes/s`` and ``bytes/s``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

# ---- roles: what a number is (the metric_vocabulary table's role column) -------------------------
ROLES: dict[str, str] = {
    "throughput": "work done per unit of time: IO/s, MB/s, entries or transactions per second",
    "latency": "time one operation takes (average, extreme, spread or percentile)",
    "error_count": "failed or repeated operations (errors, retransmitted segments)",
    "efficiency": "work per resource (IO/s per % CPU, cache hit %)",
    "utilisation": "share of a resource kept busy (CPU, device), or left free (idle)",
    "capacity": "how much the system holds or supports (TB, mailboxes, VMs, database size)",
    "count": "how many operations, bytes or files were done",
    "rate": "events per second that are neither work nor errors (interrupts)",
    "variability": "spread of a throughput over the run",
    "duration": "how long the test ran",
    "size": "average size of one I/O",
    "mix": "the observed read share of the I/O",
    "load": "how much work was in flight (queue depth, active threads)",
    "qos": "share of I/Os meeting a latency bound",
    "verdict": "the test's own pass (1) or fail (0)",
    "setting": "a target or threshold the test was given, not a result",
    "price": "what the system costs",
    "progress": "how far a running phase has got",
}

# ---- unit factors: value as the tool writes it x factor = canonical value ------------------------
MIB = 1_048_576
MB_PER_MIB = MIB / 1_000_000  # 1.048576: one 2^20-byte "MB" (MiB) in 10^6-byte megabytes
KIB_S_TO_MB_S = 1024 / 1e6  # fio bw in KiB/s -> MB/s
BYTES_S_TO_MB_S = 1e-6  # fio bw_bytes, DiskSpd XML bytes / seconds -> MB/s
US_TO_MS = 1e-3  # fio 2.x usec, ORION 12c+ usecs, vscsiStats microseconds -> ms
NS_TO_MS = 1e-6  # fio 3.x ns -> ms
S_TO_MS = 1000.0  # Jetstress 2007 / perfmon sec/Read -> ms
MS_TO_S = 1e-3  # fio runtime ms -> s
KIB_BYTES = 1024.0  # fio 2.x io_bytes in KiB -> bytes
MIB_BYTES = 2.0**20  # elbencho MiB -> bytes
GIB_BYTES = 2.0**30  # array profiles' GB -> bytes
TIB_BYTES = 2.0**40  # array profiles' TB -> bytes
GB_S_TO_MB_S = 1000.0  # published GB/s -> MB/s

#: every factor a parser multiplies a written number by (tests/fuzz.py traces stored numbers with them)
FACTORS: dict[str, float] = {
    "MiB/s -> MB/s": MB_PER_MIB,
    "KiB/s -> MB/s": KIB_S_TO_MB_S,
    "B/s -> MB/s": BYTES_S_TO_MB_S,
    "us -> ms": US_TO_MS,
    "ns -> ms": NS_TO_MS,
    "s -> ms": S_TO_MS,
    "ms -> s": MS_TO_S,
    "KiB -> bytes": KIB_BYTES,
    "MiB -> bytes": MIB_BYTES,
    "GiB -> bytes": GIB_BYTES,
    "TiB -> bytes": TIB_BYTES,
    "GB/s -> MB/s": GB_S_TO_MB_S,
}

# ---- scopes ----------------------------------------------------------------------------------------
SCOPES = ("all", "manager", "processor", "worker", "target", "volume", "instance", "host", "point", "test")
from .metrics import CPU_SCOPES, ENTRIES, IO_SCOPES, ROWS, Entry  # noqa: E402, F401  (the entries, in their own module)

_BRACE = re.compile(r"\{([^{}]*)\}")


def expand(pattern: str) -> list[str]:
    """``"p{50,99}_{,read_}latency_ms"`` -> every name the pattern stands for, in order."""
    parts = _BRACE.split(pattern)  # literal, alternatives, literal, ...
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str | None
    scopes: frozenset[str]
    series_only: bool
    role: str
    better: str | None
    headline: bool
    log_io: bool
    io_direction: str | None  # read, write or trim: the I/O the number is about (None: all, or no I/O)
    percentile: float | None  # p99_9_... -> 99.9
    latency_kind: str | None  # latency metrics: 'clat' (completion), 'slat' (submission), else 'latency'

    @property
    def lower_is_better(self) -> bool | None:
        return None if self.better is None else self.better == "lower"


_DIRECTION = re.compile(r"(?:^|_)(read|write|written|trim|trimmed)(?:_|$)")


def _direction(name: str) -> str | None:
    """The I/O direction a name is about, by the vocabulary's own naming rule: a ``read``/``write``/
    ``trim`` word (``bytes_written``, ``bytes_trimmed``) between underscores."""
    m = _DIRECTION.search(name)
    return {"written": "write", "trimmed": "trim"}.get(m.group(1), m.group(1)) if m else None


_PERCENTILE = re.compile(r"^p(\d+(?:_\d+)?)_")
_KIND = re.compile(r"_(clat|slat)_")


def _latency(name: str, role: str) -> tuple[float | None, str | None]:
    """(percentile, latency kind) by the vocabulary's naming rule: ``p<N>[_<decimals>]_`` starts a
    percentile (p99_9 = 99.9th), ``_clat_`` / ``_slat_`` name completion / submission latency."""
    if role != "latency":
        return None, None
    p = _PERCENTILE.match(name)
    k = _KIND.search(name)
    return (float(p.group(1).replace("_", ".")) if p else None), (k.group(1) if k else "latency")


def _check(e: Entry) -> None:
    scopes = frozenset(e.scopes.split())
    if not scopes <= set(SCOPES):
        raise ValueError(f"vocabulary entry {e.names!r}: unknown scope(s) {sorted(scopes - set(SCOPES))}")
    if e.role not in ROLES or e.better not in ("lower", "higher", None):
        raise ValueError(f"vocabulary entry {e.names!r}: kind {e.kind!r} is not '<one of ROLES> [lower|higher]'")
    if e.headline and not set(expand(e.headline)) <= set(expand(e.names)):
        raise ValueError(f"vocabulary entry {e.names!r}: headline {e.headline!r} names a metric it does not list")


def _build() -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for e in ENTRIES:
        _check(e)
        heads = set(expand(e.headline)) if e.headline else set()
        for name in expand(e.names):
            prev = out.get(name)
            m = Metric(
                name,
                e.unit,
                frozenset(e.scopes.split()) | (prev.scopes if prev else frozenset()),
                e.series_only and (prev.series_only if prev else True),
                e.role,
                e.better,
                name in heads or bool(prev and prev.headline),
                e.log_io,
                _direction(name) if e.role != "mix" else None,
                *_latency(name, e.role),
            )
            if prev and (prev.unit, prev.role, prev.better, prev.log_io) != (m.unit, m.role, m.better, m.log_io):
                raise ValueError(f"vocabulary: {name!r} is listed twice with a different unit, role or direction")
            out[name] = m
    return out


METRICS: dict[str, Metric] = _build()


def problem(metric: str, unit: str | None, scope: str | None = None) -> str | None:
    """Why a sample (metric, unit, scope) is not in the vocabulary, or None when it is."""
    m = METRICS.get(metric)
    if m is None:
        return f"metric {metric!r} is not in the vocabulary (add an Entry to ingest/metrics.py)"
    if m.unit != unit:
        return (
            f"metric {metric!r} is stored in {m.unit!r}, not {unit!r} (convert with a factor from ingest/vocabulary.py)"
        )
    if scope is not None:
        if m.series_only:
            return f"metric {metric!r} is a time-series metric, not a sample"
        if scope not in m.scopes:
            return f"metric {metric!r} does not take scope {scope!r} (allowed: {', '.join(sorted(m.scopes))})"
    return None


def per_direction(name: str) -> list[str]:
    """The metrics that state ``name`` per I/O direction, by the vocabulary's naming rule (``avg_latency_ms``:
    ``avg_read_latency_ms``, ``avg_write_latency_ms``, ``avg_trim_latency_ms``; ``iops``: ``read_iops``...);
    [] for a name with a direction of its own, or none listed."""

    def whole(other: str) -> str:
        return _DIRECTION.sub(lambda m: "_" if m.group(0)[0] == m.group(0)[-1] == "_" else "", other, count=1)

    order = {"read": 0, "write": 1, "trim": 2}
    found = [m for m in METRICS.values() if m.io_direction and m.name != name and whole(m.name) == name]
    return [m.name for m in sorted(found, key=lambda m: (order.get(m.io_direction or "", 3), m.name))]
