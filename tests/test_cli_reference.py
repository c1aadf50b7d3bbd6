"""docs/cli.md is the command-line reference written from the parser itself (issue 57): it never drifts."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def test_docs_cli_md_is_what_the_parser_says():
    env = {k: v for k, v in os.environ.items() if not k.startswith("IOLAB_")} | {"COLUMNS": "80"}
    made = subprocess.run(
        [sys.executable, "-m", "iolab.cli.reference"], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert (ROOT / "docs" / "cli.md").read_text(encoding="utf-8") == made, (
        "docs/cli.md is out of date: python -m iolab.cli.reference > docs/cli.md"
    )
    for command in ("ingest", "remove", "info", "validate", "report", "compare", "export", "lake", "doctor"):
        assert f"## `iolab {command}`" in made
    assert "`iolab lake export`" in made and "| `--db` `DB` |" in made  # subcommands and options are there
