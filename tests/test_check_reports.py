"""`make check-reports`' command (python -m iolab.cli.check_reports): its arguments and exit codes."""

from __future__ import annotations

import subprocess
import sys

from iolab.cli import check_reports


def test_without_chromium_it_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(check_reports, "chromium", lambda: None)
    assert check_reports.main(["--db", str(tmp_path / "none.duckdb"), str(tmp_path)]) == 2
    assert capsys.readouterr().out == "chromium not found: `apt-get install chromium` (make check-reports does it)\n"


def test_a_folder_without_pages_passes_and_nothing_is_opened(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(check_reports, "chromium", lambda: "/usr/bin/chromium")
    monkeypatch.setattr(check_reports, "check", lambda page: (_ for _ in ()).throw(AssertionError(page)))
    assert check_reports.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out == ""


def test_it_runs_as_a_module_as_the_makefile_calls_it(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "iolab.cli.check_reports", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "[--db DB] [reports]" in done.stdout


def test_the_chart_oracle_command_counts_the_defects_of_every_page(tmp_path, capsys):
    from iolab.cli import chart_oracle

    page = tmp_path / "reports" / "s" / "01-overview.html"
    page.parent.mkdir(parents=True)
    page.write_text('<html><figure class="iolab-chart"><p>no picture</p></figure></html>', encoding="utf-8")
    assert chart_oracle.main(["--db", str(tmp_path / "none.duckdb"), str(tmp_path / "reports")]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{page}: chart 1: no picture or no spec",
        "chart oracle: 1 defect(s) (no database: views not checked)",
    ]
    page.unlink()
    assert chart_oracle.main(["--db", str(tmp_path / "none.duckdb"), str(tmp_path / "reports")]) == 0
