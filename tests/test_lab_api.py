"""`from iolab import lab`: the default database opened read-only, a view as a Polars frame equal to the
same query in DuckDB, the studies, charts with the pages' conventions, and notebooks/explore.py (not
a report page) running on the demo studies."""

from __future__ import annotations

import json

import duckdb
import jupytext
import pytest

from iolab import batch, db, lab
from iolab.reports import interactive, page, render
from tests.conftest import ROOT

STUDY = "ds4300-vs-fastt200-2004"
SAMPLES = ROOT / "data" / "samples"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """A database of the two studies explore.py reads."""
    path = tmp_path_factory.mktemp("lab") / "demo.duckdb"
    con = db.open_db(path)
    batch.ingest_paths(con, [SAMPLES / STUDY, SAMPLES / "esg-ds5020-2009"])
    con.close()
    return path


@pytest.fixture
def default_db(demo, monkeypatch):
    """``demo`` as the default database ($IOLAB_DB), no connection of lab's open yet."""
    monkeypatch.setenv("IOLAB_DB", str(demo))
    monkeypatch.setattr(lab, "_con", [])
    yield demo
    for con in lab._con:
        con.close()


@pytest.fixture
def shown(monkeypatch) -> list:
    out: list = []
    monkeypatch.setattr(page, "display", lambda obj, **kw: out.append(obj))
    return out


COLS = "system, baseline_system, metric, workload_label, baseline_value, value, pct_better, verdict"


def direct(path, sql: str, params=None) -> list[tuple]:
    """``sql`` in DuckDB itself (before lab opens the file: one process opens it one way)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def test_a_view_is_the_same_rows_as_duckdb_gives(default_db):
    direct_rows = direct(default_db, f"SELECT {COLS} FROM comparison WHERE study = ? ORDER BY ALL", [STUDY])
    ((count,),) = direct(default_db, "SELECT count(*) FROM comparison")
    df = lab.view("comparison", study=STUDY)
    assert df.height == len(direct_rows) == 10
    assert df.select(COLS.split(", ")).sort(COLS.split(", "), nulls_last=True).rows() == direct_rows
    assert lab.view("comparison").height == count  # no study: every row
    iops = lab.view("comparison", study=STUDY, metric="iops")
    # the two matched IO/s points of the published table (13,600 against 3,175 and 3,780 IO/s), no
    # correction without the criteria study: % better is 100 * (13,600 / baseline - 1)
    pairs = [(r["baseline_value"], r["value"]) for r in iops.iter_rows(named=True)]
    assert pairs == [(3175.0, 13600.0), (3780.0, 13600.0)]
    assert [round(v, 6) for v in iops["pct_better"]] == [328.346457, 259.78836]


def test_the_default_database_is_read_only(default_db):
    before = default_db.read_bytes()
    con = lab.connect()
    with pytest.raises(duckdb.Error, match="read-only"):
        con.execute("CREATE TABLE scribble (i INTEGER)")
    ((table,),) = con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1 LIMIT 1").fetchall()
    with pytest.raises(duckdb.Error, match="read-only"):
        con.execute(f'DELETE FROM "{table}"')
    assert lab.view("study_files", study=STUDY).height == 1
    con.close()
    lab._con.clear()
    assert default_db.read_bytes() == before


def test_no_database_says_how_to_make_one(tmp_path, monkeypatch):
    monkeypatch.setenv("IOLAB_DB", str(tmp_path / "none.duckdb"))
    monkeypatch.setattr(lab, "_con", [])
    with pytest.raises(FileNotFoundError, match="make demo"):
        lab.studies()
    assert not (tmp_path / "none.duckdb").exists()  # never created


def test_studies_and_views(default_db):
    runs = dict(direct(default_db, "SELECT study, count(DISTINCT run_id) FROM study_runs GROUP BY ALL"))
    s = lab.studies()
    assert s["study"].to_list() == ["ds4300-vs-fastt200-2004", "esg-ds5020-2009"]
    assert dict(zip(s["study"], s["runs"], strict=True)) == runs
    assert "comparison" in lab.views() and "per_drive_iops" in lab.views()


@pytest.mark.parametrize("bad", ['comparison" WHERE 1=1; --', "comparison; DROP TABLE runs"])
def test_a_name_is_a_name(default_db, bad):
    with pytest.raises(ValueError, match="lab.views"):
        lab.view(bad)
    with pytest.raises(ValueError):
        lab.view("comparison", **{bad: 1})


def test_a_chart_follows_the_pages_conventions(default_db, shown):
    df = lab.view("comparison", study=STUDY, metric="iops")
    assert lab.chart(df, x="pct_better", y="workload_label") is None
    (out,) = shown
    spec = out[interactive.VEGALITE]
    enc = spec["encoding"]
    assert spec["mark"]["type"] == "bar" and enc["x"]["stack"] is None  # two bars at one place: never summed
    assert enc["yOffset"]["field"] == "row_no"  # one system, one workload: each row its own bar
    assert enc["color"]["scale"] == {"domain": ["IBM DS4300 (dual controllers)"], "range": [page.PALETTE[0]]}
    assert [t["field"] for t in enc["tooltip"]] == ["system", "workload_label", "pct_better"]
    assert spec["description"] == "Bar chart of % better per workload, one colour per system, 2 rows."
    assert (enc["x"]["title"], enc["y"]["title"], enc["color"]["title"]) == ("% better", "workload", "system")
    assert [p["name"] for p in spec["params"]] == [interactive.LEGEND]  # the legend selection, as on the pages
    assert '<figure class="iolab-chart"' in out[interactive.FIGURE]
    made = lab.chart(df, x="workload_label", y="value", color=None, kind="point", show=False, tooltip=["verdict"])
    assert made is not None and len(shown) == 1
    spec = json.loads(made.to_json())
    assert spec["mark"]["type"] == "point" and [t["field"] for t in spec["encoding"]["tooltip"]] == ["verdict"]


def test_explore_is_not_a_page_and_runs_on_the_demo(default_db, shown, capsys):
    assert "explore" not in render.notebooks()
    nb = jupytext.read(ROOT / "notebooks" / "explore.py")
    assert nb.metadata["iolab"] == {"page": False}
    namespace: dict = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            exec(cell.source, namespace)
    assert len(shown) == 2 and all(interactive.VEGALITE in s for s in shown)
    assert namespace["df"].height == 2 and "comparison" in capsys.readouterr().out


def test_importing_the_lab_leaves_altair_and_polars_as_they_were():
    """Issue 56: `import iolab.lab` switched Altair's renderer to static SVG and lifted its row guard,
    so a user's own chart in the same notebook lost its tooltips. A fresh interpreter tells."""
    import subprocess
    import sys

    code = (
        "import altair as alt, polars as pl\n"
        "before = (alt.renderers.active, alt.data_transformers.active, dict(alt.data_transformers.options),"
        " str(pl.Config.state()))\n"
        "from iolab import lab\n"
        "after = (alt.renderers.active, alt.data_transformers.active, dict(alt.data_transformers.options),"
        " str(pl.Config.state()))\n"
        "assert before == after, (before, after)\n"
        "assert 'iolab' in alt.renderers.names()  # registered for the user to enable, not enabled\n"
        "try:\n"
        "    alt.Chart(pl.DataFrame({'x': range(6000)})).mark_point().encode(x='x:Q').to_dict()\n"
        "except alt.MaxRowsError:\n"
        "    print('guard kept')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "guard kept"


def test_the_iolab_renderer_draws_a_users_chart_live_and_static():
    import altair as alt
    import polars as pl

    chart = alt.Chart(pl.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_point().encode(x="x:Q", y="y:Q")
    with alt.renderers.enable("iolab"):
        bundle = chart._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert data[interactive.VEGALITE]["mark"]["type"] == "point"
    assert data["image/svg+xml"].lstrip().startswith("<svg")


def test_a_column_a_view_lacks_lists_its_columns(default_db):
    with pytest.raises(ValueError) as e:
        lab.view("runs", study=STUDY)  # runs has no study column
    assert "runs has no column 'study'; its columns: run_id, source_id, run_key" in str(e.value)
    with pytest.raises(ValueError, match="'nosuchview' is no view or table of this database"):
        lab.view("nosuchview")


def test_an_empty_frame_says_so_instead_of_drawing_nothing(default_db, shown):
    empty = lab.view("comparison", study="no such study")
    assert empty.is_empty()
    assert lab.chart(empty, x="pct_better", y="workload_label") is None
    assert len(shown) == 1 and "Nothing to draw: the frame has no rows" in shown[0].data
    with pytest.raises(ValueError, match="Nothing to draw"):
        lab.chart(empty, x="pct_better", y="workload_label", show=False)
    with pytest.raises(ValueError, match="the frame has no column 'nope'"):
        lab.chart(empty, x="nope", y="workload_label")
