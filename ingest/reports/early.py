"""What a render can start before its snapshot is ready: its kernels and the validation's process.

A render from scratch pays, before its first page, for a consistent snapshot of the database (the
copy and its views computed: DuckDB, which leaves Python's lock free), then for kernels (a process
each that imports Polars, Altair and pyarrow; the render draws the pictures: iolab.reports.pictures)
and the validation's Great Expectations import (2.1 s of CPU). None of those needs the snapshot. For
a study of five pages they were 60 % of the render; started together with the snapshot, they run
while it is made instead of after it. The validation runs in a process of its own
(iolab.reports.validator), started here: it imports Great Expectations while the snapshot is made.

Only when the render will execute pages (``--force``, or no render in the folder yet): a render that
finds every page unchanged starts no kernel and imports nothing it would not use; one that will reuse
the validation kept beside its pages (iolab.reports.validated) starts no validation;
one refused (a study not in the database) starts nothing at all.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Generic, TypeVar

P = TypeVar("P")  # a started kernel (kernels.Pages)


def workers() -> int:
    """How many kernels a render runs: ``IOLAB_REPORT_WORKERS``, else one per core but the one the
    pictures are drawn on (iolab.reports.pictures), at least one and at most two."""
    wanted = os.environ.get("IOLAB_REPORT_WORKERS", "").strip()
    return max(1, int(wanted) if wanted.isdigit() else min(2, (os.cpu_count() or 1) - 1))


def will_run_pages(out: Path, force: bool) -> bool:
    """Whether a render into ``out`` will execute pages: with ``force``, or no render there yet
    (one that finds its pages unchanged starts nothing)."""
    return force or not (out / "index.html").is_file()


class Started(Generic[P]):
    """Kernels being started in threads of their own; ``take`` hands one over once it is up."""

    def __init__(self, start: Callable[[], P], n: int) -> None:
        self._made: list[P] = []
        self._lock = threading.Lock()

        def one() -> None:
            try:
                made = start()
            except Exception:  # the worker that asks starts its own, and reports what fails then
                return
            with self._lock:
                self._made.append(made)

        self._threads = [threading.Thread(target=one, name=f"iolab-kernel-start-{i}") for i in range(n)]
        for t in self._threads:
            t.start()

    def take(self) -> P | None:
        """A started kernel, waiting for one still starting; None when none is left."""
        while True:
            with self._lock:
                if self._made:
                    return self._made.pop()
                alive = [t for t in self._threads if t.is_alive()]
            if not alive:
                with self._lock:
                    return self._made.pop() if self._made else None
            alive[0].join(timeout=0.05)

    def rest(self) -> list[P]:
        """Those never taken (every start finished first), for closing."""
        for t in self._threads:
            t.join()
        with self._lock:
            left, self._made[:] = self._made[:], []
        return left


def warmed(make: Callable[[], P], code: str) -> P:
    """A kernel made by ``make`` (kernels.Pages) that has run ``code`` (kernels.WARM_UP) in a notebook."""
    import nbformat

    pages = make()
    try:
        pages.execute(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]))  # type: ignore[attr-defined]
    except Exception:  # a kernel that cannot warm up still renders (and reports) its pages
        pass
    return pages


def imports(validation: bool) -> None:
    """What the render needs only after its snapshot, begun beside it: the validation's process if
    ``validation`` (it imports Great Expectations meanwhile), and nbconvert, imported here (DuckDB
    leaves Python's lock free while it copies and computes)."""
    if validation:
        with contextlib.suppress(Exception):  # none started: the render validates in its own process
            import_validation()
    with contextlib.suppress(Exception):  # the render imports it again and reports what fails
        import nbconvert  # noqa: F401


# the validation's process of the render under way (``import_validation``), which ``validator`` hands over
_validators: list[Any] = []


def import_validation() -> None:
    """The validation's own process started (iolab.reports.validator): it imports Great Expectations
    at once, beside the snapshot, and validates it when the render asks (``validator``)."""
    from .validator import Validator

    _validators.append(Validator())


def validator() -> Any:
    """The validation's process started for the render under way, taken (asked once), or None."""
    return _validators.pop() if _validators else None


# kernels started by the command before it imported the render (``launched``), for ``started`` to take
_launched: list[Started] = []


@contextlib.contextmanager
def launched(eager: bool, start: Callable[[], P], close: Callable[[P], None]) -> Iterator[None]:
    """While the block runs: ``workers()`` kernels made by ``start`` now, when ``eager``
    (``will_run_pages``), before the command imports the render (0.6 s on one core, the other idle
    meanwhile); the render's ``started`` takes them instead of starting its own. Those nobody took
    are closed (``close``) on leaving."""
    if not eager:
        yield
        return
    kernels: Started = Started(start, workers())
    _launched.append(kernels)
    try:
        yield
    finally:
        if kernels in _launched:
            _launched.remove(kernels)
        for k in kernels.rest():
            close(k)


# the kernels of the render under way (``started``), which its page workers ``take``: one render at a
# time per process, as the command runs it; a worker that finds none starts its own
_current: list[Started] = []


def take() -> Any:
    """A kernel started early for the render under way, or None (start one)."""
    return _current[-1].take() if _current else None


@contextlib.contextmanager
def started(
    start: Callable[[], P], close: Callable[[P], None], eager: bool, validation: bool = True
) -> Iterator[Started[P] | None]:
    """While the block runs: ``workers()`` kernels made by ``start`` (``take`` hands them to the page
    workers) and, if ``validation``, the validation's import, begun now when ``eager``; on leaving, the
    kernels nobody took are closed (``close``). None: not eager, nothing started."""
    if not eager:
        yield None
        return
    gx = threading.Thread(target=imports, args=(validation,), name="iolab-imports")
    gx.start()
    kernels = _launched.pop() if _launched else Started(start, workers())
    _current.append(kernels)
    try:
        yield kernels
    finally:
        _current.remove(kernels)
        for k in kernels.rest():
            close(k)
        gx.join()
        while _validators:  # started but never asked: the render ended first
            _validators.pop().close()
