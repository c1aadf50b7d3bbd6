"""One table of exit codes for every command (docs/commands.md "Exit codes", ingest/cli/requires.py):
0 done; 1 some data refused; 2 wrong usage, a study, view, metric, system, measurement or path that
names nothing; 3 the machine. Each case runs through `iolab.cli.main` and says why in one line on
standard error, with no traceback (issue 56: `detect /missing` gave 1 where ingest gave 2,
`compare --metric nope` 0 with an empty table)."""

from __future__ import annotations

import pytest

from iolab import cli
from tests.conftest import ROOT

STUDY = "ds4300-vs-fastt200-2004"
DS4300 = "IBM DS4300 (dual controllers)"


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A database of the bundled ds4300 study, a file no parser reads, a damaged database."""
    root = tmp_path_factory.mktemp("codes")
    dbf = root / "x.duckdb"
    assert cli.main(["ingest", "-q", str(ROOT / "data" / "samples" / STUDY), "--db", str(dbf)]) == 0
    (root / "junk.txt").write_text("hello world\n")
    (root / "damaged.duckdb").write_bytes(b"this is no database" * 1000)
    return root


# (arguments, exit code, what the one line on standard error says); {db} {root} {missing} filled in
USAGE = [
    (["detect", "{missing}"], "Not found: PATH {missing} does not exist"),
    (["ingest", "{missing}", "--db", "{root}/new.duckdb"], "Not found: {missing} does not exist"),
    (["formats", "--corpus", "{missing}"], "Not found: --corpus {missing} does not exist"),
    (["watch", "{missing}", "--db", "{root}/new.duckdb"], "is not a folder"),
    (["remove", "{missing}", "--db", "{db}"], "Not found: {missing} does not exist"),
    (["remove", "--db", "{db}"], "Nothing to remove"),
    (["remove", "--study", "nope", "--db", "{db}"], "No study 'nope' in {db}; studies: " + STUDY),
    (["compare", "--study", "nope", "--db", "{db}"], "No study 'nope' in {db}; studies: " + STUDY),
    (["compare", "--study", "ds4300", "--db", "{db}"], f"No study 'ds4300' in {{db}}; studies: {STUDY}"),
    (["compare", "--study", STUDY, "--metric", "nope", "--db", "{db}"], "No metric 'nope' in study " + STUDY),
    (["compare", "--study", STUDY, "--metric", "iop", "--db", "{db}"], "did you mean 'iops'?"),
    (["compare", "--study", STUDY, "--metric", "iops", "--metric", "nope", "--db", "{db}"], "No metric 'nope'"),
    (["compare", "--study", STUDY, "--against", "previous", "--metric", "nope", "--db", "{db}"], "No metric 'nope'"),
    (["compare", "--study", STUDY, "--baseline", "nope", "--db", "{db}"], "No system 'nope' in study " + STUDY),
    (["compare", "--study", STUDY, "--measurement", "X=nope", "--db", "{db}"], "No system 'X' in study " + STUDY),
    (["compare", "--study", STUDY, "--measurement", f"{DS4300}=nope", "--db", "{db}"], "No measurement 'nope' of"),
    (["compare", "--study", STUDY, "--sla", "p99<=1ms", "--db", "{db}"], "No curve of study " + STUDY),
    (["compare", "--study", STUDY, "--sla", "bogus", "--db", "{db}"], "is not a latency bound"),
    (["compare", "--study", STUDY, "--against", "previous", "--baseline", "x", "--db", "{db}"], "takes no --baseline"),
    (["compare", "--study", STUDY, "--db", "{missing}"], "No database at {missing}"),
    (["export", "NOPE", "--db", "{db}"], "No view or table 'NOPE'; there are: "),
    (["export", "comparisn", "--db", "{db}"], "did you mean 'comparison'?"),
    (["export", "runs", "--study", STUDY, "--db", "{db}"], "runs has no study column"),
    (["export", "measurements", "--study", "nope", "--db", "{db}"], "No study 'nope'"),
    (["export", "runs", "--format", "parquet", "--db", "{db}"], "Parquet is binary"),
    (["report", "--study", "nope", "--out", "{root}/reports", "--db", "{db}"], "No study 'nope'"),
    (["info", "--db", "{missing}"], "No database at {missing}"),
    (["info", "--db", ""], "--db is empty"),
    (["validate", "--db", "{missing}"], "No database at {missing}"),
    (["lake", "status", "--lake", "{missing}"], "No lake at {missing}"),
    (["lake", "views", "--lake", "{missing}"], "is not an iolab lake"),
    (["lake", "export", "--db", "{missing}", "--to", "{root}/lake"], "No database at {missing}"),
]


def run(place, argv: list[str], capsys) -> tuple[int, str, str]:
    fill = {"db": str(place / "x.duckdb"), "root": str(place), "missing": str(place / "missing")}
    try:
        code = cli.main([a.format(**fill) for a in argv])
    except SystemExit as e:  # argparse: a bad option
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("argv", "says"), USAGE, ids=[" ".join(a[:3]) for a, _ in USAGE])
def test_a_name_or_path_that_names_nothing_is_wrong_usage_said_in_one_line(place, argv, says, capsys):
    code, out, err = run(place, argv, capsys)
    fill = {"db": str(place / "x.duckdb"), "root": str(place), "missing": str(place / "missing")}
    assert code == cli.EXIT_USAGE, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert says.format(**fill) in err
    assert out == ""  # no table, nothing for a program to read


@pytest.mark.parametrize(
    "argv", [["compare", "--study", STUDY, "--format", "xml"], ["nope"], ["compare", "--db", "{db}"]]
)
def test_a_bad_option_is_wrong_usage(place, argv, capsys):
    code, _, err = run(place, argv, capsys)
    assert code == cli.EXIT_USAGE and err.splitlines()[-1].startswith("iolab") and "Traceback" not in err


CASES = [
    (["info", "--db", "{db}"], cli.EXIT_OK),
    (["compare", "--study", STUDY, "--db", "{db}"], cli.EXIT_OK),
    (["detect", str(ROOT / "data" / "samples" / STUDY)], cli.EXIT_OK),
    (["detect", "{root}/junk.txt"], cli.EXIT_REJECTED),  # no parser claims it
    (["ingest", "-q", "{root}/junk.txt", "--db", "{root}/junk.duckdb"], cli.EXIT_REJECTED),
    (["info", "--db", "{root}/damaged.duckdb"], cli.EXIT_ENVIRONMENT),
    (["compare", "--study", STUDY, "--db", "{root}/damaged.duckdb"], cli.EXIT_ENVIRONMENT),
]


@pytest.mark.parametrize(("argv", "expected"), CASES, ids=[" ".join(a[:2]) for a, _ in CASES])
def test_done_refused_and_the_machine(place, argv, expected, capsys):
    code, _, err = run(place, argv, capsys)
    assert code == expected and "Traceback" not in err
    if expected == cli.EXIT_ENVIRONMENT:
        assert len(err.splitlines()) == 1 and "Cannot use the database" in err
