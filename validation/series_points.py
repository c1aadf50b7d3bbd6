"""series_points: each point belongs to a series; within a series, time stamps strictly increase
(ordered by time, no two values share a time stamp: a duplicated line or a merged file shows here)."""

SUITE = "series_points"
QUERY = """
SELECT p.series_id, s.series_id IS NOT NULL AS has_series,
       -- a DOUBLE (exact for any step): GX checks a nullable integer column 4x slower (28 M points: 30 s)
       (epoch_ms(p.ts) - epoch_ms(lag(p.ts) OVER (PARTITION BY p.series_id ORDER BY p.ts, p.sample_no)))::DOUBLE
           AS step_ms,
       p.ts IS NOT NULL OR smp.ts_text IS NOT NULL AS has_time
FROM series_points p
LEFT JOIN series s USING (series_id)
LEFT JOIN series_samples smp ON smp.source_id = p.source_id AND smp.sample_no = p.sample_no
"""


def expectations(E):
    return [
        E.ExpectColumnValuesToBeInSet(column="has_series", value_set=[True]),
        E.ExpectColumnValuesToBeInSet(column="has_time", value_set=[True]),  # ts, or its text (time-only files)
        E.ExpectColumnValuesToBeBetween(column="step_ms", min_value=1),
    ]
