"""`iolab watch DIR` (iolab.watch): the database stays equal to its folder as files land, change and
leave. The rules are tested alone (when a change has settled, which paths one ingest takes, which
changes are none of the data's, when reports render again); then the command itself, under the
real file watcher, is driven through drops, a file written slowly, an edit, a sidecar edit, a
deletion and a burst of 2,000 files, and stopped with Ctrl-C: its database then holds what a fresh
ingest of the folder holds (tests/test_mirror.py's comparison)."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from iolab import db, watch
from tests.test_mirror import FILES, diff, fresh, snapshot

# ---- the rules -------------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_change_settles_once_quiet_with_the_same_size_and_time(tmp_path):
    f = tmp_path / "run.json"
    f.write_text("{")
    clock = Clock()
    changes = watch.Changes(clock=clock)
    changes.note(f)
    clock.now += 0.5
    assert changes.settled(1.0)[:2] == ([], {f})  # too recent
    with f.open("a") as out:  # written again with no event (a network share): its size says so
        out.write('"a": 1}')
    clock.now += 1.0
    assert changes.settled(1.0)[:2] == ([], {f})  # quiet long enough, but not the size it had
    clock.now += 1.0
    ready, waiting, first = changes.settled(1.0)
    assert (ready, waiting, first) == ([f], set(), 100.0)  # its first change's time: the latency said
    assert changes.settled(1.0)[:2] == ([], set())  # taken once


def test_one_ingest_takes_each_changed_folder_once_and_never_a_file_being_written(tmp_path):
    s1, s2 = tmp_path / "s1", tmp_path / "s1" / "deep"
    s2.mkdir(parents=True)
    a, b, c = s1 / "a.csv", s2 / "b.csv", s1 / "c.csv"
    for f in (a, b, c):
        f.write_text("x")
    gone = tmp_path / "s3" / "old.csv"
    # a file of s1 and one of a folder inside it: s1 once; a file gone: itself
    assert watch.targets([a, b, gone], set()) == [s1, gone]
    # a sidecar (present or deleted) stands for every file it labels: its folder
    assert watch.targets([s2 / "iolab.toml"], set()) == [s2]
    # s1 holds c, still being written: s1's files are taken one by one, without c
    assert watch.targets([a, b], {c}) == [a, b]
    # a deletion inside a folder taken whole is that folder's
    assert watch.targets([a, s1 / "removed.csv"], set()) == [s1]
    # a folder itself still changing (just made: its own event) holds none of its files up
    assert watch.targets([a, b], {s2}) == [s1]
    assert watch.targets([b], {s2, c}) == [s2]


def test_changes_of_the_database_hidden_files_and_report_folders_are_none_of_the_data(tmp_path):
    skip = watch.ignored(tmp_path, [tmp_path.parent / "reports", tmp_path / "t.duckdb.points"])
    assert not skip(tmp_path / "s1" / "run.csv")
    assert not skip(tmp_path / "s1" / "iolab.toml")
    for p in (
        tmp_path / "t.duckdb",
        tmp_path / "t.duckdb.wal",
        tmp_path / "t.duckdb.points" / "3.parquet",
        tmp_path / ".git" / "x",
        tmp_path / "s1" / ".run.csv.swp",
        tmp_path.parent / "reports" / "index.html",
        tmp_path.parent / "elsewhere.csv",
    ):
        assert skip(p), p


def test_reports_render_again_after_a_change_once_at_a_time(tmp_path):
    said: list[str] = []
    renders = watch.Renders(tmp_path / "t.duckdb", [tmp_path / "out"], said.append, tmp_path / "log")
    started: list[list[str]] = []

    class Proc:
        def __init__(self, cmd, **_):
            started.append(cmd)
            self.returncode = None

        def poll(self):
            return self.returncode

    real = watch.subprocess.Popen
    watch.subprocess.Popen = Proc  # type: ignore[misc]
    try:
        renders.poll()
        assert started == []  # nothing changed: nothing rendered
        renders.want()
        renders.poll()
        assert started[0][-5:] == ["report", "--db", str(tmp_path / "t.duckdb"), "--out", str(tmp_path / "out")]
        renders.want()  # changed again while it renders: once more, after it
        renders.poll()
        assert len(started) == 1
        renders.running[1].returncode = 0  # type: ignore[index]
        (tmp_path / "log").write_text("3 reports for 1 studies -> out/index.html\n")
        renders.poll()
        assert len(started) == 2 and said == [f"report {tmp_path / 'out'}: 3 reports for 1 studies -> out/index.html"]
    finally:
        watch.subprocess.Popen = real  # type: ignore[misc]


# ---- the command -----------------------------------------------------------------------------------


class Watching:
    """`iolab watch` in a process of its own, its lines read as they come."""

    def __init__(self, data: Path, dbf: Path, *args: str) -> None:
        cmd = [sys.executable, "-m", "iolab", "watch", str(data), "--db", str(dbf), "--quiet", "0.4", *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def next_ingest(self, wait: float = 600) -> str:
        """The next line saying what an ingest did (waits for it: the watcher runs on its own clock)."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                assert self.proc.poll() is None, f"watch ended: {self.seen}"
                continue
            self.seen.append(line)
            if line[:2].isdigit() and line[2] == ":":  # "12:00:01 1 ingested (0.6 s after the change)"
                return line
        raise AssertionError(f"no ingest within {wait} s: {self.seen}")

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=60)
        time.sleep(0.2)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code


def test_watch_keeps_the_database_equal_to_its_folder(tmp_path):
    data, dbf = tmp_path / "data", tmp_path / "t.duckdb"
    s1 = data / "s1"
    s1.mkdir(parents=True)
    (s1 / "iolab.toml").write_text('system = "Acme X1"\n')
    shutil.copy(FILES[0], s1 / "a.csv")
    w = Watching(data, dbf)
    try:
        assert "1 ingested" in w.next_ingest()  # what the folder held when it started
        con = db.connect(dbf, read_only=True)  # between ingests the database is free to read
        con.close()

        shutil.copy(FILES[1], s1 / "dropped.json")  # a file dropped in
        assert "1 ingested" in w.next_ingest()

        slow = s1 / "slow.json"  # written in parts over 1.5 s: waited for, read once whole
        content = FILES[2].read_bytes()
        with slow.open("wb") as out:
            for i in range(6):
                out.write(content[i * len(content) // 6 : (i + 1) * len(content) // 6])
                out.flush()
                time.sleep(0.25)
            out.write(content[6 * len(content) // 6 :])
        assert "1 ingested" in w.next_ingest()

        (s1 / "dropped.json").write_bytes(FILES[2].read_bytes().replace(b"randread", b"randreaD", 1))  # edited
        assert "1 ingested" in w.next_ingest()
        (s1 / "iolab.toml").write_text('system = "Zeta Z9"\n')  # the sidecar: its files relabelled
        assert "relabelled" in w.next_ingest()
        (s1 / "a.csv").unlink()  # deleted
        assert "1 gone" in w.next_ingest()

        burst = data / "burst"  # 2,000 files at once: an ingest or a few, not one per file
        burst.mkdir()
        for i in range(2000):
            shutil.copy(FILES[1], burst / f"copy-{i:04}.json")
        counted = 0
        while counted < 2000:
            line = w.next_ingest()
            counted += sum(int(n.replace(",", "")) for n, kind in _counts(line) if kind in ("ingested", "placed"))
        assert len([s for s in w.seen if s[:2].isdigit()]) <= 12, w.seen  # 7 before the burst
    finally:
        code = w.stop()
    assert code == 130, w.seen
    assert any(line.startswith("stopped:") for line in w.seen)
    assert not any("rejected" in line or "Traceback" in line for line in w.seen), w.seen
    con = db.connect(dbf, read_only=True)
    try:
        kept = snapshot(con)
    finally:
        con.close()
    assert diff(kept, fresh(data, tmp_path / "fresh.duckdb")) == []


def _counts(line: str) -> list[tuple[str, str]]:
    """("3", "ingested"), ... of an ingest's line."""
    return re.findall(r"(\d[\d,]*) (\w+)", line.split(" ", 1)[1].split(" (")[0])


def test_watch_refuses_what_it_cannot_watch(tmp_path):
    from iolab import cli

    assert cli.main(["watch", str(tmp_path / "nothing"), "--db", str(tmp_path / "t.duckdb")]) == 2
    (tmp_path / "data").mkdir()
    out = tmp_path / "data" / "reports"
    assert cli.main(["watch", str(tmp_path / "data"), "--db", str(tmp_path / "t.duckdb"), "--report", str(out)]) == 2
    assert not (tmp_path / "t.duckdb").exists()


@pytest.mark.skipif(not os.path.exists("/proc/sys/fs/inotify"), reason="no inotify")
def test_polling_watches_the_same(tmp_path):
    data, dbf = tmp_path / "data", tmp_path / "t.duckdb"
    (data / "s1").mkdir(parents=True)
    w = Watching(data, dbf, "--poll")
    try:
        w.next_ingest()
        shutil.copy(FILES[1], data / "s1" / "dropped.json")
        assert "1 ingested" in w.next_ingest()
    finally:
        assert w.stop() == 130
    assert any("polling (--poll)" in line for line in w.seen)


def test_doctor_says_whether_inotify_has_watches_enough(tmp_path):
    from iolab.cli import doctor

    limit = tmp_path / "max_user_watches"
    limit.write_text("524288\n")
    assert doctor.inotify(limit).found == "524,288 watches (fs.inotify.max_user_watches)"
    limit.write_text("8192\n")
    low = doctor.inotify(limit)
    assert low.found is None and "sysctl -w fs.inotify.max_user_watches=524288 (now 8,192" in low.fix
    assert "lists the folder every second" in doctor.inotify(tmp_path / "none").fix and not low.required
    assert any(c.item == "watchdog" for c in doctor.checks())
