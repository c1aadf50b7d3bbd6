"""mypy over the package `iolab` as the wheel installs it:   python tools/typecheck.py [mypy args]

The source folders are not named after the package (pyproject's package-dir maps `iolab` to ingest/ and
`iolab.validation` to validation/), and mypy names modules by their folders. So this builds the package
as the wheel lays it out, a tree of symbolic links under build/typecheck/iolab (made anew each run, so a
new module is never missed), runs mypy on it (`mypy_path`, `packages` in pyproject's [tool.mypy]), and
prints each finding at its file in the checkout: `ingest/batch.py:12: error: ...`. Exit status: mypy's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck" / "iolab"
FOLDERS = {"": ROOT / "ingest", "validation": ROOT / "validation"}  # place in the package -> source folder


def build() -> None:
    """build/typecheck/iolab: a link to every entry of ingest/, and validation/ as its `validation`."""
    if TREE.exists():
        shutil.rmtree(TREE)
    TREE.mkdir(parents=True)
    for entry in sorted(FOLDERS[""].iterdir()):
        if entry.name != "__pycache__":
            (TREE / entry.name).symlink_to(entry)
    (TREE / "validation").symlink_to(FOLDERS["validation"])


def in_checkout(line: str) -> str:
    """A finding's path in the link tree -> the file in the checkout."""
    tree = str(TREE.relative_to(ROOT)) + "/"
    if not line.startswith(tree):
        return line
    rest = line[len(tree) :]
    if rest.startswith("validation/"):
        return rest
    return "ingest/" + rest


def main(argv: list[str]) -> int:
    build()
    run = subprocess.run([sys.executable, "-m", "mypy", *argv], cwd=ROOT, capture_output=True, text=True)
    for line in run.stdout.splitlines():
        print(in_checkout(line))
    sys.stderr.write(run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
