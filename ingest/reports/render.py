"""Execute the notebooks per study and render self-contained, offline HTML reports.

    iolab report [--db data/iolab.duckdb] [--out reports] [--study S]

First a consistent snapshot: the database (and its .points store) is copied while a read-only
connection holds it, so an ingest cannot write in between and every page of one render sees the
same data; each study's validation runs on that snapshot. Then, for every study, each notebook
that has something to show for it is executed with papermill (parameters: db_path, study) and
converted by nbconvert without code cells; the result is stripped of every network reference
(CDN scripts, fonts), so it opens offline. Folder names are safe slugs kept inside --out;
<out>/index.html links them all.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import html
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import duckdb
import jupytext
import nbformat
import papermill
from jupyter_client.manager import AsyncKernelManager
from nbconvert import HTMLExporter
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from traitlets import CaselessStrEnum

from ingest.config import NOTEBOOKS as NOTEBOOK_DIR
from ingest.config import REPO as ROOT
from ingest.config import REPORTS_DEFAULT, default_db


class IPCKernelManager(AsyncKernelManager):
    """Kernels on local IPC sockets: nothing listens on TCP, and ipykernel stops warning about it."""

    transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)


console = Console(highlight=False)

# notebook -> SQL that says whether it has anything to show for a study (? = study)
NOTEBOOKS = {
    "01-overview": "SELECT count(*) FROM source_files WHERE study = ? AND status = 'ok'",
    "02-per-drive-iops": "SELECT count(*) FROM per_drive_iops WHERE study = ? AND drives IS NOT NULL",
    "03-scaling-curves": "SELECT count(*) FROM scaling WHERE study = ?",
    "04-efficiency-qos": "SELECT (SELECT count(*) FROM qos_verdicts WHERE study = ?) + "
                         "(SELECT count(*) FROM efficiency WHERE study = ? AND (price_usd IS NOT NULL OR watts IS NOT NULL))",
    "05-comparison": "SELECT (SELECT count(*) FROM comparison WHERE study = ?) + "
                     "(SELECT count(*) FROM comparison_unmatched WHERE study = ?)",
    "06-time-series": "SELECT count(*) FROM pdh_captures c JOIN source_files f USING (source_id) WHERE f.study = ?",
    "07-latency-histograms": "SELECT count(*) FROM latency_histograms WHERE study = ?",
}
TITLES = {"01-overview": "Overview and provenance", "02-per-drive-iops": "IOPS per drive and sizing",
          "03-scaling-curves": "Scaling curves", "04-efficiency-qos": "QoS verdicts and efficiency",
          "05-comparison": "Systems compared at matched points", "06-time-series": "esxtop / perfmon time series",
          "07-latency-histograms": "Latency histograms"}
_REMOTE = re.compile(r"<script[^>]+src=[\"']https?://[^>]*>\s*</script>|<link[^>]+href=[\"']https?://[^>]*>", re.I)
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.I | re.S)
# what a browser would fetch: src/href attributes, CSS url(...), @import and JS import() of http(s) URLs
FETCHES = re.compile(r"""(?:src|href)\s*=\s*["']https?://|url\(\s*["']?https?://|@import\s+["']?https?://|import\s*\(\s*["'`]https?://|from\s+["']https?://""", re.I)


def offline(page: str) -> str:
    """Drop every tag that would fetch from the network (nbconvert adds require.js and MathJax CDNs)."""
    page = _REMOTE.sub("", page)
    # nbconvert's lab template lazy-loads mermaid from a CDN: drop any script that would fetch
    return _SCRIPT.sub(lambda m: "" if FETCHES.search(m.group(0)) else m.group(0), page)


def slug(study: str) -> str:
    """A folder name for a study: itself when already plain, else a slug plus a short hash."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}", study) and ".." not in study:
        return study
    base = re.sub(r"[^a-z0-9]+", "-", study.lower()).strip("-")[:60] or "study"
    return f"{base}-{hashlib.sha256(study.encode()).hexdigest()[:8]}"


def inside(out: Path, path: Path) -> Path:
    """``path`` if it lies inside ``out``; refuse anything else (never write outside --out)."""
    if not path.resolve().is_relative_to(out.resolve()):
        raise ValueError(f"{path} is outside {out}")
    return path


def snapshot(db: Path, into: Path, only: list[str] | None = None) -> Path:
    """Copy the database and its .points store while a read-only connection holds the file.

    DuckDB lets no writer in while a reader has the file open, so the copy is one consistent state
    (ingest waits for it, as it waits for any other holder). The copy gets the studies' validation.
    """
    from ingest import db as dbm

    from .validation import store_all

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
    con = dbm.connect(target)
    try:
        dbm.refresh_points_view(con)  # the copy reads its own Parquet store
        studies = [s for (s,) in con.execute(
            "SELECT DISTINCT study FROM source_files WHERE status = 'ok' AND study IS NOT NULL ORDER BY 1").fetchall()]
        store_all(con, [s for s in studies if not only or s in only])
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return target


def plan(db: Path) -> list[tuple[str, str]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        studies = [s for (s,) in con.execute(
            "SELECT DISTINCT study FROM source_files WHERE status = 'ok' AND study IS NOT NULL ORDER BY 1").fetchall()]
        jobs = []
        for s in studies:
            for nb, sql in NOTEBOOKS.items():
                if con.execute(sql, [s] * sql.count("?")).fetchall()[0][0]:
                    jobs.append((s, nb))
        return jobs
    finally:
        con.close()


def render_one(db: Path, out: Path, study: str, nb: str, exporter: HTMLExporter) -> Path:
    src = jupytext.read(NOTEBOOK_DIR / f"{nb}.py")
    folder = inside(out, out / slug(study))
    work = folder / f".{nb}.ipynb"
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(src, work)
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + env_path if env_path else "")  # kernels import ingest
    papermill.execute_notebook(str(work), str(work), parameters={"db_path": str(db.resolve()), "study": study},
                               cwd=str(NOTEBOOK_DIR), kernel_name="python3", progress_bar=False, log_output=False,
                               kernel_manager_class="ingest.reports.render.IPCKernelManager")
    executed = nbformat.read(work, as_version=4)
    body, _ = exporter.from_notebook_node(executed, resources={"metadata": {"name": f"{slug(study)}: {TITLES[nb]}"}})
    target = inside(out, folder / f"{nb}.html")
    target.write_text(offline(body), encoding="utf-8")
    work.unlink()
    return target


def index(out: Path, db: Path, done: list[tuple[str, str, Path]], source: Path) -> Path:
    con = duckdb.connect(str(db), read_only=True)
    meta = {s: (systems or "", n) for s, systems, n in con.execute("""
        SELECT f.study, (SELECT string_agg(DISTINCT m.system, '; ' ORDER BY m.system) FROM measurements m
                         WHERE m.study = f.study), count(*)
        FROM source_files f WHERE f.status = 'ok' GROUP BY f.study""").fetchall()}
    con.close()
    rows = []
    for study in sorted({s for s, _, _ in done}):
        links = " · ".join(f'<a href="{html.escape(p.relative_to(out).as_posix(), quote=True)}">{html.escape(TITLES[nb])}</a>'
                           for s, nb, p in done if s == study)
        systems, files = meta.get(study, ("", 0))
        rows.append(f"<tr><td><b>{html.escape(study)}</b></td><td>{html.escape(systems)}</td>"
                    f"<td class=num>{files}</td><td>{links}</td></tr>")
    page = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>iolab reports</title>
<style>body{{font:14px/1.5 system-ui,sans-serif;margin:2em;color:#222}} table{{border-collapse:collapse}}
th,td{{padding:6px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}} th{{background:#f0f2f5}}
td.num{{text-align:right}} a{{color:#0b57d0}}</style></head><body>
<h1>iolab reports</h1><p>{len(rows)} studies from <code>{html.escape(str(source))}</code>,
rendered {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} from one snapshot of it. Every page opens offline.</p>
<table><tr><th>study</th><th>systems under test</th><th>files</th><th>reports</th></tr>{''.join(rows)}</table>
</body></html>"""
    target = out / "index.html"
    target.write_text(page, encoding="utf-8")
    return target


def render(db: Path, out: Path, studies: list[str] | None = None) -> int:
    """Render every report (or those of ``studies``) of ``db`` into ``out``; 0 when all rendered."""
    if not db.is_file():
        console.print(f"[red]No database at {escape(str(db))}[/]: run `make demo` (or `iolab ingest DATA --db FILE`) first.")
        return 2
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab", exclude_input=True, exclude_input_prompt=True,
                            exclude_output_prompt=True)
    with tempfile.TemporaryDirectory(prefix="iolab-report-") as tmp:
        snap = snapshot(db, Path(tmp), studies)
        jobs = [j for j in plan(snap) if not studies or j[0] in studies]
        done, failed = [], []
        with Progress(TextColumn("[bold]reports[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("{task.description}"), console=console, transient=True,
                      disable=not console.is_terminal) as progress:
            task = progress.add_task("", total=len(jobs))
            for study, nb in jobs:
                progress.update(task, description=escape(f"{study} / {nb}"))
                try:
                    done.append((study, nb, render_one(snap, out, study, nb, exporter)))
                except Exception as e:  # one broken report must not hide the others
                    failed.append((study, nb, e))
                progress.advance(task)
        idx = index(out, snap, done, db)
    console.print(f"{len(done)} reports for {len({s for s, _, _ in done})} studies -> {escape(str(idx))}")
    for study, nb, err in failed:
        msg = str(err).strip().splitlines()[-1] if str(err).strip() else repr(err)
        console.print(f"[red]failed[/] {escape(study)} / {nb}: {escape(msg)}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default=default_db())
    p.add_argument("--out", default=REPORTS_DEFAULT)
    p.add_argument("--study", action="append", help="only these studies")
    a = p.parse_args(argv)
    return render(Path(a.db), Path(a.out), a.study)


if __name__ == "__main__":
    sys.exit(main())
