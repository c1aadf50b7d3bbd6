"""The comparison's numbers in words, one way for the pages and the commands: a matched point (its
workload, RAID level, drives and configuration), and what a percentage means for its metric.

"% better" (views comparison, trends: pct_better, pct_change) is positive where the system beats the
baseline, and for a lower-is-better metric it is baseline / value - 1: a latency 34 % lower is +51.5 %
better, as much as the throughput that latency allows at the same load (docs/analysis.md). Read as
"51.5 % lower" it would be wrong, so the value's own change (pct_difference: value / baseline - 1) is
said in words beside it: "34.0 % lower latency".
"""

from __future__ import annotations

from typing import Any

from .display import label
from .vocabulary import METRICS

# what a metric of each role is called in words; other roles (and unknown metrics) by their own name
NOUNS = {
    "throughput": "throughput",
    "latency": "latency",
    "error_count": "error count",
    "utilisation": "utilisation",
    "efficiency": "efficiency",
    "price": "price",
    "capacity": "capacity",
}


def noun(metric: str) -> str:
    """'latency' for avg_read_latency_ms, 'throughput' for iops: what the metric is, in a word or two
    (a metric of another role by its label: 'read I/Os')."""
    m = METRICS.get(metric)
    return NOUNS.get(m.role, label(metric, with_unit=False)) if m else label(metric, with_unit=False)


def change_words(pct_difference: float | None, metric: str, decimals: int = 1) -> str:
    """How much higher or lower the value is than the baseline's, in words: "34.0 % lower latency",
    "12.5 % higher throughput", "the same latency"; '' without a number."""
    if pct_difference is None or pct_difference != pct_difference:  # None or NaN
        return ""
    if pct_difference == 0:
        return f"the same {noun(metric)}"
    way = "lower" if pct_difference < 0 else "higher"
    if round(abs(pct_difference), decimals) == 0:
        return f"under {10**-decimals:g} % {way} {noun(metric)}"
    return f"{abs(pct_difference):,.{decimals}f} % {way} {noun(metric)}"


def better_means(direction: str | None) -> str:
    """What a % better is for a metric of ``direction``, in one sentence (a caption's, a heading's)."""
    if direction == "lower":
        return (
            "lower is better: % better = baseline / value - 1, so a value 34 % lower is +51.5 % better "
            "(the change in the value itself is said in words: 34.0 % lower)"
        )
    if direction == "higher":
        return "higher is better: % better = value / baseline - 1, the change in the value itself"
    return "neither way is better: no % better"


def _given(v: Any) -> bool:
    return v is not None and v == v and v != ""  # None, NaN or empty: not stated


def point_label(row: Any) -> str:
    """A matched point in words, as the system (whose panel holds the bar) measured it: workload, RAID
    level, drives and configuration where stated, each followed by the baseline's where that differs
    ("2 drives for 10 drives", "RAID 1 for RAID 5"), and one only the baseline states said to be the
    baseline's ("baseline: RAID 5, 10 x FC"), so a bar never carries the baseline's configuration as
    its own, and two points that differ only there never share (and stack into) one bar."""

    def raid(v) -> str:
        return str(v) if str(v).upper().startswith("RAID") else f"RAID {v}"

    def drives(v) -> str:
        return f"{int(v)} drives"

    parts = [str(row["workload"])]
    for own_key, base_key, word in (
        ("raid_level", "baseline_raid_level", raid),
        ("drives", "baseline_drives", drives),
        ("config", "baseline_config", str),
    ):
        own, base = row.get(own_key), row.get(base_key)
        if _given(own) and _given(base) and own != base:
            parts.append(f"{word(own)} for {word(base)}")
        elif _given(own):
            parts.append(word(own))
        elif _given(base):
            parts.append(f"baseline: {word(base)}")
    return " · ".join(parts)
