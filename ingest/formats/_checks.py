"""Files checked against themselves: the parts a tool prints against the totals it prints beside them.

A tool that prints parts and their sum (threads and a `total:` line, jobs and their group line,
workers and the ALL row, intervals and their average) states one number twice. Where the two
disagree beyond what the file's printed precision allows, the file has lost, gained or changed a
part (a deleted row, a duplicated one, an edit): it is refused, naming the line of the total and
both numbers, never loaded with a sum the file does not state. Each format says what it checks and
with what tolerance (its writer's rounding), in its docstring and docs/formats/*.md.
"""

from __future__ import annotations

import re

from ..model import ParseError

_DECIMALS = re.compile(r"^-?\d*(?:\.(\d*))?")


def ulp(token: str) -> float:
    """One unit of the last digit a plain decimal token shows: `3.91` -> 0.01, `1000` -> 1."""
    m = _DECIMALS.match(token.strip())
    return 10.0 ** -len(m.group(1) or "") if m else 1.0


def _show(v: float) -> str:
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.6g}"


def agree(stated: float | None, parts: float | None, tolerance: float, what: str, line: int | None) -> None:
    """``stated`` (the file's total) and ``parts`` (what its parts give) agree within ``tolerance``
    (the printed precision of both); else a ParseError naming both numbers and ``line``. A value the
    file does not print (None) is not checked."""
    if stated is None or parts is None:
        return
    if abs(stated - parts) <= tolerance * (1 + 1e-9) + 1e-12 * max(1.0, abs(stated), abs(parts)):
        return  # (a float's own rounding aside: 1e-12 of the value)
    raise _refused(stated, parts, tolerance, what, line)


def _refused(stated: float, parts: float, tolerance: float, what: str, line: int | None) -> ParseError:
    return ParseError(
        f"{what}: the file states {_show(stated)} but its parts give {_show(parts)}, "
        + (f"more apart than its printed precision allows (±{_show(tolerance)})" if tolerance else "not equal")
        + ": a part is missing, repeated or edited",
        line,
    )


def equal(stated: float | None, parts: float | None, what: str, line: int | None) -> None:
    """Counts the file prints exactly (I/Os, bytes): they must be equal."""
    if stated is not None and parts is not None and stated != parts:
        raise _refused(stated, parts, 0.0, what, line)
