"""series_points: each point belongs to a series; within a series, time stamps strictly increase
(no two values share a time stamp, none goes back: a duplicated line or a merged file shows here).

One row per series, its points checked in SQL: a 1 GB esxtop capture holds 146 M points, which as a
frame of one row a point took 13 GB and minutes. Each point is compared with its capture's sample
before it (series_samples: a sample per line of the file, each point's time is its sample's), so no
window over every point is needed (a window over the points of a 100 MB capture took 4.7 s of CPU, the
join 0.3 s): step_ms is the series' smallest step, in milliseconds, from the time of the sample
before a point to the point's own time. On every real file of tests/corpus it passes and fails where
a step between a series' consecutive points does (a series with a gap is compared with the sample
just before each point, which is no later than its own point before it).
"""

SUITE = "series_points"
QUERY = """
WITH before AS (  -- each sample's time, and the time of the sample before it in its capture
    SELECT source_id, sample_no, ts_text, lag(ts) OVER (PARTITION BY source_id ORDER BY sample_no) AS ts_before
    FROM series_samples
), per AS (
    SELECT p.series_id, count(*) AS points,
           bool_and(p.ts IS NOT NULL OR b.ts_text IS NOT NULL) AS has_time,  -- ts, or its text (time-only files)
           -- a DOUBLE (exact for any step): GX checks a nullable integer column 4x slower
           min(epoch_ms(p.ts) - epoch_ms(b.ts_before))::DOUBLE AS step_ms
    FROM series_points p
    LEFT JOIN before b ON b.source_id = p.source_id AND b.sample_no = p.sample_no
    GROUP BY p.series_id
)
SELECT per.series_id, s.series_id IS NOT NULL AS has_series, per.has_time, per.step_ms, per.points
FROM per LEFT JOIN series s USING (series_id)
"""


def expectations(E):
    return [
        E.ExpectColumnValuesToBeInSet(column="has_series", value_set=[True]),
        E.ExpectColumnValuesToBeInSet(column="has_time", value_set=[True]),
        E.ExpectColumnValuesToBeBetween(column="step_ms", min_value=1),
    ]
