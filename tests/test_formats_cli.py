"""`iolab formats` and `iolab detect`: every parser listed with the versions its real files show; each file's claimant and why."""

from __future__ import annotations

from iolab import registry
from iolab.cli import detect as detect_cmd
from iolab.cli import formats as formats_cli
from iolab.cli import main
from tests.conftest import CORPUS, FIXTURES, corpus


def test_formats_lists_every_module_with_corpus_versions(capsys):
    assert main(["formats"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for m in registry.modules():
        assert f" {m.FORMAT} " in out and f" {m.__name__} " in out
    seen = formats_cli.corpus_versions(CORPUS)
    assert seen["orion-summary-txt"] == {"10.2.0.1.0": 2, "11.1.0.7.0": 1}  # ESG seed + databasejournal; ghmd
    assert seen["orion-console"] == {"RDBMS_19.3.0.0.0DBRU_LINUX.X64_190417": 1, "rejected": 2}
    assert seen["jetstress-log"] == {"rejected": 1}
    assert seen["diskspd-xml"] == {"2.0.21a": 1}
    assert "_hist.txt" in out and "relog" in out  # the known-unsupported table


def test_every_module_says_what_its_sniffer_looks_for():
    assert all(isinstance(getattr(m, "SNIFF_RULE", None), str) and m.SNIFF_RULE for m in registry.modules())


def test_detect_names_the_claimant_and_the_rule(capsys):
    c19 = corpus("orion-console/ghmd-unidentified__orion19c_simple_bmtfile-acfs_console.txt")
    mods, why = detect_cmd.detect(c19.read_bytes(), c19.name)
    assert [m.FORMAT for m in mods] == ["orion-console"] and "ORacle IO Numbers" in why
    assert main(["detect", str(c19)]) == 0
    out = capsys.readouterr().out
    assert "orion-console" in out and "banner" in out


def test_detect_says_why_nothing_claims(tmp_path, capsys):
    hist, junk, empty = tmp_path / "t_20200101_1200_hist.txt", tmp_path / "junk.txt", tmp_path / "e.txt"
    hist.write_text("anything\n")
    junk.write_text("hello world\n")
    empty.write_bytes(b"")
    assert detect_cmd.detect(hist.read_bytes(), hist.name)[1].startswith("ORION latency histograms")
    assert "no iolab parser recognises" in detect_cmd.detect(junk.read_bytes(), junk.name)[1]
    assert detect_cmd.detect(b"", "e.txt") == ([], "the file is empty")
    assert main(["detect", str(hist), str(junk), str(empty)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "no iolab parser recognises" in out and "the file is empty" in out and "none" in out
    # a PATH that is not there is wrong usage, as for ingest (it was 1, a row of the table)
    assert main(["detect", str(hist), str(tmp_path / "missing.txt")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == f"Not found: PATH {tmp_path / 'missing.txt'} does not exist"


def test_detect_reports_several_claimants(monkeypatch):
    fake = type(registry)("fake")
    fake.FORMAT, fake.SNIFF_RULE = "fake-format", "anything at all"
    real = registry.sniff
    monkeypatch.setattr(registry, "sniff", lambda data, name: real(data, name) + [fake])
    data = corpus("orion/databasejournal__11gtest_summary.txt").read_bytes()
    mods, why = detect_cmd.detect(data, "x.txt")
    assert [m.FORMAT for m in mods] == ["orion-summary-txt", "fake-format"]
    assert why.startswith("more than one parser claims it, so it is not read") and "fake-format: anything at all" in why


def test_detect_escapes_rich_markup(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "[red]x[bold].txt").write_bytes(
        (FIXTURES / "jetstress-log" / "handmade-jetstresscmd-2013-performance.txt").read_bytes()
    )
    assert main(["detect", "[red]x[bold].txt"]) == 0
    out = capsys.readouterr().out
    assert "[red]x[bold].txt" in out and "jetstress-log" in out


def test_the_versions_shipped_with_the_package_are_the_corpus_ones():
    """`iolab formats` reads what ships with the package (an installed wheel has no tests/corpus);
    `make golden` writes it, and it must say what the real corpus files show now."""
    from iolab.cli import formats

    assert formats.shipped_versions() == {f: dict(v) for f, v in formats.corpus_versions(formats.CORPUS).items()}, (
        "run make golden (it writes ingest/formats/versions_seen.json)"
    )
    assert formats.shipped_versions()["fio-json"]  # not empty
