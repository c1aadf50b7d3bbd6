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

import json
import subprocess
import sys
import tempfile
from pathlib import Path


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
        if proc.wait() != 0 or not answer:
            self._err.seek(0)
            said = self._err.read().decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"the validation failed: {said[-1] if said else f'exit {proc.returncode}'}")
        return {str(k): str(v) for k, v in json.loads(answer).items()}

    def close(self) -> None:
        """Stop the process if it still runs (a render that ended without asking)."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._err.close()


def main() -> int:
    """The child: import GX now, then answer one request read from the standard input (none: the
    render ended first)."""
    from .early import import_gx
    from .validation import footers

    import_gx()
    line = sys.stdin.readline()
    if not line.strip():
        return 0
    asked = json.loads(line)
    print(json.dumps(footers(Path(asked["snapshot"]), set(asked["studies"]))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
