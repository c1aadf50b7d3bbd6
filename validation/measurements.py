"""measurements: units from the vocabulary, value ranges, and internal consistency.

Consistency columns computed next to each number (per run, scope and target):
  rw_ratio    (read IOPS + write IOPS) / IOPS on the 'iops' rows (Iometer, published tables)
  mbps_ratio  MB/s / (IOPS x block size / 10^6) on ALL rows of fixed-size Iometer specs
"""

SUITE = "measurements"
UNITS = ["IO/s", "MB/s", "ms", "%", "count", "bytes", "1/s", "IO/s per %CPU", "bool", "USD", "TB", "1/h", "s", "W"]
QUERY = """
WITH k AS (
    SELECT m.*,
           sum(value) FILTER (metric IN ('read_iops', 'write_iops')) OVER w AS rw_sum,
           count(*) FILTER (metric IN ('read_iops', 'write_iops')) OVER w AS rw_n,
           max(value) FILTER (metric = 'iops') OVER w AS iops_w
    FROM measurements m
    WINDOW w AS (PARTITION BY run_id, scope, target, outstanding_ios)
)
SELECT source_sha256, source_path, run_id, scope, target, metric, value, unit, tool,
       CASE WHEN metric = 'iops' AND rw_n = 2 AND value > 0 THEN rw_sum / value END AS rw_ratio,
       CASE WHEN metric = 'mbps' AND tool = 'Iometer' AND scope = 'all' AND block_size_bytes IS NOT NULL AND iops_w > 0
            THEN value / (iops_w * block_size_bytes / 1e6) END AS mbps_ratio
FROM k
"""


def expectations(E):
    cond = lambda c: {"row_condition": c, "condition_parser": "pandas"}  # noqa: E731
    return [
        E.ExpectColumnValuesToNotBeNull(column="source_sha256"),  # every number traceable to a file
        E.ExpectColumnValuesToNotBeNull(column="run_id"),
        E.ExpectColumnValuesToNotBeNull(column="metric"),
        E.ExpectColumnValuesToNotBeNull(column="value"),
        E.ExpectColumnValuesToBeInSet(column="unit", value_set=UNITS),
        E.ExpectColumnValuesToBeInSet(
            column="scope",
            value_set=[
                "all",
                "manager",
                "processor",
                "worker",
                "target",
                "volume",
                "instance",
                "host",
                "point",
                "test",
            ],
        ),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, max_value=100, **cond('unit == "%"')),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, **cond('unit == "ms"')),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, **cond('unit == "IO/s"')),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, **cond('unit == "MB/s"')),
        E.ExpectColumnValuesToBeBetween(column="value", min_value=0, **cond('unit == "count"')),
        E.ExpectColumnValuesToBeBetween(column="rw_ratio", min_value=0.9999, max_value=1.0001),
        E.ExpectColumnValuesToBeBetween(column="mbps_ratio", min_value=0.999, max_value=1.001),
    ]
