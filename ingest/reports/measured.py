"""What the pages say of the systems' measurements (the rule: schemas/views/008_measurements_of_systems.sql):
where a system was measured more than once, which measurement a page shows, and what the time rule made
of the sessions of a system begun more than 12 hours after its earlier runs (views system_measurements,
measurement_splits). The words of the rule are here once: every page's block and the trends page say them.
"""

from __future__ import annotations

from IPython.display import HTML, display

from .tables import note_html, table_html

RULE = (
    "A measurement is a system's runs of one measurement label (its sidecar's measurement = \"...\"), else of "
    'one firmware (firmware = "..."), else of one session: a file starting more than 12 hours after the last '
    "run of every earlier file of the system begins a session, and a session is a new measurement only when it "
    "measures again points measured before, with repeats of its own. A session measuring each of them once is "
    "one more repeat of the measurement before (an overnight campaign is one measurement), and one that "
    "measures none of them again (a capture, a Jetstress report, another tool's runs) is part of it."
)


def _query(con, sql: str, study: str):
    return con.sql(sql, params=[study]).pl()


def _say(text: str) -> None:
    display(HTML(note_html(text)))


def _table(df, title: str) -> None:
    display(HTML(table_html(df, title)))


def measurements_block(con, study: str) -> None:
    """Where a system of the study was measured more than once, the rule the pages follow and each
    measurement; where sessions hours or days apart were taken together or apart, each of them. Nothing
    where every system has one measurement of one session."""
    m = _query(
        con,
        """SELECT system, measurement, measured_by AS "measured by", files, runs, runs_with_numbers AS "with numbers",
                  first_run AS "first run", ordered_by AS "ordered by", measurement_no AS "#", is_current AS current,
                  current_note AS note
           FROM system_measurements WHERE study = ? AND measurements > 1
           ORDER BY system, measurement_no NULLS LAST, measurement""",
        study,
    )
    if m.height:
        _say(
            f"Measured more than once. {RULE} Runs of two measurements are never averaged as repeats. Every page "
            "but the trends shows each system's current measurement: the newest of those with numbers, by the "
            "study's firmware_order, else by first run (view system_measurements); the trends page compares each "
            "with the one before."
        )
        _table(m, f"Measurements of the systems measured more than once ({m['system'].n_unique()} systems)")
    splits_block(con, study)


def splits_block(con, study: str) -> None:
    """Each session begun more than 12 hours after a system's earlier runs and what the rule made of it
    (view measurement_splits): a split is never silent, nor a session taken as more repeats."""
    files = "array_to_string(list_slice({0}, 1, 3), '; ') || CASE WHEN len({0}) > 3 THEN '; and ' || (len({0}) - 3) || ' more' ELSE '' END"
    s = _query(
        con,
        f"""SELECT system, gap_hours AS "hours after", decision, measurement_before AS "measurement before",
                   measurement_after AS measurement, len(files_before) AS "files before",
                   {files.format("files_before")} AS "before", len(files_after) AS files,
                   {files.format("files_after")} AS "files of the session"
            FROM measurement_splits WHERE study = ? ORDER BY system, measurement, "hours after" """,
        study,
    )
    if s.height:
        _say(
            "Sessions more than 12 hours after a system's earlier runs, and what the rule made of each: a new "
            "measurement (it measures points again, with repeats of its own), one more repeat of the measurement "
            'before (each point once), or part of it (nothing measured again). A sidecar\'s measurement = "..." '
            "names a measurement otherwise."
        )
        _table(s, f"Sessions of a system hours or days apart ({s.height})")
