"""A latency bound (an SLA) in words, read once: ``sla = "p99<=1ms"`` in a sidecar and ``iolab compare
--sla "p99<=1ms"`` both go through ``parse``, and the view sla_bounds (077_sla_headline.sql) reads
what it returns (stored in the file's labels as ``sla_bound``), never the text itself.

Form: ``<statistic> <= <number> <unit>`` (or ``<``), any case, spaces allowed: the statistic ``mean``
or ``avg`` (avg_latency_ms), ``max`` or ``p100`` (max_latency_ms: the 100th percentile is the
largest), ``min`` or ``p0`` (min_latency_ms), or ``pNN`` / ``pNN.N...`` for a percentile the
vocabulary holds (p99 -> p99_latency_ms, p99.999 -> p99_999_latency_ms); the unit ``us``, ``ms`` or
``s``. Anything else is refused with the reason; a percentile no tool reports is refused with the
ones iolab holds.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

FORM = re.compile(r"^\s*([a-z]+)([0-9]+(?:\.[0-9]+)?)?\s*(<=|<)\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(us|ms|s)\s*$")
NAMED = {"mean": "avg_latency_ms", "avg": "avg_latency_ms", "max": "max_latency_ms", "min": "min_latency_ms"}
HOW = (
    "write <statistic><=<number><unit>, the statistic mean, avg, min, max or a percentile pNN (p99, p99.9), "
    'the unit us, ms or s, e.g. "p99<=1ms"'
)


@dataclass(frozen=True)
class Bound:
    sla: str  # as written
    stat: str  # as read: 'mean', 'max', 'p99.9'
    metric: str  # the latency metric it bounds (over all I/Os; per direction where a tool reports only those)
    strict: bool  # '<' rather than '<='
    bound_ms: float

    def label(self) -> dict[str, Any]:
        """What the file's labels keep (``sla_bound``) for the view."""
        return asdict(self)


def percentiles() -> list[str]:
    """The percentiles of all I/Os the vocabulary holds, as a bound names them: p1, p25, ..., p99.9999999."""
    from .vocabulary import METRICS

    found = [m[1 : -len("_latency_ms")] for m in METRICS if re.fullmatch(r"p[0-9_]+_latency_ms", m)]
    return ["p" + p.replace("_", ".") for p in sorted(found, key=lambda p: [int(x) for x in p.split("_")])]


def _percentile(number: str, text: str) -> tuple[str, str]:
    """(metric, statistic as read) of the percentile ``number`` ('99', '99.90')."""
    whole, _, frac = number.partition(".")
    whole, frac = str(int(whole)), frac.rstrip("0")
    stat = f"p{whole}{'.' + frac if frac else ''}"
    if whole == "0" and not frac:
        return "min_latency_ms", stat  # the 0th percentile is the smallest latency
    if whole == "100" and not frac:
        return "max_latency_ms", stat  # the 100th is the largest
    if int(whole) > 100 or (whole == "100" and frac):
        raise ValueError(f"sla {text!r}: a percentile is between p0 and p100")
    from .vocabulary import METRICS

    metric = f"p{whole}{'_' + frac if frac else ''}_latency_ms"
    if metric not in METRICS:
        held = ", ".join(percentiles())
        raise ValueError(
            f"sla {text!r}: no tool iolab reads reports the {stat} latency; "
            f"the percentiles it holds are {held} (and min, mean, max)"
        )
    return metric, stat


def parse(text: str) -> Bound:
    """The bound ``text`` states, or ValueError saying why it is none."""
    m = FORM.match(text.lower())
    if not m:
        raise ValueError(f"sla {text!r} is not a latency bound: {HOW}")
    name, number, op, value, unit = m.groups()
    if name == "p" and number is not None:
        metric, stat = _percentile(number, text)
    elif number is None and name in NAMED:
        metric, stat = NAMED[name], name
    else:
        import difflib

        close = difflib.get_close_matches(name, list(NAMED), n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close and number is None else ""
        raise ValueError(f"sla {text!r}: '{name}{number or ''}' is no statistic iolab bounds{hint} ({HOW})")
    number_ms = float(value)
    bound_ms = number_ms / 1000 if unit == "us" else number_ms * 1000 if unit == "s" else number_ms
    if bound_ms <= 0:
        raise ValueError(f"sla {text!r}: a latency bound is above 0 (no I/O completes in no time)")
    return Bound(sla=text, stat=stat, metric=metric, strict=op == "<", bound_ms=bound_ms)
