"""iometer_results: per-target rows sum to their worker, workers to the ALL row (IOps, per block).

Iometer's own arithmetic: ALL = sum of workers; a worker = sum of its targets (when it has any).
"""

SUITE = "iometer_results"
QUERY = """
WITH b AS (
    SELECT source_id, session_no, block_no, ts,
           max(iops) FILTER (row_type = 'ALL') AS all_iops,
           sum(iops) FILTER (row_type = 'WORKER') AS workers_iops,
           sum(iops) FILTER (row_type IN ('DISK', 'NETWORK')) AS targets_iops,
           count(*) FILTER (row_type IN ('DISK', 'NETWORK')) AS targets
    FROM iometer_results
    WHERE ts IS NULL  -- results files; instantaneous rows are per interval
    GROUP BY ALL
)
SELECT *, CASE WHEN all_iops > 0 AND workers_iops IS NOT NULL THEN workers_iops / all_iops END AS workers_ratio,
          CASE WHEN workers_iops > 0 AND targets > 0 THEN targets_iops / workers_iops END AS targets_ratio
FROM b
"""


def expectations(E):
    return [
        E.ExpectColumnValuesToNotBeNull(column="all_iops"),  # every block has its ALL row
        E.ExpectColumnValuesToBeBetween(column="workers_ratio", min_value=0.9999, max_value=1.0001),
        E.ExpectColumnValuesToBeBetween(column="targets_ratio", min_value=0.9999, max_value=1.0001),
    ]
