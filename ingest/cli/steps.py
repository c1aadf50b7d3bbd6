"""Progress of a command's long work (validate, lake export, lake views), always on standard error:
on a terminal a rich progress bar that goes when the work is done; otherwise (a log, CI, a pipe) one
plain line per step, so a run of minutes says where it is. Standard output keeps only the results
(``--format json`` stays one clean document)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

# step(number, total, what): the work named ``what``, the number-th of total (1-based), starts now
Step = Callable[[int, int, str], None]


@contextlib.contextmanager
def steps(label: str) -> Iterator[Step]:
    """A ``Step`` callback for the work of ``label``, shown as the module says."""
    from ..terminal import console, shown

    err = console(stderr=True)
    if not err.is_terminal:

        def line(number: int, total: int, what: str) -> None:
            print(f"{label} [{number}/{total}] {shown(what)}", file=sys.stderr, flush=True)

        yield line
        return
    from ..progress import bar

    with bar(label, err) as progress:
        task = progress.add_task("", total=None)

        def move(number: int, total: int, what: str) -> None:
            progress.update(task, completed=number - 1, total=total, description=shown(what)[-60:])

        yield move
