"""The one metric vocabulary: every canonical metric, its unit, the scopes it may carry, what it is
(role) and which way is better, and the unit factors parsers use to reach canonical units.

``ParseResult.add`` refuses a (metric, unit, scope) that is not listed here: a parser that invents a
name or stores a number in the wrong unit is a programming error and fails at once, in its tests.
The metric table of schemas/README.md is generated from ``ENTRIES`` (``python -m ingest.vocabulary``
prints it; tests/test_vocabulary.py checks the README holds exactly that).

Adding a metric is one line: an ``Entry(names, unit, scopes, source, kind="<role> [lower|higher]")``
in ``ENTRIES``. ``names`` is a brace pattern: ``"{,read_,write_}iops"`` stands for ``iops``,
``read_iops`` and ``write_iops``. ``kind`` is decided on the metric's meaning: its role (one of
``vocabulary_table.ROLES``) and ``lower`` or ``higher`` when a smaller or larger value is better
(nothing when neither is). ``headline`` names the metrics that stand for a whole run's throughput,
``log_io`` marks a transaction log's I/O. A name may appear in several entries if unit, role and
direction agree; its allowed scopes are then the union. The views read all this from the
``metric_vocabulary`` table (ingest/vocabulary_table.py), never from the names.

Units (see the Units table in schemas/README.md): ``IO/s``, ``MB/s`` (10^6 B/s), ``ms``, ``%``,
``count``, ``bytes``, ``s``, ``1/s``, ``1/h``, ``TB``, ``USD``, ``bool`` and, for time series
only, ``MBytes/s`` and ``bytes/s``.
"""

from __future__ import annotations

import itertools
import re
import sys
from dataclasses import dataclass

from .vocabulary_table import ROLES

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
ROWS = "all manager processor worker target"  # a tool's result rows (Iometer, DiskSpd, fio, vdbench)
IO_SCOPES = ROWS + " volume instance test"  # throughput/latency: rows, Jetstress volumes, published figures
CPU_SCOPES = "all manager processor worker host"
D = "{,read_,write_,trim_}"  # direction part: none (total or fio `mixed`), read, write, trim


@dataclass(frozen=True)
class Entry:
    names: str  # brace pattern, see the module docstring
    unit: str | None
    scopes: str  # space-separated
    source: str  # which tools write it, and how they get to the canonical unit
    series_only: bool = False  # a time-series metric (series.metric), never a sample
    kind: str = ""  # "<role> [lower|higher]": what the number is (one of ROLES) and which way is better
    headline: str = ""  # brace pattern: the names that stand for a whole run's throughput
    log_io: bool = False  # I/O of a transaction log (Jetstress), not the database's transactional I/O

    @property
    def role(self) -> str:
        return self.kind.split(" ")[0]

    @property
    def better(self) -> str | None:
        """ "lower", "higher", or None: neither is better (a count, a setting)."""
        parts = self.kind.split(" ")
        return parts[1] if len(parts) == 2 else None if len(parts) == 1 else "?"


ENTRIES: tuple[Entry, ...] = (
    Entry(
        D + "iops",
        "IO/s",
        IO_SCOPES,
        "Iometer rows, published tables, time series (esxtop Commands/Reads/Writes per sec, perfmon Disk Transfers/Reads/Writes per sec), DiskSpd, vdbench, Jetstress 2007 volumes without a role; fio (`iops` = read + write + trim)",
        kind="throughput higher",
        headline="iops",
    ),
    Entry(
        D + "mbps",
        "MB/s",
        IO_SCOPES,
        "Iometer (`MBps`/`MiBps (Binary)` x 1.048576), published (GB/s x 1000), DiskSpd (MiB/s x 1.048576; XML bytes / test time), vdbench (MB/sec = 2^20, x 1.048576); fio `bw_bytes`, or `bw` KiB/s x 1024 / 10^6",
        kind="throughput higher",
        headline="mbps",
    ),
    Entry(
        D + "ios",
        "count",
        ROWS + " volume",
        "Iometer Read/Write I/Os, DiskSpd I/Os, fio `total_ios` (`ios` for unified_rw_reporting `mixed`), vscsiStats latency histogram count per virtual disk, elbencho `IOs total`; array statistics Total Requests Serviced / Read / Write Requests (per volume; cumulative since the controller's last reset)",
        kind="count",
    ),
    Entry(
        "bytes_{read,written,trimmed}",
        "bytes",
        ROWS,
        "Iometer, DiskSpd; fio io_bytes (KiB x 1024 in 2.x)",
        kind="count",
    ),
    Entry(
        "{avg,max,min,stddev}_" + D + "latency_ms",
        "ms",
        IO_SCOPES,
        "Iometer Average/Maximum (Read/Write) Response Time, published, DiskSpd (AvgLat, LatStdDev), vdbench resp, vscsiStats mean (us / 1000); fio total latency (`lat`/`lat_ns`: 2.x usec / 1000, 3.x ns / 10^6)",
        kind="latency lower",
    ),
    Entry(
        "{avg,max,min,stddev}_" + D + "{clat,slat}_ms",
        "ms",
        "all",
        "fio completion / submission latency (2.x usec / 1000, 3.x ns / 10^6)",
        kind="latency lower",
    ),
    Entry(
        "p{1,25,50,75,90,95,99,99_5,99_9,99_95,99_99,99_999,99_9999,99_99999,99_999999,99_9999999}_"
        + D
        + "{latency,clat}_ms",
        "ms",
        "all",
        "DiskSpd latency percentiles (text `%-ile` rows 25th .. 9-nines, XML buckets); fio percentiles: of completion latency (fio's default), of total latency when the job set lat_percentiles (then clat ones are `p99_read_clat_ms`...); every fio percentile is in `fio_percentiles`; elbencho result text `IO lat % us` (`1%<=`, `50%<=`, ... us / 1000)",
        kind="latency lower",
    ),
    Entry("{,read_,write_}iops_stddev", "IO/s", ROWS, "DiskSpd IopsStdDev", kind="variability lower"),
    Entry(
        "runtime_s",
        "s",
        "all",
        "fio job_runtime (ms / 1000; 2.x: the longest direction's runtime)",
        kind="duration",
    ),
    Entry("test_time_s", "s", "all", "DiskSpd actual test time", kind="duration"),
    Entry("disk_util_pct", "%", "target", "fio disk_util per device", kind="utilisation lower"),
    Entry("{avg,max}_transaction_ms", "ms", ROWS, "Iometer", kind="latency lower"),
    Entry("avg_connection_ms", "ms", ROWS, "Iometer", kind="latency lower"),
    Entry("{transactions,connections,packets}_per_s", "1/s", ROWS, "Iometer", kind="throughput higher"),
    Entry("interrupts_per_s", "1/s", ROWS, "Iometer", kind="rate"),
    Entry("segments_retransmitted_per_s", "1/s", ROWS, "Iometer", kind="error_count lower"),
    Entry(
        "{,read_,write_,packet_}errors",
        "count",
        ROWS,
        "Iometer; fio `total_err` (fio's `error` is an errno: it goes in the run status)",
        kind="error_count lower",
    ),
    Entry(
        "pct_ios_within_30ms",
        "%",
        "target",
        "vscsiStats latency histogram, per virtual disk (the `latency_bin_shares` view computes the same from Iometer bins)",
        kind="qos higher",
    ),
    Entry(
        "cpu_{util,user,privileged,dpc,interrupt,wait}_pct",
        "%",
        CPU_SCOPES,
        "Iometer ALL/MANAGER/PROCESSOR rows; Jetstress host `% Processor Time`; esxtop `% Util Time`; DiskSpd CPU; vdbench cpu; fio `usr_cpu` (user), `sys_cpu` (privileged)",
        kind="utilisation lower",
    ),
    Entry("cpu_idle_pct", "%", CPU_SCOPES, "DiskSpd, vdbench (the CPU left free)", kind="utilisation higher"),
    Entry("cpu_effectiveness", "IO/s per %CPU", "all manager", "Iometer", kind="efficiency higher"),
    Entry(
        "read_pct",
        "%",
        "all volume",
        "vdbench observed read % (`read pct`, `read%`); array statistics Read Percentage / Total Percent Read Requests",
        kind="mix",
    ),
    Entry(
        "cache_hit_pct",
        "%",
        "all volume",
        "array Performance Monitor Cache Hit Percentage (per volume, array totals); support-bundle counters keep Total Cache Read Checks / Check Hits in `array_perf_values` only",
        kind="efficiency higher",
    ),
    Entry(
        "max_iops",
        "IO/s",
        "all volume",
        "array Performance Monitor Maximum IO/second since monitoring started (`iops` is its Current IO/second)",
        kind="throughput higher",
    ),
    Entry(
        "max_mbps",
        "MB/s",
        "all volume",
        "array Performance Monitor Maximum KB/second x 1024 / 10^6 (Storage Manager KB = 2^10 bytes; `mbps` is its Current KB/second)",
        kind="throughput higher",
    ),
    Entry(
        "{,read_,write_}entries_per_s",
        "1/s",
        "all",
        "elbencho files, dirs or objects per second (`entries/s [last]`, `Dirs/s`, `Files/s`; read_/write_ in an RWMIX phase)",
        kind="throughput higher",
    ),
    Entry(
        "{,read_,write_}entries",
        "count",
        "all",
        "elbencho files, dirs or objects done (`entries [last]`, `Files total`)",
        kind="count",
    ),
    Entry(
        "{min,avg,max}_{,read_,write_}entry_latency_ms",
        "ms",
        "all",
        "elbencho per-file/dir latency (`Ent lat us` / 1000)",
        kind="latency lower",
    ),
    Entry("avg_io_bytes", "bytes", "all", "vdbench bytes/io, xfer size (average transfer size)", kind="size"),
    Entry(
        "avg_queue_depth",
        "count",
        "all",
        "vdbench queue depth (its own average of I/Os in flight)",
        kind="load",
    ),
    Entry(
        "max_{large,small}_mbps",
        "MB/s",
        "test",
        "ORION summary headlines (with the Small/Large point)",
        kind="throughput higher",
        headline="max_large_mbps",
    ),
    Entry(
        "max_{large,small}_iops",
        "IO/s",
        "test",
        "ORION summary headlines",
        kind="throughput higher",
        headline="max_small_iops",
    ),
    Entry(
        "min_small_latency_ms",
        "ms",
        "test",
        "ORION summary headline (10.2/11.1 ms without a unit; 12c+ usecs / 1000)",
        kind="latency lower",
    ),
    Entry("small_iops", "IO/s", "point", "ORION matrix points", kind="throughput higher"),
    Entry("large_mbps", "MB/s", "point", "ORION matrix points", kind="throughput higher"),
    Entry(
        "small_latency_ms",
        "ms",
        "point",
        "ORION `_lat.csv` points, only where the version says the unit (the `orion_latency_points` view)",
        kind="latency lower",
    ),
    Entry(
        "{small,large}_{read,write}_latency_{avg,min,max,std_dev}_ms",
        "ms",
        "point",
        "ORION 12c+ detail lines",
        kind="latency lower",
    ),
    Entry(
        "achieved_iops",
        "IO/s",
        "test",
        "Jetstress Database Sizing and Throughput",
        kind="throughput higher",
        headline="achieved_iops",
    ),
    Entry("target_iops", "IO/s", "test", "Jetstress Database Sizing and Throughput", kind="setting"),
    Entry(
        "{db_,}{read,write}_latency_ms",
        "ms",
        "volume instance test",
        "Jetstress per volume (2007: sec x 1000) / instance; published (test)",
        kind="latency lower",
    ),
    Entry(
        "log_{read,write}_latency_ms",
        "ms",
        "volume instance test",
        "Jetstress per log volume (2007: sec x 1000) / instance; published (test)",
        kind="latency lower",
        log_io=True,
    ),
    Entry(
        "db_{read,write}_iops",
        "IO/s",
        "volume instance test",
        "Jetstress per volume / instance; published (test)",
        kind="throughput higher",
    ),
    Entry(
        "log_{read,write}_iops",
        "IO/s",
        "volume instance test",
        "Jetstress per log volume / instance; published (test)",
        kind="throughput higher",
        log_io=True,
    ),
    Entry("{db_,}{read,write}_bytes_avg", "bytes", "volume instance", "Jetstress", kind="size"),
    Entry("log_{read,write}_bytes_avg", "bytes", "volume instance", "Jetstress", kind="size", log_io=True),
    Entry("db_size_{initial,final}_bytes", "bytes", "test", "Jetstress", kind="capacity"),
    Entry("db_files", "count", "test", "Jetstress", kind="count"),
    Entry(
        "max_db_page_fault_stalls_per_s",
        "1/s",
        "test",
        "Jetstress test log threshold: maximum database page fault stalls per second",
        kind="setting",
    ),
    Entry(
        "test_passed",
        "bool",
        "test",
        "Jetstress Overall Test Result, HTML report or test log (1 = pass)",
        kind="verdict higher",
    ),
    Entry(
        "{supported_mailboxes,application_sets,total_vms}",
        "count",
        "test",
        "published",
        kind="capacity higher",
    ),
    Entry("{peak,steady}_iops", "IO/s", "test", "published (array counters)", kind="throughput higher"),
    Entry(
        "{clone_and_deploy,storage_vmotion}_ops",
        "1/h",
        "test",
        "published (IOmark-VM)",
        kind="throughput higher",
    ),
    Entry("total_price", "USD", "test", "published", kind="price lower"),
    Entry("usable_capacity", "TB", "test", "published", kind="capacity higher"),
    # time series (series.metric): also iops, mbps, avg_/max_/stddev_ latency, cpu_*_pct... above
    Entry(
        "{read,write,trim}_{lat,clat,slat}_raw",
        None,
        "",
        "fio latency logs as written: ns in fio 3.x, usec in 2.x, and the file does not say which",
        True,
        kind="latency lower",
    ),
    Entry(
        "cpu_{used,ready,processor_time}_pct",
        "%",
        "",
        "esxtop Group Cpu/Vcpu, perfmon",
        True,
        kind="utilisation lower",
    ),
    Entry(
        "{d,k,g,q}avg{,_read,_write}_ms",
        "ms",
        "",
        "esxtop Average Device/Kernel/Guest/Queue MilliSec per Command/Read/Write",
        True,
        kind="latency lower",
    ),
    Entry(
        "mbytes_{read,written}_per_s",
        "MBytes/s",
        "",
        "esxtop MBytes as esxtop prints them (it does not say 10^6 or 2^20)",
        True,
        kind="throughput higher",
    ),
    Entry(
        "avg_{,read_,write_}latency_s",
        "s",
        "",
        "perfmon Avg. Disk sec/Read... (the device_io view converts to ms)",
        True,
        kind="latency lower",
    ),
    Entry("{read,write}_bytes_per_s", "bytes/s", "", "perfmon", True, kind="throughput higher"),
    Entry("queue_length", "count", "", "perfmon", True, kind="load"),
    Entry("bytes_done", "bytes", "", "elbencho `--livecsv` DoneBytes", True, kind="count"),
    Entry("done_pct", "%", "", "elbencho `--livecsv` Done%", True, kind="progress"),
    Entry("active_threads", "count", "", "elbencho `--livecsv` Active", True, kind="load"),
)

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
        return f"metric {metric!r} is not in the vocabulary (add an Entry to ingest/vocabulary.py)"
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


def markdown() -> str:
    """The metric table of schemas/README.md."""
    lines = ["| metric | unit | role | better | scopes | from |", "|---|---|---|---|---|---|"]
    for e in ENTRIES:
        names = f"time series only: `{e.names}`" if e.series_only else f"`{e.names}`"
        extra = f" (headline: `{e.headline}`)" if e.headline else ""
        extra += " (log I/O)" if e.log_io else ""
        lines.append(
            f"| {names}{extra} | {e.unit or '(none)'} | {e.role} | {e.better or '-'} | {e.scopes or '-'} | {e.source} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
