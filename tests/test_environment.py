"""environment.yml must mirror pyproject.toml: conda users get the same pins as the venv."""
import tomllib

from tests.conftest import ROOT


def test_environment_yml_mirrors_pyproject():
    p = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = p["project"]["optional-dependencies"]
    wanted = set(p["project"]["dependencies"]) | set(extras["dev"]) | set(extras["lake"])
    lines = (ROOT / "environment.yml").read_text().splitlines()
    listed = {l.strip()[2:] for l in lines if l.startswith("      - ") and "==" in l}
    assert listed == wanted
    assert "  - python=3.11" in lines
