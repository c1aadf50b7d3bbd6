"""An ingest plans, then applies (ingest/plan.py, batch.apply): the plan is decided from the folder and
the store's index without a database; `iolab ingest --dry-run` prints it and changes nothing; the
application does what the plan says, file by file; a plan made right after its application is empty."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iolab import batch, cli, db, files, plan
from iolab.plan import Action
from iolab.store import ids, index, places
from tests.conftest import corpus

A = corpus("iometer/adisireesha__results.csv")
B = corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-8-1.json")
C = corpus("diskspd-text/microsoft__VirtualClient__v2.2.0_singlegroup.txt")


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _known(data: Path, rel: str, *, sha: str | None = None, labels: dict | None = None, same_stamp=True, status="ok"):
    """The index's record of the place ``data/rel`` as an ingest would have stored it (no database)."""
    p = data / rel
    abs_path = places.text(places.canonical(p))
    stamp = files.stamp(p) if same_stamp and p.exists() else (1, 2, 3, 4)
    sha = sha or _sha(p)
    k = places.Known(
        ids.place_id(abs_path, sha), status, f"{data.name}/{rel}", stamp, places.labels_json(labels or {}), [], sha
    )
    return abs_path, k


def _plan(data: Path, *known, roots=None, **kw) -> plan.Plan:
    idx = index.Index(roots if roots is not None else [places.text(places.canonical(data))], dict(known))
    return plan.make([data], list(files.walk([data])), idx, **kw)


def _actions(p: plan.Plan) -> dict[str, tuple[str, str | None]]:
    return {Path(s.path).name: (str(s.action), s.reason) for s in p.steps}


def _folder(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "s1").mkdir(parents=True)
    (data / "s1" / "iolab.toml").write_text('system = "Acme X1"\n')
    shutil.copy(A, data / "s1" / "a.csv")
    return data


# ---- the planner, without a database --------------------------------------------------------------


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    """Paths are shown relative to the current folder: the tests' own."""
    monkeypatch.chdir(tmp_path)


def test_an_empty_index_plans_every_file_new_with_its_labels_and_the_folder_a_root(tmp_path):
    data = _folder(tmp_path)
    shutil.copy(A, data / "s1" / "copy.csv")
    (data / "s1" / "junk.txt").write_text("nothing iolab reads\n")
    p = _plan(data, roots=[])
    got = _actions(p)
    assert got["a.csv"] == ("new", None)
    assert got["copy.csv"] == ("copy", "same content as data/s1/a.csv, new in this ingest")
    assert got["junk.txt"][0] == "refused" and "no iolab parser recognises" in (got["junk.txt"][1] or "")
    assert p.steps[0].labels == {"study": "s1", "system": "Acme X1"}
    assert p.added == [places.canonical(data)] and p.dropped == [] and not p.empty()


def test_stamp_and_labels_as_stored_is_unchanged_and_the_plan_is_empty(tmp_path):
    data = _folder(tmp_path)
    p = _plan(data, _known(data, "s1/a.csv", labels={"study": "s1", "system": "Acme X1"}))
    assert _actions(p) == {"a.csv": ("unchanged", None)}
    assert p.empty()
    assert p.steps[0].file is not None and p.steps[0].file.sha == ""  # not even hashed


def test_the_same_bytes_with_new_times_are_unchanged_but_their_stamp_is_written(tmp_path):
    data = _folder(tmp_path)
    p = _plan(data, _known(data, "s1/a.csv", labels={"study": "s1", "system": "Acme X1"}, same_stamp=False))
    assert _actions(p) == {"a.csv": ("unchanged", "the same bytes with new times")}
    assert not p.empty() and p.steps[0].restamp


def test_other_labels_relabel_other_bytes_change(tmp_path):
    data = _folder(tmp_path)
    shutil.copy(B, data / "s1" / "b.json")
    p = _plan(
        data,
        _known(data, "s1/a.csv", labels={"study": "s1", "system": "Zeta Z9"}),
        _known(data, "s1/b.json", labels={"study": "s1", "system": "Acme X1"}, sha="0" * 64, same_stamp=False),
    )
    assert _actions(p) == {"a.csv": ("relabelled", None), "b.json": ("changed", None)}
    assert p.steps[1].file is not None and p.steps[1].file.replaces is not None


def test_bytes_of_a_place_gone_from_disk_moved_another_place_gone_is_removed(tmp_path):
    data = _folder(tmp_path)
    gone_b = _known(data, "s1/old-b.json", sha=_sha(B), same_stamp=False)
    gone_c = _known(data, "s1/old-c.txt", sha=_sha(C), same_stamp=False)
    shutil.copy(B, data / "s1" / "b.json")
    p = _plan(data, gone_b, gone_c)
    assert _actions(p) == {
        "a.csv": ("new", None),
        "b.json": ("moved", "moved from data/s1/old-b.json"),
        "old-c.txt": ("removed", "no longer on disk: it leaves the analysis"),
    }
    assert set(p.missing) == {gone_b[0], gone_c[0]}  # the application retires what it does not find moved


def test_bytes_another_place_holds_are_a_copy(tmp_path):
    data = _folder(tmp_path)
    (data / "s2").mkdir()
    shutil.copy(A, data / "s2" / "a.csv")
    p = _plan(data, _known(data, "s1/a.csv", labels={"study": "s1", "system": "Acme X1"}))
    assert [(s.path, s.action, s.reason) for s in p.steps] == [
        ("data/s1/a.csv", Action.UNCHANGED, None),
        ("data/s2/a.csv", Action.COPY, "same content as data/s1/a.csv"),
    ]


def test_a_broken_sidecar_refuses_its_files_and_their_places_leave(tmp_path):
    data = _folder(tmp_path)
    known = _known(data, "s1/a.csv", labels={"study": "s1", "system": "Acme X1"})
    (data / "s1" / "iolab.toml").write_text('sytem = "typo"\n')
    (step,) = _plan(data, known).steps
    assert step.action == Action.REFUSED and "its sidecar is broken" in (step.reason or "")
    assert step.retire == known[1].source_id and step.changes


def test_a_folder_above_a_root_takes_its_place(tmp_path):
    data = _folder(tmp_path)
    p = _plan(data, roots=[places.text(places.canonical(data / "s1"))])
    assert p.added == [places.canonical(data)] and p.dropped == [places.canonical(data / "s1")]
    assert p.notes == [f"{places.canonical(data)} is now the data root in place of {places.canonical(data / 's1')}"]


def test_a_root_moved_whole_is_planned_against_the_index_and_nothing_is_read_again(tmp_path):
    old = tmp_path / "lab"
    data = _folder(tmp_path)
    abs_path, k = _known(data, "s1/a.csv", labels={"study": "s1", "system": "Acme X1"})
    old_abs = places.text(places.canonical(old) / "s1" / "a.csv")
    k.path = "lab/s1/a.csv"
    p = _plan(data, (old_abs, k), roots=[places.text(places.canonical(old))])
    assert [(m.old, m.new) for m in p.moves] == [(places.canonical(old), places.canonical(data))]
    assert p.notes[0] == f"data root moved from {places.canonical(old)} to {places.canonical(data)}"
    assert _actions(p) == {"a.csv": ("unchanged", None)}


# ---- the plan and its application: one truth ------------------------------------------------------

APPLIED = {  # what the application reports for each action of the plan
    "new": {"ingested"},
    "changed": {"ingested"},
    "moved": {"moved"},
    "copy": {"placed"},
    "relabelled": {"relabelled"},
    "unchanged": {"unchanged"},
    "removed": {"gone"},
    "refused": {"rejected", "unreadable", "skipped"},
}


def _dry_run(data: Path, dbp: Path) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["ingest", str(data), "--db", str(dbp), "--dry-run", "--format", "json"]) == 0
    return json.loads(out.getvalue())


def _apply(data: Path, dbp: Path) -> dict[str, str]:
    con = db.open_db(dbp)
    try:
        return {o.path: str(o.status) for o in batch.ingest_paths(con, [data]).outcomes}
    finally:
        con.close()


def _same(planned: dict, applied: dict[str, str]) -> None:
    got = {f["path"]: f["action"] for f in planned["files"]}
    assert set(got) == set(applied)
    assert {p: a for p, a in got.items() if applied[p] not in APPLIED[a]} == {}


def test_a_dry_run_makes_no_database_and_says_what_the_ingest_then_does(tmp_path):
    data = _folder(tmp_path)
    shutil.copy(A, data / "s1" / "copy.csv")
    (data / "s1" / "junk.txt").write_text("nothing iolab reads\n")
    dbp = tmp_path / "new" / "t.duckdb"
    planned = _dry_run(data, dbp)
    assert not dbp.parent.exists()  # not even its folder
    assert planned["summary"] == dict.fromkeys(APPLIED, 0) | {"new": 1, "copy": 1, "refused": 1}
    _same(planned, _apply(data, dbp))


def test_a_dry_run_changes_no_byte_of_the_database_and_its_plan_is_what_happens(tmp_path):
    data = _folder(tmp_path)
    for f in (B, C):
        shutil.copy(f, data / "s1" / f.name)
    dbp = tmp_path / "t.duckdb"
    _apply(data, dbp)
    (data / "s1" / "junk.txt").write_text("nothing iolab reads\n")
    (data / "s1" / B.name).rename(data / "s1" / "moved.json")
    (data / "s1" / C.name).unlink()
    (data / "s1" / "iolab.toml").write_text('system = "Zeta Z9"\n')
    shutil.copy(A, data / "s1" / "again.csv")
    before = {p.name: p.read_bytes() for p in tmp_path.glob("t.duckdb*")}
    planned = _dry_run(data, dbp)
    assert {p.name: p.read_bytes() for p in tmp_path.glob("t.duckdb*")} == before
    assert {f["path"]: f["action"] for f in planned["files"]} == {
        "data/s1/a.csv": "relabelled",
        "data/s1/again.csv": "copy",
        "data/s1/moved.json": "moved",
        f"data/s1/{C.name}": "removed",
        "data/s1/junk.txt": "refused",
    }
    assert all(f["labels"].get("system") == "Zeta Z9" for f in planned["files"] if f["action"] != "removed")
    _same(planned, _apply(data, dbp))
    assert _dry_run(data, dbp)["summary"] == dict.fromkeys(APPLIED, 0) | {"unchanged": 3, "refused": 1}


# ---- a plan made right after its application is empty ---------------------------------------------

EDITS = st.lists(
    st.tuples(st.sampled_from(["add", "edit", "move", "copy", "delete", "sidecar"]), st.integers(0, 50)),
    max_size=6,
)


def _edit(data: Path, what: str, k: int) -> None:
    """One change to the folder: a file added, edited in place, moved, copied or deleted, a sidecar written."""
    present = sorted(p for p in data.rglob("*") if p.is_file() and p.name != "iolab.toml")
    study = data / ["s1", "s2", "s3"][k % 3]
    study.mkdir(exist_ok=True)
    if what == "add" or not present:
        shutil.copy([A, B, C][k % 3], study / f"{k}-{[A, B, C][k % 3].name}")
    elif what == "sidecar":
        (study / "iolab.toml").write_text(f'system = "System {k % 2}"\n')
    else:
        f = present[k % len(present)]
        if what == "edit":
            f.write_bytes(f.read_bytes().replace(b"1", b"2", 1))
        elif what == "delete":
            f.unlink()
        else:
            (shutil.move if what == "move" else shutil.copy2)(f, study / f"m{k}-{f.name}")


@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(first=EDITS, then=EDITS)
def test_a_plan_made_right_after_its_application_is_empty(tmp_path_factory, first, then):
    tmp = tmp_path_factory.mktemp("plan")
    data = tmp / "data"
    data.mkdir()
    con = db.open_db(tmp / "t.duckdb")
    try:
        for edits in (first, then):
            for what, k in edits:
                _edit(data, what, k)
            planned = plan.make([data], list(files.walk([data])), index.read(con))
            batch.apply(con, planned)
            again = plan.make([data], list(files.walk([data])), index.read(con))
            assert again.empty(), [(s.path, s.action, s.reason) for s in again.changes()]
    finally:
        con.close()
