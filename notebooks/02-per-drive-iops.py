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
display(Markdown(f"# {study}: IOPS per drive"))
r.note("IOPS per drive = workload IOPS / physical drives behind the volumes it hit (view per_drive_iops). "
       "Drives come from the volume's array in a loaded profile (drives source: profile), from the sidecar "
       "(declared) or from the published table (stated); every member of a RAID-10 group counts, hot spares do not.")

# %%
runs = r.query(con, """SELECT tool, workload, run_key, tiles, raid_level, config_label, volume, drives, drives_source,
                              match_rule, iops, iops_per_drive, mbps, mbps_per_drive
                       FROM per_drive_iops WHERE study = ? AND level = 'run' AND drives IS NOT NULL
                       ORDER BY tool, workload, drives""", [study])
r.table(runs, "Per run")
if runs.height:
    d = runs.filter(runs["iops_per_drive"].is_not_null()).to_pandas()
    if len(d):
        display(alt.Chart(d).mark_bar().encode(
            x=alt.X("iops_per_drive:Q", title="IO/s per drive"),
            y=alt.Y("workload:N", title=None),
            color=alt.Color("drives:O", title="drives"),
            row=alt.Row("tool:N", title=None),
            tooltip=["workload", "drives", "iops", "iops_per_drive", "config_label", "raid_level"],
        ).resolve_scale(y="independent").properties(width=560, title="IO/s per physical drive"))

# %%
targets = r.query(con, """SELECT tool, workload, run_key, target, volume, array_name, raid_level, drives,
                                 drives_source, match_rule, iops, iops_per_drive
                          FROM per_drive_iops WHERE study = ? AND level = 'target' ORDER BY tool, run_key, target""", [study])
r.table(targets, "Per workload target (target -> volume -> drives)")

# %%
sizing = r.query(con, """SELECT tool, workload, iops, drives, iops_per_drive, supported_mailboxes,
                                x_ibm_100_iops_rule, x_oracle_30_iops_rule
                         FROM sizing WHERE study = ? AND drives IS NOT NULL AND iops IS NOT NULL
                         ORDER BY tool, workload""", [study])
r.table(sizing, "Sizing: Exchange mailboxes (0.5 IO/s each, very heavy profile) and planning rules (x = multiple of the rule)")

# %%
r.provenance(con, study)
