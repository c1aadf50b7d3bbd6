"""Pin every dependency of pyproject.toml at its lower bound: a pip constraints file for `make test-lower`.

    python3 tests/lower_bounds.py [EXTRA ...] > constraints.txt

Each requirement of [project].dependencies and of the extras named becomes `name==X` where it says
`>=X` (or `==X`). A requirement with no lower bound is refused: its oldest version is untested.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;]*)")


def lower_bound(requirement: str) -> tuple[str, str]:
    """`"polars>=2.0,<3"` -> `("polars", "2.0")`; ValueError when there is no `>=` or `==` bound."""
    m = REQ.match(requirement)
    if not m:
        raise ValueError(f"not a requirement: {requirement!r}")
    name, spec = m.group(1), m.group(2)
    for clause in spec.split(","):
        clause = clause.strip()
        for op in (">=", "=="):
            if clause.startswith(op) and "*" not in clause:
                return name, clause[len(op) :].strip()
    raise ValueError(f"{requirement!r} has no lower bound (>= or ==)")


def constraints(pyproject: dict, extras: list[str]) -> list[str]:
    """The lines of the constraints file, in pyproject's order."""
    project = pyproject["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        raise ValueError(f"no such extra: {', '.join(unknown)} (pyproject has {', '.join(optional)})")
    reqs = list(project["dependencies"]) + [r for e in extras for r in optional[e]]
    return ["{}=={}".format(*lower_bound(r)) for r in reqs]


def main(argv: list[str]) -> int:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    try:
        lines = constraints(pyproject, argv)
    except ValueError as e:
        print(f"lower_bounds: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
