"""QoS and sizing criteria as data: `criterion,tool,metric,comparator,threshold,unit,scope,source`.

The shape of docs/reference/criteria.csv. Users add their own file of the same shape (an
optional `iolab_metric` column names the canonical metric a criterion tests; without it the
qos_verdicts view maps the known criterion ids). Rows land in qos_criteria; no samples.
"""

from __future__ import annotations

from ..model import ParseError, ParseResult, csv_header, csv_records, parse_float

FORMAT = "criteria-csv"
VERSION = "1"
COLUMNS = ["criterion", "tool", "metric", "comparator", "threshold", "unit", "scope", "source"]
COMPARATORS = {"<=", "<", ">=", ">", "=", "*"}


SNIFF_RULE = "the CSV header's first 8 columns are the QoS-criteria columns"


def sniff(head: str, name: str) -> bool:
    return csv_header(head)[:8] == COLUMNS


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
                "line_no": ln,
            }
        )
    if not out:
        raise ParseError("no criteria under the header")
    return ParseResult(tables={"qos_criteria": out})
