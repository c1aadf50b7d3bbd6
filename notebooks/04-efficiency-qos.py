# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM qos_verdicts UNION SELECT study FROM efficiency WHERE
#       price_usd IS NOT NULL OR watts IS NOT NULL
#     title: QoS verdicts and efficiency
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
study = "iomark-vm-hp4335-2014"

# %%
import altair as alt

from iolab import lab
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "QoS verdicts and efficiency")
systems = r.systems_block(con, study)
declared = r.query(
    con,
    """SELECT kind, criterion, description, comparator, threshold, unit, tool, iolab_metric AS metric, roles, units,
                                  defined, citation
                           FROM study_declarations WHERE study = ? ORDER BY kind, criterion""",
    [study],
)
if declared.height:
    r.table(
        declared,
        "Criteria and corrections this study declares (its iolab.toml), each with its scope: a criterion or sizing "
        "rule judges its tool's runs only (any: every tool's); a correction applies to its metric, else to the "
        "metrics of its roles (throughput when none is stated) in its units",
    )
else:
    r.note(
        'This study declares no QoS criterion: add criteria = ["<id>", ...] naming rows of a criteria file '
        "to its iolab.toml."
    )

# %%
summary = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, criterion, count(*) AS runs,
                                 sum(passed::INT) AS passed, count(*) - sum(passed::INT) AS failed
                          FROM qos_verdicts WHERE study = ? GROUP BY ALL ORDER BY criterion, system""",
    [study],
)
if summary.height:
    d = summary.unpivot(index=["system", "criterion"], on=["passed", "failed"])
    d = d.with_columns(system=r.short_labels(d["system"]))
    r.show(
        alt.Chart(d)
        .mark_bar()
        .encode(
            x=alt.X("value:Q", title="runs", stack="zero"),
            y=alt.Y("system:N", title=None, axis=alt.Axis(labelLimit=0)),
            row=alt.Row("criterion:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
            color=alt.Color(
                "variable:N",
                scale=alt.Scale(domain=["passed", "failed"], range=["#1a7f37", "#b42318"]),
                title="verdict",
            ),
            tooltip=r.tooltips("system", "criterion", "variable", "value"),
        )
        .properties(width=480, title="QoS verdicts per system (runs)"),
        f"Stacked bar chart: for each criterion, how many runs of each of the {summary['system'].n_unique()} "
        "systems passed (green) and failed (red).",
        source={"view": "qos_verdicts", "study": study, "system": "system", "aggregate": True},
        stack=True,
        left_out=r.no_marks(systems, summary["system"], "no criterion of the study applies to their runs"),
    )
r.table(summary, "Verdicts by criterion and system")
v = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, workload_label AS workload, config_label,
                           criterion, metric, value, comparator, threshold, unit, passed, citation
                    FROM qos_verdicts WHERE study = ? ORDER BY passed, criterion, system, workload, config_label, metric, value, citation""",
    [study],
).pipe(r.in_order, "passed", "criterion", "system", "workload", "config_label", "metric", "value", "citation")
r.table(
    v, "Every verdict (failures first)", bounds={"value": "threshold"}
)  # a failing value never reads as its threshold

# %%
e = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, price_usd, price_source, watts, vms, score,
                           best_iops, best_iops_workload, best_iops_load, best_iops_runs, best_iops_drives,
                           best_iops_per_drive, usd_per_vm, usd_per_iops, iops_per_watt, score_per_kw
                    FROM efficiency WHERE study = ? ORDER BY system""",
    [study],
)
if e["best_iops"].drop_nulls().len():
    r.note(
        "IO/s here is the statistic of every page: a point's mean over its repeated runs (each system's current "
        "measurement), never the best single run. The best IO/s is the highest such mean, at the workload and load "
        "named beside it (its runs: the repeats averaged; its drives: the drives behind it); $/IOPS "
        "and IOPS per watt divide by it, and IOPS per drive is it over those drives (view efficiency)."
    )
r.table(e, "Efficiency per system ($ from the sidecar or published figures; IO/s: the best point's mean of repeats)")

# %%
r.provenance(con, study)
