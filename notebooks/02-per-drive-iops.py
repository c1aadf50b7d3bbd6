# ---
# jupyter:
#   iolab:
#     studies: SELECT study FROM per_drive_iops WHERE drives IS NOT NULL
#     title: IOPS per drive and sizing
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
import polars as pl

from iolab import lab
from iolab.reports import page as r

con = lab.connect(db_path, lake)
r.heading(study, "IOPS per drive")
systems = r.systems_block(con, study)
r.note(
    "IOPS per drive = workload IOPS / physical drives behind the volumes it hit (view per_drive_iops). "
    "Drives come from the sidecar where it declares them (declared; the profile drives column says what a loaded "
    "profile says instead), else from the volume's array in a loaded profile (profile), else from the published "
    "table (stated); every member of a RAID-10 group counts, hot spares do not."
)

# %%
runs = r.query(
    con,
    """SELECT run_id, coalesce(system, '(no system label)') AS system, workload_label AS workload, run_key, tool,
                              raid_level, config_label, volume, drives, drives_source, profile_drives, match_rule, iops,
                              iops_per_drive, mbps, mbps_per_drive, source_path
                       FROM per_drive_iops WHERE study = ? AND level = 'run' AND drives IS NOT NULL
                       -- a workload's loads in numbers (QD 2 before QD 16), not as text
                       ORDER BY system, block_size_bytes, read_pct, random_pct, outstanding_ios, workload, drives,
                                source_path, run_key""",
    [study],
)
d = runs.filter(runs["iops_per_drive"].is_not_null()).join(
    r.headline_sources(con, study), on="run_id", how="left", maintain_order="left"
)
if d.height:

    def stated(col: str) -> pl.Expr:
        """The run's ``col`` after " · ", or nothing where it states none."""
        value = pl.col(col).cast(pl.String).fill_null("")
        return pl.when(value != "").then(" · " + value).otherwise(pl.lit(""))

    # one bar per run: its system, workload, drives, configuration, file and run key, never two runs in one bar
    d = d.with_columns(
        run=pl.concat_str(
            "system",
            pl.lit(" · "),
            "workload",
            pl.lit(" · "),
            pl.col("drives").cast(pl.String),
            pl.lit(" drives"),
            stated("config_label"),
            stated("raid_level"),
            pl.lit(" · "),
            pl.col("source_path").str.replace_all("\\", "/", literal=True).str.split("/").list.last(),
            pl.lit(" "),
            "run_key",
        )
    )
    EACH = max(5, 40 // d["system"].n_unique())  # the highest runs of each system: every system keeps bars
    ranked = d.sort("iops_per_drive", descending=True, maintain_order=True)
    shown = ranked.filter(pl.int_range(pl.len()).over("system") < EACH)
    shown, label = r.screen_labels(shown, "run")  # cut on the axis; "run" whole in the tooltip and in print
    r.show(
        r.whole_labels(alt.Chart(shown), **{label: "run"})
        .mark_bar()
        .encode(
            x=alt.X("iops_per_drive:Q", title="IO/s per physical drive"),
            y=alt.Y(f"{label}:N", sort="-x", title=None, axis=alt.Axis(labelLimit=0)),
            color=alt.Color(
                "system:N",
                scale=r.system_colors(systems["system"], shown["system"]),
                legend=alt.Legend(orient="bottom", columns=1),
            ),
            tooltip=r.tooltips(
                "run",
                "system",
                "workload",
                "drives",
                "iops",
                "iops_per_drive",
                "config_label",
                "raid_level",
                "run_key",
                *r.SOURCE_TOOLTIPS,
            ),
        )
        .properties(width=520, title=f"IO/s per drive, one bar per run (the {EACH} highest of each system)"),
        f"Bar chart: IO/s per physical drive of the {len(shown)} highest runs ({EACH} at most per system, "
        f"{shown['system'].n_unique()} systems), one bar per run labelled with its system, workload and drives.",
        source={
            "view": "per_drive_iops",
            "study": study,
            "system": "system",
            "where": {"level": "run", "drives": None},
            "keys": {"system": "system", "run_key": "run_key", "workload": "workload_label"},
            "values": {"iops_per_drive": "iops_per_drive", "iops": "iops"},
        },
        left_out=f"{len(d) - len(shown)} of {len(d)} runs not drawn (each system's {EACH} highest are); "
        "every run is in the table below."
        if len(d) > len(shown)
        else "",
    )
r.table(runs.drop("run_id"), "Per run")
# a system whose targets match no volume with drives has no IOPS per drive: say so, not leave it out silently
unknown = r.query(
    con,
    """SELECT coalesce(p.system, '(no system label)') AS system, count(DISTINCT p.run_id) AS runs,
              list_slice(list(DISTINCT m.target ORDER BY m.target) FILTER (m.target IS NOT NULL), 1, 5) AS targets
       FROM per_drive_iops p
       LEFT JOIN measurements m ON m.run_id = p.run_id AND m.scope IN ('target', 'volume', 'instance')
       WHERE p.study = ? AND p.level = 'run' AND p.drives IS NULL GROUP BY ALL ORDER BY system""",
    [study],
)
if unknown.height:

    def count(n: int, what: str) -> str:
        return f"{n} {what}{'' if n == 1 else 's'}"

    r.note(
        f"Not in the chart or the table above: {count(unknown['runs'].sum(), 'run')} of "
        f"{count(unknown.height, 'system')} state no drive count, so their IOPS per drive is unknown: "
        + "; ".join(
            f"{s} ({count(n, 'run')}; " + (f"targets: {t}" if t else "no target named") + ")"
            for s, n, t in unknown.iter_rows()
        )
        + ". No [[targets]] entry of the study's iolab.toml and no loaded array profile matches these targets: "
        "map each to its volume and drives there (target, volume, drives)."
    )

# %%
targets = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, workload_label AS workload, run_key,
                                 target, volume, array_name, raid_level, drives, drives_source, profile_drives, match_rule,
                                 iops, iops_per_drive
                          FROM per_drive_iops WHERE study = ? AND level = 'target'
                          ORDER BY system, block_size_bytes, read_pct, random_pct, outstanding_ios, workload, source_path,
                                   run_key, target""",
    [study],
)
r.table(targets, "Per workload target (target -> volume -> drives)")

# %%
sizing = r.query(
    con,
    """SELECT coalesce(system, '(no system label)') AS system, tool, workload_label AS workload, criterion,
                                rule, rule_tool, threshold, threshold_unit, rule_metric, iops, drives, iops_per_drive,
                                multiple
                         FROM sizing WHERE study = ? AND multiple IS NOT NULL
                         ORDER BY criterion, system, block_size_bytes, read_pct, random_pct, outstanding_ios, workload,
                                  source_path, run_key""",
    [study],
)
rules = r.query(
    con,
    """SELECT criterion, tool, description, comparator, threshold, unit FROM study_declarations
       WHERE study = ? AND kind = 'criterion' AND defined AND comparator IN ('=', '>=', '>')
         AND iolab_metric IN ('iops', 'mbps', 'iops_per_drive', 'mbps_per_drive') ORDER BY criterion""",
    [study],
)
if sizing.height:
    for crit, tool, what, comparator, threshold, unit in rules.iter_rows():
        got = sizing.filter(sizing["criterion"] == crit)
        if comparator == "=" and got.height:  # a unit per threshold: the units each run supports, in words
            said = [f"{s} · {w}: {m:,.0f}" for s, w, m in got.select(["system", "workload", "multiple"]).iter_rows()]
            r.note(
                f"{crit} ({what}: {threshold:g} {unit} each), sizing {tool} runs only: "
                + "; ".join(said[:10])
                + (f"; and {len(said) - 10} more runs in the table below." if len(said) > 10 else ".")
            )
        elif not got.height:
            r.note(f"{crit} ({what}) sizes {tool} runs only: this study has none it applies to.")
    r.table(
        sizing,
        "Sizing rules this study declares, each against the runs of its tool (multiple = value / rule: units "
        "supported, or x the rule)",
    )
elif rules.height:
    r.note(
        "The sizing rules this study declares apply to runs of their own tool only, and it has none: "
        + "; ".join(f"{c} ({t})" for c, t in rules.select(["criterion", "tool"]).iter_rows())
        + "."
    )
else:
    r.note("This study declares no sizing rule (sidecar criteria = [...] naming rows of a criteria file).")

# %%
r.provenance(con, study)
