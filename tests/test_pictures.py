"""A render's chart pictures are drawn by one engine process of the render's own (iolab.reports.pictures),
not by its kernels; its kernels are lent to one page at a time (iolab.reports.kernels.Kernels)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import threading

import altair as alt
import polars as pl
import pytest

from iolab.reports import early, kernels, page, pictures
from iolab.reports.tables import figure_html


def spec(n: int) -> dict:
    """A small chart, its own for each ``n`` (title and values)."""
    df = pl.DataFrame({"x": [float(i) for i in range(n + 1)], "s": [f"system {i}" for i in range(n + 1)]})
    return alt.Chart(df, title=f"chart {n}").mark_point().encode(x="x:Q", color="s:N").to_dict()


def pending_page(specs: list[dict]) -> str:
    """A page of figures whose pictures a render's kernel left to the render."""
    figures = "".join(figure_html(s, pictures.PENDING, f"chart {i}") for i, s in enumerate(specs))
    return f"<html><body><p>before</p>{figures}<p>after</p></body></html>"


def drawn_here(specs: list[dict]) -> str:
    """The same page with the pictures drawn in this process, as a kernel drew them before."""
    figures = "".join(figure_html(s, pictures.draw(s), f"chart {i}") for i, s in enumerate(specs))
    return f"<html><body><p>before</p>{figures}<p>after</p></body></html>"


def test_the_render_draws_the_picture_the_kernel_would_have_drawn():
    specs = [spec(1), spec(2), spec(3)]
    with pictures.for_render():
        got = pictures.draw_pending(pending_page(specs))
    assert got == drawn_here(specs)
    assert pictures.draw_pending(pending_page(specs)) == got  # outside a render: drawn here, the same


def test_pictures_asked_from_many_threads_each_get_their_own():
    """Answers come back in the order asked: threads asking at once must never swap two pictures."""
    specs = [spec(i) for i in range(8)]
    pages = [pending_page([s]) for s in specs]
    got: dict[int, str] = {}
    with pictures.for_render():

        def one(i: int) -> None:
            got[i] = pictures.draw_pending(pages[i])

        threads = [threading.Thread(target=one, args=(i,)) for i in range(len(pages))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [got[i] for i in range(len(pages))] == [drawn_here([s]) for s in specs]


def test_a_picture_that_cannot_be_drawn_fails_its_page_with_the_reason():
    bad = {"mark": "point", "encoding": {"x": {"field": "x", "type": "no such type"}}, "data": {"values": [{"x": 1}]}}
    with pictures.for_render():
        with pytest.raises(ValueError, match=r"picture could not be drawn: .*Invalid field type") as e:
            pictures.draw_pending(pending_page([bad]))
        assert "\n" not in str(e.value) and " at " not in str(e.value)  # one line a page's failure shows whole
        assert pictures.draw_pending(pending_page([spec(4)])) == drawn_here([spec(4)])  # the engine goes on


EMPTY_AXIS = {"data": {"values": []}, "mark": "point", "encoding": {"x": {"field": "a", "type": "quantitative"}}}


@pytest.mark.parametrize("how", ["vl_convert.vegalite_to_svg", "pictures.draw"])
def test_vega_s_warnings_stay_out_of_the_terminal(how):
    """vl-convert 2 sends Vega's warnings ("Infinite extent" for an axis with no values) to Python's
    logging, which prints them to the terminal when nothing takes them; iolab's drawing keeps them there."""
    code = f"import json, sys, vl_convert; from iolab.reports import pictures; {how}(json.loads(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", code, json.dumps(EMPTY_AXIS)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    if how == "pictures.draw":
        assert done.stderr == ""
    else:  # the warning is there to keep: a vl-convert that no longer sends it makes this test moot
        assert 'Infinite extent for field "a"' in done.stderr


# a line of no length, as a 95 % interval of 0 width draws: vl-convert's PNG rasteriser (tiny-skia) cannot stroke it
NO_LENGTH = '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><path d="M1,1L1,1" stroke="black"/></svg>'


@pytest.mark.parametrize("how", ["vl_convert", "pictures.converter()"])
def test_the_rasteriser_s_warnings_stay_out_of_the_terminal(how):
    """`iolab report --images` printed "path stroking failed" 160 times on the standard error (issue 59): each
    PNG with a line of no length. tiny-skia logs it to Python's logging, which prints what nothing takes."""
    code = f"import sys, vl_convert; from iolab.reports import pictures; {how}.svg_to_png(sys.argv[1], scale=2)"
    done = subprocess.run([sys.executable, "-c", code, NO_LENGTH], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    if how == "vl_convert":  # the warning is there to keep: a vl-convert that no longer sends it makes this moot
        assert "path stroking failed" in done.stderr
    else:
        assert done.stderr == ""


def test_a_pending_picture_without_its_spec_is_refused_never_left_blank():
    page_text = pending_page([spec(1)])
    no_spec = page_text.split('<script type="application/json"')[0] + "</figure></div></body></html>"
    with pytest.raises(ValueError, match="carries no spec"):
        pictures.draw_pending(no_spec)


def test_the_engine_is_gone_when_the_render_ends():
    with pictures.for_render() as engine:
        engine.draw(base64.b64encode(json.dumps(spec(1)).encode()).decode()).result(timeout=60)
        proc = engine._proc
        assert proc is not None and proc.poll() is None
    assert proc.poll() == 0


def test_a_render_kernel_leaves_its_pictures_to_the_render(monkeypatch):
    monkeypatch.setattr(page, "_pictures_by_render", True)
    html = page.figure(alt.Chart(pl.DataFrame({"x": [1.0]})).mark_point().encode(x="x:Q"), "a point")
    assert base64.b64encode(pictures.PENDING.encode()).decode() in html
    drawn = pictures.draw_pending(html)
    assert base64.b64encode(pictures.PENDING.encode()).decode() not in drawn and "data:image/svg+xml;base64," in drawn


class Kernel:
    """A kernel that records how many pages run on it at once."""

    made = 0
    busy = 0
    most = 0
    lock = threading.Lock()

    def __init__(self) -> None:
        Kernel.made += 1

    def execute(self, nb: object) -> None:
        with Kernel.lock:
            Kernel.busy += 1
            Kernel.most = max(Kernel.most, Kernel.busy)
        threading.Event().wait(0.02)
        with Kernel.lock:
            Kernel.busy -= 1

    def __exit__(self, *exc: object) -> None:
        pass


def test_a_kernel_runs_one_page_at_a_time_and_no_more_kernels_are_made_than_asked(monkeypatch):
    monkeypatch.setattr(kernels, "start", Kernel)
    monkeypatch.setenv("IOLAB_REPORT_WORKERS", "2")
    Kernel.made = Kernel.busy = Kernel.most = 0
    jobs = [("s", f"p{i}") for i in range(9)]
    finished: list[tuple[str, str]] = []
    kernels.run_pages(jobs, lambda job, k: k.execute(job), lambda job, _, __: finished.append(job), lambda: None)
    assert sorted(finished) == sorted(jobs)
    assert Kernel.made == 2 and Kernel.most == 2  # two pages at once at most: one on each kernel


def test_kernels_launched_by_the_command_are_the_render_s(monkeypatch):
    """`iolab report` starts its kernels before it imports the render (early.launched); the render's
    ``started`` takes those, and starts none of its own."""
    monkeypatch.setenv("IOLAB_REPORT_WORKERS", "1")
    monkeypatch.setattr(early, "import_validation", lambda: None)
    made: list[str] = []

    def launch(eager: bool):
        return early.launched(
            eager, lambda: made.append("launched") or "launched kernel", lambda k: made.append(f"closed {k}")
        )

    own = early.started(lambda: made.append("own") or "own kernel", lambda k: None, eager=True)
    with launch(True), own:
        assert early.take() == "launched kernel"
    assert made == ["launched"]
    with launch(True):  # never taken: closed at the end
        pass
    with launch(False):  # a render that will run no page: nothing started
        pass
    assert made == ["launched", "launched", "closed launched kernel"]


def test_outputs_held_out_of_nbconvert_come_back_whole_and_a_lost_one_is_an_error():
    """render.hold_outputs: each HTML output goes through nbconvert as a token and comes back as it
    was written, quotes and all (nbconvert would have parsed and written it again)."""
    import nbformat

    from iolab.reports import render

    html = '<div class="iolab"><p class="note">baseline = &quot;Alpha&quot; &amp; <b>bold</b></p></div>'
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": html, "text/plain": "x"})]
    nb = nbformat.v4.new_notebook(cells=[cell])
    held_nb, held = render.hold_outputs(nb)
    token = next(iter(held))
    assert held_nb.cells[0].outputs[0]["data"]["text/html"] == token and held[token] == html
    with render.exporter() as export:
        body, _ = export.from_notebook_node(held_nb)
    assert html in render.restore_outputs(body, dict(held))
    with pytest.raises(ValueError, match="lost"):
        render.restore_outputs(body.replace(token, ""), dict(held))
