"""The one table every command prints (ingest/cli/tables.py, issue 56 item 4): on a terminal it fits
the width by leaving out or abbreviating the columns that matter least, never cutting a number or a
key, and says under it what it left out; off a terminal (a pipe, a file) plain rows, no box drawing.

The 80-column screens of `iolab compare` and `iolab info` on the bundled data are golden files
(tests/screens/); `IOLAB_WRITE_SCREENS=1` writes them again, to be read before committing."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from iolab import cli, terminal
from iolab.cli import tables
from iolab.cli.tables import Col
from tests.conftest import ROOT

SCREENS = Path(__file__).parent / "screens"
STUDY = "ds4300-vs-fastt200-2004"
BOXES = set("│┃━╇─┼╋┡┩")
COLOUR = re.compile(r"\x1b\[[0-9;]*m")

HEADS = [
    Col("system", key=True),
    Col("metric", key=True),
    Col("matched", number=True, drop=3),
    Col("min", number=True, drop=5),
    Col("max", number=True, drop=5),
    Col("% better", number=True),
    Col("change", drop=2, shorten=True),
]
ROWS = [["IBM DS4300 (dual controllers)", "iops (IO/s)", "2", "3.60", "4.28", "+256.89 %", "256.9 % higher throughput"]]


def test_everything_fits_a_wide_terminal():
    f = tables.fit(HEADS, ROWS, 200)
    assert f.shown == list(range(7)) and f.left_out == [] and f.shortened == []
    assert f.needed == 29 + 11 + 7 + 4 + 4 + 9 + 25 + 6 * tables.GAP
    assert tables.gave_way(HEADS, f, 200) == ""


def test_the_least_important_give_way_first_a_minimum_with_its_maximum():
    # min and max (drop 5) go together, then matched (3); change (2) is abbreviated to what is left
    f = tables.fit(HEADS, ROWS, 80)
    assert [HEADS[i].head for i in f.shown] == ["system", "metric", "% better", "change"]
    assert f.left_out == [2, 3, 4] and f.shortened == [6] and f.widths[6] == 80 - (29 + 11 + 9) - 3 * tables.GAP
    assert tables.gave_way(HEADS, f, 80, "`--format csv`") == (
        "left out matched, min, max; abbreviated change to fit 80 columns: a terminal 107 columns wide, or "
        "`--format csv`, shows every column whole."
    )
    # narrower: change cannot keep 8 characters, so it goes
    f = tables.fit(HEADS, ROWS, 58)
    assert [HEADS[i].head for i in f.shown] == ["system", "metric", "% better"]


def test_keys_stay_even_past_the_width_and_a_key_that_may_wrap_does_so_for_a_number():
    f = tables.fit(HEADS, ROWS, 30)
    assert f.shown == [0, 1] and f.widths[0] == 29  # nothing but the keys, whole (rich wraps them)
    heads = [Col("system", key=True, wrap=12), Col("IOPS", number=True)]
    f = tables.fit(heads, [["IBM DS4300 (dual controllers)", "46,137"]], 26)
    assert f.shown == [0, 1] and f.widths == {0: 26 - 6 - tables.GAP, 1: 6}
    # never narrower than its longest word (unless it may fold, as a path)
    f = tables.fit(heads, [["IBM DS4300 (dual controllers)", "46,137"]], 20)
    assert f.shown == [0] and f.left_out == [1]
    paths = [Col("file", key=True, wrap=10, fold=True), Col("IOPS", number=True)]
    assert tables.fit(paths, [["data/samples/one/long_file_name.csv", "46,137"]], 20).widths[0] == 11


def test_a_column_with_nothing_in_it_goes_unsaid():
    f = tables.fit([Col("file", key=True), Col("fix", drop=1)], [["a.csv", ""]], 4)
    assert f.shown == [0] and f.left_out == [] and tables.gave_way([], f, 4) == ""


words = st.text(alphabet="abcdefgh ", min_size=0, max_size=30)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 4), st.booleans()), min_size=1, max_size=8),
    st.lists(st.lists(words, min_size=8, max_size=8), min_size=0, max_size=5),
    st.integers(10, 200),
)
def test_fit_never_cuts_a_key_or_a_number_and_says_what_it_left_out(kinds, cells, width):
    cols = [Col(f"c{i}", key=k, number=n and not k, drop=d, shorten=s) for i, (k, n, d, s) in enumerate(kinds)]
    rows = [r[: len(cols)] for r in cells]
    f = tables.fit(cols, rows, width)
    natural = {i: max([2] + [cell_len(r[i]) for r in rows]) for i in range(len(cols))}
    empty = {i for i, c in enumerate(cols) if rows and not c.key and not any(r[i] for r in rows)}
    assert set(f.shown) | set(f.left_out) | empty == set(range(len(cols)))
    assert not set(f.shown) & set(f.left_out)
    assert all(i in f.shown for i, c in enumerate(cols) if c.key)  # keys are never left out
    for i in f.shown:
        if i not in f.shortened:
            assert f.widths[i] >= natural[i]  # no key, no number cut
    assert all(cols[i].shorten and not cols[i].number and not cols[i].key for i in f.shortened)
    keys = sum(natural[i] for i, c in enumerate(cols) if c.key) + tables.GAP * (sum(c.key for c in cols) - 1)
    if keys <= width:
        assert sum(f.widths[i] for i in f.shown) + tables.GAP * (len(f.shown) - 1) <= width
    said = tables.gave_way(cols, f, width)
    assert all(cols[i].head in said for i in f.left_out + f.shortened)


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    """Every bundled study in a database named demo.duckdb (its name is in the screens)."""
    root = tmp_path_factory.mktemp("screens")
    assert cli.main(["ingest", "-q", str(ROOT / "data" / "samples"), "--db", str(root / "demo.duckdb")]) == 0
    return root


class Screen(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def screen(monkeypatch, bundled):
    """Run a command as on an 80-column terminal (rich reads COLUMNS), in the bundled database's
    folder: ``screen(argv)`` is (exit code, what it showed, without colours). Standard output is
    swapped inside the test, where pytest's own capture no longer swaps it back."""
    monkeypatch.setenv("COLUMNS", "80")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(bundled)

    def run(argv: list[str]) -> tuple[int, str]:
        out, real = Screen(), sys.stdout
        terminal.console.cache_clear()
        sys.stdout = out
        try:
            code = cli.main(argv)
        finally:
            sys.stdout = real
            terminal.console.cache_clear()
        return code, seen(out)

    return run


def seen(out: Screen) -> str:
    return COLOUR.sub("", out.getvalue()).replace(str(ROOT), "<repo>")


def golden(name: str, text: str) -> None:
    path = SCREENS / name
    if os.environ.get("IOLAB_WRITE_SCREENS"):
        path.write_text(text)
    assert text == path.read_text()


def test_compare_at_80_columns(screen):
    code, text = screen(["compare", "--study", STUDY, "--db", "demo.duckdb"])
    assert code == 0
    golden("compare-80.txt", text)
    table = text[text.index("per system") : text.index("left out")].splitlines()
    assert all(cell_len(line) <= 80 for line in table)
    assert any("IBM DS4300 (dual controllers) │ IO/s " in line and "+256.89 %" in line for line in table)
    assert any("+347.16 %" in line for line in table) and "…" not in "".join(table)  # no number cut
    assert "left out better, matched, unmatched, min, max, correction, change, verdicts to fit 80 columns" in text


def test_compare_every_point_at_80_columns(screen):
    code, text = screen(["compare", "--study", STUDY, "--db", "demo.duckdb", "--all"])
    assert code == 0
    points = text[text.index("matched points") :].splitlines()
    assert all(cell_len(line) <= 80 for line in points if BOXES & set(line))
    assert "% better" in points[1] and "+0.00 %" in points[3]  # the headline stays, the long point label wraps


def test_info_at_80_columns(screen):
    code, text = screen(["info", "--db", "demo.duckdb"])
    assert code == 0
    golden("info-80.txt", text)
    lines = text.splitlines()
    assert all(cell_len(line) <= 80 for line in lines if BOXES & set(line))
    assert "left out formats; abbreviated systems to fit 80 columns" in text
    assert "quarch-intel-nvme-2023      │     2 │" in text and "│  18,528" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["info"],
        ["compare", "--study", STUDY, "--all"],
        ["compare", "--study", "fio-intel-d3-s4610-qd-sweep", "--sla", "mean<=1ms"],
        ["validate", "--warn-only"],
    ],
)
def test_off_a_terminal_every_table_is_plain_rows(bundled, monkeypatch, capsys, argv):
    monkeypatch.chdir(bundled)
    assert cli.main([*argv, "--db", "demo.duckdb"]) == 0
    out = capsys.readouterr().out
    assert not BOXES & set(out) and "…" not in out
    rules = [i for i, line in enumerate(out.splitlines()) if line and set(line) == {"-", " "}]
    assert rules  # each table: its title, its headings, a rule of dashes, its rows
