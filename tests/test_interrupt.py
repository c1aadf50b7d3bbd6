"""Ctrl-C stops an ingest with exit 130 and leaves only whole files: a library that turns the
KeyboardInterrupt into its own error (DuckDB interrupts its query) must not make the batch retry,
blame a good file, and run on to the end."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import pytest

from iolab import db
from tests.conftest import ROOT

TEXT = (".csv", ".txt", ".log", ".out", ".tsv", ".xml", ".json", ".html")


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """Three distinct copies of the real corpus (a trailing newline or two makes new bytes): enough
    files for the parse workers, and an ingest long enough to interrupt."""
    root = tmp_path_factory.mktemp("many")
    for i in range(3):
        shutil.copytree(ROOT / "tests" / "corpus", root / f"c{i}")
        if i:
            for f in (root / f"c{i}").rglob("*"):
                if f.is_file() and f.suffix.lower() in (".csv", ".txt"):
                    with f.open("ab") as out:
                        out.write(b"\n" * i)
    return root


def counts(path) -> tuple[int, int, int]:
    con = db.connect(path, read_only=True)
    try:
        return con.execute("""SELECT (SELECT count(*) FROM source_files WHERE status = 'ok'),
                                     (SELECT count(*) FROM source_files WHERE status <> 'ok'),
                                     (SELECT count(*) FROM measurements)""").fetchone()
    finally:
        con.close()


def ingest(folder, dbf, after: int | None = None) -> tuple[int, str, str]:
    """`iolab ingest` in its own process; ``after``: Ctrl-C (SIGINT to the process group, as a
    terminal sends it) once that many files were reported."""
    p = subprocess.Popen(
        [sys.executable, "-m", "iolab", "ingest", str(folder), "--db", str(dbf)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "IOLAB_PARSE_WORKERS": "2"},
    )
    lines = []
    if after is not None:
        while len(lines) < after and (line := p.stdout.readline()):
            lines.append(line)
        os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    return p.returncode, "".join(lines) + out, err


@pytest.fixture(scope="module")
def uninterrupted(many, tmp_path_factory) -> tuple[int, tuple[int, int, int]]:
    """One ingest of ``many`` run to its end: its exit code and what it stores (the same for every case)."""
    reference = tmp_path_factory.mktemp("all") / "all.duckdb"
    code, _, _ = ingest(many, reference)
    return code, counts(reference)


@pytest.mark.slow
@pytest.mark.parametrize("after", [3, 40, 120])
def test_ctrl_c_stops_with_130_and_only_whole_files_stay(many, uninterrupted, tmp_path, after):
    full_code, want = uninterrupted
    dbf = tmp_path / "stopped.duckdb"
    code, out, err = ingest(many, dbf, after)
    assert code == 130, (out[-2000:], err[-2000:])
    assert "Stopped (Ctrl-C)" in err and "Traceback" not in err
    assert "internal error" not in out and "Interrupt" not in out  # no file blamed for the interrupt
    ok, bad, _ = counts(dbf)
    assert ok + bad < want[0] + want[1]  # it stopped, it did not run on to the end
    # what stayed is whole: ingesting again completes to exactly what one uninterrupted ingest stores
    again, _, _ = ingest(many, dbf)
    assert again == full_code and counts(dbf) == want
