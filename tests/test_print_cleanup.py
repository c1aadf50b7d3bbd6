"""A failed print says so and removes what is stale; a render stopped by SIGTERM leaves no temporary
snapshot or PDF part behind, and one killed by SIGKILL has its leftovers removed by the next render
(iolab.reports.scratch), never those of a render still running."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from iolab import cli
from iolab.reports import check, pdf, render, scratch
from tests.conftest import ROOT

SAMPLE = "iomark-vm-hp4335-2014"


class NoKernel:
    """kernels.Pages without a kernel: the pages here are made by the test's execute_page."""

    def execute(self, nb: object) -> None:
        pass

    def __enter__(self) -> NoKernel:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


@pytest.fixture(scope="module")
def dbf(tmp_path_factory):
    root = tmp_path_factory.mktemp("print")
    shutil.copytree(ROOT / "data" / "samples" / SAMPLE, root / SAMPLE)
    f = root / "x.duckdb"
    assert cli.main(["ingest", "-q", str(root / SAMPLE), "--db", str(f)]) == 0
    return f


def dead_pid() -> int:
    """The id of a process that has ended."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_sweep_removes_what_a_killed_render_left_and_nothing_of_a_running_one(tmp_path):
    gone = tmp_path / f"iolab-report-{dead_pid()}.12345-abc"
    running = tmp_path / f"iolab-pdf-{os.getpid()}.{scratch.started()}-def"
    reused = tmp_path / f"iolab-pdf-{os.getpid()}.1-ghi"  # this process id, but another process's start
    unknown = tmp_path / "iolab-report-abc"  # not named by this iolab: its owner is unknown, left alone
    sockets = tmp_path / f"iolab-kernel-{dead_pid()}.12345-jkl"  # a killed render's kernel sockets
    for d in (gone, running, reused, unknown, sockets):
        d.mkdir()
        (d / "snapshot.duckdb").write_bytes(b"x")
    assert scratch.sweep(tmp_path) == sorted([gone, reused, sockets])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([running.name, unknown.name])


def test_a_render_folder_is_named_for_its_process(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with scratch.folder("report") as name:
        assert Path(name).name.startswith(f"iolab-report-{os.getpid()}.{scratch.started()}-")
        assert scratch.sweep(tmp_path) == [] and Path(name).is_dir()
    assert list(tmp_path.iterdir()) == []


def test_a_kernel_s_sockets_are_in_a_folder_named_for_its_render(tmp_path, monkeypatch):
    from iolab.reports import kernels

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    pages = kernels.Pages()
    (folder,) = tmp_path.iterdir()
    assert folder.name.startswith(f"iolab-kernel-{os.getpid()}.{scratch.started()}-")
    assert scratch.sweep(tmp_path) == []  # its render still runs
    pages.sockets.cleanup()
    assert list(tmp_path.iterdir()) == []


def test_a_failed_print_removes_the_old_edition_and_the_index_no_longer_links_it(dbf, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(render, "execute_page", lambda snap, study, nb, pages: f"<p>{nb}</p>")
    monkeypatch.setattr(render, "validate", lambda snap, studies: {s: "" for s in studies})
    monkeypatch.setattr(render.kernels, "Pages", NoKernel)
    out = tmp_path / "out"
    old = out / SAMPLE / f"{SAMPLE}.pdf"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"%PDF- the edition of the data as it was")

    def broken(db, ed, target):
        raise pdf.PrintFailed("Chromium printed no PDF of page-01-overview.html: crashed")

    monkeypatch.setattr(pdf, "edition", broken)
    heard = []
    code = render.render(dbf, out, pdf=True, on_page=lambda s, nb, what: heard.append((nb, what)))
    assert code == 1 and not old.exists()
    assert ".pdf" not in (out / "index.html").read_text()
    (what,) = [w for nb, w in heard if nb == "print edition"]
    assert what.startswith("failed: Chromium printed no PDF") and "the old print edition was removed" in what
    said = " ".join(capsys.readouterr().out.split())
    assert f"print edition of {SAMPLE} removed: it could not be printed again" in said


@pytest.mark.skipif(check.chromium() is None, reason="no chromium (make check-reports installs it)")
def test_sigterm_during_a_pdf_print_leaves_nothing_behind(dbf, tmp_path):
    # the render's temporary folder: only this test's files are there (a short path: Chromium puts a
    # socket there, and a socket's path has at most 107 bytes)
    tmp = Path(tempfile.mkdtemp(prefix="iolab-test-"))
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT), "IOLAB_REPORT_WORKERS": "1"}
    args = [sys.executable, "-m", "iolab", "report", "--db", str(dbf), "--out", str(tmp_path / "out")]
    proc = subprocess.Popen([*args, "--format", "pdf"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        # wait (as long as it takes) until it prints: a snapshot and the edition's parts exist
        while proc.poll() is None and not list(tmp.glob("iolab-pdf-*/*.pdf")):
            time.sleep(0.1)
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        assert list(tmp.glob("iolab-report-*/snapshot.duckdb"))
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    left = [p.name for p in tmp.iterdir()]
    shutil.rmtree(tmp)
    assert proc.returncode == 128 + signal.SIGTERM, out.decode()
    assert [name for name in left if name.startswith("iolab-")] == []
    assert not list((tmp_path / "out").rglob("*.pdf"))  # no edition, and no part of one


def test_sweep_removes_an_older_iolabs_folders_once_a_day_old(tmp_path):
    """Before folders named their owner, a render's was iolab-report-<8 random characters>: a
    killed render of that iolab left it for good. It cannot be known to be unused, so the rule is
    its age: a day old, no render still holds it."""
    old, fresh = tmp_path / "iolab-report-qvup7cfy", tmp_path / "iolab-pdf-ab_c1234"
    for d in (old, fresh):
        d.mkdir()
        (d / "snapshot.duckdb").write_bytes(b"x")
    day_ago = time.time() - scratch.OLD_AFTER_S - 60
    os.utime(old, (day_ago, day_ago))
    assert scratch.sweep(tmp_path) == [old]
    assert [p.name for p in tmp_path.iterdir()] == [fresh.name]
