"""Every chart of the rendered pages as image files: ``iolab report --images DIR``.

    DIR/<study folder>/<page>-<NN>-<chart title>.svg and .png

The SVG is the chart's picture as its page carries it (vl-convert's, from the spec the chart oracle
checks), with one addition: a file travels without its page, so its title says what the page around
it says, the study, the study's baseline and the metric drawn (``titled``). The PNG is that SVG
rasterised by vl-convert at twice its size. Both are made here, offline. Folder and file names are built from the study's folder (``render.slug``), the page's
notebook, the chart's number on the page and its title cut to letters, digits and '-': a hostile
title or study name cannot name a path outside DIR, a hidden file or another chart's file.
"""

from __future__ import annotations

from pathlib import Path

from .. import outputs
from ..store.connect import reader
from ..written import write_bytes
from . import pictures
from .folders import RECORD, inside, recorded, slug
from .page_charts import Chart, charts
from .tables import file_name, visible

PNG_SCALE = 2.0


def metric_of(chart: Chart) -> str:
    """The metric ``chart`` draws: the one its source view is filtered on, else its quantitative axes' titles."""
    where = (chart.meta.get("source") or {}).get("where") or {}
    if where.get("metric") and not isinstance(where["metric"], list):  # a list: one of several, the axes say
        return str(where["metric"])
    axes = []
    for _, enc, _ in chart.layers():
        for channel in ("y", "x"):
            e = enc.get(channel)
            if isinstance(e, dict) and e.get("type") == "quantitative" and (e.get("title") or e.get("field")):
                axes.append(str(e.get("title") or e.get("field")))
    return " / ".join(dict.fromkeys(axes)) or "(none: the chart draws no quantity)"


def titled(chart: Chart, study: str, baseline: str | None) -> dict:
    """``chart``'s spec with a subtitle naming the study, its baseline and the metric (names escaped),
    after the chart's own subtitle where it has one."""
    spec = dict(chart.spec)
    title = spec.get("title") or {}
    title = dict(title) if isinstance(title, dict) else {"text": title}
    own = title.get("subtitle") or []  # what the chart says of itself (the trends: panels drawn of how many)
    lines = [f"Study: {study}", f"Baseline: {baseline or 'none (the study compares no systems)'}"]
    title["subtitle"] = [*([own] if isinstance(own, str) else own), *visible([*lines, f"Metric: {metric_of(chart)}"])]
    title.setdefault("text", "")
    spec["title"] = title
    return spec


def page_images(page: Path, folder: Path, study: str, baseline: str | None) -> list[Path]:
    """Write every chart of ``page`` (of ``study``) into ``folder`` as SVG and PNG; the files written."""
    vl_convert = pictures.converter()
    found, _ = charts(page.read_text(encoding="utf-8"), str(page))
    written = []
    for i, chart in enumerate(found, 1):
        stem = f"{file_name(page.stem, 40)}-{i:02d}-{file_name(chart.title)}"
        svg, png = inside(folder, folder / f"{stem}.svg"), inside(folder, folder / f"{stem}.png")
        picture = vl_convert.vegalite_to_svg(titled(chart, study, baseline))
        write_bytes(svg, picture.encode("utf-8"))
        write_bytes(png, bytes(vl_convert.svg_to_png(picture, scale=PNG_SCALE)))
        written += [svg, png]
    return written


def baselines(db: Path | None) -> dict[str, str]:
    """Each study's baseline system in ``db`` (none without a database)."""
    if db is None:
        return {}
    con = reader(db)
    try:
        rows = con.execute("SELECT study, baseline_system FROM study_baseline WHERE systems > 1").fetchall()
    finally:
        con.close()
    return {s: b for s, b in rows if b is not None}


@outputs.sealed("chart images", "images")
def write_images(out: Path, images: Path, studies: list[str] | None = None, db: Path | None = None) -> list[Path]:
    """Every chart of the pages under ``out`` (those of ``studies``, or every study rendered there) as
    files under ``images``; the files written. ``images`` is marked as iolab's output (an ingest of a
    folder holding it never reads the files its marker lists)."""
    held = {s: f for f, s in recorded(out).items()}  # one folder per study (iolab.reports.folders)
    if studies:
        folders = [out / held.get(s, slug(s)) for s in studies]
    else:
        folders = sorted(p.parent for p in out.glob(f"*/{RECORD}"))
    outputs.start(images, "chart images")
    written: list[Path] = []
    held_by = recorded(out)
    base = baselines(db)
    for folder in folders:
        study = held_by.get(folder.name, folder.name)
        pages = sorted(p for p in folder.glob("*.html") if p.is_file() and not p.is_symlink())
        if not pages:
            continue
        target = inside(images, images / folder.name)
        target.mkdir(exist_ok=True)
        for page in pages:
            written += page_images(page, target, study, base.get(study))
    return written
