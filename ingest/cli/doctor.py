"""`iolab doctor`: what this machine has for each part of iolab, and the command that fixes what it lacks.

Nothing is imported to find a package (its installed metadata is read), nothing is downloaded, and no
database is opened: the answer is the same on a machine without one.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import params, requires
from .tables import JSON, Cell, Col, table


@dataclass(frozen=True)
class Check:
    part: str  # what needs it
    item: str
    found: str | None  # its version or path, None when missing
    required: bool  # without it the command line itself cannot work
    fix: str  # the command that brings it


def _package(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _program(name: str) -> str | None:
    """What is found of the program ``name``: its path, with its version for Java and fio; None when it
    is missing, or (Java) older than Spark needs."""
    if name == "chromium":  # the one the print edition finds
        from ..reports import check

        return check.chromium()
    if name == "java":  # as pyspark finds it: $JAVA_HOME first
        home = os.environ.get("JAVA_HOME")
        path = (
            str(Path(home) / "bin" / "java")
            if home and (Path(home) / "bin" / "java").is_file()
            else shutil.which("java")
        )
    else:
        path = shutil.which(name)
    if path is None:
        return None
    said = _says(path, "-version" if name == "java" else "--version")
    if name == "java":
        found = re.search(r'version "((?:1\.)?(\d+)[^"]*)"', said)
        if found is None or int(found.group(2)) < JAVA:
            return None
        return f"{found.group(1)} ({path})"
    return f"{said.split()[0]} ({path})" if said.split() else path


JAVA = 17  # Spark 4's oldest Java


def _says(path: str, flag: str) -> str:
    """What ``path flag`` prints (Java prints its version on standard error), or "" if it cannot run."""
    import subprocess

    try:
        run = subprocess.run([path, flag], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return run.stdout + run.stderr


APT = "apt-get update && apt-get install -y"


# (part, Python distribution): the command line cannot run without the first group
PACKAGES = [
    *(("command line", d) for d in ("duckdb", "polars", "pyarrow", "rich", "pydantic")),
    *(("reports", d) for d in ("altair", "vl-convert-python", "nbconvert", "jinja2")),
    ("watch (iolab watch DIR)", "watchdog"),
    ("validation", "great-expectations"),
    *(("notebooks in the lab", d) for d in ("jupyterlab", "papermill")),
    *(("Spark lake (lake views --engine spark)", d) for d in ("pyspark", "sqlglot")),
]
# the extras of iolab whose distributions a fix installs through the extra (pip install 'iolab[lab]')
EXTRA_NAMES = ("lab", "lake")
_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA = re.compile(r"""\bextra\s*==\s*["']([^"']+)["']""")
# (part, program, its Debian package)
PROGRAMS = [
    ("print edition (report --format pdf)", "chromium", "chromium"),
    ("Spark lake (lake views --engine spark): Java 17 or newer", "java", "openjdk-17-jre-headless"),
    ("tests (real fio runs)", "fio", "fio"),
]


def _wanted(dist: str, extras: dict[str, str]) -> str:
    """What to pip install for ``dist``: iolab's extra that brings it, else the distribution."""
    return f"'iolab[{extras[dist]}]'" if dist in extras else dist


def _dist(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503: one spelling of a distribution's name


def extras_of(requirements: list[str]) -> dict[str, str]:
    """Each distribution of ``requirements`` (as importlib.metadata.requires gives them) that one of
    EXTRA_NAMES brings (its marker ``extra == "lab"``), with that extra."""
    out = {}
    for r in requirements:
        if (extra := _EXTRA.search(r)) and extra.group(1) in EXTRA_NAMES and (name := _NAME.match(r)):
            out[_dist(name.group(1))] = extra.group(1)
    return out


def declared_extras(pyproject: Path) -> dict[str, str] | None:
    """As extras_of, from iolab's pyproject.toml (its optional-dependencies); None if it is not one."""
    import tomllib

    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if project.get("name") != "iolab":
        return None
    optional = project.get("optional-dependencies", {})
    return extras_of([f'{r}; extra == "{e}"' for e in EXTRA_NAMES for r in optional.get(e, [])])


def extras() -> dict[str, str]:
    """Each distribution an extra of iolab brings, with the extra: from iolab's installed metadata,
    unless a checkout's pyproject.toml says otherwise (the metadata is stale: an editable install's is
    as old as its last pip install) or there is none."""
    from importlib import metadata

    from ..config import REPO

    try:
        installed = extras_of(metadata.requires("iolab") or [])
    except metadata.PackageNotFoundError:
        installed = None
    declared = declared_extras(REPO / "pyproject.toml")
    if declared is not None and declared != installed:
        return declared
    return installed or {}


INOTIFY = Path("/proc/sys/fs/inotify/max_user_watches")
WATCHES = 65_536  # inotify watches `iolab watch` wants at least: one per folder below the data folder


def inotify(limit_file: Path = INOTIFY) -> Check:
    """`iolab watch` watches a folder with one inotify watch per folder below it: the system's limit, if
    high enough (missing: no inotify, or too few watches; watch then polls the folder, more slowly)."""
    try:
        limit = int(limit_file.read_text().strip())
    except (OSError, ValueError):
        limit = None
    found = f"{limit:,} watches (fs.inotify.max_user_watches)" if limit is not None and limit >= WATCHES else None
    if limit is None:
        fix = "no inotify here: `iolab watch` lists the folder every second instead (as with --poll)"
    else:
        fix = f"sysctl -w fs.inotify.max_user_watches=524288 (now {limit:,}; else `iolab watch` polls)"
    return Check("watch (iolab watch DIR): inotify", f"{WATCHES:,} or more inotify watches", found, False, fix)


def checks() -> list[Check]:
    """Every part iolab uses, found or not."""
    pip = f"{sys.executable} -m pip install"
    out = [Check("command line", f"Python {sys.version.split()[0]}", sys.executable, True, "")]
    bring = extras()
    out += [Check(part, d, _package(d), part == "command line", f"{pip} {_wanted(d, bring)}") for part, d in PACKAGES]
    out += [Check(part, prog, _program(prog), False, f"{APT} {deb}") for part, prog, deb in PROGRAMS]
    out.append(inotify())
    return out


def register(sub: Any) -> None:
    p = sub.add_parser("doctor", help="what this machine has for each part of iolab, and how to add what it lacks")
    params.output(p)
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    found = checks()
    missing_required = any(c.found is None and c.required for c in found)
    if args.format == "json":
        params.write_json(
            {
                "ready": not missing_required,
                "missing": [c.item for c in found if c.found is None],
                "checks": [asdict(c) for c in found],
            }
        )
    else:
        _print(found)
    return requires.EXIT_ENVIRONMENT if missing_required else requires.EXIT_OK


COLUMNS = [
    Col("part", key=True, wrap=16),
    Col("needs", key=True, wrap=16),
    Col("found", drop=1, keep=True, shorten=True),
]
COLUMNS.append(Col("to add it", drop=2, keep=True, shorten=True))


def _print(found: list[Check]) -> None:
    from ..terminal import console, shown

    rows: list[list[Cell]] = [
        [
            shown(c.part),
            shown(c.item),
            shown(c.found) if c.found else ("missing", "red" if c.required else "yellow"),
            shown(c.fix) if c.found is None else "",
        ]
        for c in found
    ]
    table("iolab doctor", COLUMNS, rows, JSON)
    out = console()
    lacking = [c for c in found if c.found is None]
    if not lacking:
        out.print("Everything iolab uses is here.")
    else:
        out.print(
            f"{len(lacking)} missing: each row says what needs it and the command that adds it "
            "(`make setup` installs every Python package; `make test` installs fio and Java, `make reports-pdf` Chromium)."
        )
