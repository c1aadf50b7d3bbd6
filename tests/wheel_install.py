"""`make test-wheel`: iolab's wheel installs beside tools that hold older pandas and pyarrow.

    python3 tests/wheel_install.py [--keep]

In a fresh venv under /tmp (from PyPI: needs the network, a few minutes): install an older pandas and
pyarrow first, as another tool would have, then the wheel built from this checkout (`pip wheel --no-deps`)
with its dependencies left to resolve. Checks that pip kept that pandas and pyarrow, that `iolab --version`
runs, that one study ingests and renders its report (the notebooks run without JupyterLab), and that
neither the lab extra (jupyterlab) nor the lake extra (pyspark) came along. Not part of `make test`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLDER = {"pandas": "2.3.3", "pyarrow": "20.0.0"}  # a minor and six majors back from pyproject's versions of 2026-11
STUDY = ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep"
TOP_LEVEL = {"iolab"}  # the one import name the wheel installs (package-dir: ingest/ -> iolab)
SHIPPED = ("pyproject.toml", "README.md", "LICENSE", "NOTICE", "ingest", "validation", "schemas", "notebooks")


def sh(*cmd: object, cwd: Path | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "IOLAB_ROOT", "IOLAB_DB", "VIRTUAL_ENV")}
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise SystemExit(f"FAILED: {' '.join(map(str, cmd))}\n{p.stdout}\n{p.stderr}")
    return p


def versions(py: Path) -> dict[str, str]:
    out = sh(py, "-m", "pip", "list", "--format=freeze").stdout
    return {n.lower(): v for n, _, v in (line.partition("==") for line in out.splitlines())}


def build_wheel(tmp: Path) -> Path:
    """From a clean copy of what the wheel ships: the checkout keeps no build/ or egg-info."""
    src = tmp / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.ipynb", ".ipynb_checkpoints")
    for name in SHIPPED:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(
            ROOT / name, src / name, **({"ignore": skip} if (ROOT / name).is_dir() else {})
        )
    sh(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp / "dist", src)
    wheel = next((tmp / "dist").glob("iolab-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        top = {n.split("/")[0] for n in z.namelist() if not n.split("/")[0].endswith(".dist-info")}
    assert top == TOP_LEVEL, f"the wheel installs {sorted(top)}"
    return wheel


def check(tmp: Path) -> None:
    t0 = time.monotonic()
    wheel = build_wheel(tmp)
    print(f"wheel {wheel.name} built in {time.monotonic() - t0:.0f} s")
    venv = tmp / "venv"
    sh(sys.executable, "-m", "venv", venv)
    py, iolab = venv / "bin" / "python", venv / "bin" / "iolab"
    t1 = time.monotonic()
    sh(py, "-m", "pip", "install", "-q", *(f"{n}=={v}" for n, v in OLDER.items()))
    before = versions(py)
    sh(py, "-m", "pip", "install", "-q", wheel)
    after = versions(py)
    print(f"installed beside pandas {OLDER['pandas']}, pyarrow {OLDER['pyarrow']} in {time.monotonic() - t1:.0f} s")
    for name, version in OLDER.items():
        assert before[name] == after[name] == version, f"pip replaced {name} {version} by {after.get(name)}"
    for extra in ("jupyterlab", "pyspark"):
        assert extra not in after, f"{extra} {after[extra]} came without its extra"
        assert sh(py, "-c", f"import {extra}", ok=False).returncode != 0
    sh(py, "-m", "pip", "check")

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    work = tmp / "elsewhere"
    work.mkdir()
    out = sh(iolab, "--version", cwd=work).stdout
    assert out.startswith(f"iolab {project['version']}"), out
    t2 = time.monotonic()
    out = sh(iolab, "ingest", STUDY, "--db", work / "x.duckdb", cwd=work).stdout
    assert f"{len(list(STUDY.glob('*.json')))} ingested" in out, out
    sh(iolab, "report", "--db", work / "x.duckdb", "--out", work / "reports", cwd=work)
    pages = sorted(p.name for p in (work / "reports" / STUDY.name).glob("*.html"))
    assert "01-overview.html" in pages, pages
    print(f"ingest + report of {STUDY.name} without the lab extra: {len(pages)} pages in {time.monotonic() - t2:.0f} s")


def main() -> int:
    keep = "--keep" in sys.argv[1:]
    t0 = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="iolab-wheel."))
    try:
        check(tmp)
    finally:
        if keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"test-wheel: passed in {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
