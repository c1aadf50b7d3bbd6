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
study = "ds4300-vs-fastt200-2004"

# %%
import altair as alt
from IPython.display import Markdown, display

import report as r

con = r.connect(db_path)
display(Markdown(f"# {study}: cross-generation comparison"))
r.note("New vs old at matched points: same workload, block size, RAID level and metric; equal drive count "
       "where both exist, else the nearest (view generation_comparison). The older system's value is multiplied "
       "by the correction factor from criteria.csv before comparing: "
       "N % better = (new / (old x correction) - 1) x 100.")

# %%
g = r.query(con, """SELECT new_generation, old_generation, workload, raid_level, block_size, metric, new_value,
                           old_value, new_drives, old_drives, match_rule, correction, pct_better, pct_better_uncorrected
                    FROM generation_comparison WHERE study = ? ORDER BY workload, raid_level""", [study])
r.table(g, "Matched points")
if g.height:
    d = g.to_pandas()
    d["point"] = d["workload"].str.split(" \\(").str[0] + " " + d["raid_level"].fillna("") + " " + d["block_size"].fillna("")
    display(alt.Chart(d).mark_bar().encode(
        x=alt.X("pct_better:Q", title="% better, corrected"),
        y=alt.Y("point:N", sort="-x", title=None),
        color=alt.Color("metric:N"),
        tooltip=["workload", "new_value", "old_value", "correction", "match_rule"],
    ).properties(width=560, title="New generation vs old, with the drive-technology correction"))

# %%
r.provenance(con, study)
