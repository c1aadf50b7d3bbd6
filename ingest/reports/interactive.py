"""Charts a reader can work with on the page, added to every chart in one place (``page.figure``):

* a legend entry clicked shows only that system (shift-click adds more, a double click shows all
  again): a point selection bound to the legend, the other systems' marks faded (``FADED``);
* a time axis zooms (mouse wheel) and pans (drag), x only: an interval selection bound to the scales;
* the actions menu saves the chart as SVG or PNG, made in the browser (vega-embed's export); no action
  opens the network (no "Open in Vega Editor", no source views).

A selection changes opacity and the visible domain, never which marks there are or their values, so the
static SVG drawn from the same spec (and checked by the chart oracle) keeps every mark.

The page keeps its static SVG picture: the render adds Vega, Vega-Lite and vega-embed once per page
(``embed``, from vl-convert's own bundle: no network), which draws each chart live over its picture;
without scripts, and in print (``@media print``), the static picture shows. ``IOLAB_STATIC_CHARTS=1``
(the print edition) leaves every chart static: no selections in the specs, no scripts in the pages.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ENV = "IOLAB_STATIC_CHARTS"
LEGEND = "iolab_legend"
ZOOM = "iolab_zoom"
FADED = 0.1  # opacity of the marks of systems not picked in the legend
BOX = "iolab-vega"  # the element of a figure the live chart is drawn into


def enabled() -> bool:
    """Interactive charts unless ``IOLAB_STATIC_CHARTS`` is set (to anything but 0 or nothing)."""
    return os.environ.get(ENV, "").strip() in ("", "0")


def _views(spec: dict) -> Iterator[dict]:
    """Every view of a spec that may hold an encoding: unit specs and layer parents, in order."""
    if "encoding" in spec or "mark" in spec:
        yield spec
    for sub in spec.get("layer", []):
        yield from _views(sub)
    if isinstance(spec.get("spec"), dict):
        yield from _views(spec["spec"])


def _colour_field(enc: dict) -> str | None:
    c = enc.get("color")
    if isinstance(c, dict) and "field" in c and c.get("type") in ("nominal", "ordinal") and c.get("legend", 1):
        return str(c["field"])
    return None


def _unit_with(views: list[dict], test) -> tuple[dict, dict] | None:
    """The first unit spec (one with a mark) whose encoding, its own over its layer's, passes ``test``;
    with that encoding."""
    inherited: dict = {}
    for v in views:
        enc = {**inherited, **v.get("encoding", {})}
        if "mark" in v and test(enc):
            return v, enc
        if "layer" in v:
            inherited = enc
    return None


def add_legend_selection(spec: dict) -> bool:
    """Clicking a legend entry keeps that value's marks and fades the others (shift-click adds more)."""
    views = list(_views(spec))
    found = _unit_with(views, _colour_field)
    if found is None:
        return False
    unit, enc = found
    field = _colour_field(enc)
    unit.setdefault("params", []).append(
        {"name": LEGEND, "select": {"type": "point", "fields": [field]}, "bind": "legend"}
    )
    for v in views:
        enc = v.get("encoding", {})
        if _colour_field(enc) == field and "opacity" not in enc:
            enc["opacity"] = {"condition": {"param": LEGEND, "value": 1}, "value": FADED}
    return True


def add_time_zoom(spec: dict) -> bool:
    """Zoom and pan on a temporal x axis; not in facets and concatenations (each panel its own scale)."""
    if any(k in spec for k in ("facet", "concat", "hconcat", "vconcat", "repeat")):
        return False

    def temporal(enc: dict) -> bool:
        return isinstance(enc.get("x"), dict) and enc["x"].get("type") == "temporal"

    views = list(_views(spec))
    found = _unit_with(views, temporal)
    if found is None:
        return False
    unit = found[0]
    interval = {"type": "interval", "encodings": ["x"]}
    unit.setdefault("params", []).append({"name": ZOOM, "select": interval, "bind": "scales"})
    for v in views:  # zoomed in, a line must not run past the plot's edges
        if "mark" in v:
            v["mark"] = {**(v["mark"] if isinstance(v["mark"], dict) else {"type": v["mark"]}), "clip": True}
    return True


# a point on each of a time series' samples, not drawn (no fill, no stroke), that the pointer finds: a
# line's tooltip is the whole path's, found only on its 1-2 px stroke and naming one of its samples
HOVER_POINTS = {"filled": True, "size": 80, "fillOpacity": 0, "strokeOpacity": 0}


def add_hover_points(spec: dict) -> bool:
    """Each line over a temporal x that has a tooltip gets a hidden point per sample carrying it, so
    hovering anywhere along the line names the sample under the pointer, with its full timestamp."""
    added, inherited = False, spec.get("encoding") or {}
    for v in _views(spec):
        enc = {**inherited, **(v.get("encoding") or {})}
        mark = v.get("mark")
        kind = mark.get("type") if isinstance(mark, dict) else mark
        x = enc.get("x")
        over_time = kind == "line" and "tooltip" in enc and isinstance(x, dict) and x.get("type") == "temporal"
        if over_time and not (isinstance(mark, dict) and mark.get("point")):
            v["mark"] = {**(mark if isinstance(mark, dict) else {"type": "line"}), "point": HOVER_POINTS}
            added = True
    return added


def add(spec: dict) -> dict:
    """``spec`` (a Vega-Lite dict) with the legend selection, the time zoom and the time series' hover
    points where they apply."""
    out = copy.deepcopy(spec)
    add_legend_selection(out)
    add_time_zoom(out)
    add_hover_points(out)
    return out


# ---- the page -----------------------------------------------------------------------------------

EMBED_OPTIONS = (
    "{renderer: 'svg', actions: {export: true, source: false, compiled: false, editor: false}, downloadFileName: name}"
)

# Runs once the page has loaded: every figure with a live box gets its chart drawn there from the
# spec it carries (base64 JSON), and its static picture is hidden once the live one stands.
SCRIPT = f"""(function () {{
  function spec(el) {{
    const bytes = Uint8Array.from(atob(el.textContent.trim()), c => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  }}
  document.querySelectorAll('figure.iolab-chart').forEach(function (fig, i) {{
    const box = fig.querySelector('.{BOX}'), data = fig.querySelector('script.iolab-chart-spec');
    const img = fig.querySelector('img');
    if (!box || !data || !window.vegaEmbed) return;
    const name = box.dataset.name || ('chart-' + (i + 1)), drawn = spec(data);
    vegaEmbed(box, drawn, {EMBED_OPTIONS}).then(function (shown) {{
      fig.iolabView = shown.view;
      // a chart whose inputs change its panels (the explore page) takes the size they need
      (drawn.params || []).filter(p => p.bind && p.bind.input).forEach(function (p) {{
        shown.view.addSignalListener(p.name, function () {{ shown.view.resize().runAsync(); }});
      }});
      box.hidden = false; if (img) img.classList.add('iolab-static'); fig.classList.add('iolab-live');
    }}).catch(function (e) {{ box.remove(); console.error('iolab: chart ' + (i + 1) + ': ' + e); }});
  }});
}})();"""

CSS = f"""<style>
figure.iolab-chart img.iolab-static {{display: none}}
@media print {{ figure.iolab-chart .{BOX} {{display: none !important}}
               figure.iolab-chart img.iolab-static {{display: inline !important}} }}
</style>"""


def bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one script (vl-convert's, for the Vega-Lite version of
    Altair's specs): it defines window.vegaEmbed and fetches nothing. Its HTML snippets (vega-embed
    writes a source view as `<html>...</body></html>`) are written `<\\/`, the same text in its
    strings: none can end the script or be taken for the page's own ``</body>``. A regular expression
    opening with '<' (``/</g``) stays as it is: '</g' closes nothing."""
    from importlib.metadata import version

    # named for what decides its bytes: vl-convert's version and Altair's, whose Vega-Lite the pages'
    # specs are written for, read from the installed packages: the render imports neither only to
    # name it (Altair: 0.3 s a render)
    kept = cached_bundle(f"vega-bundle-vl-convert-{version('vl-convert-python')}-altair-{version('altair')}.js")
    if kept is not None and kept.is_file():
        try:
            return kept.read_bytes().decode("utf-8")  # as written: no newline translated
        except (OSError, UnicodeDecodeError):
            pass  # made again below
    import altair as alt

    script = made_bundle(alt.SCHEMA_VERSION.lstrip("v").rsplit(".", 1)[0])
    script = re.sub(r"(?<![/\\\\])</(?=[A-Za-z])", r"<\\/", script)
    if kept is not None:
        try:
            from ..written import write_text

            kept.parent.mkdir(parents=True, exist_ok=True)
            write_text(kept, script)  # whole or not at all: a render killed meanwhile leaves no cut copy
        except OSError:
            pass  # a cache that cannot be written costs the next render the 2 s again, nothing else
    return script


def made_bundle(vega_lite: str) -> str:
    """vl-convert's bundle for Vega-Lite ``vega_lite``, made by a process of its own: vl-convert 2's
    bundler writes each of its passes ("tree-shaker; pass=1") on the standard error, which is the
    user's terminal, and only a process of its own keeps them off it (what says why it failed, shown)."""
    code = (
        "import sys, vl_convert; "
        "sys.stdout.buffer.write(vl_convert.javascript_bundle(None, vl_version=sys.argv[1]).encode())"
    )
    done = subprocess.run([sys.executable, "-c", code, vega_lite], capture_output=True, check=False)
    if done.returncode:
        told = done.stderr.decode("utf-8", "replace").splitlines()  # the exception, then Rust's stack
        why = next((t for t in told if re.match(r"\w+(Error|Exception)\b", t)), f"exit {done.returncode}")
        raise RuntimeError(f"vl-convert could not make the live charts' script: {why}")
    return done.stdout.decode("utf-8")


def cached_bundle(name: str) -> Path | None:
    """Where ``bundle`` keeps its script between renders: the cache folder (iolab.config.cache_dir).

    vl-convert bundles Vega, Vega-Lite and vega-embed anew on each call: 2.2 s of CPU, a tenth of a
    1,000-run study's render of five pages, for the same bytes every time with the same vl-convert
    and Vega-Lite version, which name the file. ``IOLAB_BUNDLE_CACHE=0``: none kept."""
    from .. import config

    if os.environ.get("IOLAB_BUNDLE_CACHE", "").strip() == "0":
        return None
    return config.cache_dir() / name


_bundle: list[str] = []


def embed(page: str) -> str:
    """``page`` with the scripts that draw its charts live, before ``</body>``; unchanged when no
    figure has a live box (a page without charts, or rendered static)."""
    if f'class="{BOX}"' not in page or not enabled():
        return page
    if not _bundle:
        _bundle.append(bundle())
    scripts = f"{CSS}<script>{_bundle[0]}</script><script>{SCRIPT}</script>"
    at = page.rfind("</body>")
    return page[:at] + scripts + page[at:] if at >= 0 else page + scripts


# ---- the lab ------------------------------------------------------------------------------------
# A chart is one output whose formats each frontend picks from: JupyterLab (and any frontend with a
# Vega renderer) draws the Vega-Lite spec live, with vega-embed's tooltips and the selections above; one
# without draws the static SVG. The page's figure (SVG, alt text, caption, checked spec) travels under a
# type of iolab's own that no frontend shows: as text/html it would outrank the Vega-Lite spec in the
# lab (rank 50 against 57: the static picture again). The render makes it the page's HTML (``as_page``).

VEGALITE = "application/vnd.vegalite.v5+json"  # the newest JupyterLab 4 renders (its Vega-Lite is 5)
FIGURE = "application/vnd.iolab.figure+html"
LAB_ONLY = "iolab_lab_only"  # an output's metadata key: shown in the lab, left out of a rendered page
LAB_EMBED = {"renderer": "svg", "actions": {"export": True, "source": False, "compiled": False, "editor": False}}


def lab_output(spec: dict, svg: str, figure: str, alt_text: str, name: str) -> tuple[dict, dict]:
    """The data and metadata of a chart's output: the live spec, the SVG, the page's ``figure``."""
    data = {VEGALITE: spec, "image/svg+xml": svg, FIGURE: figure, "text/plain": f"<chart: {alt_text}>"}
    return data, {VEGALITE: {"embed_options": {**LAB_EMBED, "downloadFileName": name}}}


def as_page(nb):
    """An executed notebook (nbformat), changed to what a page shows: each chart its page figure
    (text/html), the outputs meant for the lab only left out. nbconvert then exports it as before."""
    for cell in nb.cells:
        if "outputs" not in cell:
            continue
        kept = []
        for out in cell.outputs:
            if out.get("metadata", {}).get(LAB_ONLY):
                continue
            if FIGURE in out.get("data", {}):
                out["data"] = {"text/html": out["data"][FIGURE]}
                out["metadata"] = {}
            kept.append(out)
        cell.outputs = kept
    return nb
