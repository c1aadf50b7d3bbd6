"""The print edition: `iolab report --format pdf` writes one PDF per study, <out>/<study>/<study>.pdf.

A cover (the systems, the baseline), the contents, every report page of the study (the HTML edition's
pages, printed as they are with a print stylesheet: A4 landscape, each chart whole on one page, the
screen's controls hidden) and an appendix saying where every number comes from (each source file with
its SHA-256; each run's numbers with their file and lines). Every part is printed by headless Chromium
with the network cut, as ``make check-reports`` opens the pages; pypdf joins the parts, adds a bookmark
per section and numbers the pages. The cover, contents and appendix are Jinja2 templates
(ingest/reports/templates), which escape every name from the data.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import jinja2

from ..store.connect import reader
from . import check, scratch
from .facts import LINE_RANGES, RUN_ROWS, appendix_facts, cover_facts, line_ranges, rows, with_lines  # noqa: F401
from .tables import drawn

TEMPLATES = Path(__file__).resolve().parent / "templates"


class PrintFailed(RuntimeError):
    """Chromium did not print a part of the edition; the message says which and why."""


@dataclass
class Part:
    """One printed part of the edition: its bookmark title and its PDF."""

    title: str
    pdf: Path
    pages: int = 0
    start: int = 0  # 1-based page of the whole edition where it starts


@dataclass
class Edition:
    """What the edition of one study is made of."""

    study: str
    pages: list[tuple[str, Path]]  # (title, HTML page) in the order of the HTML edition
    source: Path  # the database the snapshot was taken of, named on the cover
    parts: list[Part] = field(default_factory=list)
    not_printed: list[tuple[str, str]] = field(default_factory=list)  # (title, why): pages with nothing drawn


def visible(value: object) -> object:
    """A value as the templates print it: control characters written as escapes (``\\x1b``, as the
    terminal shows them) instead of a box. Jinja2 escapes the result."""
    from ..terminal import shown

    return value if hasattr(value, "__html__") else shown(value)  # markup: the stylesheet, marked safe


def templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=visible,
    )


def print_css() -> str:
    return (TEMPLATES / "print.css").read_text(encoding="utf-8")


def chromium_print(page: Path, pdf: Path) -> int:
    """Print ``page`` to ``pdf`` in headless Chromium (network cut); its number of pages.

    The virtual time budget lets any script of the page (a chart drawn in the browser) finish first."""
    if check.chromium() is None:
        raise PrintFailed("the print edition needs Chromium: `apt-get install chromium` (make check-reports does it)")
    import pypdf  # 0.2 s to import: only when printing, not on every render of the HTML edition

    done = check.run(page, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", "--virtual-time-budget=10000")
    if not pdf.is_file() or pdf.stat().st_size == 0:
        why = (done.stderr or "").strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        raise PrintFailed(f"Chromium printed no PDF of {page.name}: {why[0]}")
    return len(pypdf.PdfReader(pdf).pages)


def print_copy(page: Path, into: Path) -> Path:
    """A copy of a report page with the print stylesheet and its charts drawn for the page
    (iolab.reports.printed), beside the others in ``into``."""
    from .print_tables import whole_names
    from .printed import print_figures

    text = whole_names(print_figures(page.read_text(encoding="utf-8"), name=page.stem))
    style = f"<style>{print_css()}</style>"
    text = text.replace("</head>", style + "</head>", 1) if "</head>" in text else style + text
    copy = into / f"page-{page.stem}.html"
    copy.write_text(text, encoding="utf-8")
    return copy


def print_template(name: str, into: Path, **values: object) -> Path:
    """Render template ``name`` into ``into`` as HTML and print it; the PDF's path."""
    from .print_tables import whole_names

    html = whole_names(templates().get_template(name).render(print_css=print_css(), **values))
    page = into / name.replace(".j2", "")
    page.write_text(html, encoding="utf-8")
    return page


def print_parts(con: duckdb.DuckDBPyConnection, ed: Edition, tmp: Path) -> dict:
    """Print the cover, every report page and the appendix of ``ed`` into ``tmp``; the cover's facts."""
    import pypdf

    from .. import __version__

    facts = cover_facts(con, ed.study)
    when = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    page = print_template(
        "cover.html.j2",
        tmp,
        study=ed.study,
        pages=ed.pages,
        when=when,
        version=__version__,
        source=str(ed.source),
        **facts,
    )
    ed.parts.append(Part("Cover", tmp / "cover.pdf"))
    chromium_print(page, ed.parts[0].pdf)
    for i, (title, html) in enumerate(ed.pages):
        ed.parts.append(Part(title, tmp / f"section-{i:02d}.pdf"))
        chromium_print(print_copy(html, tmp), ed.parts[-1].pdf)
    ed.parts.append(Part("Appendix: where every number comes from", tmp / "appendix.pdf"))
    chromium_print(
        print_template("appendix.html.j2", tmp, study=ed.study, **appendix_facts(con, ed.study)), ed.parts[-1].pdf
    )
    for part in ed.parts:
        part.pages = len(pypdf.PdfReader(part.pdf).pages)
    return facts


def contents(ed: Edition, tmp: Path) -> Part:
    """Print the contents page(s), whose page numbers count the contents' own length."""
    toc = Part("Contents", tmp / "contents.pdf", pages=1)
    while True:
        at = 1
        for part in [ed.parts[0], toc, *ed.parts[1:]]:
            part.start, at = at, at + part.pages
        entries = [{"title": p.title, "page": p.start, "link": f"{TO_PAGE}{p.start}"} for p in ed.parts[1:]]
        page = print_template("contents.html.j2", tmp, study=ed.study, entries=entries, left=ed.not_printed)
        printed = chromium_print(page, toc.pdf)
        if printed == toc.pages:
            return toc
        toc.pages = printed  # more entries than a page holds: number again with its real length


# Chromium keeps a link of a printed page only if it leads out of it: the contents link each entry
# here (a name that can never resolve, RFC 6761), and join() turns each into a jump to its page.
TO_PAGE = "https://iolab.invalid/page/"


def link_pages(writer: Any, toc: Part) -> int:
    """Turn the contents' TO_PAGE links into jumps within the document; how many were turned."""
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject

    turned = 0
    for page in writer.pages[toc.start - 1 : toc.start - 1 + toc.pages]:
        for ref in page.get("/Annots") or []:
            link = ref.get_object()
            uri = str((link.get("/A") or {}).get("/URI", ""))
            if not uri.startswith(TO_PAGE):
                continue
            target = writer.pages[int(uri.removeprefix(TO_PAGE)) - 1]
            link[NameObject("/A")] = DictionaryObject(
                {
                    NameObject("/S"): NameObject("/GoTo"),
                    NameObject("/D"): ArrayObject([target.indirect_reference, NameObject("/Fit")]),
                }
            )
            turned += 1
    return turned


def join(ed: Edition, toc: Part, tmp: Path, target: Path) -> int:
    """Join the parts into ``target`` with a bookmark per part and a folio on every page; its pages."""
    import pypdf

    writer = pypdf.PdfWriter()
    for part in [ed.parts[0], toc, *ed.parts[1:]]:
        start = len(writer.pages)
        writer.append(str(part.pdf), import_outline=False)
        writer.add_outline_item(title=part.title, page_number=start)
    total = len(writer.pages)
    link_pages(writer, toc)
    folios = tmp / "folios.pdf"
    if chromium_print(print_template("folios.html.j2", tmp, study=ed.study, total=total), folios) == total:
        for page, folio in zip(writer.pages, pypdf.PdfReader(folios).pages):
            page.merge_page(folio)
    writer.add_metadata({"/Title": f"{visible(ed.study)}: iolab report", "/Creator": "iolab report --format pdf"})
    from ..written import replacing

    with replacing(target, binary=True) as f:  # whole or not at all
        writer.write(f)
    return total


def edition(db: Path, ed: Edition, target: Path) -> int:
    """Write the print edition of one study to ``target`` from the snapshot ``db``; its pages."""
    with scratch.folder("pdf") as name:
        tmp = Path(name)
        con = reader(db)
        try:
            print_parts(con, ed, tmp)
        finally:
            con.close()
        return join(ed, contents(ed, tmp), tmp, target)


def print_editions(
    snap: Path,
    source: Path,
    out: Path,
    where: dict[str, str],
    pages: list[tuple[str, str, Path]],
    studies: list[str] | None,
    titles: dict[str, str],
    failed: list[tuple[str, str, Exception]],
    on_page: Callable[[str, str, str], None] | None = None,
) -> list[tuple[str, str, Exception]]:
    """The print edition of every study of ``pages`` ((study, notebook, HTML page) in the HTML
    edition's order; those of ``studies`` if given, and only the pages that exist) into
    <out>/<folder>/<folder>.pdf (``where``: each study's folder); the editions that failed, with why.
    A study with a page in ``failed`` gets no edition: it would lack that page."""
    from pypdf.errors import PyPdfError

    from ..terminal import console, markup

    # what can go wrong printing one study's edition; any of these leaves the other studies' editions
    expected = (PrintFailed, OSError, subprocess.SubprocessError, PyPdfError, duckdb.Error, jinja2.TemplateError)
    problems: list[tuple[str, str, Exception]] = []
    pages = [p for p in pages if p[2].is_file() and (not studies or p[0] in studies)]
    broken = {s for s, _, _ in failed}
    for study in dict.fromkeys(s for s, _, _ in pages):
        target = edition_path(out, where[study])
        what = "rendered"
        try:
            if study in broken:
                raise PrintFailed("not printed: a page of this study failed to render")
            mine, left = drawn([(titles[nb], p) for s, nb, p in pages if s == study])  # not those with nothing
            n = edition(snap, Edition(study, mine, source, not_printed=left), target)
            console().print(f"print edition of {markup(study)}: {markup(str(target))} ({n} pages)")
        except expected as e:
            problems.append((study, "print edition", e))
            what = f"failed: {e}"
            if target.is_file():  # the old edition shows the data as it was: never linked as current
                target.unlink()
                what += "; the old print edition was removed (it showed the data as it was before)"
                console().print(
                    f"print edition of {markup(study)} removed: it could not be printed again, and the old one "
                    "shows the data as it was (the index no longer links it)"
                )
        if on_page:
            on_page(study, "print edition", what)
    return problems


def edition_path(out: Path, folder: str) -> Path:
    """Where the print edition of the study in ``folder`` (iolab.reports.folders) goes: <out>/<folder>/<folder>.pdf."""
    from .folders import inside

    return inside(out, out / folder / f"{folder}.pdf")


def unprint(out: Path, where: dict[str, str], studies: set[str]) -> None:
    """Remove the print edition of each of ``studies``, whose pages were just rendered again without
    one: it shows the pages as they were, and the index would link it."""
    from ..terminal import console, markup

    for study in sorted(studies):
        old = edition_path(out, where[study])
        if old.is_file():
            old.unlink()
            console().print(
                f"print edition of {markup(study)} removed: its pages changed (`iolab report --format pdf` prints it again)"
            )


# "Figure n" above each chart, on a line of its own (a page's text may cite "Figure 3" of a paper)
_FIGURE = re.compile(r"^Figure (\d+)(?: \(continued\))?$", re.M)
# the marks at the top and foot of each part of a figure (iolab.reports.printed.marked)
_MARK = re.compile(r"^/?iolab-figure-(.+)-(\d+)-(\d+)-(top|end)$")


def marks(reader: Any) -> dict[tuple[str, int, int], dict[str, int]]:
    """Each printed figure's part, (page name, figure, part), with the page (1-based) of its marks:
    {"top": 3, "end": 3}, read from the PDF's named destinations."""
    found: dict[tuple[str, int, int], dict[str, int]] = {}
    for name, dest in reader.named_destinations.items():
        m = _MARK.match(str(name))
        if m:
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            found.setdefault(key, {})[m.group(4)] = reader.get_destination_page_number(dest) + 1
    return found


def defects(path: Path) -> list[str]:
    """What is wrong with a printed edition, as ``make check-reports`` says it: no pages, or a chart
    that does not end on the page it starts on (each part of a chart is marked at its top and foot by
    a named destination, nothing a reader sees), or a "Figure n" without its marks."""
    import pypdf

    try:
        reader = pypdf.PdfReader(path)
        pages = [p.extract_text() for p in reader.pages]
        parts = marks(reader)
    except (OSError, pypdf.errors.PyPdfError) as e:
        return [f"cannot be read: {e}"]
    found = [] if pages else ["no pages"]
    tops: dict[int, list[int]] = {}
    for (_, figure, _), at in sorted(parts.items(), key=lambda p: (min(p[1].values()), p[0][1:])):
        if "top" in at:
            tops.setdefault(at["top"], []).append(figure)
        if at.get("top") != at.get("end") and "top" in at:
            found.append(f"page {at['top']}: figure {figure} does not end on this page")
        if at.get("top") != at.get("end") and "end" in at:
            found.append(f"page {at['end']}: figure {figure} ends here, begun on an earlier page")
    for n, text in enumerate(pages, 1):
        left = list(tops.get(n, []))
        for f in _FIGURE.findall(text):
            if int(f) in left:
                left.remove(int(f))
            else:
                found.append(f"page {n}: figure {f} has no marks (its end cannot be seen)")
    return found


SMALLEST_PT = 6.5  # the smallest text a printed page may carry (chart labels are meant for >= 7 pt)


def figure_text(path: Path) -> list[str]:
    """What is wrong with the figures' text of a printed edition, one line per page that carries a
    figure ("Figure n" above it): text under FIGURE_PT inside the printable area (the folio below it
    is the edition's, not the figure's), or text outside the page."""
    import pypdf

    found = []
    for n, page in enumerate(pypdf.PdfReader(path).pages, 1):
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        runs: list[tuple[float, float, float, str]] = []

        def visit(text: str, cm: list, tm: list, font: object, size: float, runs: list = runs) -> None:
            if text.strip():
                c, d = tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3]
                x, y = tm[4] * cm[0] + tm[5] * cm[2] + cm[4], tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
                runs.append((size * (c * c + d * d) ** 0.5, x, y, text.strip()))

        text = page.extract_text(visitor_text=visit)
        if not _FIGURE.search(text):
            continue
        small = [r for r in runs if r[2] > FOLIO_PT and 0 < r[0] < FIGURE_PT]
        outside = [r for r in runs if not (0 <= r[1] <= width and 0 <= r[2] <= height)]
        if small:
            found.append(f"page {n}: {len(small)} runs of a figure's text under {FIGURE_PT:g} pt, e.g. {small[0][3]!r}")
        if outside:
            found.append(f"page {n}: {len(outside)} runs of text outside the page, e.g. {outside[0][3]!r}")
    return found


FIGURE_PT = 7  # the smallest text of a printed figure
FOLIO_PT = 16 / 25.4 * 72  # the bottom margin (print.css), where the folio stands, in points


def text_sizes(path: Path) -> list[tuple[int, float, str]]:
    """Every run of text of a printed PDF as (page, size in points as printed, text): the font size
    times the vertical scale of the text and current transformation matrices, so a chart's 11 px label
    shrunk with its picture onto the page reads at the size a reader sees."""
    import pypdf

    found: list[tuple[int, float, str]] = []
    for n, page in enumerate(pypdf.PdfReader(path).pages, 1):

        def visit(text: str, cm: list, tm: list, font: object, size: float, n: int = n) -> None:
            if not text.strip():
                return
            # the vertical scale of text space on the page: the second row of tm x cm
            c, d = tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3]
            found.append((n, round(size * (c * c + d * d) ** 0.5, 2), text.strip()))

        page.extract_text(visitor_text=visit)
    return found


def small_text(path: Path, least: float = SMALLEST_PT) -> list[str]:
    """The runs of text of a printed edition smaller than ``least`` points, one line per page:
    "page 12: 31 runs under 6.5 pt (3.1-4.0 pt), e.g. 'IO/s'"."""
    by_page: dict[int, list[tuple[float, str]]] = {}
    for page, size, text in text_sizes(path):
        if 0 < size < least:
            by_page.setdefault(page, []).append((size, text))
    return [
        f"page {p}: {len(runs)} runs of text under {least:g} pt ({min(r[0] for r in runs):g}-"
        f"{max(r[0] for r in runs):g} pt), e.g. {runs[0][1][:40]!r}"
        for p, runs in sorted(by_page.items())
    ]
