"""One folder per study under `iolab report --out` (iolab.reports.folders): names built to collide (a
study `a b` and a study literally named as its slug, `a-b-<hash>`; names differing only in case) get
folders of their own, each recorded in its render record, and the index links each study's own pages."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab import cli
from iolab.reports import folders, render
from tests.conftest import ROOT

SAMPLE = "iomark-vm-hp4335-2014"
SPACED = "a b"
SLUGGED = folders.slug(SPACED)  # 'a-b-<hash>': a plain name, so its own folder name


def test_the_names_built_to_collide_do_collide_by_slug():
    assert SLUGGED.startswith("a-b-") and folders.slug(SLUGGED) == SLUGGED == folders.slug(SPACED)


def test_colliding_studies_get_a_further_suffix_plain_names_first(tmp_path):
    where = folders.assign(tmp_path, [SPACED, SLUGGED, "Study", "study", "other"])
    assert where == {
        SLUGGED: SLUGGED,  # its own name, plain: it keeps it
        SPACED: f"{SLUGGED}-2",
        "Study": "Study",
        "study": "study-2",  # one folder with 'Study' where case is ignored (macOS, Windows shares)
        "other": "other",
    }


def test_a_recorded_folder_stays_its_studys_whoever_comes_later(tmp_path):
    (tmp_path / SLUGGED).mkdir()
    (tmp_path / SLUGGED / folders.RECORD).write_text(json.dumps({"study": SPACED, "pages": {}}))
    gone = tmp_path / "x"  # a study no longer in the database keeps its folder from the others
    gone.mkdir()
    (gone / folders.RECORD).write_text(json.dumps({"study": "removed", "pages": {}}))
    assert folders.assign(tmp_path, [SLUGGED, SPACED, "x"]) == {SPACED: SLUGGED, SLUGGED: f"{SLUGGED}-2", "x": "x-2"}


def test_a_record_without_its_study_reads_as_pages_only(tmp_path):
    (tmp_path / folders.RECORD).write_text(json.dumps({"01-overview": "abc"}))
    assert folders.read_record(tmp_path) == {"pages": {"01-overview": "abc"}}
    (tmp_path / folders.RECORD).write_text("not json")
    assert folders.read_record(tmp_path) == {"pages": {}}


COLLIDING = ["a b", "a-b", "A B", "a_b", "a/b", "ä b", "", "..", SLUGGED, f"{SLUGGED}-2", "Study", "study"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(COLLIDING) | st.text(max_size=6), unique=True))
def test_folders_are_unique_ignoring_case_and_stay_one_path_component(tmp_path_factory, studies):
    where = folders.assign(tmp_path_factory.mktemp("empty"), studies)
    assert sorted(where) == sorted(studies)
    names = [n.casefold() for n in where.values()]
    assert len(set(names)) == len(names)
    assert all("/" not in n and n not in ("", ".", "..") for n in names)


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
    """The same sample ingested as two studies whose names give one slug."""
    root = tmp_path_factory.mktemp("collide")
    for study in (SPACED, SLUGGED):
        folder = root / study.replace(" ", "_")
        shutil.copytree(ROOT / "data" / "samples" / SAMPLE, folder)
        (folder / "iolab.toml").write_text(f"study = {json.dumps(study)}\n")
    f = root / "x.duckdb"
    assert cli.main(["ingest", "-q", str(root), "--db", str(f)]) == 0
    return f


def test_two_studies_with_one_slug_are_rendered_into_two_folders(dbf, tmp_path, monkeypatch):
    # what a page says is its study's name: the test is about where it lands
    monkeypatch.setattr(render, "execute_page", lambda snap, study, nb, pages: f"<p>page of {study!r}</p>")
    monkeypatch.setattr(render, "validate", lambda snap, studies: {s: "" for s in studies})
    monkeypatch.setattr(render.kernels, "Pages", NoKernel)
    out = tmp_path / "reports"
    assert cli.main(["report", "--db", str(dbf), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == [SLUGGED, f"{SLUGGED}-2"]
    for name, study in ((SLUGGED, SLUGGED), (f"{SLUGGED}-2", SPACED)):
        record = json.loads((out / name / folders.RECORD).read_text())
        assert record["study"] == study and record["pages"]
        pages = sorted((out / name).glob("*.html"))
        assert pages and all(p.read_text() == f"<p>page of {study!r}</p>" for p in pages)
    index = (out / "index.html").read_text()
    assert f'href="{SLUGGED}-2/' in index and f'href="{SLUGGED}/' in index
    # the next render, of one study only, finds each study's folder again from the records
    assert cli.main(["report", "--db", str(dbf), "--out", str(out), "--study", SPACED, "--force"]) == 0
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == [SLUGGED, f"{SLUGGED}-2"]
    assert json.loads((out / f"{SLUGGED}-2" / folders.RECORD).read_text())["study"] == SPACED
