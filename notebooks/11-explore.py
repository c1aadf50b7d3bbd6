# ---
# jupyter:
#   iolab:
#     print: false
#     studies: SELECT study FROM study_runs UNION SELECT study FROM explore_series
#     title: Explore any metric on any axis
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
study = "fio-intel-d3-s4610-qd-sweep"

# %%
from iolab import lab
from iolab.reports import explore
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "explore any metric on any axis")
systems = r.systems_block(con, study)
r.note(
    "Pick the metric (y), the load or workload dimension (x) and one panel or a panel per workload above the "
    "chart: it changes in this page, offline. Every metric the study measured is in the list, labelled with its "
    "unit, role and which way is better (the metric vocabulary); each point is one number of a run (views "
    "explore_runs: each system's current measurement, each metric at the widest scope the study states it at) or "
    "a sample of a capture's series (explore_series), and its tooltip names the file and line (a capture's: "
    "sample) it was read from. A number whose run does not state the dimension picked is not drawn. Without "
    "scripts, and in the print edition (which leaves this page out), the chart shows its first choice."
)

# %%
explore.show(con, study, systems)

# %%
r.provenance(con, study)
