"""The render's validation in a process of its own, started with the render (iolab.reports.early).

A first render validates its studies (the footers of its pages): Great Expectations' import (2.1 s of
CPU) and the checks. In a thread of the render's own process they held Python's lock against what the
render does meanwhile (the kernels' messages, each page's conversion, its pictures' requests). In a
process of their own they only share the cores: the process is started with the render, imports GX
while the snapshot is made, and validates the snapshot when the render asks (one request: the
snapshot and its studies, as a line of JSON on its standard input; the answer, each study's footer,
a line of JSON on its standard output). If the render ends first, the process reads the end of its
input and ends too; a process that fails is said as the validation's failure.

    python -m iolab.reports.validator      (the child; it takes no arguments)
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


class Validator:
    """The validation's process, started now; ``validate`` once, then ``close``."""

    def __init__(self) -> None:
        self._err = tempfile.TemporaryFile()  # noqa: SIM115  (closed by close: never a pipe, which GX could fill)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "iolab.reports.validator"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            text=True,
        )

    def validate(self, snap: Path, studies: set[str]) -> dict[str, str]:
        """Each study's footer (iolab.reports.validation.footers) of ``snap``, from the process."""
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps({"snapshot": str(snap), "studies": sorted(studies)}) + "\n")
            proc.stdin.close()
            answer = proc.stdout.readline()
        except OSError:  # it ended before it was asked
            answer = ""
        said = json.loads(answer) if answer.strip() else {}
        if proc.wait() != 0 or "footers" not in said:
            raise _failure(said, self._err)
        return {str(k): str(v) for k, v in said["footers"].items()}

    def close(self) -> None:
        """Stop the process if it still runs (a render that ended without asking)."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._err.close()


def _failure(said: dict, err: Any) -> Exception:
    """The child's failure as the exception it raised, where iolab knows its kind (a DuckDB error, such
    as running out of memory or disk, and a database problem keep theirs, so the command maps them to
    its exit codes as it does in one process); else RuntimeError with its last word."""
    import duckdb

    from ..store.connect import DatabaseProblem

    kind, message = str(said.get("error", "")), str(said.get("message", ""))
    known = getattr(duckdb, kind[7:], None) if kind.startswith("duckdb.") else None
    if isinstance(known, type) and issubclass(known, duckdb.Error):
        return known(message)
    if kind.endswith(".DatabaseProblem") or kind.endswith(".DatabaseBusy"):
        return DatabaseProblem(message)
    if not message:
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
        message = lines[-1] if lines else "it ended without a word"
    return RuntimeError(f"the validation failed: {message}")


def import_gx() -> None:
    """Great Expectations imported as the validation imports it (iolab.validation.run: quiet, without
    pyspark, scipy.stats and Altair)."""
    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    from iolab.validation.run import _import_gx

    with contextlib.suppress(Exception):  # the validation imports it again and reports what fails
        _import_gx()


def main() -> int:
    """The child: import GX now, then answer one request read from the standard input (none: the
    render ended first)."""
    import duckdb

    from .validation import footers

    import_gx()
    line = sys.stdin.readline()
    if not line.strip():
        return 0
    asked = json.loads(line)
    try:
        made = footers(Path(asked["snapshot"]), set(asked["studies"]))
    except Exception as e:  # said to the render, which raises it as its own (``_failure``)
        where = "duckdb" if isinstance(e, duckdb.Error) else type(e).__module__
        kind = f"{where}.{type(e).__name__}"
        print(json.dumps({"error": kind, "message": str(e)}), flush=True)
        return 1
    print(json.dumps({"footers": made}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
