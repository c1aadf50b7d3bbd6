# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
db_path = "data/iolab.duckdb"
study = "esg-ds5020-2009"

# %%
import altair as alt
from IPython.display import Markdown, display

import report as r

con = r.connect(db_path)
display(Markdown(f"# {study}: overview"))
labels = r.query(con, """SELECT any_value(system) AS system, any_value(generation) AS generation,
                                any_value(tiles) AS tiles, any_value(vms) AS vms, any_value(config_label) AS config,
                                count(*) AS files, sum(size_bytes) AS bytes
                         FROM source_files WHERE study = ? AND status = 'ok'""", [study])
r.table(labels, "System under test (from the iolab.toml sidecar)")

# %%
runs = r.query(con, """SELECT r.tool, r.tool_version, count(*) AS runs, min(r.started_at) AS first_start,
                              max(coalesce(r.ended_at, r.started_at)) AS last_end,
                              count(DISTINCT r.workload) AS workloads
                       FROM runs r JOIN source_files f USING (source_id)
                       WHERE f.study = ? AND f.status = 'ok' GROUP BY ALL ORDER BY 1""", [study])
r.table(runs, "Runs by tool")
metrics = r.query(con, """SELECT tool, scope, metric, unit, count(*) AS numbers, min(value) AS min, max(value) AS max
                          FROM measurements WHERE study = ? GROUP BY ALL ORDER BY tool, scope, metric""", [study])
r.table(metrics, "What was measured (measurements view)")

# %%
headline = r.query(con, """SELECT p.tool, p.workload, p.run_key, p.iops, p.mbps FROM per_drive_iops p
                           WHERE p.study = ? AND p.level = 'run' AND p.iops IS NOT NULL
                           ORDER BY p.iops DESC LIMIT 40""", [study])
if headline.height:
    chart = alt.Chart(headline.to_pandas()).mark_bar().encode(
        x=alt.X("iops:Q", title="IO/s"), y=alt.Y("run_key:N", sort="-x", title="run"),
        color=alt.Color("tool:N"), tooltip=["workload", "iops", "mbps"],
    ).properties(title=f"{study}: headline IO/s per run (top 40)", width=640)
    display(chart)
else:
    r.note("No run of this study reports IO/s.")

# %%
profiles = r.query(con, """SELECT a.array_name, a.profile_kind, a.firmware, a.controllers, a.controller_model,
                                  a.cache_mb_per_controller, a.stated_drives, a.stated_groups, a.stated_volumes,
                                  a.stated_hot_spares
                           FROM profile_arrays a JOIN source_files f USING (source_id) WHERE f.study = ?""", [study])
if profiles.height:
    r.table(profiles, "Array configuration (storage array profiles)")
rejected = r.query(con, """SELECT path, error, error_line FROM source_files WHERE study = ? AND status = 'rejected'""", [study])
if rejected.height:
    r.table(rejected, "Files rejected at ingest")

# %%
r.provenance(con, study)
