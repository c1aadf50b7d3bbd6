"""A render's chart pictures, drawn by a process of the render's own rather than by its kernels.

Every chart on a page carries a static picture: the SVG that vl-convert draws from the chart's
Vega-Lite spec, which shows without scripts, in print and to the chart oracle. Drawn in the kernels,
each kernel started vl-convert's JavaScript engine (0.45 s of CPU), and a page's pictures (two thirds
of the 1,000-run study's page code) were drawn while its kernel could run nothing else.

In a render (``page.render_kernel``), a kernel leaves each picture ``PENDING``. Once a page has run,
the render sends every pending picture's spec, which the same figure carries, to one engine process
(``Engine``, started at the render's first picture) and fills in what it draws (``draw_pending``),
while the kernel already runs the next page. The spec is the one the kernel would have drawn, so the
picture is the same. A pending picture without a spec beside it is an error, never a blank chart.
"""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from types import ModuleType

PENDING = "iolab: picture drawn by the render"  # a kernel's picture for the render to draw
_DATA = "data:image/svg+xml;base64,"
_PENDING = _DATA + base64.b64encode(PENDING.encode("utf-8")).decode("ascii")


# vl-convert's loggers: its Vega warnings, and its rasteriser's (tiny-skia, for the PNGs of `report
# --images`: "path stroking failed" for each line of no length, such as a 95 % interval of 0 width)
QUIET = ("vl_convert", "tiny_skia")


def converter() -> ModuleType:
    """vl-convert, its warnings kept to Python's logging (QUIET): vl-convert 2 sends each (an axis's
    empty extent, a legend property set twice; a zero-length stroke its PNG rasteriser skips) there,
    and Python prints to the terminal a warning no handler takes (`report --images` printed "path
    stroking failed" 160 times for one study). They say nothing of the data, and vl-convert 1 kept
    them to itself."""
    import vl_convert

    for name in QUIET:
        log = logging.getLogger(name)
        if not log.handlers:
            log.addHandler(logging.NullHandler())  # a handler set up by the user still gets them
    return vl_convert


def draw(spec: dict) -> str:
    """The SVG of a Vega-Lite ``spec``, as a page carries it."""
    return converter().vegalite_to_svg(spec)


def warm() -> None:
    """Start vl-convert's engine in this process (it starts on the first picture drawn: 0.45 s)."""
    draw({"mark": "point", "data": {"values": [{"x": 0}]}, "encoding": {"x": {"field": "x", "type": "quantitative"}}})


def _drawn(spec_b64: str) -> str:
    """In the engine: the base64 SVG of a figure's base64 spec."""
    svg = draw(json.loads(base64.b64decode(spec_b64)))
    return base64.b64encode(svg.encode("utf-8")).decode("ascii")


class Engine:
    """A process that draws pictures (``python -m iolab.reports.pictures``), started at ``start`` or at
    the first picture asked for, warmed (``warm``) as it starts. Pictures are asked for (``draw``) by
    their spec, and answered in order; the same spec asked twice is drawn once.

    A process, not a thread: the render converts its pages meanwhile, and drawing beside them in the
    render's own process slowed both. Nothing is sent but specs, one line each: it reads no file."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._asked: dict[str, Future[str]] = {}  # by spec: the pictures drawn or being drawn
        self._queue: deque[Future[str]] = deque()  # asked and not yet answered, in order
        self._lock = threading.Lock()
        self._writing = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._proc is None:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE
                )
                threading.Thread(target=self._answers, args=(self._proc,), name="iolab-pictures", daemon=True).start()

    def draw(self, spec_b64: str) -> Future[str]:
        """The picture (base64 SVG) of a figure's spec (base64 JSON), drawn or being drawn."""
        self.start()
        with self._lock:
            if spec_b64 in self._asked:
                return self._asked[spec_b64]
            made: Future[str] = Future()
            self._asked[spec_b64] = made
            proc = self._proc
        # not under _lock: the engine may wait for its answers to be read before it reads on
        with self._writing:
            self._queue.append(made)  # in the order written: the answers come in that order
            try:
                assert proc is not None and proc.stdin is not None
                proc.stdin.write(spec_b64.encode("ascii") + b"\n")
                proc.stdin.flush()
            except (OSError, ValueError):  # the engine is gone: _answers fails what is left
                pass
        return made

    def forget(self, spec_b64: str) -> None:
        """A picture no longer kept (its page has it)."""
        with self._lock:
            self._asked.pop(spec_b64, None)

    def _answers(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            made = self._queue.popleft()  # asked before it was written
            text = line.decode("ascii").strip()
            if text.startswith("!"):
                made.set_exception(ValueError(base64.b64decode(text[1:]).decode("utf-8")))
            else:
                made.set_result(text)
        while self._queue:
            self._queue.popleft().set_exception(
                RuntimeError(f"the process drawing the charts' pictures stopped (exit {proc.wait()})")
            )

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
            self._asked.clear()
        if proc is not None:
            assert proc.stdin is not None
            proc.stdin.close()  # the engine ends at the end of its input
            proc.wait()


def serve() -> None:
    """The engine: a picture (base64 SVG) for each spec (base64 JSON) read, one line each; '!' and
    the reason (base64) for a spec that cannot be drawn."""
    warm()
    for line in sys.stdin.buffer:
        try:
            answer = _drawn(line.decode("ascii").strip())
        except Exception as e:  # the page that asked says why, without the JavaScript stack
            why = " ".join(x.strip() for x in str(e).splitlines() if x.strip() and not x.strip().startswith("at "))
            answer = "!" + base64.b64encode(f"a chart's picture could not be drawn: {why}".encode()).decode("ascii")
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


_render: list[Engine] = []  # the engine of the render under way (one render at a time per process)


@contextmanager
def for_render() -> Iterator[Engine]:
    """While a render runs: the engine that draws its pictures (``draw_pending``), started at the first
    picture asked for (as the render's first chart cell ends); closed when the render ends.

    Not beside the snapshot: there its start (a Python process, vl-convert's import and first picture:
    0.17 s of CPU) competed with the snapshot and the kernel's start for the two cores, before a page
    could run. Paired renders of the 1,000-run study (ten pairs): 0.94-0.97x the wall time."""
    engine = Engine()
    _render.append(engine)
    try:
        yield engine
    finally:
        _render.remove(engine)
        engine.close()


def draw_pending(page: str) -> str:
    """``page`` with every pending picture drawn from its figure's spec (``tables.figure_html``): by
    the render's engine (``for_render``), or here outside a render."""
    if _PENDING not in page:
        return page
    from .page_charts import FIGURE, SPEC

    figures = [m for m in FIGURE.finditer(page) if _PENDING in m.group(0)]
    found = [SPEC.search(m.group(0)) for m in figures]
    specs = [s.group(1) for s in found if s]
    if len(specs) != len(figures) or page.count(_PENDING) != len(figures):
        raise ValueError("a chart's picture was left to the render, but its figure carries no spec to draw")
    engine = _render[-1] if _render else None
    asked = [engine.draw(s) for s in specs] if engine else []  # all asked at once
    out, at = [], 0
    for i, (m, spec) in enumerate(zip(figures, specs, strict=True)):
        svg = asked[i].result() if engine else _drawn(spec)
        out += [page[at : m.start()], m.group(0).replace(_PENDING, _DATA + svg)]
        at = m.end()
        if engine:
            engine.forget(spec)
    return "".join([*out, page[at:]])


def ask_early(cell) -> None:
    """Ask the render's engine for the pending pictures of a cell just executed (nbclient's
    on_cell_executed): they are drawn while the kernel runs the rest of the page."""
    from .interactive import FIGURE
    from .page_charts import SPEC

    if not _render:
        return
    for out in cell.get("outputs", []):
        figure = out.get("data", {}).get(FIGURE, "")
        if _PENDING in figure:
            for spec in SPEC.findall(figure):
                _render[-1].draw(spec)


if __name__ == "__main__":
    serve()
