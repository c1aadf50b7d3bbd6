"""The repository stands alone: a clone with nothing beside it has every file its tests and docs use."""

from __future__ import annotations

import subprocess

from tests.conftest import ROOT

FORBIDDEN = "../" + "shared"  # spelled in two parts so this file does not match itself


def test_no_tracked_file_refers_outside_the_repository():
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    offenders = []
    for name in filter(None, files):
        path = ROOT / name.decode()
        if not path.is_file() or path.stat().st_size > 4 << 20:
            continue
        if FORBIDDEN.encode() in path.read_bytes():
            offenders.append(name.decode())
    assert offenders == [], f"these tracked files refer to {FORBIDDEN}: {offenders}"
