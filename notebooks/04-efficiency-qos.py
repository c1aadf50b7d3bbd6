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
study = "iomark-vm-hp4335-2014"

# %%
import altair as alt
from IPython.display import Markdown, display

import report as r

con = r.connect(db_path)
display(Markdown(f"# {study}: QoS verdicts and efficiency"))
r.note("Criteria are data (criteria.csv, table qos_criteria): each applies to the runs that record its metric.")

# %%
v = r.query(con, """SELECT tool, workload, criterion, metric, value, comparator, threshold, unit, passed, citation
                    FROM qos_verdicts WHERE study = ? ORDER BY passed, criterion, workload""", [study])
summary = r.query(con, """SELECT criterion, count(*) AS runs, sum(passed::INT) AS passed,
                                 count(*) - sum(passed::INT) AS failed
                          FROM qos_verdicts WHERE study = ? GROUP BY ALL ORDER BY criterion""", [study])
r.table(summary, "Verdicts by criterion")
if summary.height:
    display(alt.Chart(summary.unpivot(index="criterion", on=["passed", "failed"]).to_pandas()).mark_bar().encode(
        x=alt.X("value:Q", title="runs"), y=alt.Y("criterion:N", title=None),
        color=alt.Color("variable:N", scale=alt.Scale(domain=["passed", "failed"], range=["#1a7f37", "#b42318"]),
                        title=None)).properties(width=520, title="QoS verdicts"))
r.table(v, "Every verdict (failures first)", max_rows=60)

# %%
e = r.query(con, """SELECT system, price_usd, price_source, watts, vms, score, best_iops, best_iops_per_drive,
                           usd_per_vm, usd_per_iops, iops_per_watt, score_per_kw
                    FROM efficiency WHERE study = ?""", [study])
r.table(e, "Efficiency ($ from the sidecar or published figures)")

# %%
r.provenance(con, study)
