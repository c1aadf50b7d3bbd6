"""How the comparison and the trend print their cells: one number format per column, a signed %
coloured by its verdict, an interval, the verdicts counted. Both commands (compare.py, trend.py)
use these; compare re-exports them.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def column_format(values: list[float | None]) -> Callable[[float | None], str]:
    """One fixed-point format for a whole column: enough decimals for three significant digits of
    its smallest non-zero magnitude (at most 6), thousands separated; blank for no value."""
    small = min((abs(v) for v in values if v), default=1.0)
    decimals = max(0, min(6, 2 - math.floor(math.log10(small))))
    return lambda v: "" if v is None else f"{v:,.{decimals}f}"


VERDICTS = ("better", "worse", "within noise", "equal", "single run")


def verdict_counts(verdicts: list[str]) -> str:
    """'3 better, 1 within noise': how many points got each verdict of the comparison view."""
    return ", ".join(f"{verdicts.count(v):,} {v}" for v in VERDICTS if v in verdicts)


def overall_verdict(verdicts: list[str]) -> str | None:
    """'better' or 'worse' only when every point says so; a mean over noisy points is no win."""
    return verdicts[0] if verdicts and len(set(verdicts)) == 1 and verdicts[0] in ("better", "worse") else None


def pct_cell(v: float | None, verdict: str | None) -> tuple[str, str]:
    """A signed % and its style: green or red only where the verdict (outside the noise) says better or worse."""
    if v is None:
        return "", ""
    return f"{v:+,.2f} %", "green" if verdict == "better" else "red" if verdict == "worse" else ""


def _pct(v: float | None, verdict: str | None) -> str:
    """``pct_cell`` as rich markup."""
    text, style = pct_cell(v, verdict)
    return f"[{style}]{text}[/]" if style else text


def _interval(lo: float | None, hi: float | None) -> str:
    return "" if lo is None or hi is None else f"{lo:+,.1f} .. {hi:+,.1f} %"
