-- Measurements: a system measured once is one measurement; measured again (a new firmware, another
-- day) it is another. Runs of two measurements are never averaged as repeats of one point: every
-- view that averages groups by the measurement, and the pages show each system's current one.
--
-- The rule, per study and system, file by file (a file is never split: a sweep that runs past
-- midnight is one measurement):
--   firmware   files whose sidecar says `firmware = "..."` are the measurement of that firmware
--              (measured_by 'firmware');
--   run date   files with no firmware label whose runs state a time (the start; else the end less the
--              run's runtime where it states one, as fio JSON does; else the end) form
--              sessions: a file whose first run starts more than 12 hours after the last run of
--              every earlier file of the system begins a new measurement, named by the day its first
--              run starts ('2023-03-25'; a second session begun the same day gets ' #2') (measured_by
--              'run date');
--   no time    files with neither belong to the system's only measurement where it has exactly one;
--              where it has none (no file states a time) they are one measurement 'no time', and where
--              it has several, 'no time' is a measurement of its own, in no order (measured_by 'no time').
-- Order (measurement_no, 1 = oldest): the study's declared `firmware_order = ["old", ..., "new"]`
-- first, in its order; the rest by their first run. A measurement with neither (a firmware not in
-- the order, runs with no time) is 'unordered': it has no measurement_no. Sidecars of one study that
-- declare different firmware_orders: none is used (the ingest refuses them, naming both: study_conflicts).
-- Current (is_current): the newest ordered measurement; a system whose only measurement is unordered
-- has that one. A system with several measurements and none ordered has no current measurement:
-- current_note says why, and the pages name it instead of picking one.
--
-- run_starts: each run's start, as its file states it or, where the file states none but an end and a
-- runtime (fio JSON: the report's timestamp and the job's runtime, metric runtime_s), the end less the
-- runtime (started_from says which; for a document of jobs run one after another the end is the
-- report's, so that start is the day's, not each job's to the second). The trends read it too.
CREATE OR REPLACE VIEW run_starts AS
WITH rt AS (  -- a run that states its end but not its start: its own runtime (one value per run)
    SELECT run_id, min(value) AS runtime_s FROM samples
    WHERE metric = 'runtime_s' AND scope = 'all' AND target IS NULL AND value IS NOT NULL
      AND run_id IN (SELECT run_id FROM runs WHERE started_at IS NULL AND ended_at IS NOT NULL)
    GROUP BY run_id HAVING min(value) = max(value)
)
SELECT r.run_id,
       coalesce(r.started_at,
                make_timestamp(epoch_us(r.ended_at) - CAST(round(rt.runtime_s * 1000000) AS BIGINT))) AS started_at,
       CASE WHEN r.started_at IS NOT NULL THEN 'stated' WHEN rt.runtime_s IS NOT NULL THEN 'end - runtime' END
           AS started_from
FROM runs r LEFT JOIN rt ON rt.run_id = r.run_id;

-- firmware_order: the study's declared firmware_order, each firmware's (first) position (none where
-- its sidecars declare different ones); file_measurements orders by it.
CREATE OR REPLACE VIEW firmware_order AS
WITH o AS (
    SELECT study, from_json((labels->'firmware_order'), '["VARCHAR"]') AS fw
    FROM source_files
    WHERE status = 'ok' AND study IS NOT NULL AND json_type((labels->'firmware_order')) = 'ARRAY'
)
SELECT study, firmware, min(array_position(fw, firmware)) AS position
FROM (SELECT study, fw, unnest(fw) AS firmware FROM o
      WHERE study NOT IN (SELECT study FROM o GROUP BY study HAVING count(DISTINCT CAST(fw AS VARCHAR)) > 1))
GROUP BY study, firmware;

-- file_measurements: one row per study, system and placed file (source_id is the place), with its
-- measurement and that measurement's order; system_measurements: one row per measurement.
CREATE OR REPLACE VIEW file_measurements AS
WITH sf AS (
    SELECT source_id, content_id, study, system, path, labels->>'firmware' AS firmware
    FROM source_files WHERE status = 'ok' AND study IS NOT NULL
), f AS (
    SELECT f.study, coalesce(r.system, f.system) AS system, f.source_id, min(f.path) AS source_path,
           min(f.firmware) AS firmware,
           min(coalesce(rs.started_at, r.ended_at)) AS first_run,
           max(coalesce(r.ended_at, r.started_at)) AS last_run
    FROM runs r JOIN sf f ON f.content_id = r.source_id JOIN run_starts rs ON rs.run_id = r.run_id
    WHERE coalesce(r.system, f.system) IS NOT NULL
    GROUP BY f.study, coalesce(r.system, f.system), f.source_id
), dated AS (
    SELECT *, max(last_run) OVER (PARTITION BY study, system ORDER BY first_run, source_path
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
    FROM f WHERE firmware IS NULL AND first_run IS NOT NULL
), sessions AS (
    SELECT *, sum(CASE WHEN earlier_end IS NULL OR first_run > earlier_end + INTERVAL 12 HOUR THEN 1 ELSE 0 END)
                  OVER (PARTITION BY study, system ORDER BY first_run, source_path ROWS UNBOUNDED PRECEDING) AS session
    FROM dated
), days AS (
    SELECT *, CAST(CAST(min(first_run) OVER (PARTITION BY study, system, session) AS DATE) AS VARCHAR) AS day
    FROM sessions
), named AS (
    SELECT study, system, source_id, first_run, last_run, 'run date' AS measured_by,
           day || CASE WHEN dense_rank() OVER (PARTITION BY study, system, day ORDER BY session) > 1
                       THEN ' #' || dense_rank() OVER (PARTITION BY study, system, day ORDER BY session) ELSE '' END
               AS measurement
    FROM days
    UNION ALL
    SELECT study, system, source_id, first_run, last_run, 'firmware', firmware
    FROM f WHERE firmware IS NOT NULL
), timed AS (
    SELECT study, system, count(DISTINCT measurement) AS n, min(measurement) AS only_one, min(measured_by) AS only_by
    FROM named GROUP BY study, system
), every AS (
    SELECT study, system, source_id, measurement, measured_by, first_run, last_run FROM named
    UNION ALL
    SELECT f.study, f.system, f.source_id, CASE WHEN t.n = 1 THEN t.only_one ELSE 'no time' END,
           CASE WHEN t.n = 1 THEN t.only_by ELSE 'no time' END, NULL, NULL
    FROM f LEFT JOIN timed t USING (study, system)
    WHERE f.firmware IS NULL AND f.first_run IS NULL
), m AS (  -- per measurement: its span, files and place in the declared order
    SELECT e.study, e.system, e.measurement, e.measured_by, min(e.first_run) AS m_first_run,
           max(e.last_run) AS m_last_run, count(DISTINCT e.source_id) AS files, min(o.position) AS position
    FROM every e LEFT JOIN firmware_order o
                 ON o.study = e.study AND o.firmware = e.measurement AND e.measured_by = 'firmware'
    GROUP BY e.study, e.system, e.measurement, e.measured_by
), o AS (
    SELECT *,
           CASE WHEN position IS NOT NULL THEN 'firmware_order'
                WHEN m_first_run IS NOT NULL THEN 'first run start'
                ELSE 'unordered' END AS ordered_by,
           count(*) OVER (PARTITION BY study, system) AS measurements
    FROM m
), n AS (
    SELECT *,
           CASE WHEN ordered_by <> 'unordered' THEN
                row_number() OVER (PARTITION BY study, system, ordered_by = 'unordered'
                                   ORDER BY position NULLS LAST, m_first_run, measurement) END AS measurement_no
    FROM o
), c AS (
    SELECT *,
           coalesce(measurement_no = max(measurement_no) OVER (PARTITION BY study, system), measurements = 1)
               AS is_current,
           CASE WHEN max(measurement_no) OVER (PARTITION BY study, system) IS NULL AND measurements > 1
                THEN measurements || ' measurements and none in order: declare firmware_order in the study''s iolab.toml'
           END AS current_note
    FROM n
)
SELECT e.study, e.system, e.source_id, e.measurement, e.measured_by, e.first_run, e.last_run,
       c.m_first_run, c.m_last_run, c.files, c.ordered_by, c.measurement_no, c.measurements, c.is_current,
       c.current_note
FROM every e JOIN c USING (study, system, measurement, measured_by);

-- One row per study, system and measurement: its files, time span, order and whether it is current.
CREATE OR REPLACE VIEW system_measurements AS
SELECT DISTINCT study, system, measurement, measured_by, m_first_run AS first_run, m_last_run AS last_run, files,
       ordered_by, measurement_no, measurements, is_current, current_note
FROM file_measurements;
