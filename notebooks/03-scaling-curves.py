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
display(Markdown(f"# {study}: scaling curves"))
r.note("Each curve holds the system, workload and configuration fixed and varies one load (view scaling). "
       "Linearity = value / (first value x load / first load); the knee is the first point below 80 % of linear.")

# %%
pts = r.query(con, """SELECT axis, metric, unit, coalesce(system, '') AS system, workload,
                             coalesce(config_label, '') || ' ' || coalesce(raid_level, '') ||
                             coalesce(' ' || block_size_bytes || ' B', '') AS curve,
                             load, value, linearity, is_knee
                      FROM scaling WHERE study = ? ORDER BY axis, metric, workload, curve, load""", [study])
for (axis, metric, unit), g in pts.group_by(["axis", "metric", "unit"], maintain_order=True):
    d = g.to_pandas()
    d["series"] = d["system"].str.slice(0, 28) + " " + d["curve"]
    base = alt.Chart(d).encode(
        x=alt.X("load:Q", title=axis.replace("_", " ")),
        y=alt.Y("value:Q", title=f"{metric} ({unit})"),
        color=alt.Color("series:N", legend=alt.Legend(orient="bottom", columns=2, labelLimit=400), title=None),
    )
    lines = base.mark_line(point=True)
    knees = base.transform_filter("datum.is_knee").mark_point(shape="diamond", size=140, filled=True, color="black")
    display((lines + knees).facet(facet=alt.Facet("workload:N", title=None), columns=2).resolve_scale(y="independent").properties(
        title=f"{metric} vs {axis.replace('_', ' ')} (diamond = knee)"))

# %%
knees = pts.filter(pts["is_knee"]).select(["axis", "metric", "system", "workload", "curve", "load", "value", "linearity"])
r.table(knees, "Knees: first point below 80 % of linear scaling")
sat = r.query(con, """SELECT axis, system, tool, workload, saturation_load, max_load_tested, criteria
                      FROM saturation WHERE study = ? ORDER BY axis, workload""", [study])
r.table(sat, "Saturation: largest load that still meets every applicable QoS criterion")

# %%
r.provenance(con, study)
