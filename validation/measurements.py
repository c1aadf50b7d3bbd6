"""measurements: metric, unit and scope from the vocabulary, value ranges, and internal consistency.

Units and scopes are the vocabulary's own (ingest/vocabulary.py); in_vocabulary joins the
metric_vocabulary table: the metric is listed there with this very unit.

Consistency columns computed next to each number (per run, scope and target):
  rw_ratio    (read IOPS + write IOPS) / IOPS on the 'iops' rows (Iometer, published tables)
  mbps_ratio  MB/s / (IOPS x block size / 10^6) on ALL rows of fixed-size Iometer specs
"""

from iolab import vocabulary

SUITE = "measurements"
UNITS = sorted({m.unit for m in vocabulary.METRICS.values() if not m.series_only and m.unit is not None})
SCOPES = list(vocabulary.SCOPES)
QUERY = """
-- per study, run, scope, target and queue depth (a file placed in two studies has its rows in each,
-- and each study is validated on its own rows); grouped and joined back (a window sorted 3x slower)
WITH k AS (
    SELECT study, run_id, scope, target, outstanding_ios,
           sum(value) FILTER (metric IN ('read_iops', 'write_iops')) AS rw_sum,
           count(*) FILTER (metric IN ('read_iops', 'write_iops')) AS rw_n,
           max(value) FILTER (metric = 'iops') AS iops_w
    FROM measurements
    GROUP BY ALL
)
SELECT m.study, m.source_sha256, m.run_id, m.scope, m.metric, m.value, m.unit,
       v.metric IS NOT NULL AND v.unit IS NOT DISTINCT FROM m.unit AS in_vocabulary,
       CASE WHEN m.metric = 'iops' AND k.rw_n = 2 AND m.value > 0 THEN k.rw_sum / m.value END AS rw_ratio,
       CASE WHEN m.metric = 'mbps' AND m.tool = 'Iometer' AND m.scope = 'all' AND m.block_size_bytes IS NOT NULL
                 AND k.iops_w > 0
            THEN m.value / (k.iops_w * m.block_size_bytes / 1e6) END AS mbps_ratio
FROM measurements m
LEFT JOIN k  -- each row meets its own group once: GROUP BY, like this join, takes NULLs as equal
    ON k.study IS NOT DISTINCT FROM m.study AND k.run_id IS NOT DISTINCT FROM m.run_id
   AND k.scope IS NOT DISTINCT FROM m.scope AND k.target IS NOT DISTINCT FROM m.target AND k.outstanding_ios IS NOT DISTINCT FROM m.outstanding_ios
LEFT JOIN metric_vocabulary v ON v.metric = m.metric
"""


def expectations(E):
    cond = lambda c: {"row_condition": c, "condition_parser": "pandas"}  # noqa: E731
    return [
        E.ExpectColumnValuesToNotBeNull(column="source_sha256"),  # every number traceable to a file
        E.ExpectColumnValuesToNotBeNull(column="run_id"),
        E.ExpectColumnValuesToNotBeNull(column="metric"),
        E.ExpectColumnValuesToNotBeNull(column="value"),
        E.ExpectColumnValuesToBeInSet(column="unit", value_set=UNITS),
        E.ExpectColumnValuesToBeInSet(column="scope", value_set=SCOPES),
        E.ExpectColumnValuesToBeInSet(column="in_vocabulary", value_set=[True]),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, max_value=100, **cond('unit == "%"')),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, **cond('unit == "ms"')),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, **cond('unit == "IO/s"')),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, **cond('unit == "MB/s"')),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, **cond('unit == "count"')),
        E.ExpectColumnValuesToBeBetween(column="rw_ratio", min_value=0.9999, max_value=1.0001),
        E.ExpectColumnValuesToBeBetween(column="mbps_ratio", min_value=0.999, max_value=1.001),
    ]
