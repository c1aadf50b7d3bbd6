"""What CONTRIBUTING.md promises a newcomer, done at test time: adding a format is three touches
(the module, a real file, its golden twin); nothing else in iolab has to learn the format's name."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

from iolab import batch, db, formats, registry
from tests import golden
from tests.conftest import q

MODULE = '''"""A tiny made-up format for this test: a banner, then `run,iops` rows."""
from ..model import ParseError, ParseResult, Run, parse_float

FORMAT = "tinybench"
VERSION = "1"
SNIFF_RULE = "the first line is 'TINYBENCH v1'"


def sniff(head: str, name: str) -> bool:
    return head.startswith("TINYBENCH v1")


def parse(data: bytes, name: str) -> ParseResult:
    lines = data.decode().splitlines()
    if lines[1:2] != ["run,iops"]:
        raise ParseError("the second line should be the header 'run,iops'", 2)
    res = ParseResult(tool_version="1")
    for n, line in enumerate(lines[2:], 3):
        key, iops = line.split(",")
        res.runs.append(Run(key=key, tool="TinyBench", workload="4 KiB random read"))
        res.add(key, "all", "iops", parse_float(iops, "iops", n), "IO/s", line_no=n)
    return res
'''


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """tinybench.py in a folder on the formats package's path, as if added to ingest/formats/."""
    folder = tmp_path / "more_formats"
    folder.mkdir()
    (folder / "tinybench.py").write_text(MODULE)
    monkeypatch.setattr(formats, "__path__", [*formats.__path__, str(folder)])
    registry.modules.cache_clear()
    importlib.invalidate_caches()
    yield
    sys.modules.pop("iolab.formats.tinybench", None)
    registry.modules.cache_clear()


def test_adding_a_format_is_three_touches(planted, tmp_path):
    # touch 1, the module: the registry finds it by itself, and `iolab detect` knows why it claims a file
    assert "tinybench" in [m.FORMAT for m in registry.modules()]
    # touch 2, a file of the format: ingested into the views with its provenance
    f = tmp_path / "data" / "s1" / "run.tiny"
    f.parent.mkdir(parents=True)
    f.write_text("TINYBENCH v1\nrun,iops\nr1,100\nr2,250.5\n")
    assert registry.claim(f.read_bytes(), f.name).module.FORMAT == "tinybench"
    con = db.open_db(tmp_path / "t.duckdb")
    (o,) = batch.ingest_paths(con, [tmp_path / "data"]).outcomes
    assert (o.status, o.format) == ("ingested", "tinybench")
    rows = q(con, "SELECT study, run_key, metric, value, unit, line_no FROM measurements ORDER BY run_key")
    assert rows == [("s1", "r1", "iops", 100.0, "IO/s", 3), ("s1", "r2", "iops", 250.5, "IO/s", 4)]
    con.close()
    # touch 3, its golden twin: what the file yields, written by the same code as `make golden`
    twin = golden.dump(f)
    assert (twin["file"]["format"], twin["file"]["outcome"]) == ("tinybench", "ingested")
    samples = [r if isinstance(r, dict) else json.loads(r) for r in twin["samples"]["rows"]]
    assert [r["value"] for r in samples] == [100.0, 250.5]


def test_a_planted_format_leaves_nothing_behind():
    """The fixture above really is temporary: the real registry has no tinybench."""
    assert "tinybench" not in [m.FORMAT for m in registry.modules()]
    assert not (Path(formats.__path__[0]) / "tinybench.py").exists()
