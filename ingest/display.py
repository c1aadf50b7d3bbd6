"""How every surface shows a name, a number and an order (issue 56): the one display layer.

* ``label(name)``: a metric of the vocabulary or a view's column as a reader reads it, with its unit
  ("avg_read_latency_ms" -> "average read latency (ms)", "pct_better" -> "% better", "n_baseline" ->
  "baseline runs"). Columns with a label of their own are in ``LABELS``; the rest, and every metric,
  are said word by word (``WORDS``), the unit from the vocabulary (ingest/metrics.py) or the name's
  last word.
* ``fmt(value, ...)``: a number as text. Integers as integers; a float to the decimals its column's
  spread needs (``decimals(values)``: three significant digits of the spread, so values that differ
  read differently and none carries noise); a value that fails a bound never prints equal to the
  bound (``bound=``: more decimals until it does not: a p99 of 0.011173 ms beside 0.01 ms prints
  "0.011", never "0.01"). ``d3_format(values)`` is the same rule for a chart's tooltip.
* ``order_key(value)``: a dimension's values in their numeric order (block size, load, queue depth:
  512 B, 4 KiB, 16 KiB, 32 KiB; QD 2 before QD 16), text where there is no number. Releases are
  ordered by the study's ``firmware_order`` in the views (measurement_no), never here.

Pages, tooltips, the print edition, the lab and the commands take their words from here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from .vocabulary import METRICS

# view columns whose label is not their words read one by one
LABELS: dict[str, str] = {
    "workload_label": "workload",
    "workload_key": "workload",
    "config_label": "configuration",
    "raid_level": "RAID level",
    "run_key": "run",
    "run_id": "run",
    "source_id": "file",
    "source_path": "file",
    "source_sha256": "file's SHA-256",
    "content_id": "content",
    "line_no": "line",
    "sample_no": "sample (0-based)",
    "bin_no": "bin",
    "bin_label": "latency bin",
    "measurement_no": "measurement",
    "series_id": "series",
    "baseline_value": "baseline's value",
    "baseline_config": "baseline's configuration",
    "baseline_raid_level": "baseline's RAID level",
    "baseline_drives": "baseline's drives",
    "baseline_drives_source": "where the baseline's drives are stated",
    "baseline_measurement": "baseline's measurement",
    "baseline_system": "baseline system",
    "baseline_runs": "baseline's runs",
    "drives_source": "where the drives are stated",
    "n_baseline": "baseline's runs",
    "n_new": "runs of the new system",
    "n_old": "runs of the old system",
    "n": "runs",
    "pct_better": "% better",
    "pct_better_uncorrected": "% better, uncorrected",
    "pct_change": "% change",
    "pct_difference": "% difference",
    "min_pct_better": "lowest % better",
    "median_pct_better": "median % better",
    "max_pct_better": "highest % better",
    "ci95_low_pct": "95 % interval, low (%)",
    "ci95_high_pct": "95 % interval, high (%)",
    "ci95_low": "95 % interval, low",
    "ci95_high": "95 % interval, high",
    "value_ci95_low": "95 % interval, low",
    "value_ci95_high": "95 % interval, high",
    "match_rule": "how the points were matched",
    "iops_per_drive": "IO/s per drive",
    "mbps_per_drive": "MB/s per drive",
    "iops_per_watt": "IO/s per watt",
    "score_per_kw": "score per kW",
    "usd_per_iops": "USD per IO/s",
    "usd_per_vm": "USD per VM",
    "price_usd": "price (USD)",
    "price_source": "where the price is stated",
    "profile_drives": "drives in the array profile",
    "first_failing_load": "first load failing a criterion",
    "saturation_load": "saturation load",
    "is_knee": "knee",
    "other_system": "other system",
    "latency_ms": "latency (ms)",
    "time_s": "time (s)",
    "time_start_s": "time since the job started (s)",
    "ts": "time",
    "first_ts": "first time",
    "last_ts": "last time",
    "time_zone": "time zone",
    "bias_minutes": "offset from UTC (minutes)",
    "has_date": "has a date",
    "current_measurement": "current measurement",
    "array_name": "array",
    "tool_version": "tool version",
    "queue_depth": "queue depth",
    "queue_length": "queue length",
    "io_count": "I/Os",
    "share_pct": "share of I/Os (%)",
    "lower_us": "bin's lower bound (µs)",
    "upper_us": "bin's upper bound (µs)",
    "lower_ms": "bin's lower bound (ms)",
    "upper_ms": "bin's upper bound (ms)",
    "bound_ms": "bound (ms)",
    "block_size_bytes": "block size (bytes)",
    "size_bytes": "size (bytes)",
    "read_pct": "read share (%)",
    "random_pct": "random share (%)",
    "outstanding_ios": "outstanding I/Os",
    "io_direction": "direction",
    "p_value": "p-value",
    "fdr_q": "q-value (false discovery rate)",
    "verdict_fdr": "verdict after the false discovery rate",
    "config": "configuration",
    "best_iops_runs": "best IO/s: its runs",
    "best_iops_drives": "best IO/s: its drives",
    "best_iops_workload": "best IO/s: workload",
    "best_iops_load": "best IO/s: load",
    "sla_load": "load at the bound",
    "sla_iops": "IO/s at the bound",
    "hold_load": "last load that holds",
    "fail_load": "first load that fails",
    "hold_latency_ms": "latency where it holds (ms)",
    "fail_latency_ms": "latency where it fails (ms)",
    "hold_n": "runs where it holds",
    "fail_n": "runs where it fails",
    "matched_point": "matched point",
    "avg_io_bytes": "average I/O size (bytes)",
}

# columns whose values are names of metrics or columns (a table shows each by its label)
NAMES = ("metric", "axis", "iolab_metric", "rule_metric", "repeats_metric", "stat")

# a name's words, each read as a person says it (the rest stay as they are)
WORDS: dict[str, str] = {
    "avg": "average", "max": "maximum", "min": "minimum", "stddev": "standard deviation of",
    "std": "standard", "dev": "deviation", "iops": "IO/s", "mbps": "MB/s", "ios": "I/Os",
    "io": "I/O", "clat": "completion latency", "slat": "submission latency", "lat": "latency",
    "util": "utilisation", "cpu": "CPU", "db": "database", "kw": "kW", "usd": "USD", "vm": "VM",
    "vms": "VMs", "oio": "outstanding I/Os", "ci95": "95 % interval", "id": "id", "no": "number",
    "ts": "time", "sha256": "SHA-256", "raid": "RAID", "davg": "DAVG", "kavg": "KAVG", "gavg": "GAVG",
    "qavg": "QAVG", "mbytes": "MBytes", "fdr": "FDR", "orion": "ORION", "vdisk": "virtual disk",
    "pct": "%", "p95": "p95", "sd": "standard deviation", "n": "runs", "usd_per": "USD per",
    "dpc": "DPC", "vmotion": "vMotion", "qd": "queue depth",
}  # fmt: skip

# a name's last word that is its unit
UNIT_WORDS = {"ms": "ms", "us": "µs", "ns": "ns", "s": "s", "pct": "%", "bytes": "bytes", "usd": "USD", "mb": "MB"}
_PERCENTILE = re.compile(r"^p(\d+)((?:_\d+)?)_")


_STATS = {"avg": "average", "p95": "p95", "max": "maximum", "min": "minimum"}


def words(name: str) -> str:
    """``name``'s words as a person reads them, without its unit ("p99_9_read_clat_ms" -> "p99.9 read
    completion latency"; a statistic at the end goes first: "davg_ms_avg" -> "average DAVG")."""
    p = _PERCENTILE.match(name)
    head = f"p{p.group(1)}{p.group(2).replace('_', '.')} " if p else ""
    parts = (name[p.end() :] if p else name).split("_")
    if len(parts) > 1 and parts[-1] in _STATS:
        head, parts = f"{head}{_STATS[parts[-1]]} ", parts[:-1]
    if parts[-2:] == ["per", "s"]:
        parts = [*parts[:-2], "per second"]
    elif len(parts) > 1 and parts[-1] in UNIT_WORDS:
        parts = parts[:-1]
    return (head + " ".join(WORDS.get(w, w) for w in parts if w)).strip()


def unit(name: str) -> str | None:
    """The unit ``name``'s numbers are in: the vocabulary's for a metric, else its last word's (before
    a statistic: "davg_ms_avg" is in ms); None for a rate said in words ("per second")."""
    m = METRICS.get(name)
    if m is not None:
        return None if name.endswith("_per_s") else m.unit
    parts = name.split("_")
    if len(parts) > 2 and parts[-1] in _STATS:
        parts = parts[:-1]
    return UNIT_WORDS.get(parts[-1]) if len(parts) > 1 and parts[-2:] != ["per", "s"] else None


def label(name: str, with_unit: bool = True) -> str:
    """``name`` (a metric or a view's column) as a reader reads it, with its unit in brackets where the
    words do not say it already: "avg_latency_ms" -> "average latency (ms)", "iops" -> "IO/s"."""
    if name in LABELS:
        said = LABELS[name]
        return said if with_unit else re.sub(r" \([^()]*\)$", "", said)
    text = words(name)
    u = unit(name)
    if not with_unit or not u or u in ("count", "bool") or u in text.split(" "):
        return text
    return f"{text} ({u})"


def metric_label(metric: str, stored_unit: str | None) -> str:
    """A metric beside the unit its numbers are stored in, as the commands and the explore page name it:
    its label's words and that unit, where the words do not say it ("average latency (ms)", "IO/s",
    "I/Os (count)"; a capture's counter the vocabulary does not know: "name (unit)")."""
    name = label(metric, with_unit=False)
    return f"{name} ({stored_unit})" if stored_unit and stored_unit not in name.split(" ") else name


def decimals(values: Iterable[Any], significant: int = 3, most: int = 6) -> int:
    """The decimals that show ``values`` (one column's numbers) to ``significant`` digits of their spread
    (or of their size, where all are equal, or differ by float noise only), never past two digits more
    than the largest's own ``significant``: 289.4 and 12.1 -> 0 decimals; 0.011 and 0.5 -> 3."""
    nums = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]
    if not nums:
        return 0
    top = max(abs(v) for v in nums)
    spread = max(nums) - min(nums)
    if top == 0:
        return 0
    size = spread if spread > top * 1e-6 else top
    by_spread = significant - 1 - math.floor(math.log10(size))
    by_size = significant + 1 - math.floor(math.log10(top))
    return max(0, min(most, by_spread, by_size))


def is_integer(values: Iterable[Any]) -> bool:
    """Whether every number of ``values`` is whole (printed as an integer)."""
    nums = [v for v in values if v is not None and not isinstance(v, bool)]
    return bool(nums) and all(isinstance(v, int) or (isinstance(v, float) and v.is_integer()) for v in nums)


def fmt(value: Any, places: int | None = None, bound: float | None = None, signed: bool = False, most: int = 9) -> str:
    """``value`` as text: '' for none, an integer with thousands separators, a float to ``places``
    decimals (its column's: ``column_places``; a number under them keeps two significant digits) or,
    alone, to three significant digits without trailing zeros; ``bound``: a value that differs from it never prints
    equal to it (more decimals, up to ``most``). ``signed``: a + before a positive number."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "" if value is None or value != value else ("+" if signed and value > 0 else "") + str(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    sign = "+" if signed else ""
    if isinstance(value, int):
        return f"{value:{sign},}"
    v = float(value)
    d = decimals([v]) if places is None else places
    if v and places is not None:  # a small number in a column of large ones keeps two significant digits
        d = max(d, min(most, 1 - math.floor(math.log10(abs(v)))))
    text = f"{v:{sign},.{d}f}"
    if places is None and "." in text:  # one number alone: its significant digits, no trailing zeros
        text = text.rstrip("0").rstrip(".")
    if bound is not None and v != bound:
        while d < most and float(text.replace(",", "")) == float(f"{bound:.{d}f}"):
            d += 1
            text = f"{v:{sign},.{d}f}"
    return text


def column_places(values: Sequence[Any]) -> int | None:
    """The decimals of a column of numbers (``decimals``), None for a column of integers."""
    return None if is_integer(values) else decimals(values)


def d3_format(values: Sequence[Any]) -> str:
    """The d3 format a chart's tooltip shows a field of ``values`` with: the same rule as ``fmt``."""
    places = column_places(values)
    return ",d" if places is None else f",.{places}f"


TIMESTAMP = "%Y-%m-%d %H:%M:%S"  # a time as a tooltip and a table show it: the date and the clock time
TIMESTAMP_MS = "%Y-%m-%d %H:%M:%S.%L"  # d3's, for times a second apart or less

_SIZES = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10, "m": 2**20, "mb": 2**20, "mib": 2**20}
_SIZES |= {"g": 2**30, "gb": 2**30, "gib": 2**30, "t": 2**40, "tb": 2**40, "tib": 2**40}
_NUMBER = re.compile(r"(\d+(?:[.,]\d+)*)\s*(kib|mib|gib|tib|kb|mb|gb|tb|b|k|m|g|t)?(?![a-z])", re.I)


def order_key(value: Any) -> tuple:
    """A key that sorts a dimension's values in their numeric order: every number in a label read as a
    number (with its size unit: 512 B < 4 KiB < 16 KiB; QD 2 < QD 16), the text between as text;
    None last."""
    if value is None:
        return ((2, 0.0, ""),)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return ((0, float(value), ""),)
    text, key, at = str(value), [], 0
    for m in _NUMBER.finditer(text):
        if m.start() > at:
            key.append((1, 0.0, text[at : m.start()].strip().lower()))
        number = float(m.group(1).replace(",", "")) if m.group(1).count(".") <= 1 else 0.0
        key.append((0, number * _SIZES[(m.group(2) or "").lower()], ""))
        at = m.end()
    if at < len(text):
        key.append((1, 0.0, text[at:].strip().lower()))
    return tuple(key)


def ordered(values: Iterable[Any]) -> list:
    """``values``' distinct members in their numeric order (``order_key``), each once."""
    return sorted(dict.fromkeys(values), key=order_key)
