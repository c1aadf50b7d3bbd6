"""Every chart of the rendered pages as image files: ``iolab report --images DIR``.

    DIR/<study folder>/<page>-<NN>-<chart title>.svg and .png

The SVG is the chart's picture exactly as its page carries it (vl-convert's, from the spec the chart
oracle checks); the PNG is that SVG rasterised by vl-convert at twice its size. Both are made here,
offline. Folder and file names are built from the study's folder (``render.slug``), the page's
notebook, the chart's number on the page and its title cut to letters, digits and '-': a hostile
title or study name cannot name a path outside DIR, a hidden file or another chart's file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ingest import outputs

from .oracle import charts
from .render import inside, slug
from .tables import file_name

PNG_SCALE = 2.0


def write_bytes(path: Path, data: bytes) -> None:
    """``path`` whole or not at all (a temporary file beside it, then a rename over it, never through it)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def page_images(page: Path, folder: Path) -> list[Path]:
    """Write every chart of ``page`` into ``folder`` as SVG and PNG; the files written."""
    import vl_convert

    found, _ = charts(page.read_text(encoding="utf-8"), str(page))
    written = []
    for i, chart in enumerate(found, 1):
        stem = f"{file_name(page.stem, 40)}-{i:02d}-{file_name(chart.title)}"
        svg, png = inside(folder, folder / f"{stem}.svg"), inside(folder, folder / f"{stem}.png")
        write_bytes(svg, chart.svg.encode("utf-8"))
        write_bytes(png, bytes(vl_convert.svg_to_png(chart.svg, scale=PNG_SCALE)))
        written += [svg, png]
    return written


@outputs.sealed("chart images", "images")
def write_images(out: Path, images: Path, studies: list[str] | None = None) -> list[Path]:
    """Every chart of the pages under ``out`` (those of ``studies``, or every study rendered there) as
    files under ``images``; the files written. ``images`` is marked as iolab's output (an ingest of a
    folder holding it never reads the files its marker lists)."""
    if studies:
        folders = [out / slug(s) for s in studies]
    else:
        folders = sorted(p.parent for p in out.glob("*/.iolab-render.json"))
    outputs.start(images, "chart images")
    written: list[Path] = []
    for folder in folders:
        pages = sorted(p for p in folder.glob("*.html") if p.is_file() and not p.is_symlink())
        if not pages:
            continue
        target = inside(images, images / folder.name)
        target.mkdir(exist_ok=True)
        for page in pages:
            written += page_images(page, target)
    return written
