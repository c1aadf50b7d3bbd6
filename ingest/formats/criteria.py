"""QoS and sizing criteria as data: `criterion,tool,metric,comparator,threshold,unit,scope,source`.

The shape of docs/reference/criteria.csv. Users add their own file of the same shape. Rows land in
qos_criteria; no samples. Optional columns:

* `iolab_metric`: the canonical metric a criterion tests (a QoS bound, a sizing rule), or the one
  metric a correction (comparator `*`) applies to;
* `roles`: for a correction, the metric roles it applies to (metric_vocabulary.role, `;`-separated:
  `throughput`, `throughput; latency`), each checked against the vocabulary's roles;
* `units`: for a correction, the canonical units it is narrowed to (metric_vocabulary.unit,
  `;`-separated: `IO/s; MB/s` is storage throughput, not packets or transactions per second), each
  checked against the vocabulary's units.

Every row is scoped by its `tool` (as iolab records runs.tool, any case; `any` for every tool): a
criterion judges, and a sizing rule sizes, its tool's runs only (views qos_verdicts, sizing). A
correction states no roles and no metric: it applies to throughput (the documented default, view
metric_corrections, which the pages show), never to a count, a flag or a setting.
"""

from __future__ import annotations

from ..model import ParseError, ParseResult, csv_header, csv_records, parse_float
from ..vocabulary import METRICS, ROLES

UNITS = {m.unit for m in METRICS.values() if m.unit}

FORMAT = "criteria-csv"
VERSION = "2"  # 2: the roles and units columns (a correction's scope)
COLUMNS = ["criterion", "tool", "metric", "comparator", "threshold", "unit", "scope", "source"]
COMPARATORS = {"<=", "<", ">=", ">", "=", "*"}


SNIFF_RULE = "the CSV header's first 8 columns are the QoS-criteria columns"


def sniff(head: str, name: str) -> bool:
    return csv_header(head)[:8] == COLUMNS


def listed(text: str | None, known: set[str] | dict, what: str, line: int) -> str | None:
    """A `;`-separated cell (roles, units) as the vocabulary names them, `;`-joined in the file's order
    (None: empty); a name the vocabulary does not know is refused with the line."""
    said = [r.strip() for r in (text or "").split(";") if r.strip()]
    if what == "role":
        said = [r.lower() for r in said]
    for r in said:
        if r not in known:
            raise ParseError(f"{what} {r!r} is not one of the vocabulary's {what}s ({', '.join(sorted(known))})", line)
    return ";".join(dict.fromkeys(said)) or None


def parse(data: bytes, name: str) -> ParseResult:
    _, records = csv_records(data)
    out, seen = [], set()
    for ln, r in records:
        if r["comparator"] not in COMPARATORS:
            raise ParseError(f"comparator {r['comparator']!r} is not one of {sorted(COMPARATORS)}", ln)
        if r["criterion"] in seen:
            raise ParseError(f"criterion {r['criterion']!r} appears twice", ln)
        seen.add(r["criterion"])
        out.append(
            {
                "criterion": r["criterion"],
                "tool": r["tool"],
                "description": r["metric"],
                "comparator": r["comparator"],
                "threshold": parse_float(r["threshold"], "threshold", ln),
                "unit": r["unit"],
                "scope": r["scope"],
                "citation": r["source"],
                "iolab_metric": r.get("iolab_metric") or None,
                "roles": listed(r.get("roles"), ROLES, "role", ln),
                "units": listed(r.get("units"), UNITS, "unit", ln),
                "line_no": ln,
            }
        )
    if not out:
        raise ParseError("no criteria under the header")
    return ParseResult(tables={"qos_criteria": out})
