"""What the print edition says besides its pages (iolab.reports.pdf): the cover's systems and totals
(``cover_facts``) and the appendix (``appendix_facts``): every source file of the study with the
lines its numbers were read from, the files the numbers depend on besides (the array profiles whose
drive counts divide the per-drive figures, the criteria files whose criteria, sizing rules and
corrections the study declares: view study_dependencies) with the lines used, and each run's lines."""

from __future__ import annotations

import duckdb

# The appendix lists at most this many runs (a lab's study can hold hundreds of thousands); it says how
# many it leaves out and where to get them all.
RUN_ROWS = 2000
LINE_RANGES = 8  # line ranges shown per run or file before "…"


# The lines each key's numbers were read from, as ranges of consecutive lines (the first LINE_RANGES
# of them, their count and span) and the count of numbers without a line, computed in the database:
# a file of millions of numbers never comes into memory line by line.
RANGES = """
WITH d AS (SELECT DISTINCT {key}, line_no FROM measurements WHERE study = $study AND line_no IS NOT NULL {only}),
     g AS (SELECT {key}, line_no, line_no - row_number() OVER (PARTITION BY {key} ORDER BY line_no) AS grp FROM d),
     r AS (SELECT {key}, grp, min(line_no) AS a, max(line_no) AS b FROM g GROUP BY {key}, grp),
     n AS (SELECT *, row_number() OVER (PARTITION BY {key} ORDER BY a) AS i FROM r)
SELECT {key}, list([a, b] ORDER BY a) FILTER (WHERE i <= $most) AS shown, count(*) AS spans, min(a) AS lo, max(b) AS hi
FROM n GROUP BY {key}"""


def line_ranges(shown: list | None, spans: int = 0, lo: int = 0, hi: int = 0, missing: int = 0) -> str:
    """Lines as ranges, "3–5, 9"; past the ranges shown, how many there are and their span; numbers
    without a line are said so."""
    text = ", ".join(f"{a}–{b}" if b > a else str(a) for a, b in shown or [])
    if spans > len(shown or []):
        text += f", … ({spans:,} ranges in lines {lo}–{hi})"
    if missing:
        text += ("; " if text else "") + f"{missing:,} without a line (its parser records none)"
    return text


def with_lines(con: duckdb.DuckDBPyConnection, study: str, found: list[dict], key: str, only: str = "") -> None:
    """Give each row of ``found`` (keyed by ``key``, e.g. source_id) its "lines" text."""
    sql = RANGES.format(key=key, only=only)
    got = {r[0]: r[1:] for r in con.execute(sql, {"study": study, "most": LINE_RANGES}).fetchall()}
    for row in found:
        shown, spans, lo, hi = got.get(row[key], (None, 0, 0, 0))
        row["lines"] = line_ranges(shown, spans, lo, hi, row.pop("unlined"))


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict) -> list[dict]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def cover_facts(con: duckdb.DuckDBPyConnection, study: str) -> dict:
    """The cover's systems (the baseline first), baseline and totals."""
    systems = rows(
        con,
        """WITH s AS (SELECT coalesce(system, '(no system label)') AS system, count(DISTINCT source_id) AS files,
                             string_agg(DISTINCT tool, ', ' ORDER BY tool) AS tools
                      FROM study_runs WHERE study = ? GROUP BY ALL),
                n AS (SELECT coalesce(system, '(no system label)') AS system, sum(runs)::BIGINT AS runs,
                             sum(captures)::BIGINT AS captures
                      FROM study_system_runs WHERE study = ? GROUP BY ALL)
           SELECT s.*, n.runs, n.captures, coalesce(s.system = b.baseline_system, false) AS baseline
           FROM s JOIN n USING (system) LEFT JOIN study_baseline b ON b.study = ? ORDER BY baseline DESC, s.system""",
        [study, study, study],
    )
    base = rows(
        con, "SELECT baseline_system AS system, baseline_source AS source FROM study_baseline WHERE study = ?", [study]
    )
    ((files,),) = con.execute("SELECT count(*) FROM study_files WHERE study = ? AND status = 'ok'", [study]).fetchall()
    ((numbers,),) = con.execute("SELECT count(*) FROM measurements WHERE study = ?", [study]).fetchall()
    return {
        "systems": systems,
        "baseline": base[0] if base and len(systems) > 1 else None,
        "files": files,
        "numbers": numbers,
    }


def appendix_facts(con: duckdb.DuckDBPyConnection, study: str) -> dict:
    """The appendix: each source file (numbers, lines), the files the numbers depend on besides (with the
    lines used), and the first RUN_ROWS runs with their lines."""
    files = rows(
        con,
        """SELECT f.source_id, sf.content_id, f.path, coalesce(sf.system, '') AS system, f.format,
                  f.parser || ' v' || f.parser_version AS parser, coalesce(f.tool_version, '') AS tool_version,
                  sf.size_bytes, f.sha256, count(m.source_id) AS numbers,
                  count(m.source_id) FILTER (WHERE m.line_no IS NULL) AS unlined, c.series, c.samples
           FROM study_files f JOIN source_files sf USING (source_id)
           LEFT JOIN study_captures c ON c.study = f.study AND c.capture = f.path
           LEFT JOIN measurements m ON m.source_id = f.source_id
           WHERE f.study = ? AND f.status = 'ok' GROUP BY ALL ORDER BY f.path, f.source_id""",
        [study],
    )
    with_lines(con, study, files, "source_id")
    number = {f["source_id"]: i for i, f in enumerate(files, 1)}
    picked = """SELECT run_id FROM (SELECT DISTINCT m.source_id, m.run_id, f.path FROM measurements m
                                    JOIN source_files f USING (source_id) WHERE m.study = $study)
                ORDER BY path, source_id, run_id LIMIT $limit"""  # the first files' runs, in their files' order
    runs = rows(
        con,
        f"""SELECT source_id, run_id, run_key, coalesce(system, '(no system label)') AS system,
                   workload_label AS workload, count(*) AS numbers, count(*) FILTER (WHERE line_no IS NULL) AS unlined
            FROM measurements WHERE study = $study AND run_id IN ({picked})
            GROUP BY ALL ORDER BY source_id, run_id""",
        {"study": study, "limit": RUN_ROWS},
    )
    with_lines(con, study, runs, "run_id", only=f"AND run_id IN ({picked.replace('$limit', str(RUN_ROWS))})")
    ((total,),) = con.execute(
        "SELECT count(*) FROM (SELECT DISTINCT source_id, run_id FROM measurements WHERE study = ?)", [study]
    ).fetchall()
    runs.sort(key=lambda r: (number.get(r["source_id"], 0), r["run_id"]))
    for r in runs:
        r["file_no"] = number.get(r["source_id"], "")
    series = con.execute(
        "SELECT count(*), coalesce(sum(series), 0) FROM study_captures WHERE study = ?", [study]
    ).fetchone()
    said = f"{series[0]} captures holding {series[1]:,} series" if series and series[0] else ""
    deps = depends(con, study)
    used = {d["content_id"]: d["kind"] for d in deps}
    for f in files:
        f["used_as"] = used.get(f.pop("content_id"), "")
    return {"files": files, "runs": runs, "left_out": max(0, total - RUN_ROWS), "series": said, "depends": deps}


def spans(lines: list[int]) -> list[list[int]]:
    """Sorted line numbers as ranges of consecutive lines: [3, 4, 5, 9] -> [[3, 5], [9, 9]]."""
    out: list[list[int]] = []
    for n in lines:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


def depends(con: duckdb.DuckDBPyConnection, study: str) -> list[dict]:
    """The files ``study``'s numbers depend on besides its results (view study_dependencies: array
    profiles read for drive counts, criteria files), each with the lines used, as ranges."""
    found = rows(
        con,
        """SELECT kind, path, sha256, format, file_study, used_for, lines, content_id FROM study_dependencies
           WHERE study = ? ORDER BY kind, path""",
        [study],
    )
    for d in found:
        ranges = spans(sorted(d.pop("lines") or []))
        d["lines"] = line_ranges(ranges[:LINE_RANGES], len(ranges), ranges[0][0], ranges[-1][1]) if ranges else ""
    return found
