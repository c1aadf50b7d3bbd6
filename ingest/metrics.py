"""Every canonical metric as one ``Entry`` line: the data of the vocabulary (ingest/vocabulary.py
says how an entry is read and checked). Adding a metric is one line here."""

from __future__ import annotations

from dataclasses import dataclass

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
    headline: str = ""  # brace pattern: the names that stand for a whole run (its throughput, its average latency)
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
        ROWS + " volume test",
        "Iometer Read/Write I/Os, DiskSpd I/Os, fio `total_ios` (`ios` for unified_rw_reporting `mixed`), vscsiStats latency histogram count per virtual disk, elbencho `IOs total`; array statistics Total Requests Serviced / Read / Write Requests (per volume; cumulative since the controller's last reset)",
        kind="count",
    ),
    Entry(
        "bytes_{read,written,trimmed}",
        "bytes",
        ROWS + " test",
        "Iometer, DiskSpd; fio io_bytes (KiB x 1024 in 2.x)",
        kind="count",
    ),
    Entry(
        "{avg,max,min,stddev}_" + D + "latency_ms",
        "ms",
        IO_SCOPES,
        "Iometer Average/Maximum (Read/Write) Response Time, published, DiskSpd (AvgLat, LatStdDev), vdbench resp, vscsiStats mean (us / 1000); fio total latency (`lat`/`lat_ns`: 2.x usec / 1000, 3.x ns / 10^6)",
        kind="latency lower",
        headline="avg_" + D + "latency_ms",  # a run's latency (fio states it per direction only)
    ),
    Entry(
        "{avg,max,min,stddev}_" + D + "{clat,slat}_ms",
        "ms",
        "all test",
        "fio completion / submission latency (2.x usec / 1000, 3.x ns / 10^6)",
        kind="latency lower",
    ),
    Entry(
        "p{1,25,50,75,90,95,99,99_5,99_9,99_95,99_99,99_999,99_9999,99_99999,99_999999,99_9999999}_"
        + D
        + "{latency,clat}_ms",
        "ms",
        "all test",
        "DiskSpd latency percentiles (text `%-ile` rows 25th .. 9-nines, XML buckets); fio percentiles: of completion latency (fio's default), of total latency when the job set lat_percentiles (then clat ones are `p99_read_clat_ms`...); every fio percentile is in `fio_percentiles`; elbencho result text `IO lat % us` (`1%<=`, `50%<=`, ... us / 1000)",
        kind="latency lower",
    ),
    Entry("{,read_,write_}iops_stddev", "IO/s", ROWS, "DiskSpd IopsStdDev", kind="variability lower"),
    Entry(
        "runtime_s",
        "s",
        "all test",
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
        ROWS + " test",
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
