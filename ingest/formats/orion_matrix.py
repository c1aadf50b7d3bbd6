"""Oracle ORION result matrices `<test>_<date>_iops.csv`, `_mbps.csv`, `_lat.csv`.

See docs/formats/iometer-orion.md section 2.2. Corner cell `Large/Small`, header = small-I/O
outstanding counts, first field of each row = large-I/O outstanding count; fixed-width padding;
ragged rows (a point that was not run is absent, never zero).

The three files look alike, so the file name's suffix says which metric a file holds (the one
place iolab reads a name). Latency: the file carries no unit (ms in 10.2/11.1, us from 12c on),
so latency points are kept as written in orion_matrix and reach `measurements` through the
orion_latency_points view, which takes the unit from the same test's summary (or a sidecar
`orion_version`). IOPS and MBPS points are samples right away.
"""

from __future__ import annotations

import re

from ..model import ParseError, ParseResult, Run, decode_text, parse_float, parse_int, split_lines
from ._rows import Rows

FORMAT = "orion-matrix-csv"
VERSION = "1"
_NAME = re.compile(
    r"(?:.*__)?(?P<group>(?P<test>.+?)(?:_(?P<date>\d{8}_\d{3,4}))?)_(?P<kind>iops|mbps|lat)\.csv$", re.I
)
KINDS = {"iops": ("small_iops", "IO/s"), "mbps": ("large_mbps", "MB/s")}


SNIFF_RULE = "the first cell is 'Large/Small,'"


def sniff(head: str, name: str) -> bool:
    return head.lstrip("\ufeff").startswith("Large/Small,")


def test_key(name: str) -> tuple[str, str, str | None, str]:
    """(group, testname, date, kind) from `<test>_<date>_<kind>.csv` (a `origin__` prefix is dropped)."""
    m = _NAME.match(name)
    if not m:
        raise ParseError(
            f"cannot tell which ORION matrix this is: the name {name!r} should end in "
            "_iops.csv, _mbps.csv or _lat.csv as ORION writes it (rename it back)"
        )
    return m.group("group"), m.group("test"), m.group("date"), m.group("kind").lower()


def parse(data: bytes, name: str) -> ParseResult:
    group, test, date, kind = test_key(name)
    lines = split_lines(decode_text(data))
    top = next((i for i, line in enumerate(lines) if line.strip()), 0)  # blank lines before it are no damage
    header = lines[top].split(",") if lines else [""]
    if header[0].strip() != "Large/Small":
        raise ParseError("an ORION matrix starts with 'Large/Small,'", top + 1)
    small = [parse_int(c, "small outstanding I/Os", top + 1) for c in header[1:]]
    if None in small or len(set(small)) != len(small):
        raise ParseError("header must list distinct small outstanding-I/O counts", top + 1)
    res = ParseResult()
    res.runs.append(
        Run(key=group, tool="Orion", workload=test, test_type=f"matrix:{kind}", status="complete", group=group)
    )
    points, seen = Rows(), set()  # orion_matrix rows, packed past a chunk (formats/_rows.py)
    for i, line in enumerate(lines[top + 1 :], start=top + 2):
        if not line.strip():
            continue
        cells = line.split(",")
        large = parse_int(cells[0], "large outstanding I/Os", i)
        if large is None:
            raise ParseError("row has no large outstanding-I/O label", i)
        if large in seen:
            raise ParseError(f"row Large={large} appears twice", i)
        seen.add(large)
        values = cells[1:]
        if values and values[-1].strip() == "" and len(values) > len(small):
            values = values[:-1]
        if len(values) > len(small):
            raise ParseError(f"row Large={large} has {len(values)} values but the header has {len(small)} columns", i)
        for s, text in zip(small, values):
            v = parse_float(text, f"value at Small={s}, Large={large}", i)
            if v is None:
                continue
            if v < 0:
                raise ParseError(f"negative value {v} at Small={s}, Large={large}", i)
            points.append(
                {
                    "run_group": group,
                    "testname": test,
                    "test_date": date,
                    "kind": kind,
                    "small_oio": s,
                    "large_oio": large,
                    "value_as_written": v,
                    "line_no": i,
                }
            )
            if kind in KINDS:
                metric, unit = KINDS[kind]
                res.add(group, "point", metric, v, unit, small_oio=s, large_oio=large, line_no=i)
    if not len(points):
        raise ParseError("the matrix has no data points")
    res.tables["orion_matrix"] = points.table()
    return res
