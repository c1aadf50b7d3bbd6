"""The wheel is installable on its own: it carries schemas/ and notebooks/ as package data.

Builds the wheel offline (`pip wheel --no-deps --no-build-isolation`) from the tracked files,
installs it with --no-deps into a bare venv whose dependencies come from this venv's site-packages
(a plain path line, so this checkout's editable install is not seen), and ingests one real file
from outside the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import pytest

from tests.conftest import ROOT

FIO = ROOT / "tests" / "corpus" / "fio-json" / "louwrentius__fio-plot__fio31_randrw-1-1.json"
SHIPPED = ("pyproject.toml", "README.md", "LICENSE", "NOTICE", "ingest", "validation", "schemas", "notebooks")


def sh(*cmd, cwd=None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "IOLAB_ROOT", "IOLAB_DB")}
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"{cmd}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def _not_shipped(folder: str, names: list[str]) -> set[str]:
    """Caches, generated notebooks, and anything not a file or folder (a running kernel's sockets)."""
    skip = set(shutil.ignore_patterns("__pycache__", "*.ipynb")(folder, names))
    return skip | {
        n for n in names if not (os.path.isfile(os.path.join(folder, n)) or os.path.isdir(os.path.join(folder, n)))
    }


@pytest.mark.slow
def test_wheel_installs_and_ingests(tmp_path):
    src = tmp_path / "src"
    for name in SHIPPED:  # a clean copy: no build/ or egg-info in the checkout
        s = ROOT / name
        if s.is_dir():
            shutil.copytree(s, src / name, ignore=_not_shipped)
        else:
            src.mkdir(exist_ok=True)
            shutil.copy2(s, src / name)
    built = sh(
        sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "-w", tmp_path / "dist", src
    )
    # issue 57: the build warns of nothing (it warned "Package would be ignored" for two package-data folders)
    assert "Warning" not in built and "would be ignored" not in built, built
    wheel = next((tmp_path / "dist").glob("iolab-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in meta and "License-File: LICENSE" in meta, meta
    assert {"LICENSE", "NOTICE"} <= {n.rsplit("/", 1)[-1] for n in names if "/licenses/" in n}
    # one top-level package of iolab's own (issue 42): ingest/ and validation/ are its source folders only
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"iolab"}, sorted(tops)

    venv = tmp_path / "venv"
    sh(sys.executable, "-m", "venv", "--without-pip", venv)
    py = venv / "bin" / "python"
    sh(sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", "--no-index", wheel)
    site = sh(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    (tmp_path / "venv" / site.split(str(venv) + "/", 1)[1] / "iolab-deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )

    work = tmp_path / "elsewhere"
    work.mkdir()
    where = sh(
        py, "-c", "import iolab.config as c; print(c.__file__); print(c.SCHEMAS); print(c.NOTEBOOKS)", cwd=work
    ).split()
    assert all(w.startswith(str(venv)) for w in where), where
    assert (venv / where[1] / "views" / "010_measurements.sql").is_file()
    assert (venv / where[2] / "01-overview.py").is_file()
    assert (venv / where[0]).parent.joinpath("reports", "templates", "cover.html.j2").is_file()  # the print edition
    out = sh(venv / "bin" / "iolab", "ingest", FIO, "--db", work / "x.duckdb", cwd=work)
    assert "1 ingested" in out
    n = sh(
        py,
        "-c",
        "import duckdb; print(duckdb.connect('x.duckdb').sql("
        "\"SELECT count(*) FROM measurements WHERE metric = 'iops'\").fetchall()[0][0])",
        cwd=work,
    )
    assert int(n) >= 1
    # `iolab formats` reads the versions shipped with the package: the wheel has no tests/corpus
    formats = sh(venv / "bin" / "iolab", "formats", cwd=work)
    assert "fio-3.1" in formats and formats.count("no real file") < 5


def test_a_database_of_the_package_named_ingest_names_its_parsers_iolab_after_v090(tmp_path):
    """Before the rename the parsers were stored as `ingest.formats.<name>`. A file already ingested is
    not parsed again, so V090 renames what such a database holds: one parser is never named two ways."""
    from iolab import db
    from tests.conftest import ingest, q

    path = tmp_path / "before.duckdb"
    con = db.open_db(path)
    ingest(con, FIO)
    assert q(con, "SELECT DISTINCT parser FROM source_history") == [("iolab.formats.fio_json",)]
    # as a database written before V090 holds it
    con.execute("UPDATE source_history SET parser = 'ingest.formats.fio_json'")
    con.execute("DELETE FROM schema_history WHERE version = 90")
    con.close()
    con = db.open_db(path)
    try:
        assert q(con, "SELECT DISTINCT parser FROM source_history") == [("iolab.formats.fio_json",)]
        assert q(con, "SELECT count(*) FROM schema_history WHERE version = 90") == [(1,)]  # applied again
    finally:
        con.close()
