"""environment.yml must mirror pyproject.toml: conda users get the same pins (from conda-forge) as the venv."""

import tomllib

from tests.conftest import ROOT

CONDA_NAMES = {"duckdb": "python-duckdb"}  # PyPI name -> conda-forge name, where they differ


def test_environment_yml_mirrors_pyproject():
    p = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = p["project"]["optional-dependencies"]
    wanted = set(p["project"]["dependencies"]) | set(extras["dev"]) | set(extras["lake"])
    wanted = {CONDA_NAMES.get(s.split("==")[0], s.split("==")[0]) + "==" + s.split("==")[1] for s in wanted}
    lines = (ROOT / "environment.yml").read_text().splitlines()
    listed = {line[4:].split("#")[0].strip() for line in lines if line.startswith("  - ") and "==" in line}
    assert listed == wanted
    assert "  - conda-forge" in lines
    assert f"  - python{p['project']['requires-python']}" in lines
