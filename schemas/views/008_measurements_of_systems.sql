-- Measurements: a system measured once is one measurement; measured again (a new firmware, another
-- day) it is another. Runs of two measurements are never averaged as repeats of one point: every
-- view that averages groups by the measurement, and every view and page but the trends and the
-- comparison's list of measurement pairs reads each system's current one only, through one base
-- (current_measurements, current_runs, current_files: 012_study_runs.sql).
--
-- The rule, per study and system, file by file (a file is never split: a sweep that runs past
-- midnight is one measurement):
--   label      files whose sidecar says `measurement = "..."` are that measurement (measured_by 'label'):
--              the user's word, over every rule below;
--   firmware   files whose sidecar says `firmware = "..."` are the measurement of that firmware
--              (measured_by 'firmware');
--   run date   files with neither label whose runs state a time (the start; else the end less the
--              run's runtime where it states one, as fio JSON does; else the end) form sessions: a
--              file whose first run starts more than 12 hours after the last run of every earlier
--              file of the system begins a new session (view file_sessions). A session begins a new
--              measurement only when it measures again a point an earlier session of the system
--              measured (the same tool, configuration, workload and load) AND measures some point of
--              its own more than once (repeats of its own); else it is part of the measurement before:
--                * one run per point: one more repeat of that measurement (an overnight campaign whose
--                  repeats ran 9 h, then 14 h apart is one measurement of three repeats);
--                * nothing measured again: a capture (esxtop, perfmon: a time series, no number of
--                  its own), a Jetstress report or another tool's runs taken on another day are part
--                  of the system's study measurement.
--              A measurement is named by the day its first run starts ('2023-03-25'; a second one
--              begun the same day gets ' #2') (measured_by 'run date'). measurement_splits lists every
--              session begun more than 12 hours after the others, and what the rule made of it;
--              the ingest and the pages say it.
--   no time    files with none of these belong to the system's only measurement where it has exactly
--              one; where it has none (no file states a time) they are one measurement 'no time', and
--              where it has several, 'no time' is a measurement of its own, in no order (measured_by
--              'no time').
-- Order (measurement_no, 1 = oldest): the study's declared `firmware_order = ["old", ..., "new"]`
-- first, in its order (it lists firmware labels and measurement labels alike); the rest by their
-- first run. A measurement with neither (a label not in the order, runs with no time) is
-- 'unordered': it has no measurement_no. Sidecars of one study that declare different
-- firmware_orders: none is used (the ingest refuses them, naming both: study_conflicts).
-- Current (is_current): the newest ordered measurement of those with numbers (runs_with_numbers: a
-- run with a number of its own, in samples or the ORION latency matrix); a measurement with none (a
-- capture, a histogram log) is current only where no measurement of the system has numbers. A
-- system whose only such measurement is unordered has that one. A system with several and none
-- ordered has no current measurement: current_note says why, and the pages name it instead of picking one.
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


-- file_sessions: one row per study, system and placed file (source_id is the place): its labels
-- (measurement label, firmware), its runs' span, its runs and, for a file with neither label whose runs
-- state a time, its session and what that session is under the rule above: gap_hours (how long after
-- the last run of every earlier file of the system it starts; NULL for the first session), again (it
-- measures again a point an earlier session measured: the same tool, configuration, RAID level, drives,
-- workload, block size, mix and load), repeats (it measures a point of its own more than once), begins
-- (it begins a measurement: the first session, or again and repeats) and dated_no (the dated
-- measurement it is part of, 1 = the first). runs_with_numbers: its runs with a number of their own
-- (in samples or the ORION latency matrix: a capture's values are a time series, a histogram log's
-- bins), counted where the rule weighs them, for a system of more than one label or session (NULL
-- elsewhere: nothing turns on it there, and a lab's samples are not read for it).
CREATE OR REPLACE VIEW file_sessions AS
WITH sf AS (
    SELECT source_id, content_id, study, system, config_label, path, labels->>'firmware' AS firmware,
           labels->>'measurement' AS label
    FROM source_files WHERE status = 'ok' AND study IS NOT NULL
), rp AS (  -- each run of each place, under its system, and the point it measures
    SELECT f.study, coalesce(r.system, f.system) AS system, f.source_id, f.path, f.firmware, f.label, r.run_id,
           coalesce(rs.started_at, r.ended_at) AS run_start, coalesce(r.ended_at, r.started_at) AS run_end,
           concat_ws('|', r.tool, coalesce(r.config_label, f.config_label, ''), coalesce(r.raid_level, ''),
                     coalesce(CAST(r.drives AS VARCHAR), ''),
                     coalesce(workload_key(r.read_pct, r.random_pct, r.workload), ''),
                     coalesce(CAST(r.block_size_bytes AS VARCHAR), ''), coalesce(CAST(r.read_pct AS VARCHAR), ''),
                     coalesce(CAST(r.random_pct AS VARCHAR), ''), coalesce(CAST(r.outstanding_ios AS VARCHAR), ''),
                     coalesce(CAST(r.queue_depth AS VARCHAR), ''), coalesce(CAST(r.workers AS VARCHAR), '')) AS point
    FROM runs r JOIN sf f ON f.content_id = r.source_id JOIN run_starts rs ON rs.run_id = r.run_id
    WHERE coalesce(r.system, f.system) IS NOT NULL
), f AS (
    SELECT study, system, source_id, min(path) AS source_path, min(firmware) AS firmware, min(label) AS label,
           min(run_start) AS first_run, max(run_end) AS last_run, count(*) AS runs
    FROM rp GROUP BY study, system, source_id
), dated AS (
    SELECT study, system, source_id, source_path, first_run, last_run,
           max(last_run) OVER (PARTITION BY study, system ORDER BY first_run, source_path
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
    FROM f WHERE firmware IS NULL AND label IS NULL AND first_run IS NOT NULL
), s AS (
    SELECT *,
           sum(CASE WHEN earlier_end IS NULL OR first_run > earlier_end + INTERVAL 12 HOUR THEN 1 ELSE 0 END)
               OVER (PARTITION BY study, system ORDER BY first_run, source_path ROWS UNBOUNDED PRECEDING) AS session,
           CASE WHEN first_run > earlier_end + INTERVAL 12 HOUR
                THEN (epoch_us(first_run) - epoch_us(earlier_end)) / 3600000000.0 END AS gap_hours
    FROM dated
), fs AS (  -- each file with its session, and whether its system is in more than one part (label, session, no time)
    SELECT *, min(part) OVER w <> max(part) OVER w AS weighed
    FROM (SELECT f.*, s.session, s.gap_hours,
                 coalesce('label ' || f.label, 'firmware ' || f.firmware, 'session ' || CAST(s.session AS VARCHAR),
                          'no time') AS part
          FROM f LEFT JOIN s ON s.study = f.study AND s.system = f.system AND s.source_id = f.source_id)
    WINDOW w AS (PARTITION BY study, system)
), nr AS (  -- the runs of those systems with a number of their own (elsewhere nothing turns on it)
    SELECT p.study, p.system, p.source_id, p.run_id, p.point
    FROM rp p
    JOIN fs ON fs.study = p.study AND fs.system = p.system AND fs.source_id = p.source_id AND fs.weighed
    WHERE p.run_id IN (SELECT run_id FROM samples UNION ALL SELECT run_id FROM orion_latency_points
                       WHERE latency_ms IS NOT NULL)
), numbers AS (
    SELECT study, system, source_id, count(*) AS runs_with_numbers FROM nr GROUP BY study, system, source_id
), points AS (  -- each session's points: how many of its runs measure each, and the first session that measured it
    SELECT fs.study, fs.system, fs.session, p.point, count(*) AS runs,
           min(fs.session) OVER (PARTITION BY fs.study, fs.system, p.point) AS first_session
    FROM fs JOIN nr p ON p.study = fs.study AND p.system = fs.system AND p.source_id = fs.source_id
    WHERE fs.session IS NOT NULL
    GROUP BY fs.study, fs.system, fs.session, p.point
), judged AS (
    SELECT study, system, session, max(CASE WHEN first_session < session THEN 1 ELSE 0 END) = 1 AS again,
           max(CASE WHEN runs > 1 THEN 1 ELSE 0 END) = 1 AS repeats
    FROM points GROUP BY study, system, session
), sessions AS (
    SELECT s.study, s.system, s.session, max(s.gap_hours) AS gap_hours,
           coalesce(max(j.again), false) AS again, coalesce(max(j.repeats), false) AS repeats
    FROM s LEFT JOIN judged j ON j.study = s.study AND j.system = s.system AND j.session = s.session
    GROUP BY s.study, s.system, s.session
), b AS (
    SELECT *, session = 1 OR (again AND repeats) AS begins,
           sum(CASE WHEN session = 1 OR (again AND repeats) THEN 1 ELSE 0 END)
               OVER (PARTITION BY study, system ORDER BY session ROWS UNBOUNDED PRECEDING) AS dated_no
    FROM sessions
)
SELECT fs.study, fs.system, fs.source_id, fs.source_path, fs.label, fs.firmware, fs.first_run, fs.last_run, fs.runs,
       CASE WHEN fs.weighed THEN coalesce(n.runs_with_numbers, 0) END AS runs_with_numbers, fs.session,
       b.gap_hours, b.again, b.repeats, b.begins, b.dated_no
FROM fs
LEFT JOIN numbers n ON n.study = fs.study AND n.system = fs.system AND n.source_id = fs.source_id
LEFT JOIN b ON b.study = fs.study AND b.system = fs.system AND b.session = fs.session;

-- file_measurements: one row per study, system and placed file (source_id is the place), with its
-- measurement and that measurement's order; system_measurements: one row per measurement.
CREATE OR REPLACE VIEW file_measurements AS
WITH fs AS MATERIALIZED (  -- read once: the branches below each take their part
    SELECT * FROM file_sessions
), days AS (  -- a dated measurement is named by the day its first run starts
    SELECT *, CAST(CAST(min(first_run) OVER (PARTITION BY study, system, dated_no) AS DATE) AS VARCHAR) AS day
    FROM fs WHERE dated_no IS NOT NULL
), named AS (
    SELECT study, system, source_id, first_run, last_run, runs, runs_with_numbers, 'run date' AS measured_by,
           day || CASE WHEN dense_rank() OVER (PARTITION BY study, system, day ORDER BY dated_no) > 1
                       THEN ' #' || dense_rank() OVER (PARTITION BY study, system, day ORDER BY dated_no) ELSE '' END
               AS measurement
    FROM days
    UNION ALL
    -- a name given by a measurement label or a firmware label: one measurement of that name (the label's
    -- where any file of it has one)
    SELECT study, system, source_id, first_run, last_run, runs, runs_with_numbers,
           CASE WHEN max(CASE WHEN label IS NOT NULL THEN 1 ELSE 0 END)
                         OVER (PARTITION BY study, system, coalesce(label, firmware)) = 1
                THEN 'label' ELSE 'firmware' END,
           coalesce(label, firmware)
    FROM fs WHERE label IS NOT NULL OR firmware IS NOT NULL
), timed AS (
    SELECT study, system, count(DISTINCT measurement) AS n, min(measurement) AS only_one, min(measured_by) AS only_by
    FROM named GROUP BY study, system
), every AS (
    SELECT study, system, source_id, measurement, measured_by, first_run, last_run, runs, runs_with_numbers FROM named
    UNION ALL
    SELECT f.study, f.system, f.source_id, CASE WHEN t.n = 1 THEN t.only_one ELSE 'no time' END,
           CASE WHEN t.n = 1 THEN t.only_by ELSE 'no time' END, NULL, NULL, f.runs, f.runs_with_numbers
    FROM fs f LEFT JOIN timed t ON t.study = f.study AND t.system = f.system
    WHERE f.label IS NULL AND f.firmware IS NULL AND f.first_run IS NULL
), m AS (  -- per measurement: its span, files, runs with numbers and place in the declared order
    SELECT e.study, e.system, e.measurement, e.measured_by, min(e.first_run) AS m_first_run,
           max(e.last_run) AS m_last_run, count(DISTINCT e.source_id) AS files, sum(e.runs) AS runs,
           sum(e.runs_with_numbers) AS runs_with_numbers, min(o.position) AS position
    FROM every e LEFT JOIN firmware_order o
                 ON o.study = e.study AND o.firmware = e.measurement AND e.measured_by IN ('firmware', 'label')
    GROUP BY e.study, e.system, e.measurement, e.measured_by
), o AS (
    SELECT *,
           CASE WHEN position IS NOT NULL THEN 'firmware_order'
                WHEN m_first_run IS NOT NULL THEN 'first run start'
                ELSE 'unordered' END AS ordered_by,
           count(*) OVER (PARTITION BY study, system) AS measurements,
           -- a measurement with no number of its own is current only where none of the system has one
           coalesce(runs_with_numbers > 0 OR max(runs_with_numbers) OVER (PARTITION BY study, system) = 0, true)
               AS candidate
    FROM m
), n AS (
    SELECT *,
           CASE WHEN ordered_by <> 'unordered' THEN
                row_number() OVER (PARTITION BY study, system, ordered_by = 'unordered'
                                   ORDER BY position NULLS LAST, m_first_run, measurement) END AS measurement_no
    FROM o
), k AS (
    SELECT *,
           max(CASE WHEN candidate THEN measurement_no END) OVER (PARTITION BY study, system) AS newest,
           sum(CASE WHEN candidate THEN 1 ELSE 0 END) OVER (PARTITION BY study, system) AS candidates
    FROM n
), c AS (
    SELECT *,
           candidate AND coalesce(measurement_no = newest, newest IS NULL AND candidates = 1) AS is_current,
           CASE WHEN NOT candidate
                THEN 'no run of it has a number of its own (a capture, a histogram log): the current measurement '
                     || 'is one with numbers'
                WHEN newest IS NULL AND candidates > 1
                THEN candidates || ' measurements and none in order: declare firmware_order in the study''s iolab.toml'
           END AS current_note
    FROM k
)
SELECT e.study, e.system, e.source_id, e.measurement, e.measured_by, e.first_run, e.last_run,
       c.m_first_run, c.m_last_run, c.files, c.runs, c.runs_with_numbers, c.ordered_by, c.measurement_no, c.measurements,
       c.is_current, c.current_note
FROM every e JOIN c USING (study, system, measurement, measured_by);

-- One row per study, system and measurement: its files, runs (runs_with_numbers: of those with a number of
-- their own, where the rule weighs them: file_sessions), time span, order and whether it is current.
CREATE OR REPLACE VIEW system_measurements AS
SELECT DISTINCT study, system, measurement, measured_by, m_first_run AS first_run, m_last_run AS last_run, files,
       runs, runs_with_numbers, ordered_by, measurement_no, measurements, is_current, current_note
FROM file_measurements;

-- Every session of a system's dated files begun more than 12 hours after the last run of every earlier
-- file (file_sessions), and what the rule made of it (decision): 'new measurement' (it measures again
-- points measured before, and repeats some of its own), 'one more repeat' (it measures them again, each
-- once: part of the measurement before, as another repeat), 'nothing measured again' (no point measured
-- before: a capture, another tool, other workloads; part of the measurement before). measurement_before
-- and measurement_after: the measurement of the session before it and its own; files_before and
-- files_after: the paths of the files of each session, in order. The ingest says each of them, and so
-- does every page that shows the system's measurements.
CREATE OR REPLACE VIEW measurement_splits AS
WITH per AS (
    SELECT s.study, s.system, s.session, min(fm.measurement) AS measurement, max(s.gap_hours) AS gap_hours,
           max(CASE WHEN s.begins THEN 1 ELSE 0 END) = 1 AS begins,
           max(CASE WHEN s.again THEN 1 ELSE 0 END) = 1 AS again,
           list(s.source_path ORDER BY s.source_path) AS files
    FROM file_sessions s
    JOIN file_measurements fm ON fm.study = s.study AND fm.system = s.system AND fm.source_id = s.source_id
    WHERE s.session IS NOT NULL
    GROUP BY s.study, s.system, s.session
)
SELECT a.study, a.system, b.measurement AS measurement_before, a.measurement AS measurement_after, a.gap_hours,
       CASE WHEN a.begins THEN 'new measurement' WHEN a.again THEN 'one more repeat'
            ELSE 'nothing measured again' END AS decision,
       b.files AS files_before, a.files AS files_after
FROM per a JOIN per b ON b.study = a.study AND b.system = a.system AND b.session = a.session - 1;
