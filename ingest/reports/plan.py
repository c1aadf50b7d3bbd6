"""Which pages a render makes and when a page is stale: the pages the notebooks declare, the
studies each applies to, and a page's fingerprint over everything it can read."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import duckdb
import nbformat

from ..config import NOTEBOOKS as NOTEBOOK_DIR
from ..config import VIEWS
from ..store.connect import reader

T = TypeVar("T")


@dataclass(frozen=True)
class Notebook:
    """A report page, as its notebook's header declares it (``iolab: {title, studies}`` in the
    jupytext header): its title and a query listing the studies it has something to show for;
    ``print: false`` leaves it out of the print edition (the explore page: its inputs need a browser)."""

    name: str
    title: str
    studies: str
    path: Path
    printed: bool = True


def notebooks(folder: Path | None = None) -> dict[str, Notebook]:
    """Every notebook of ``folder`` (default: the package's notebooks), in name order.

    A notebook whose header declares no title or studies query is refused: it would never be rendered.
    One that declares ``iolab: {page: false}`` is not a page (notebooks/explore.py, to start one's own)."""
    found = {}
    for f in sorted((folder or NOTEBOOK_DIR).glob("*.py")):
        meta = read_notebook(f).metadata.get("iolab") or {}
        if isinstance(meta, dict) and meta.get("page") is False:
            continue
        if not isinstance(meta, dict) or not meta.get("title") or not meta.get("studies"):
            raise ValueError(
                f"{f}: its header declares no page; add under `# jupyter:` the lines\n"
                "#   iolab:\n#     title: <the page's title>\n#     studies: SELECT study FROM <view> ..."
            )
        found[f.stem] = Notebook(f.stem, str(meta["title"]), str(meta["studies"]), f, meta.get("print") is not False)
    return found


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook of a jupytext script: jupytext's reading, kept in the cache folder under the
    script's bytes and jupytext's version. A render then imports jupytext (0.25 s, jupyter_server
    with it) only for a script it has not read before, and a page's cells keep their ids from one
    render to the next (jupytext gives each reading new random ones)."""
    import json
    from importlib.metadata import version

    from .. import config
    from ..written import write_text

    text = path.read_bytes()
    key = hashlib.sha256(text + version("jupytext").encode()).hexdigest()[:32]
    kept = config.cache_dir() / "notebooks" / f"{key}.ipynb"
    try:
        return nbformat.from_dict(json.loads(kept.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass  # not read before (or a copy that cannot be read): read it now
    import jupytext

    nb = jupytext.reads(text.decode("utf-8"), fmt="py")  # as jupytext.read(path) reads a .py script
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        write_text(kept, json.dumps(nb))  # whole or not at all; sources kept as one string each
    except OSError:
        pass  # a cache that cannot be written costs the next render jupytext again, nothing else
    return nb


_VIEW = re.compile(r"CREATE\s+OR\s+REPLACE\s+VIEW\s+(\w+)", re.I)


def view_names() -> list[str]:
    """Every view of schemas/views, in file order."""
    return [m.group(1) for f in sorted(VIEWS.glob("*.sql")) for m in _VIEW.finditer(f.read_text())]


HELPER_FOLDERS = [Path(__file__).resolve().parent, VIEWS]
LAB = Path(__file__).resolve().parent.parent / "lab.py"  # the notebooks open the database with it
# tables no page reads: the validation's results (it runs again at every render: the footer), and the
# bookkeeping of when the views were made and the migrations applied (a database only read since iolab
# changed its views or schema is brought up to date in each render's snapshot, and the time it was
# done at must not look like new data)
UNREAD = {"validation_results", "view_state", "schema_history"}


def content_digest(db: Path) -> str:
    """A digest of everything a page can read: every table of the database (row count and the sum of
    its rows' hashes, order-free) and the points store's files. The views are computed from these and
    the view files, which ``fingerprints`` covers. Any change anywhere renders every page again:
    pages join other studies (criteria, published figures, a capture placed twice), so a per-study
    rule would keep stale pages."""
    con = reader(db)
    derived = set(view_names())
    try:
        tables = [
            t
            for (t,) in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE NOT temporary ORDER BY table_name"
            ).fetchall()
            if t not in derived and t not in UNREAD
        ]
        h = hashlib.sha256()
        for t in tables:
            row = con.execute(f'SELECT count(*), sum(hash(t)::HUGEINT) FROM "{t}" AS t').fetchone()
            h.update(f"{t}|{row}\n".encode())
    finally:
        con.close()
    points = db.with_name(db.name + ".points")
    files: list[Path] = sorted(points.glob("*")) if points.is_dir() else []
    for f in files:
        h.update(f"{f.name}|{f.stat().st_size}\n".encode())
    return h.hexdigest()


def code_digest(folders: list[Path]) -> str:
    """A digest of the code a page is made with: every .py and .sql file of ``folders``, and the lab."""
    h = hashlib.sha256()
    for folder in folders:
        for f in sorted(folder.glob("*.py")) + sorted(folder.glob("*.sql")):
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    h.update(LAB.name.encode() + b"\0" + LAB.read_bytes())
    return h.hexdigest()


def fingerprints(
    db: Path, jobs: list[tuple[str, str]], pages: dict[str, Notebook], data: str | None = None
) -> dict[tuple[str, str], str]:
    """What a page depends on: its notebook, the page helpers and view files, iolab's version, whether
    its charts are live or static (``interactive.enabled``), and the whole database's content
    (``content_digest``; ``data``: that digest, when already computed).

    A page whose fingerprint matches the one stored beside it last time is not rendered again.
    """
    from .. import __version__
    from .interactive import enabled

    code = f"{__version__}|live charts: {enabled()}|{code_digest(HELPER_FOLDERS)}"
    data = data or content_digest(db)
    return {
        (s, nb): hashlib.sha256(f"{code}|{data}|{nb}|{s}|".encode() + pages[nb].path.read_bytes()).hexdigest()
        for s, nb in jobs
    }


def before(db: Path, read: Callable[[Path], T], otherwise: T) -> T:
    """``read(db)`` on the database itself, before its snapshot, for what a render decides early (a
    study asked for that is not there, whether to import the validation): ``otherwise`` if it cannot
    be read now (an ingest holds it, a database of an older iolab). The snapshot decides again."""
    try:
        return read(db)
    except duckdb.Error:
        return otherwise


def studies_of(db: Path) -> list[str]:
    con = reader(db)
    try:
        return [
            s
            for (s,) in con.execute(
                "SELECT DISTINCT study FROM study_files WHERE status = 'ok' AND study IS NOT NULL ORDER BY 1"
            ).fetchall()
        ]
    finally:
        con.close()


def plan(db: Path, pages: dict[str, Notebook] | None = None, studies: list[str] | None = None) -> list[tuple[str, str]]:
    """(study, notebook) of every page to render: each notebook's studies query, per study
    (``studies``: ``studies_of(db)``, when the caller has it already)."""
    pages = notebooks() if pages is None else pages
    studies = studies_of(db) if studies is None else studies
    con = reader(db)
    try:
        shows = {
            nb: {s for (s,) in con.execute(f"SELECT DISTINCT study FROM ({p.studies})").fetchall()}
            for nb, p in pages.items()
        }
        return [(s, nb) for s in studies for nb in pages if s in shows[nb]]
    finally:
        con.close()


def heavy_first(jobs: list[tuple[str, str]], out: Path, where: dict[str, str]) -> None:
    """Order ``jobs`` by the size of their page's last render, largest first (a new page keeps its place
    after them): the longest pages (many faceted charts) start first, so no kernel is left with one
    long page while the other has nothing to do (the render's end was the scaling curves' page)."""

    def size(job: tuple[str, str]) -> int:
        page = out / where[job[0]] / f"{job[1]}.html"
        return page.stat().st_size if page.is_file() else 0

    jobs.sort(key=size, reverse=True)
