# ---
# jupyter:
#   iolab:
#     page: false
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Explore iolab's database
#
# A notebook of your own, for the questions the report pages do not answer (it is not a page:
# `iolab report` leaves it out). `iolab.lab` opens the default database read-only (`$IOLAB_DB`,
# else `data/iolab.duckdb`; `make demo` makes one), hands any view of `schemas/views/` as a Polars
# frame, and draws charts as the pages do: one colour per system, tooltips, live in JupyterLab.
# Copy this file under another name to keep your own.

# %%
from iolab import lab

lab.studies()

# %% [markdown]
# Every view the pages read (`schemas/views/*.sql`; `docs/DESIGN.md` says what each holds):

# %%
print(", ".join(lab.views()))

# %% [markdown]
# One study's comparison at matched points, one metric: columns are the view's, rows in a stable order.

# %%
study = "ds4300-vs-fastt200-2004"
df = lab.view("comparison", study=study, metric="iops")
df.select("system", "baseline_system", "workload_label", "baseline_value", "value", "pct_better", "verdict")

# %%
lab.chart(df, x="pct_better", y="workload_label", title=f"{study}: IO/s, % better than the baseline")

# %% [markdown]
# Any Polars expression, then a chart: each system's best IO/s per workload (a click on a legend entry
# shows that system alone; a double click shows all again).

# %%
import polars as pl

runs = lab.view("per_drive_iops", study=study, level="run")
best = runs.group_by("system", "workload_label").agg(pl.col("iops").max()).drop_nulls("iops")
lab.chart(best, x="iops", y="workload_label", title=f"{study}: each system's best IO/s per workload")

# %% [markdown]
# `lab.chart(..., show=False)` returns the Altair chart to change before `lab.show(chart, alt_text)`;
# `lab.query(lab.connect(), sql, params)` runs any SQL on the same read-only connection.
