"""A file that loads "ok" with no numbers is a bug, in every format (issue 41, point 4).

Every corpus file and every hand-made fixture is parsed; one that is not refused must yield
numbers: samples or time-series points. A few formats hold their numbers by design in their own
tables only (a configuration, not a measurement; a matrix whose unit comes from its summary):
TABLE_ONLY names them and why, and they must still yield table rows.
"""

from __future__ import annotations

import pytest

from iolab import registry
from iolab.model import ParseError
from tests import golden

FIXTURES = golden.ROOT / "tests" / "fixtures"
FILES = golden.corpus_files() + sorted(p for p in FIXTURES.rglob("*") if p.is_file() and not p.name.startswith("."))

TABLE_ONLY = {
    "criteria-csv": "iolab's own QoS-criteria table (limits a study holds runs to), not a measurement: criteria",
    "storage-array-profile": "an array's configuration (drives, volumes, mappings), not a measurement: profile_* tables",
    "jetstress-config-xml": "a Jetstress test's settings and thresholds: jetstress_config/jetstress_thresholds",
    "orion-matrix-csv": "a _lat.csv matrix is kept as written (orion_matrix): its unit comes from the same test's "
    "summary, through the orion_latency_points view",
    "fio-log": "a clat histogram log (write_hist_log) is bins per interval in fio_hist_log, the fio follow-up "
    "of issue 41 decides whether they become series",
}


def _rows(table) -> int:
    return len(table) if hasattr(table, "__len__") else table.num_rows


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(golden.ROOT / "tests").as_posix())
def test_loaded_means_numbers(path):
    data = path.read_bytes()
    mods = registry.sniff(data[: registry.HEAD_BYTES], path.name)
    if len(mods) != 1:
        pytest.skip("no single parser claims it")
    try:
        res = registry.parse(mods[0], data, path.name)
        res.finish()
    except ParseError:
        return  # refused, with its reason: not an empty load
    fmt = mods[0].FORMAT
    points = 0 if res.points is None else _rows(res.points.collect() if hasattr(res.points, "collect") else res.points)
    if len(res.samples) or points:
        return
    assert fmt in TABLE_ONLY, f"{fmt} loads this file 'ok' with no samples and no time-series points"
    assert any(_rows(t) for t in res.tables.values()), f"{fmt}: not even a table row"
