"""A chart's output (page.show): in the lab the page's own spec drawn live by JupyterLab's Vega renderer,
the static SVG beside it for frontends without one, and in a render the page's figure exactly as
before (iolab.reports.interactive.as_page). The browser test (tests/test_lab_browser.py) sees it live."""

from __future__ import annotations

import base64
import json
import re

import nbformat
from nbconvert import HTMLExporter

from iolab.reports import interactive, page, render
from tests.test_interactive_charts import bars, spec_of

ALT = "Bar chart of three systems' IO/s at one workload, side by side."
LEFT_OUT = "Zeta <b>Z9</b> not drawn: no IO/s."


def shown_outputs(monkeypatch) -> list[tuple[object, dict]]:
    shown: list[tuple[object, dict]] = []
    monkeypatch.setattr(page, "display", lambda obj, **kw: shown.append((obj, kw)))
    page.show(bars(), ALT, left_out=LEFT_OUT)
    return shown


def test_a_chart_in_the_lab_is_the_pages_spec_live_and_its_svg(monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    (data, kw), (caption, caption_kw) = shown_outputs(monkeypatch)
    fig = page.figure(bars(), ALT, left_out=LEFT_OUT)
    assert isinstance(data, dict) and kw["raw"] is True
    assert data[interactive.FIGURE] == fig  # what a rendered page shows, unchanged
    spec = json.loads(json.dumps(data[interactive.VEGALITE], default=str))
    assert spec == spec_of(fig)  # the page's spec, selections included
    assert [p["name"] for p in spec["params"]] == [interactive.LEGEND]
    (svg_b64,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', fig)
    assert data["image/svg+xml"] == base64.b64decode(svg_b64).decode()
    assert data["text/plain"] == f"<chart: {ALT}>"
    assert "text/html" not in data  # it would outrank the live view in JupyterLab
    options = kw["metadata"][interactive.VEGALITE]["embed_options"]
    assert options["actions"] == {"export": True, "source": False, "compiled": False, "editor": False}
    assert options["downloadFileName"] == "hostile-title-x00-io-s"
    # the caption below the chart, escaped, for the lab only (the page's figure has its own)
    assert caption_kw == {"metadata": {interactive.LAB_ONLY: True}}
    assert "Zeta &lt;b&gt;Z9&lt;/b&gt; not drawn: no IO/s." in caption.data  # type: ignore[attr-defined]


def test_a_rendered_page_shows_the_figure_once_and_nothing_of_the_labs(monkeypatch):
    monkeypatch.delenv(interactive.ENV, raising=False)
    (data, kw), (caption, caption_kw) = shown_outputs(monkeypatch)
    outputs = [
        nbformat.v4.new_output("display_data", data=data, metadata=kw["metadata"]),
        nbformat.v4.new_output("display_data", data={"text/html": caption.data}, metadata=caption_kw["metadata"]),  # type: ignore[attr-defined]
        nbformat.v4.new_output("stream", name="stdout", text="kept\n"),
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("r.show(...)", outputs=outputs)])
    interactive.as_page(nb)
    (fig_out, stream) = nb.cells[0].outputs
    assert fig_out.data == {"text/html": page.figure(bars(), ALT, left_out=LEFT_OUT)} and fig_out.metadata == {}
    assert stream.text == "kept\n"
    body, _ = HTMLExporter(**render.EXPORT).from_notebook_node(nb)
    assert body.count('<figure class="iolab-chart"') == 1 and body.count("Zeta &lt;b&gt;Z9&lt;/b&gt; not drawn") == 1
    assert interactive.VEGALITE not in body and "vega-embed" not in body


def test_a_static_render_keeps_the_static_spec_in_the_lab_too(monkeypatch):
    monkeypatch.setenv(interactive.ENV, "1")  # the print edition
    (data, _), _ = shown_outputs(monkeypatch)
    assert "params" not in json.dumps(data[interactive.VEGALITE], default=str)
    assert 'class="iolab-vega"' not in data[interactive.FIGURE]
