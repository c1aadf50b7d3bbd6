"""Data roots with bounds, and a data root moved whole (issue 40).

No test walks a real system folder: the refusals are checked before any walk (the walk is made to
fail), and a system folder of our own is a temporary one patched into roots.SYSTEM."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from iolab import batch, cli, db, files, roots
from iolab.store import places
from tests.conftest import q
from tests.test_mirror import FILES, diff, fresh, snapshot


def _lab(root: Path) -> Path:
    """A lab of two studies: Iometer, fio JSON, an esxtop capture (time series), a sidecar."""
    for study, picked in (("s1", FILES[:2]), ("s2", FILES[2:4])):
        (root / study).mkdir(parents=True)
        for f in picked:
            shutil.copy2(f, root / study / f.name)
    (root / "s1" / "iolab.toml").write_text('system = "Acme X1"\n')
    return root


def _ingest_json(capsys, *args: str) -> tuple[int, dict]:
    code = cli.main(["ingest", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


# ---- a data root moved whole --------------------------------------------------------------------


@pytest.mark.parametrize("how", ["mv", "copied to another disk, then deleted"])
def test_a_data_root_moved_whole_is_one_root_that_moved(tmp_path, capsys, how):
    lab = _lab(tmp_path / "lab")
    dbf = str(tmp_path / "t.duckdb")
    assert _ingest_json(capsys, str(lab), "--db", dbf)[0] == 0
    lab2 = tmp_path / "lab2"
    if how == "mv":
        lab.rename(lab2)
    else:  # new inodes and change times: the bytes are compared by their sha256
        shutil.copytree(lab, lab2)
        shutil.rmtree(lab)
    code, out = _ingest_json(capsys, str(lab2), "--db", dbf)
    assert code == 0
    assert out["notes"] == [f"data root moved from {lab.resolve()} to {lab2.resolve()}"]
    assert {f["status"] for f in out["files"]} == {"unchanged"}  # nothing read again, nothing placed as a copy
    con = db.open_db(dbf)
    assert places.roots(con) == [str(lab2.resolve())]
    assert q(con, "SELECT DISTINCT split_part(path, '/', 1) FROM source_files") == [("lab2",)]
    assert q(con, "SELECT count(*) FROM study_copies") == [(0,)]
    assert q(con, "SELECT count(*) FROM source_history WHERE left_at IS NOT NULL") == [(0,)]
    assert diff(snapshot(con), fresh(lab2, tmp_path / "f.duckdb")) == []
    con.close()


def test_a_root_moved_with_the_folder_above_it(tmp_path):
    """The database mirrors lab/data; `mv lab lab2; iolab ingest lab2`: the root moved to lab2/data,
    and lab2 (the folder named) is the root in its stead, as for any folder holding a root."""
    data = _lab(tmp_path / "lab" / "data")
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    (tmp_path / "lab").rename(tmp_path / "lab2")
    new = (tmp_path / "lab2").resolve()
    rep = batch.ingest_paths(con, [new])
    assert rep.notes == [
        f"data root moved from {data.resolve()} to {new / 'data'}",
        f"{new} is now the data root in place of {new / 'data'}",
    ]
    assert places.roots(con) == [str(new)]
    assert diff(snapshot(con), fresh(new, tmp_path / "f.duckdb")) == []
    con.close()


@pytest.mark.parametrize("change", ["one file deleted", "one file edited"])
def test_a_root_found_in_part_is_not_a_move(tmp_path, change):
    """By the rules before moves: the new folder is a root of its own, its files known content in a
    new place; the old root's files stay until its folder is named, and naming both settles it."""
    lab = _lab(tmp_path / "lab")
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [lab])
    lab2 = tmp_path / "lab2"
    lab.rename(lab2)
    victim = lab2 / "s1" / FILES[0].name
    if change == "one file deleted":
        victim.unlink()
    else:
        victim.write_bytes(victim.read_bytes().replace(b"3364.250468", b"3364.250469", 1))
    rep = batch.ingest_paths(con, [lab2])
    old, new = lab.resolve(), lab2.resolve()
    assert rep.notes == [
        f"{old} is gone from disk and only 3 of its 4 files are under {new} at the same relative path with the "
        f"same bytes: not taken as a move. {new} is a data root of its own; the files of {old} stay in the analysis "
        f"until you name it (`iolab ingest {old} {new}` moves those found and takes the rest out)",
        f"{new} is a new data root; this database now mirrors 2 folders",
    ]
    assert {o.status for o in rep.outcomes} == {"placed"} | ({"ingested"} if "edited" in change else set())
    assert len(places.places_in_root(con, str(old))) == 4  # still in the analysis
    rep = batch.ingest_paths(con, [lab, lab2])
    assert [o.status for o in rep.outcomes if o.status != "unchanged"] == ["gone"] * 4
    assert rep.notes[-1] == f"{old} is gone from disk and nothing of it is in the analysis: no longer a data root"
    assert places.roots(con) == [str(new)]
    assert diff(snapshot(con), fresh(lab2, tmp_path / "f.duckdb")) == []
    con.close()


# ---- roots with bounds ------------------------------------------------------------------------


def _no_walk(monkeypatch):
    def walk(paths):
        raise AssertionError(f"walked {paths}")

    monkeypatch.setattr(files, "walk", walk)


@pytest.mark.parametrize("path", ["/", "/usr", "/usr/share/doc", "/etc", "/proc", "/sys/kernel", "/dev", "/lib"])
def test_system_folders_are_refused_before_any_walk(tmp_path, capsys, monkeypatch, path):
    if not os.path.isdir(path):
        pytest.skip(f"no {path} here")
    _no_walk(monkeypatch)
    dbf = tmp_path / "t.duckdb"
    assert cli.main(["ingest", path, "--db", str(dbf)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    if path == "/":  # the file system's top: wrong usage for every command, --allow-root or not (issue 53)
        assert err.startswith("Wrong usage: PATH / is the file system's top")
        assert cli.main(["ingest", path, "--db", str(dbf), "--allow-root"]) == 2
        return
    assert err.startswith(f"Not ingested: {Path(path).resolve()} ")
    if files.special_fs(Path(path)):  # never read, --allow-root or not
        assert "file system (the kernel's or a device's state, not results): never read" in err
        assert cli.main(["ingest", path, "--db", str(dbf), "--allow-root"]) == 2
    else:
        assert "name that folder, or add --allow-root if you mean it" in err
    assert not dbf.exists()


def test_the_home_folder_and_a_folder_holding_it_are_refused(tmp_path, capsys, monkeypatch):
    home = _lab(tmp_path / "users" / "me")
    monkeypatch.setenv("HOME", str(home))
    _no_walk(monkeypatch)
    for path, what in (
        (home, "your home folder itself"),
        (tmp_path / "users", f"a folder holding your home folder ({home})"),
    ):
        assert cli.main(["ingest", str(path), "--db", str(tmp_path / "t.duckdb")]) == 2
        assert f"{path} is {what}: a data root is the folder of your results" in " ".join(
            capsys.readouterr().err.split()
        )
    assert roots.refusal(home / "s1") is None  # a folder inside it is fine
    assert roots.refusal(home / "s1" / FILES[0].name) is None


def test_allow_root_lifts_the_refusal(tmp_path, capsys, monkeypatch):
    """A system folder of our own (patched in): refused, then ingested with --allow-root."""
    fake = _lab(tmp_path / "sysroot")
    monkeypatch.setattr(roots, "SYSTEM", (*roots.SYSTEM, str(fake.resolve())))
    dbf = str(tmp_path / "t.duckdb")
    assert cli.main(["ingest", str(fake / "s1"), "--db", dbf]) == 2
    assert f"is inside {fake.resolve()}, one of the system's folders" in " ".join(capsys.readouterr().err.split())
    assert cli.main(["ingest", str(fake), "--db", dbf, "--allow-root"]) == 0


@pytest.mark.skipif(not os.path.isfile("/proc/self/mountinfo"), reason="no /proc here")
def test_special_file_systems_are_never_read(tmp_path, monkeypatch):
    """/proc is known from the mount table (by device, whatever the path), and never walked; a file
    there is skipped with the reason, as a FIFO is."""
    assert files.special_fs(Path("/proc/self/status")) == "proc"
    assert files.special_fs(tmp_path) is None
    assert list(files.walk([Path("/proc")])) == [(Path("/proc"), Path("/proc"))]  # not one file below it
    con = db.open_db(tmp_path / "t.duckdb")
    (o,) = batch.ingest_paths(con, [Path("/proc/self/status")]).outcomes
    assert (o.status, o.reason) == (
        "skipped",
        "on a proc file system (the kernel's or a device's state, not results): never read",
    )
    assert q(con, "SELECT count(*) FROM source_history") == [(0,)]
    con.close()
    # a link to /proc inside a data folder: not walked, skipped with the reason
    lab = _lab(tmp_path / "lab")
    (lab / "s2" / "proc").symlink_to("/proc", target_is_directory=True)
    con = db.open_db(tmp_path / "t2.duckdb")
    out = {o.path: (o.status, o.reason) for o in batch.ingest_paths(con, [lab]).outcomes}
    assert len(out) == 5 and out[files.display_path(lab / "s2" / "proc")][0] == "skipped"
    con.close()
    (lab / "s2" / "proc").unlink()
    # a special file system mounted inside a data folder (a fake mount: the folder's device patched in)
    (lab / "s1" / "procfs").mkdir()
    (lab / "s1" / "procfs" / "kmsg").write_text("never read")
    mount = lab / "s1" / "procfs"
    monkeypatch.setattr(files, "special_fs", lambda p, st=None: "proc" if Path(p) == mount else None)
    walked = [f for _, f in files.walk([lab])]
    assert mount in walked and mount / "kmsg" not in walked


def test_a_walk_past_the_limit_asks_for_yes(tmp_path, capsys, monkeypatch):
    lab = _lab(tmp_path / "lab")
    for i in range(4):
        shutil.copy(FILES[1], lab / "s2" / f"more-{i}.json")
    dbf = tmp_path / "t.duckdb"
    monkeypatch.setenv("IOLAB_MAX_FILES", "5")
    assert cli.main(["ingest", str(lab), "--db", str(dbf)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert (
        f"these folders hold more than 5 files (of the first 6: 4 in {lab / 's2'}, 2 in {lab / 's1'}); nothing was read"
        in err
    )
    assert "Name the folder of your results instead, or run again with --yes" in err
    assert not dbf.exists()  # stopped before the first write
    assert cli.main(["ingest", str(lab), "--db", str(dbf), "--yes"]) == 0
    monkeypatch.setenv("IOLAB_MAX_FILES", "many")
    assert cli.main(["ingest", str(lab), "--db", str(dbf)]) == 2
    assert "IOLAB_MAX_FILES is 'many': it must be a whole number of files" in capsys.readouterr().err
