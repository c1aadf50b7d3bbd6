"""runs: keys present, each run tied to an ingested file, sane times and percentages."""

SUITE = "runs"
# a run's source_id is its content's: a place in the analysis must read it, and none rejected
QUERY = """SELECT r.*, coalesce(f.status, 'no place') AS source_status,
                  epoch(r.ended_at) - epoch(r.started_at) AS duration_s
           FROM runs r
           LEFT JOIN (SELECT content_id AS source_id, min(status) AS status FROM source_files GROUP BY 1) f USING (source_id)"""


def expectations(E):
    return [
        E.ExpectColumnValuesToBeUnique(column="run_id"),
        E.ExpectColumnValuesToNotBeNull(column="run_key"),
        E.ExpectColumnValuesToNotBeNull(column="tool"),
        E.ExpectColumnValuesToBeInSet(column="source_status", value_set=["ok"]),  # never rows of a rejected file
        E.ExpectColumnValuesToBeBetween(column="duration_s", min_value=0),
        E.ExpectColumnValuesToBeBetween(column="read_pct", min_value=0, max_value=100),
        E.ExpectColumnValuesToBeBetween(column="random_pct", min_value=0, max_value=100),
        E.ExpectColumnValuesToBeBetween(column="block_size_bytes", min_value=1),
        E.ExpectColumnValuesToBeBetween(column="drives", min_value=1),
    ]
