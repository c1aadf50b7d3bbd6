"""Execute the notebooks per study and render self-contained, offline HTML reports.

    python -m notebooks.render --db data/iolab.duckdb --out reports

For every study in the database, each notebook that has something to show for it is executed
with papermill (parameters: db_path, study) and converted by nbconvert without code cells; the
result is stripped of every network reference (CDN scripts, fonts), so it opens offline.
reports/index.html links them all.
"""
from __future__ import annotations

import argparse
import datetime as dt
import html
import re
import sys
from pathlib import Path

import duckdb
import jupytext
import nbformat
import papermill
from nbconvert import HTMLExporter
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from jupyter_client.manager import AsyncKernelManager
from traitlets import CaselessStrEnum

HERE = Path(__file__).resolve().parent


class IPCKernelManager(AsyncKernelManager):
    """Kernels on local IPC sockets: nothing listens on TCP, and ipykernel stops warning about it."""

    transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)
ROOT = HERE.parent
console = Console()

# notebook -> SQL that says whether it has anything to show for a study (? = study)
NOTEBOOKS = {
    "01-overview": "SELECT count(*) FROM source_files WHERE study = ? AND status = 'ok'",
    "02-per-drive-iops": "SELECT count(*) FROM per_drive_iops WHERE study = ? AND drives IS NOT NULL",
    "03-scaling-curves": "SELECT count(*) FROM scaling WHERE study = ?",
    "04-efficiency-qos": "SELECT (SELECT count(*) FROM qos_verdicts WHERE study = ?) + "
                         "(SELECT count(*) FROM efficiency WHERE study = ? AND (price_usd IS NOT NULL OR watts IS NOT NULL))",
    "05-cross-generation": "SELECT count(*) FROM generation_comparison WHERE study = ?",
    "06-time-series": "SELECT count(*) FROM pdh_captures c JOIN source_files f USING (source_id) WHERE f.study = ?",
}
TITLES = {"01-overview": "Overview and provenance", "02-per-drive-iops": "IOPS per drive and sizing",
          "03-scaling-curves": "Scaling curves", "04-efficiency-qos": "QoS verdicts and efficiency",
          "05-cross-generation": "Cross-generation comparison", "06-time-series": "esxtop / perfmon time series"}
_REMOTE = re.compile(r"<script[^>]+src=[\"']https?://[^>]*>\s*</script>|<link[^>]+href=[\"']https?://[^>]*>", re.I)
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.I | re.S)
# what a browser would fetch: src/href attributes, CSS url(...), @import and JS import() of http(s) URLs
FETCHES = re.compile(r"""(?:src|href)\s*=\s*["']https?://|url\(\s*["']?https?://|@import\s+["']?https?://|import\s*\(\s*["'`]https?://|from\s+["']https?://""", re.I)


def offline(page: str) -> str:
    """Drop every tag that would fetch from the network (nbconvert adds require.js and MathJax CDNs)."""
    page = _REMOTE.sub("", page)
    # nbconvert's lab template lazy-loads mermaid from a CDN: drop any script that would fetch
    return _SCRIPT.sub(lambda m: "" if FETCHES.search(m.group(0)) else m.group(0), page)


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
    src = jupytext.read(HERE / f"{nb}.py")
    work = out / study / f".{nb}.ipynb"
    work.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(src, work)
    papermill.execute_notebook(str(work), str(work), parameters={"db_path": str(db.resolve()), "study": study},
                               cwd=str(HERE), kernel_name="python3", progress_bar=False, log_output=False,
                               kernel_manager_class="notebooks.render.IPCKernelManager")
    executed = nbformat.read(work, as_version=4)
    body, _ = exporter.from_notebook_node(executed, resources={"metadata": {"name": f"{study}: {TITLES[nb]}"}})
    target = out / study / f"{nb}.html"
    target.write_text(offline(body), encoding="utf-8")
    work.unlink()
    return target


def index(out: Path, db: Path, done: list[tuple[str, str, Path]]) -> Path:
    con = duckdb.connect(str(db), read_only=True)
    meta = {s: (sys_ or "", n) for s, sys_, n in con.execute("""
        SELECT f.study, coalesce(any_value(f.system), (SELECT string_agg(DISTINCT m.system, '; ' ORDER BY m.system)
                                                       FROM measurements m WHERE m.study = f.study)), count(*)
        FROM source_files f WHERE f.status = 'ok' GROUP BY f.study""").fetchall()}
    con.close()
    rows = []
    for study in sorted({s for s, _, _ in done}):
        links = " · ".join(f'<a href="{html.escape(p.relative_to(out).as_posix())}">{html.escape(TITLES[nb])}</a>'
                           for s, nb, p in done if s == study)
        system, files = meta.get(study, ("", 0))
        rows.append(f"<tr><td><b>{html.escape(study)}</b></td><td>{html.escape(system)}</td>"
                    f"<td class=num>{files}</td><td>{links}</td></tr>")
    page = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>iolab reports</title>
<style>body{{font:14px/1.5 system-ui,sans-serif;margin:2em;color:#222}} table{{border-collapse:collapse}}
th,td{{padding:6px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}} th{{background:#f0f2f5}}
td.num{{text-align:right}} a{{color:#0b57d0}}</style></head><body>
<h1>iolab reports</h1><p>{len(rows)} studies from <code>{html.escape(str(db))}</code>,
rendered {dt.datetime.now().strftime('%Y-%m-%d %H:%M')}. Every page opens offline.</p>
<table><tr><th>study</th><th>system under test</th><th>files</th><th>reports</th></tr>{''.join(rows)}</table>
</body></html>"""
    target = out / "index.html"
    target.write_text(page, encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default="data/iolab.duckdb")
    p.add_argument("--out", default="reports")
    p.add_argument("--study", action="append", help="only these studies")
    a = p.parse_args(argv)
    db, out = Path(a.db), Path(a.out)
    if not db.exists():
        console.print(f"[red]No database at {db}[/]: run `make demo` (or `iolab ingest`) first.")
        return 2
    jobs = [j for j in plan(db) if not a.study or j[0] in a.study]
    exporter = HTMLExporter(template_name="lab", exclude_input=True, exclude_input_prompt=True,
                            exclude_output_prompt=True)
    done, failed = [], []
    with Progress(TextColumn("[bold]reports[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task("", total=len(jobs))
        for study, nb in jobs:
            progress.update(task, description=f"{study} / {nb}")
            try:
                done.append((study, nb, render_one(db, out, study, nb, exporter)))
            except Exception as e:  # one broken report must not hide the others
                failed.append((study, nb, e))
            progress.advance(task)
    idx = index(out, db, done)
    console.print(f"{len(done)} reports for {len({s for s, _, _ in done})} studies -> {idx}")
    for study, nb, e in failed:
        console.print(f"[red]failed[/] {study} / {nb}: {str(e).strip().splitlines()[-1] if str(e).strip() else e!r}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
