"""Paths and defaults, in one place.

Environment variables (all optional):

* ``IOLAB_ROOT``: the folder relative database paths are resolved against by the notebooks and
  reports (``make lab`` sets it to the repository); default: the repository (or the current folder
  when iolab is installed from a wheel).
* ``IOLAB_DB``: the default database path for every command and notebook; default ``data/iolab.duckdb``,
  which a command looks for in the current folder and then in each folder above it (``find_db``).
* ``IOLAB_DB_MEMORY``: how much memory DuckDB may keep on each connection iolab opens (an ingest, a
  render's snapshot and its pages, the validation, a notebook's queries), e.g. ``2GB``; past it
  DuckDB writes out or spills to a folder in the cache (``spill/``) instead of growing. Default,
  sized from the machine (its memory, or its control group's limit if lower): a quarter of it,
  at least 256 MB, and at most 512 MB while writing (a bigger cache only delays the commit's
  writing). DuckDB's own default is 80 % of the machine's memory.
* ``IOLAB_CACHE_DIR``: where iolab keeps what it can make again (the empty database a new one is
  copied from, a .gz's decompressed copy while it is read); default ``$XDG_CACHE_HOME/iolab``, else
  ``~/.cache/iolab``. Deleting it is always safe.
* ``IOLAB_MAX_FILES``: how many files an ``iolab ingest`` may find before it asks for ``--yes``
  (a folder named by mistake, such as a system folder); default 20,000.

``schemas/`` (migrations and views) and ``notebooks/`` ship inside the wheel as ``iolab/schemas``
and ``iolab/notebooks`` (package data, beside this module); in a checkout they are read from the
repository itself.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent  # the checkout; site-packages when installed
DB_DEFAULT = "data/iolab.duckdb"
REPORTS_DEFAULT = "reports"
LOCK_WAIT_S = 30.0  # how long a command waits for another iolab process to release the database


MEMORY_KNOB = "IOLAB_DB_MEMORY"


def machine_memory() -> int:
    """Bytes of memory this process may use: the machine's, or its control group's limit if lower
    (a container's; cgroup v2 memory.max, else v1 memory.limit_in_bytes). Where the system does not
    say (no sysconf), 2 GB."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        total = 2_000_000_000
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            said = Path(limit).read_text().strip()
        except OSError:
            continue
        if said.isdigit():
            total = min(total, int(said))
    return total


def db_memory_limit(read_only: bool = False) -> str:
    """DuckDB's memory_limit for a connection: ``$IOLAB_DB_MEMORY``, else sized from the machine: a
    quarter of its memory (``machine_memory``), at least 256 MB, at most 512 MB for a connection that
    writes (without a limit DuckDB kept ~3x a 200 MB Iometer file's rows in memory until the commit).
    Past it DuckDB spills (store.connect gives every connection a folder to spill to)."""
    if said := os.environ.get(MEMORY_KNOB, "").strip():
        return said
    quarter = max(256, machine_memory() // 4 // 1_000_000)  # in MB, as DuckDB reads "MB" (10^6 bytes)
    return f"{quarter if read_only else min(quarter, 512)}MB"


def memory_bytes(limit: str) -> int:
    """A memory_limit as DuckDB reads it (``512MB``, ``2 GiB``, ``1.5GB``) in bytes; 0 when unreadable."""
    import re

    m = re.fullmatch(r"\s*([0-9.]+)\s*([kmgt]?)(i?)b?\s*", limit.lower())
    if not m or m.group(1).count(".") > 1:
        return 0
    power = " kmgt".index(m.group(2) or " ")
    return int(float(m.group(1)) * (1024 if m.group(3) else 1000) ** power)


def spill_root() -> Path:
    """Where DuckDB spills what does not fit in its memory_limit: a folder per process in the cache
    (store.connect; a killed process's folder is removed by the next connection)."""
    return cache_dir() / "spill"


MAX_FILES_DEFAULT = 20_000


def max_files() -> int:
    """How many files ``iolab ingest`` may find before it asks for ``--yes``: ``$IOLAB_MAX_FILES``,
    else 20,000. ValueError, saying so, when the variable is not a whole number."""
    wanted = os.environ.get("IOLAB_MAX_FILES", "").strip().replace("_", "").replace(",", "")
    if not wanted:
        return MAX_FILES_DEFAULT
    if not wanted.isdigit():
        raise ValueError(f"IOLAB_MAX_FILES is {os.environ['IOLAB_MAX_FILES']!r}: it must be a whole number of files")
    return int(wanted)


def default_db() -> str:
    """The database notebooks use when none is given: ``$IOLAB_DB`` or data/iolab.duckdb (under ``root()``)."""
    return os.environ.get("IOLAB_DB") or DB_DEFAULT


def find_db(start: Path | None = None) -> tuple[str, str]:
    """The database a command uses without ``--db``, and how it was found: ``$IOLAB_DB``; else
    data/iolab.duckdb in the current folder or the nearest folder above that holds one, as git finds
    its repository (``cd notebooks && iolab info`` reads the project's database); the search stops at
    the file system's top and where a mount point would be crossed (git's rule too). None found:
    data/iolab.duckdb in the current folder, where an ingest creates it."""
    if env := os.environ.get("IOLAB_DB"):
        return env, "$IOLAB_DB"
    here = (start or Path.cwd()).absolute()
    try:
        device = here.stat().st_dev
    except OSError:
        return DB_DEFAULT, "the default"
    for folder in (here, *here.parents):
        candidate = folder / DB_DEFAULT
        try:
            if folder.stat().st_dev != device:
                break
            if candidate.is_file():
                return (DB_DEFAULT if folder == here else str(candidate)), (
                    "the default" if folder == here else f"found above {here}"
                )
        except OSError:
            break
    return DB_DEFAULT, "the default"


def cache_dir() -> Path:
    """``$IOLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/iolab``, else ``~/.cache/iolab`` (not created here)."""
    if env := os.environ.get("IOLAB_CACHE_DIR"):
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "iolab"


def root() -> Path:
    """What relative paths in notebooks and reports are relative to: ``$IOLAB_ROOT``, else the checkout."""
    if env := os.environ.get("IOLAB_ROOT"):
        return Path(env)
    return REPO if (REPO / "pyproject.toml").is_file() else Path.cwd()


def resource_dir(name: str) -> Path:
    """``schemas``, ``notebooks`` or ``validation``: the copy inside the installed package, else the repository's.
    (A wheel installs as files, so the package data is a folder beside this module: a path is enough,
    and importlib.resources would weigh on every command's start.)"""
    packaged = Path(__file__).resolve().parent / name
    return packaged if packaged.is_dir() else REPO / name


SCHEMAS = resource_dir("schemas")
VIEWS = SCHEMAS / "views"
NOTEBOOKS = resource_dir("notebooks")
SUITES = resource_dir("validation")  # the Great Expectations suites (iolab.validation)
