from __future__ import annotations

from pathlib import Path

import pytest

from ingest import batch, db

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
