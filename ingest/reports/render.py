"""Execute the notebooks per study and render self-contained, offline HTML reports.

    iolab report [--db data/iolab.duckdb] [--out reports] [--study S]

First a consistent snapshot: the database (and its .points store) is copied while a read-only
connection holds it, so an ingest cannot write in between and every page of one render sees the
same data; each study's validation runs on that snapshot (or is the last render's, when the data
and checks are the same: iolab.reports.validated). Then, for every study, each notebook
that has something to show for it is parameterised as papermill does (db_path, study), executed in
one kernel shared by the whole render (its namespace reset before each page), and
converted by nbconvert without code cells; the result is stripped of every network reference
(CDN scripts, fonts), so it opens offline. Folder names are safe slugs kept inside --out,
one per study (iolab.reports.folders);
<out>/index.html links them all.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import html
import json
import re
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import nbformat

if TYPE_CHECKING:
    from nbconvert import HTMLExporter

from .. import outputs
from ..progress import bar as progress_bar
from ..store.connect import reader
from ..terminal import console, markup, shown
from ..written import write_text
from . import early, kernels, pictures, scratch, stored, validated
from . import plan as planned
from .folders import RECORD, assign, inside, read_record, slug
from .interactive import as_page, embed
from .kernels import Kernels, Pages, run_pages  # noqa: F401  (Pages: render's name for it)
from .pdf import edition_path, print_editions, unprint
from .plan import Notebook, fingerprints, notebooks, plan, studies_of
from .stored import ROW_VIEWS, materialize  # noqa: F401  (ROW_VIEWS: render's name for it)
from .tables import VALIDATION_SLOT, esc, not_drawn

_REMOTE = re.compile(r"<script[^>]+src=[\"']https?://[^>]*>\s*</script>|<link[^>]+href=[\"']https?://[^>]*>", re.I)
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.I | re.S)
# what a browser would fetch: src/href attributes, CSS url(...), @import and JS import() of http(s) URLs
FETCHES = re.compile(
    r"""(?:src|href)\s*=\s*["']https?://|url\(\s*["']?https?://|@import\s+["']?https?://|import\s*\(\s*["'`]https?://|from\s+["']https?://""",
    re.I,
)


def offline(page: str) -> str:
    """Drop every tag that would fetch from the network (nbconvert adds require.js and MathJax CDNs)."""
    page = _REMOTE.sub("", page)
    # nbconvert's lab template lazy-loads mermaid from a CDN: drop any script that would fetch
    return _SCRIPT.sub(lambda m: "" if FETCHES.search(m.group(0)) else m.group(0), page)


def validate(snap: Path, studies: set[str]) -> dict[str, str]:
    """Each study's validation on the snapshot, as the HTML of its pages' footer: by the validation's
    own process when the render started one (iolab.reports.validator), else here."""
    from .validation import footers

    if (process := early.validator()) is not None:
        return process.validate(snap, studies)
    return footers(snap, studies)


def snapshot(db: Path, into: Path, views: list[str] | None = None) -> Path:
    """Copy the database and its .points store while a read-only connection holds the file, and store
    ``views`` in the copy (None: every view; iolab.reports.stored).

    DuckDB lets no writer in while a reader has the file open, so the copy is one consistent state
    (ingest waits for it, as it waits for any other holder).
    """
    from .. import db as dbm

    target = into / "snapshot.duckdb"
    holder = dbm.connect(db, read_only=True)  # waits while an ingest writes
    try:
        shutil.copy2(db, target)
        wal = db.with_name(db.name + ".wal")
        if wal.exists():
            shutil.copy2(wal, target.with_name(target.name + ".wal"))
        points = db.with_name(db.name + ".points")
        if points.is_dir():
            shutil.copytree(points, target.with_name(target.name + ".points"))
    finally:
        holder.close()
    # the copy is opened as an ingest opens a database: migrations, store and views brought up to
    # this iolab (a database only read since an upgrade), the points view reading the copy's own store
    store_views(dbm.open_db(target), views)
    return target


def store_more(snap: Path, views: list[str]) -> None:
    """Store ``views`` in the snapshot too (those of them still views): once the render knows its pages."""
    from .. import db as dbm

    store_views(dbm.connect(snap), views)


def store_views(con: duckdb.DuckDBPyConnection, views: list[str] | None) -> None:
    """Store ``views`` (None: every view) as tables on ``con``, checkpoint and close it (DuckDB's own
    progress bar off: a big capture's summaries take seconds, and it would draw over the render's).

    The copy's connection writes, but what it computes is what the pages read: it has a reader's
    memory (config.db_memory_limit), not a writer's 512 MB. A 10,000-run study's trend_runs, a join
    DuckDB builds on its wide side (370,000 rows of measurements), needs ~600 MB and cannot spill."""
    from ..config import db_memory_limit

    try:
        with contextlib.suppress(duckdb.InvalidInputException):  # a Jupyter kernel without ipywidgets refuses
            con.execute("SET enable_progress_bar = false")
        con.execute(f"SET memory_limit = '{db_memory_limit(read_only=True)}'")
        materialize(con, views)
        con.execute("CHECKPOINT")
    finally:
        con.close()


def stored_prints(folder: Path) -> dict[str, str]:
    """The fingerprint of each page last rendered into ``folder`` (its render record)."""
    return dict(read_record(folder)["pages"])


def store_prints(out: Path, folder: str, study: str, prints: dict[str, str]) -> None:
    """The render record of ``folder``: which study it holds (iolab.reports.folders) and its pages' fingerprints."""
    record = {"study": study, "pages": prints}
    write_text(inside(out, out / folder / RECORD), json.dumps(record, sort_keys=True))


def parameterize(nb: nbformat.NotebookNode, params: dict[str, str]) -> nbformat.NotebookNode:
    """Papermill's convention: a cell tagged 'injected-parameters' right after the one tagged 'parameters'.

    Values are written with repr(), so any study name (quotes, braces, newlines) stays one string literal.
    """
    at = next((i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])), -1)
    cell = nbformat.v4.new_code_cell("\n".join(f"{k} = {v!r}" for k, v in params.items()))
    cell.metadata["tags"] = ["injected-parameters"]
    cell.id = "injected-parameters"  # not a random one: the same page, the same bytes
    nb.cells.insert(at + 1, cell)
    return nb


def execute_page(db: Path, study: str, nb: Notebook, pages: Kernels) -> str:
    """The page of notebook ``nb`` for ``study`` as HTML, its validation footer still to fill in: run
    on one of ``pages``' kernels, then converted and its charts' pictures drawn here."""
    src = planned.read_notebook(nb.path)
    executed = parameterize(src, {"db_path": str(db.resolve()), "study": study})
    pages.execute(executed)
    resources = {"metadata": {"name": f"{slug(study)}: {nb.title}"}}
    page, held = hold_outputs(as_page(executed))  # charts as figures
    with exporter() as export:
        body, _ = export.from_notebook_node(page, resources=resources)
    # the pictures, then the live charts' scripts: added after offline(), they fetch nothing
    return embed(pictures.draw_pending(offline(restore_outputs(body, held))))


_HELD = re.compile(r"iolab-held-[0-9a-f]{32}-[0-9]+")


def hold_outputs(nb: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, dict[str, str]]:
    """``nb`` with each HTML output (a page's tables, notes and figures, escaped where iolab wrote
    them: iolab.reports.tables) replaced by a token, and the outputs by token. nbconvert parses the
    page it writes with BeautifulSoup and writes it again (to give its own cells a tabindex): 0.05 s
    a page over every tag of iolab's outputs, which it leaves as they are but for how it writes them."""
    nonce = uuid.uuid4().hex  # no data can spell a token: it is never the same twice
    held: dict[str, str] = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if isinstance(data.get("text/html"), str):
                token = f"iolab-held-{nonce}-{len(held)}"
                held[token] = data["text/html"]
                data["text/html"] = token
    return nb, held


def restore_outputs(body: str, held: dict[str, str]) -> str:
    """The page nbconvert wrote with each held output back in its place (``hold_outputs``)."""
    put = _HELD.sub(lambda m: held.pop(m.group(0), m.group(0)), body)
    if held:
        raise ValueError(f"{len(held)} output(s) of the page were lost on its way through nbconvert")
    return put


_exporter: list[HTMLExporter] = []  # nbconvert's exporter of pages, made at the first page converted
_exporter_lock = threading.Lock()


@contextmanager
def exporter() -> Iterator[HTMLExporter]:
    """nbconvert's exporter of pages, one page at a time. Converting is Python's own work, under
    Python's lock: pages converted side by side share one core anyway, and each exporter of a pool
    compiled nbconvert's templates again (0.06 s). nbconvert is imported here, not before the
    snapshot (0.25 s on the render's path; iolab.reports.early imports it beside the snapshot)."""
    from nbconvert import HTMLExporter

    with _exporter_lock:
        if not _exporter:
            _exporter.append(HTMLExporter(**EXPORT))
        yield _exporter[0]


def write_page(out: Path, name: str, nb: str, body: str, validation: str) -> Path:
    """Write a page into <out>/<name>/ (its study's folder), with the study's validation in its footer
    (atomically)."""
    folder = inside(out, out / name)
    folder.mkdir(parents=True, exist_ok=True)
    target = inside(out, folder / f"{nb}.html")
    write_text(target, body.replace(VALIDATION_SLOT, validation))
    return target


def index(out: Path, db: Path, done: list[tuple[str, str, Path]], source: Path, titles: dict[str, str]) -> Path:
    con = reader(db)
    meta = {
        s: (systems or "", n)
        for s, systems, n in con.execute("""
        SELECT f.study, (SELECT string_agg(DISTINCT m.system, '; ' ORDER BY m.system) FROM measurements m
                         WHERE m.study = f.study), count(*)
        FROM study_files f WHERE f.status = 'ok' GROUP BY f.study""").fetchall()
    }
    con.close()
    rows = []
    for study in sorted({s for s, _, _ in done}):
        links = " · ".join(
            f'<a href="{html.escape(p.relative_to(out).as_posix(), quote=True)}">{html.escape(titles[nb])}</a>'
            + (f" (nothing drawn: {esc(why)})" if nb != "print" and (why := not_drawn(p.read_text("utf-8"))) else "")
            for s, nb, p in done
            if s == study
        )
        systems, files = meta.get(study, ("", 0))
        rows.append(
            f"<tr><td><b>{esc(study)}</b></td><td>{esc(systems)}</td><td class=num>{files}</td><td>{links}</td></tr>"
        )
    page = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>iolab reports</title>
<style>body{{font:14px/1.5 system-ui,sans-serif;margin:2em;color:#222}} table{{border-collapse:collapse}}
th,td{{padding:6px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}} th{{background:#f0f2f5}}
td.num{{text-align:right}} a{{color:#0b57d0}}</style></head><body>
<h1>iolab reports</h1><p>{len(rows)} studies from <code>{esc(source)}</code>,
rendered {dt.datetime.now().strftime("%Y-%m-%d %H:%M")} from one snapshot of it. Every page opens offline.</p>
<table><tr><th>study</th><th>systems under test</th><th>files</th><th>reports</th></tr>{"".join(rows)}</table>
</body></html>"""
    target = out / "index.html"
    write_text(target, page)
    return target


# optimistic_validation: nbconvert checks the page against the notebook schema once, after its
# preprocessors, not after each of its twelve (enabled or not): 11 of 12 checks of the same notebook
EXPORT = dict(
    template_name="lab",
    exclude_input=True,
    exclude_input_prompt=True,
    exclude_output_prompt=True,
    optimistic_validation=True,
)


# render's per-page callback: (study, notebook, what happened: "rendered", "unchanged" or "failed: <why>")
OnPage = Callable[[str, str, str], None]


def unknown_studies(asked: list[str] | None, known: list[str]) -> bool:
    """Say so (and list the studies there are) when ``asked`` names a study the database lacks."""
    missing = [s for s in asked or [] if s not in known]
    if missing:
        console(stderr=True).print(
            f"[red]No study {', '.join(repr(markup(shown(s))) for s in missing)} in this database.[/] "
            f"Its studies: {', '.join(markup(shown(s)) for s in known) or '(none)'}."
        )
    return bool(missing)


@outputs.sealed("reports", "out")  # every file written is listed in its marker, however the render ends
def render(
    db: Path,
    out: Path,
    studies: list[str] | None = None,
    force: bool = False,
    notebooks_dir: Path | None = None,
    on_page: OnPage | None = None,
    pdf: bool = False,
) -> int:
    """Render every report (or those of ``studies``) of ``db`` into ``out``; 0 when all rendered,
    1 when a page failed, 2 when there is no database or a study asked for is not in it.

    A page whose fingerprint (``fingerprints``) is unchanged since its last render is kept as it is,
    unless ``force``. ``on_page`` hears of every page as it is rendered, kept or failed. ``pdf``: also
    the print edition of each study (iolab.reports.pdf), from the same snapshot.
    """
    if not db.is_file():
        return no_database(db)
    pages = notebooks(notebooks_dir)
    scratch.sweep()  # what a render killed with SIGKILL left
    known = planned.before(db, studies_of, None) if studies else None
    if known is not None and unknown_studies(studies, known):  # refused before any work is started
        return 2
    eager = early.will_run_pages(out, force)  # pages will run: start kernels while the snapshot is made
    gx = eager and not validated.likely_kept(out, db, studies)  # import the validation early only if it will run
    started = early.started(kernels.start, kernels.close, eager, validation=gx)
    with scratch.folder("report") as tmp, started, pictures.for_render():
        always = stored.before_plan(p.studies for p in pages.values())  # read whatever the pages
        snap = snapshot(db, Path(tmp), stored.chosen(always))
        known = studies_of(snap)
        if unknown_studies(studies, known):
            return 2
        outputs.start(out, "reports")  # iolab's output: an ingest never reads the files it lists
        every = plan(snap, pages, known)
        where = assign(out, sorted(set(known) | {s for s, _ in every}))  # one folder per study
        jobs = [j for j in every if not studies or j[0] in studies]
        data = planned.content_digest(snap)
        prints = fingerprints(snap, jobs, pages, data)
        old = {s: stored_prints(out / where[s]) for s in {s for s, _ in jobs}}
        kept = [] if force else keep_unchanged(jobs, out, where, old, prints, on_page)
        read = {nb for _, nb in (every if pdf else jobs)}  # the notebooks that will run
        store_more(snap, stored.chosen(always | stored.reads(pages[nb].path.read_text() for nb in read)))
        vkey = validated.key(data)  # the validation kept in out under it is reused (iolab.reports.validated)
        footers = lambda some: validated.footers(out, vkey, some, lambda left: validate(snap, left), db)  # noqa: E731
        planned.heavy_first(jobs, out, where)
        records = {s: dict(v) for s, v in old.items()}  # render_jobs records the new prints there, old stays
        done, failed = render_jobs(snap, out, where, jobs, pages, prints, records, on_page, footers)
        unwritable(failed)
        linked = [(s, nb, out / where[s] / f"{nb}.html") for s, nb in every]  # any study's, asked for or not
        titles = {n: p.title for n, p in pages.items()} | {"print": "print edition (PDF)"}
        if pdf:
            printed = [p for p in linked if pages[p[1]].printed]  # a page that needs a browser is left out
            failed += print_editions(snap, db, out, where, printed, studies, titles, failed, on_page)
            unwritable(failed)
        else:  # a study whose pages changed keeps no print edition of the old ones; --force alone changes none
            unprint(out, where, {s for s, nb, _ in done if old[s].get(nb) != prints[(s, nb)]})
        linked += [(s, "print", edition_path(out, where[s])) for s in dict.fromkeys(s for s, _ in every)]
        idx = index(out, snap, [p for p in linked if p[2].is_file()], db, titles)
    return said(done, kept, failed, idx)


def no_database(db: Path) -> int:
    console().print(
        f"[red]No database at {markup(str(db))}[/]: run `make demo` (or `iolab ingest DATA --db FILE`) first."
    )
    return 2


def said(done: list, kept: list, failed: list, idx: Path) -> int:
    """What a render did, on the terminal: pages written and kept, each failure's last line; its exit status."""
    rendered = done + kept
    console().print(
        f"{len(rendered)} reports for {len({s for s, _, _ in rendered})} studies -> {markup(str(idx))}"
        + (f" ({len(kept)} unchanged since the last render, kept; --force renders them again)" if kept else "")
    )
    for study, nb, err in failed:
        msg = str(err).strip().splitlines()[-1] if str(err).strip() else repr(err)
        console().print(f"[red]failed[/] {markup(study)} / {nb}: {markup(msg)}")
    return 1 if failed else 0


def keep_unchanged(jobs, out, where, old, prints, on_page) -> list[tuple[str, str, Path]]:
    """The pages whose fingerprint is the one they were rendered with, taken out of ``jobs``: kept."""
    kept = []
    for study, nb in list(jobs):
        page = out / where[study] / f"{nb}.html"
        if page.is_file() and old[study].get(nb) == prints[(study, nb)]:
            jobs.remove((study, nb))
            kept.append((study, nb, page))
            if on_page:
                on_page(study, nb, "unchanged")
    return kept


def unwritable(failed: list[tuple[str, str, Exception]]) -> None:
    """A page that could not be written because the folder cannot be (read-only, full): raise that,
    once, for the whole render (the command's exit 3), rather than blame every page for it."""
    if e := next((e for _, _, e in failed if isinstance(e, OSError) and outputs.cannot_write(e)), None):
        raise e


def render_jobs(snap, out, where, jobs, pages, prints, old, on_page, footers_of):
    """Execute and write ``jobs`` while ``footers_of(studies)`` validates the snapshot (or reads the
    validation kept for it): (pages written, pages failed)."""
    done: list[tuple[str, str, Path]] = []
    failed: list[tuple[str, str, Exception]] = []
    with progress_bar("reports", console()) as progress:
        task = progress.add_task("validating the data", total=len(jobs))
        lock = threading.Lock()
        validated = threading.Event()

        def execute(job: tuple[str, str], kernels: Kernels) -> str | Exception:
            try:
                return execute_page(snap, job[0], pages[job[1]], kernels)
            except Exception as e:  # one broken report must not hide the others
                return e
            finally:
                busy = "" if validated.is_set() else " (validating the data)"
                with lock:
                    progress.update(task, advance=1, description=shown(f"{job[0]} / {job[1]}{busy}"))

        def validation() -> dict[str, str]:
            footers = footers_of({s for s, _ in jobs})
            validated.set()
            return footers

        def finish(job: tuple[str, str], body: str | Exception, footers: dict[str, str]) -> None:
            study, nb = job
            what = "rendered"
            try:
                if isinstance(body, Exception):
                    raise body
                path = write_page(out, where[study], nb, body, footers[study])
                with lock:
                    done.append((study, nb, path))
                    old[study][nb] = prints[(study, nb)]
                    store_prints(out, where[study], study, old[study])
            except Exception as e:
                with lock:
                    failed.append((study, nb, e))
                why = str(e).strip()
                what = f"failed: {why.splitlines()[-1] if why else repr(e)}"
            if on_page:
                on_page(study, nb, what)

        run_pages(jobs, execute, finish, first=validation)
    return done, failed
