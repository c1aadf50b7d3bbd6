"""environment.yml must mirror pyproject.toml: conda users get the same version ranges (from conda-forge) as the venv.

Every dependency has a lower bound (tests/lower_bounds.py pins them for `make test-lower`); only the dev
tools whose output is checked (ruff, mypy) are pinned exactly.
"""

import re
import tomllib

import pytest

from tests.conftest import ROOT
from tests.lower_bounds import constraints, lower_bound

CONDA_NAMES = {"duckdb": "python-duckdb"}  # PyPI name -> conda-forge name, where they differ
SPEC = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*((?:[<>=!]=?|~=)[^#]*)")
PINNED_ON_PURPOSE = {"ruff", "mypy"}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _spec(requirement: str) -> tuple[str, str]:
    m = SPEC.match(requirement.split("#")[0].strip())
    assert m, requirement
    return m.group(1), m.group(2).replace(" ", "")


def test_environment_yml_mirrors_pyproject():
    p = _pyproject()
    extras = p["project"]["optional-dependencies"]
    wanted = set(p["project"]["dependencies"]) | {r for e in ("dev", "lab", "lake") for r in extras[e]}
    wanted = {CONDA_NAMES.get(n, n) + s for n, s in map(_spec, wanted)}
    lines = (ROOT / "environment.yml").read_text().splitlines()
    # a dependency conda-forge lacks comes from PyPI, in the pip section ("      - "), with the same range
    deps = [line.lstrip()[2:].split("#")[0].strip() for line in lines if line.startswith(("  - ", "      - "))]
    listed = {"".join(_spec(d)) for d in deps if SPEC.match(d) and not d.startswith(("python>", "openjdk="))}
    assert listed == wanted
    assert "  - conda-forge" in lines
    assert f"  - python{p['project']['requires-python']}" in lines


def test_every_dependency_is_a_range_with_a_lower_bound():
    p = _pyproject()
    everything = list(p["project"]["dependencies"]) + [
        r for reqs in p["project"]["optional-dependencies"].values() for r in reqs
    ]
    for req in everything:
        name, spec = _spec(req)
        assert ">=" in spec or name in PINNED_ON_PURPOSE, req  # a lower bound, tested by `make test-lower`
        assert "==" not in spec or name in PINNED_ON_PURPOSE, req  # no exact pin: iolab installs beside other tools


def test_extras_split_the_lab_and_spark_from_the_command_line():
    p = _pyproject()
    core = {_spec(r)[0] for r in p["project"]["dependencies"]}
    extras = p["project"]["optional-dependencies"]
    assert {_spec(r)[0] for r in extras["lab"]} >= {"jupyterlab"} and "jupyterlab" not in core
    assert {_spec(r)[0] for r in extras["lake"]} >= {"pyspark"} and "pyspark" not in core


def test_lower_bounds_pin_each_range_at_its_floor():
    assert lower_bound("polars>=2.0,<3") == ("polars", "2.0")
    assert lower_bound("duckdb <3, >=2.0.1") == ("duckdb", "2.0.1")
    assert lower_bound("ruff==0.17.5") == ("ruff", "0.17.5")
    assert lower_bound("great-expectations[spark]>=1.24 ; python_version<'3.14'") == ("great-expectations", "1.24")
    with pytest.raises(ValueError, match="no lower bound"):
        lower_bound("altair<7")
    fake = {"project": {"dependencies": ["a>=1.2", "b>=3,<4"], "optional-dependencies": {"x": ["c==5"], "y": ["d>=1"]}}}
    assert constraints(fake, ["x"]) == ["a==1.2", "b==3", "c==5"]
    with pytest.raises(ValueError, match="no such extra: z"):
        constraints(fake, ["z"])
