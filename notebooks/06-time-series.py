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
study = "esxtop-perfmon-samples"

# %%
import altair as alt
from IPython.display import Markdown, display

import report as r

con = r.connect(db_path)
display(Markdown(f"# {study}: esxtop and perfmon time series"))
r.note("Counters from esxtop batch output and Windows perfmon logs, summarised per capture (views series_summary, "
       "device_io, cpu_usage): join them to benchmark runs by host and time window (first/last sample).")
caps = r.query(con, """SELECT f.path AS capture, c.tool, c.time_zone, c.bias_minutes, c.series, c.samples,
                              c.has_date, min(smp.ts) AS first_sample, max(smp.ts) AS last_sample
                       FROM pdh_captures c JOIN source_files f USING (source_id)
                       LEFT JOIN series_samples smp USING (source_id)
                       WHERE f.study = ? GROUP BY ALL ORDER BY capture""", [study])
r.table(caps, "Captures")

# %%
dev = r.query(con, """SELECT host, object, instance, iops_avg, iops_p95, iops_max, read_iops_avg, write_iops_avg,
                             davg_ms_avg, kavg_ms_avg, gavg_ms_avg, qavg_ms_avg, read_latency_ms_avg,
                             write_latency_ms_avg, queue_length_avg
                      FROM device_io WHERE study = ? ORDER BY host, object, instance""", [study])
r.table(dev, "Storage devices, adapters, paths, virtual and logical disks (avg / p95 / max over the capture)", max_rows=60)
cpu = r.query(con, """SELECT host, object, instance, counter, samples, avg, p95, max FROM cpu_usage
                      WHERE study = ? AND (object IN ('Physical Cpu', 'Processor') OR metric = 'cpu_ready_pct')
                      ORDER BY metric, avg DESC""", [study])
r.table(cpu, "CPU: utilisation per physical CPU, ready time per VM group (highest first)", max_rows=40)

# %%
pts = r.query(con, """SELECT s.host || ' ' || s.object || coalesce('(' || s.instance || ')', '') || ' ' || s.counter AS series,
                             p.ts, p.sample_no, p.value, s.unit
                      FROM series_points p JOIN series s USING (series_id) JOIN source_files f ON f.source_id = s.source_id
                      WHERE f.study = ? AND s.metric IN ('cpu_util_pct', 'queue_length', 'iops')
                      ORDER BY series, p.sample_no""", [study])
if pts.height:
    d = pts.to_pandas()
    x = alt.X("ts:T", title="time") if d["ts"].notna().all() else alt.X("sample_no:Q", title="sample")
    display(alt.Chart(d).mark_line(point=True).encode(
        x=x, y=alt.Y("value:Q", title=None), color=alt.Color("series:N", legend=alt.Legend(orient="bottom", columns=1, labelLimit=600)),
        tooltip=["series", "ts", "value"]).properties(width=720, height=260, title="CPU utilisation, queue lengths, IO/s over time"))

# %%
r.provenance(con, study)
