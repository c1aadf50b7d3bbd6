"""`iolab compare` as a person reads it: a per-system summary first (matched and unmatched points,
geometric mean, min and max of the ratio), the study's declared correction wherever it applies, one
number format per column, and every point only on request (--all)."""

from __future__ import annotations

import math
import re
import shutil

import polars as pl
import pytest

from iolab import cli, db
from iolab.cli import compare
from tests.conftest import ROOT

STUDY = "ds4300-vs-fastt200-2004"
DS4300 = "IBM DS4300 (dual controllers)"


@pytest.fixture(scope="module")
def dbf(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    for name in (STUDY, "criteria"):  # the study, and the criteria file defining its correction
        shutil.copytree(ROOT / "data" / "samples" / name, root / "data" / name)
    f = root / "x.duckdb"
    assert cli.main(["ingest", "-q", str(root / "data"), "--db", str(f)]) == 0
    return f


def view(dbf, sql: str, params=()):
    con = db.connect(dbf, read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def columns(line: str) -> list[str]:
    """The cells of a plain table's line (off a terminal: columns aligned by two spaces or more)."""
    return re.split(r"\s{2,}", line.strip())


def lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines()]


def test_summary_first_with_counts_geometric_mean_and_correction(dbf, capsys):
    assert cli.main(["compare", "--db", str(dbf), "--study", STUDY]) == 0
    raw = capsys.readouterr().out.splitlines()
    out = lines("\n".join(raw))
    ((matched, unmatched, gm, lo, hi),) = view(
        dbf,
        """SELECT count(*), (SELECT count(*) FROM comparison_unmatched WHERE study = $1 AND metric = 'iops'),
                  exp(avg(ln(ratio))), min(ratio), max(ratio)
           FROM comparison WHERE study = $1 AND metric = 'iops'""",
        [STUDY],
    )
    assert (matched, unmatched) == (2, 126)
    cells = columns(next(line for line in raw if line.startswith(DS4300) and "  IO/s  " in line))
    assert cells[2:9] == ["higher", "2", "126", f"{gm:.2f}", f"{lo:.2f}", f"{hi:.2f}", "x1.1"]
    pcts = [p for (p,) in view(dbf, "SELECT pct_better FROM comparison WHERE study = ? AND metric = 'iops'", [STUDY])]
    pct = (math.exp(sum(math.log(1 + p / 100) for p in pcts) / len(pcts)) - 1) * 100
    assert cells[9] == f"{pct:+,.2f} %"
    # the correction's scope is throughput in IO/s and MB/s: the response time is compared as measured
    assert columns(next(c for c in raw if c.startswith(DS4300) and "  average latency" in c))[8] == "none"
    assert any("Declared correction 1.1 (drive_generation_correction" in line for line in out)
    assert any("drive_generation_correction: throughput metrics in IO/s, MB/s" in line for line in out)
    assert not any(line.strip() == "matched points" for line in out)  # no per-point rows by default
    assert out[-1].endswith("`--all` lists every matched point.")


def test_all_lists_every_point_with_the_corrected_baseline(dbf, capsys):
    assert cli.main(["compare", "--db", str(dbf), "--study", STUDY, "--all"]) == 0
    out = capsys.readouterr().out
    assert "matched points" in out and "e+" not in out
    # latency 20 ms against a baseline of 20 ms: outside the correction's scope, no corrected baseline, +0.00 %
    # (it was corrected to 20 / 1.1 = 18.2 and called -9.09 % before the correction had a scope: issue 59)
    assert any(columns(line)[3:7] == ["20.0", "20.0", "1.00", "+0.00 %"] for line in out.splitlines())
    assert not any("-9.09 %" in line for line in out.splitlines())


def test_one_number_format_per_column():
    fmt = compare.column_format([1723.4, 11520.0, 0.0, None])
    assert [fmt(v) for v in (1723.4, 11520.0, 0.0, None)] == ["1,723", "11,520", "0", ""]
    fmt = compare.column_format([0.299, 30.84])
    assert [fmt(v) for v in (0.299, 30.84)] == ["0.299", "30.840"]


def test_summary_values():
    df = pl.DataFrame(
        {
            "system": ["a", "a", "b"],
            "metric": ["iops"] * 3,
            "unit": ["IO/s"] * 3,
            "direction": ["higher"] * 3,
            "ratio": [2.0, 8.0, 0.5],
            "correction": [1.0] * 3,
            "pct_better": [100.0, 700.0, -50.0],
        }
    )
    s = compare.summary(df, {("a", "iops"): 3})
    assert s.select("system", "matched", "unmatched", "ratio_geomean", "ratio_min", "ratio_max").rows() == [
        ("a", 2, 3, pytest.approx(4.0), 2.0, 8.0),
        ("b", 1, 0, pytest.approx(0.5), 0.5, 0.5),
    ]
    assert s["pct_better_geomean"].to_list() == [pytest.approx(300.0), pytest.approx(-50.0)]


def test_off_a_terminal_every_row_is_one_line_with_whole_names(dbf, capsys):
    """A log or a pipe gets plain columns, aligned, never wrapped or cut (rich's table wrapped each
    point onto three lines and cut the metric name at the console's width)."""
    assert cli.main(["compare", "--db", str(dbf), "--study", STUDY, "--all"]) == 0
    out = capsys.readouterr().out.splitlines()
    ((points,),) = view(
        dbf, "SELECT count(*) FROM comparison WHERE study = ? AND metric IN ('iops', 'mbps', 'avg_latency_ms')", [STUDY]
    )
    head = out.index("matched points") + 1
    rows = out[head + 2 : head + 2 + points]
    assert all(r.startswith(DS4300) for r in rows) and not out[head + 2 + points].startswith(DS4300)
    assert max(len(r) for r in rows) > 160  # wider than the console rich assumes off a terminal
    assert set(out[head + 1]) == {"-", " "}  # the rule under the heads
    # every column starts where its head does: aligned
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", out[head])]
    heads = re.findall(r"\S+(?: \S+)*", out[head])
    at = dict(zip(heads, starts, strict=True))
    assert all(r[at["point"] - 2 : at["point"]] == "  " and r[at["point"]] != " " for r in rows)
    # the summary's metric whole, and which way is better
    assert any(re.search(r" average latency \(ms\)  +lower  ", line) for line in out)


def test_tsv_is_one_line_per_point_with_every_column(dbf, capsys):
    assert cli.main(["compare", "--db", str(dbf), "--study", STUDY, "--format", "tsv"]) == 0
    out = capsys.readouterr().out.splitlines()
    ((points,),) = view(
        dbf, "SELECT count(*) FROM comparison WHERE study = ? AND metric IN ('iops', 'mbps', 'avg_latency_ms')", [STUDY]
    )
    assert out[0].split("\t") == compare.COMPARE_COLUMNS and len(out) == points + 1
    assert all(len(line.split("\t")) == len(compare.COMPARE_COLUMNS) for line in out)


def test_a_tsv_cell_cannot_split_a_row_or_run_as_a_formula():
    df = pl.DataFrame({"system": ["a\tb\nc", "=1+1", "x\u202ey"], "value": [1.0, None, 2.5]})
    assert compare.as_text(df, "tsv") == "system\tvalue\na\\x09b\\x0ac\t1.0\n'=1+1\t\nx\\u202ey\t2.5\n"
