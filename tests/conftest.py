from __future__ import annotations

import sys
from pathlib import Path

import pytest

# A pytest-xdist worker's __main__ has neither a spec nor a file: pyspark.sql.connect takes that for a
# doctest run and exits 0 when imported (Great Expectations imports it), ending the worker's test. The
# worker's main module is execnet's; naming it so is true, and pyspark then imports as everywhere.
if getattr(sys.modules["__main__"], "__spec__", None) is None and not hasattr(sys.modules["__main__"], "__file__"):
    sys.modules["__main__"].__file__ = "<pytest-xdist worker>"

from iolab import batch, db

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"  # real files from the wild, provenance in MANIFEST.tsv
REFERENCE = ROOT / "docs" / "reference"  # published figures of the bundled studies
FIXTURES = ROOT / "tests" / "fixtures"


def corpus(rel: str) -> Path:
    p = CORPUS / rel
    if not p.exists():
        pytest.fail(f"corpus file missing: {p} (see tests/corpus/MANIFEST.tsv)")
    return p


@pytest.fixture(autouse=True, scope="session")
def _own_cache(tmp_path_factory):
    """The tests' template database lives in their own cache folder, not the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("IOLAB_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()


@pytest.fixture
def con(tmp_path):
    c = db.open_db(tmp_path / "t.duckdb")
    yield c
    c.close()


def ingest(con, *paths: Path) -> batch.Report:
    return batch.ingest_paths(con, [Path(p) for p in paths])


def q(con, sql: str, params=None):
    return con.execute(sql, params or []).fetchall()


def rendered_page(dbf: Path, out: Path, study: str, page: str) -> str:
    """Render ``study``'s pages from the database ``dbf`` into ``out``: the HTML of ``page``
    (e.g. 05-comparison.html), whose charts the chart oracle found true to the views."""
    from iolab.reports import oracle, render

    assert render.render(dbf, out, [study]) == 0
    path = next(out.glob(f"*/{page}"))
    ro = db.connect(dbf, read_only=True)
    try:
        assert oracle.check_page(path, ro) == []
    finally:
        ro.close()
    return path.read_text()


def set_fio_iops(direction: dict, iops: float) -> None:
    """A fio JSON direction given ``iops`` (a hand-made change of a real file), with the I/O count fio
    would have counted for it: fio writes `iops` as `1000 x total_ios / runtime`, and the parser checks it."""
    direction["iops"] = iops
    direction["total_ios"] = iops * direction["runtime"] / 1000


def fio_rates(direction: dict) -> None:
    """A fio JSON direction's rates from its counts, as fio writes them (`iops` = 1000 x total_ios /
    runtime, `bw` = bytes a second in KiB, `io_kbytes` its bytes in KiB): a direction whose counts were
    changed by hand that the parser's self-check accepts. A direction that did not run is left alone."""
    ms = direction.get("runtime")
    if ms:
        direction["io_kbytes"] = direction["io_bytes"] // 1024
        direction["iops"] = round(direction["total_ios"] * 1000 / ms, 6)
        direction["bw"] = (1000 * direction["io_bytes"] // ms) // 1024
