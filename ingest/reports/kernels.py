"""The render's kernels: each executes report notebooks page after page (``Pages``), and the render
lends them to its pages (``Kernels``, ``run_pages``).

A kernel is a process of its own (ipykernel) that imports Polars and Altair once for the whole render
(iolab.reports.page.render_kernel). A page holds its kernel only while its notebook runs: converting it
to HTML and drawing its pictures (iolab.reports.pictures) happen after the kernel is given back, while
it already runs the next page.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import nbformat
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from traitlets import CaselessStrEnum

from ..config import NOTEBOOKS as NOTEBOOK_DIR
from ..config import REPO as ROOT
from . import early, pictures, scratch

T = TypeVar("T")  # run_pages: an executed page
V = TypeVar("V")  # run_pages: what the render learnt meanwhile (the validation)

CONVERTING = 3  # pages converted (or waiting for their pictures) at once, beside those running
WARM_UP = "from iolab.reports import page\npage.render_kernel()"


class IPCKernelManager(AsyncKernelManager):
    """Kernels on local IPC sockets: nothing listens on TCP, and ipykernel stops warning about it.

    The socket files live in a private temporary folder, named by absolute path, so the kernel (which
    runs in notebooks/) and this process find the same sockets.
    """

    transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)


class Pages:
    """Executes report notebooks in one kernel for the whole render.

    Starting a kernel and importing Polars and Altair cost about half a second per page; the kernel
    is started once and its namespace cleared (``%reset -f``) before each page, so every page still
    runs from its own cells alone. A page that kills the kernel gets a fresh one for the next.
    """

    def __init__(self) -> None:
        env_path = os.environ.get("PYTHONPATH", "")
        if str(ROOT) not in env_path.split(os.pathsep):  # its kernels import this iolab, not another one
            os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + env_path if env_path else "")
        self.client: NotebookClient | None = None
        self.sockets = scratch.folder("kernel")  # a killed render's is swept by the next (iolab.reports.scratch)

    def execute(self, nb: nbformat.NotebookNode) -> None:
        reset = nbformat.v4.new_code_cell("get_ipython().run_line_magic('reset', '-f')")
        nb.cells.insert(0, reset)
        if (
            self.client is None
            or self.client.km is None
            or not run_sync(cast(IPCKernelManager, self.client.km).is_alive)()
        ):
            self.close()
            km = IPCKernelManager(  # its connection file (with its HMAC key) beside its sockets: swept with them
                kernel_name="python3",
                ip=str(Path(self.sockets.name) / "kernel"),
                connection_file=str(Path(self.sockets.name) / "kernel.json"),
            )
            self.client = NotebookClient(
                nb,
                km=km,
                timeout=600,
                kernel_name="python3",
                resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
                on_cell_executed=lambda cell, **_: pictures.ask_early(cell),  # drawn while the page runs on
            )
        self.client.nb = nb
        try:
            self.client.execute(cleanup_kc=False)
        finally:
            nb.cells.remove(reset)

    def close(self) -> None:
        if self.client is not None:
            client, self.client = self.client, None
            try:
                if client.kc is not None:
                    client.kc.stop_channels()
                if client.km is not None and client.km.has_kernel:
                    run_sync(cast(IPCKernelManager, client.km).shutdown_kernel)(now=True)
            except Exception:  # a kernel that died already has nothing left to stop
                pass

    def __enter__(self) -> Pages:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        self.sockets.cleanup()


def start() -> Pages:
    """A kernel of the render, started and warmed up (``WARM_UP``)."""
    return early.warmed(Pages, WARM_UP)


def close(kernel: Pages) -> None:
    kernel.__exit__(None, None, None)


class Kernels:
    """The render's kernels, at most ``n``, each lent to one page at a time (``execute``). A kernel is
    made when a page first needs one that is not free: one started with the snapshot
    (iolab.reports.early) if there is one, else a new one. All are closed when the render ends."""

    def __init__(self, n: int) -> None:
        self._n = n
        self._made: list[Pages | None] = []  # None: being made
        self._free: list[Pages] = []
        self._ready = threading.Condition()

    def execute(self, nb: nbformat.NotebookNode) -> None:
        kernel = self._lend()
        try:
            kernel.execute(nb)
        finally:
            with self._ready:
                self._free.append(kernel)
                self._ready.notify()

    def _lend(self) -> Pages:
        with self._ready:
            while not self._free and len(self._made) >= self._n:
                self._ready.wait()
            if self._free:
                return self._free.pop()
            self._made.append(None)
        try:
            kernel = early.take() or start()
        except BaseException:
            with self._ready:
                self._made.remove(None)
                self._ready.notify()
            raise
        with self._ready:
            self._made[self._made.index(None)] = kernel
        return kernel

    def __enter__(self) -> Kernels:
        return self

    def __exit__(self, *exc: object) -> None:
        for kernel in self._made:
            if kernel is not None:
                close(kernel)


def run_pages(
    jobs: list[tuple[str, str]],
    execute: Callable[[tuple[str, str], Kernels], T],
    finish: Callable[[tuple[str, str], T, V], None],
    first: Callable[[], V],
) -> None:
    """Execute ``jobs`` while ``first`` runs here: each by ``execute(job, kernels)``, which runs its
    notebook on one of the render's kernels (``early.workers``: one per core but the pictures'
    engine's) and converts it. More worker threads than kernels (``CONVERTING`` more): while pages
    are converted and their pictures drawn, the kernels already run the next pages.

    A page is finished (``finish(job, executed, value of first)``) once ``first`` has returned;
    those executed before wait in memory until then. If ``first`` raises, no page is finished."""
    n = max(1, min(early.workers(), len(jobs)))
    queue = list(reversed(jobs))
    lock = threading.Lock()
    first_value: list[V] = []  # empty until first() returns
    waiting: list[tuple[tuple[str, str], T]] = []

    def worker(kernels: Kernels) -> None:
        while True:
            with lock:
                if not queue:
                    return
                job = queue.pop()
            executed = execute(job, kernels)
            with lock:
                if not first_value:
                    waiting.append((job, executed))
                    continue
            finish(job, executed, first_value[0])

    with Kernels(n) as kernels:
        threads = [
            threading.Thread(target=worker, args=(kernels,), name=f"iolab-report-{i}")
            for i in range(min(n + CONVERTING, len(jobs)))
        ]
        for t in threads:
            t.start()
        try:
            value = first()
            with lock:
                first_value.append(value)
                done, waiting[:] = waiting[:], []
            for job, executed in done:
                finish(job, executed, value)
        except BaseException:
            queue.clear()  # the kernels stop after the page they are on; nothing is written
            raise
        finally:
            for t in threads:
                t.join()
