# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM study_files WHERE status = 'ok'
#     title: Overview and provenance
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
db_path = None  # None: the default database (data/iolab.duckdb, or $IOLAB_DB)
lake = ""  # a Parquet lake (iolab lake export + views): read its views instead of the database
study = "esg-ds5020-2009"

# %%
import altair as alt

from iolab import lab
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "overview")
systems = r.systems_block(con, study)

# %%
# every run of each system's current measurement, with or without numbers in measurements (a time-series
# capture's are in the store)
runs = r.query(
    con,
    """SELECT coalesce(r.system, '(no system label)') AS system, r.tool, r.tool_version,
                              count(DISTINCT r.run_id) AS runs,
                              -- a workload is its size and mix, whatever its load: the loads are counted apart
                              count(DISTINCT coalesce(m.workload, r.workload)) AS workloads,
                              count(DISTINCT m.load) AS loads,
                              min(r.started_at) AS first_start, max(coalesce(r.ended_at, r.started_at)) AS last_end
                       FROM current_runs r
                       LEFT JOIN (SELECT DISTINCT run_id, outstanding_ios AS load,
                                         regexp_replace(workload_label, ', QD [0-9]+$', '') AS workload
                                  FROM current_measurements WHERE study = ?) m
                              USING (run_id)
                       WHERE r.study = ? GROUP BY ALL ORDER BY 1, 2""",
    [study, study],
)
if not runs.height:  # criteria, configurations: files other studies' pages read
    kinds = r.query(
        con, "SELECT DISTINCT format FROM study_files WHERE study = ? AND status = 'ok' ORDER BY 1", [study]
    )
    r.note(
        f"This study holds no runs. Its files ({', '.join(kinds['format'])}) are reference data that other "
        "studies' pages read; they are listed under Provenance below."
    )
else:
    r.table(runs, "Runs by system and tool")
    metrics = r.query(
        con,
        """SELECT coalesce(system, '(no system label)') AS system, scope, metric, unit, count(*) AS numbers,
                                     min(value) AS min, max(value) AS max
                              FROM current_measurements WHERE study = ? GROUP BY ALL ORDER BY system, scope, metric""",
        [study],
    )
    captured = r.query(
        con,
        "SELECT host, object, counter, unit, series FROM study_series WHERE study = ? ORDER BY ALL",
        [study],
    )
    logs = r.query(
        con,
        "SELECT count(DISTINCT file) AS logs, sum(io_count) AS ios FROM latency_heatmap WHERE study = ?",
        [study],
    )
    if metrics.height or not (captured.height or logs["logs"][0]):
        r.table(metrics, "What was measured, per system (view current_measurements)")
    if captured.height:  # esxtop, perfmon, ... : their values are in the time-series store
        r.table(captured, "Time series captured, per host, object and counter (series table)")
    if logs["logs"][0]:  # fio histogram logs: I/O counts per interval and latency octave, no headline numbers
        r.note(
            f"{logs['logs'][0]} fio histogram log(s), {logs['ios'][0]:,} I/Os: their completion latency over time "
            "is on the latency heatmaps page."
        )

# %%
# Headline IO/s: the busiest workloads, and each system's own busiest, one bar per system side by side
TOP, EACH = 12, 2
head = r.query(
    con,
    """WITH p AS (SELECT coalesce(system, '(no system label)') AS system, workload_label, max(iops) AS iops,
                         arg_max(run_id, iops) AS run_id
                  FROM per_drive_iops WHERE study = ? AND level = 'run' AND iops IS NOT NULL GROUP BY ALL),
            top AS (SELECT workload_label FROM p GROUP BY ALL ORDER BY max(iops) DESC, workload_label LIMIT ?),
            own AS (SELECT workload_label FROM (SELECT workload_label, row_number() OVER (PARTITION BY system
                                                   ORDER BY iops DESC, workload_label) AS n FROM p) WHERE n <= ?)
       SELECT p.*, (SELECT count(DISTINCT workload_label) FROM p) AS workloads
       FROM p WHERE workload_label IN (SELECT * FROM top UNION SELECT * FROM own) ORDER BY iops DESC""",
    [study, TOP, EACH],
)
if head.height:
    hd = head.join(
        r.headline_sources(con, study), on="run_id", how="left", maintain_order="left"
    )  # the best run's file
    hd = hd.with_columns(workload=r.short_labels(hd["workload_label"]))
    n_all, n_shown = int(hd["workloads"].max()), hd["workload_label"].n_unique()
    r.show(
        r.whole_labels(alt.Chart(hd), workload="workload_label")  # cut on the axis, whole in print
        .mark_bar()
        .encode(
            y=alt.Y("workload:N", sort="-x", title=None, axis=alt.Axis(labelLimit=0)),
            yOffset=alt.YOffset("system:N"),
            x=alt.X("iops:Q", title="IO/s (best run at this workload)", axis=alt.Axis(format="~s")),
            color=alt.Color(
                "system:N",
                scale=r.system_colors(systems["system"], hd["system"]),
                legend=alt.Legend(orient="bottom", columns=1, title="system"),
            ),
            tooltip=[
                *r.tooltips("system", "workload_label"),
                alt.Tooltip("iops:Q", format=",.0f"),
                *r.tooltips(*r.SOURCE_TOOLTIPS),
            ],
        )
        .properties(
            width=560, title=f"Headline IO/s per workload and load, per system ({n_shown} of {n_all} workload points)"
        ),
        f"Bar chart: the best IO/s of each system at {n_shown} workloads (the {TOP} busiest and each system's "
        f"{EACH} busiest), bars of the {hd['system'].n_unique()} systems side by side.",
        source={
            "view": "per_drive_iops",
            "study": study,
            "system": "system",
            "where": {"level": "run", "iops": None},
            "keys": {"system": "system", "workload_label": "workload_label"},
            "values": {"iops": "iops"},
            "aggregate": True,
        },
        left_out=f"{n_all - n_shown} of {n_all} workload points (a workload at one load) not drawn: for every "
        "system, less busy than those shown."
        if n_all > n_shown
        else "",
    )
    r.table(head.drop("workloads", "run_id"), "Headline IO/s per workload and system")
elif runs.height:
    r.note("No run of this study reports IO/s.")

# %%
profiles = r.query(
    con,
    """SELECT array_name, profile_kind, firmware, controllers, controller_model, cache_mb_per_controller,
              stated_drives, stated_groups, stated_volumes, stated_hot_spares
       FROM study_profiles WHERE study = ? ORDER BY ALL""",
    [study],
)
if profiles.height:
    r.table(profiles, "Array configuration (storage array profiles)")
rejected = r.query(
    con,
    "SELECT path, error, error_line FROM study_files WHERE study = ? AND status = 'rejected' ORDER BY path",
    [study],
)
if rejected.height:
    r.table(rejected, "Files rejected at ingest")

# %%
r.provenance(con, study)
