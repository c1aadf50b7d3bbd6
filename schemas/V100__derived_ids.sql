-- Ids derived from content, not from ingest order (issue 52; ingest/store/ids.py says how each is
-- made and why collisions are acceptable). Every id a database made before holds is renumbered:
--   content ids: the first 62 bits of the content's SHA-256 (source_history.content_id, and source_id
--     of runs, series, point_files and every tool table);
--   run ids: the content id + the run's place in its file (the order the old ids kept);
--   series ids: the content id + column_no;
--   place ids (source_history.source_id, sidecar_targets, left_for): 63 bits of SHA-256 over the
--     place's absolute path and sha256; a row of history (a place that left) gets a history id.
-- Parsed rows no place in the analysis reads (an ingest cut short before its purge) are deleted
-- first, and purged_at now marks every place of a purged content. The time-series files are
-- renamed and their points given column_no at the next writable open (db.upgrade_store), which
-- point_files.series_base, the old numbering's first series id of each file, is kept for.

CREATE TEMP MACRO iolab_content_id(sha) AS (('0x' || substr(sha, 1, 16))::UBIGINT >> 2)::BIGINT;
CREATE TEMP MACRO iolab_hash63(x) AS (('0x' || substr(sha256(x), 1, 16))::UBIGINT >> 1)::BIGINT;

-- 1. parsed rows no place in the analysis reads, and a second stored copy of the same bytes (an
--    ingest cut short can leave both), are deleted; the places of such a copy read the first one
CREATE TEMP TABLE iolab_v100_owners AS
SELECT source_id AS old, sha256,
       EXISTS (SELECT 1 FROM source_history a WHERE a.content_id = h.source_id AND a.left_at IS NULL AND a.status = 'ok') AS used
FROM source_history h
WHERE content_id = source_id AND status = 'ok' AND purged_at IS NULL;
CREATE TEMP TABLE iolab_v100_keep AS SELECT sha256, min(old) AS keep FROM iolab_v100_owners WHERE used GROUP BY sha256;
CREATE TEMP TABLE iolab_v100_drop AS
SELECT old, used FROM iolab_v100_owners WHERE old NOT IN (SELECT keep FROM iolab_v100_keep);
UPDATE source_history h SET content_id = k.keep
FROM iolab_v100_drop d JOIN iolab_v100_owners o USING (old) JOIN iolab_v100_keep k USING (sha256)
WHERE d.used AND h.content_id = d.old;
DELETE FROM samples WHERE run_id IN (SELECT run_id FROM runs WHERE source_id IN (SELECT old FROM iolab_v100_drop));
DELETE FROM runs WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM array_perf_captures WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM array_perf_values WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM diskspd_cpu WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM diskspd_latency_percentiles WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM diskspd_params WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM diskspd_threads WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM elbencho_values WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM fio_disk_util WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM fio_hist_log WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM fio_job_values WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM fio_jobs WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM fio_latency_bins WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM fio_messages WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM fio_options WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM fio_percentiles WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM iometer_access_specs WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM iometer_latency_bins WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM iometer_results WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM iometer_sessions WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM iozone_values WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_config WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_grids WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_log WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_log_events WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_log_tests WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_log_values WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_tests WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_thresholds WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM jetstress_values WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM orion_console_runs WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM orion_headlines WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM orion_histograms WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM orion_latency_details WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM orion_luns WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM orion_matrix WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM orion_tests WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM pdh_captures WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM pdh_skipped_columns WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM point_files WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM profile_arrays WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM profile_drives WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM profile_group_drives WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM profile_groups WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM profile_mappings WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM profile_values WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM profile_volumes WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM published_results WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM qos_criteria WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM series WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM series_samples WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM vdbench_values WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM vscsi_buckets WHERE source_id IN (SELECT old FROM iolab_v100_drop);
DELETE FROM vscsi_histograms WHERE source_id IN (SELECT old FROM iolab_v100_drop);
UPDATE source_history SET purged_at = timezone('UTC', now())
WHERE content_id IN (SELECT old FROM iolab_v100_drop WHERE NOT used) AND status = 'ok' AND purged_at IS NULL;
-- purged_at on every place of a purged content, not on its first place only
UPDATE source_history h SET purged_at = o.purged_at
FROM source_history o
WHERE h.content_id = o.source_id AND o.purged_at IS NOT NULL AND h.purged_at IS NULL AND h.status = 'ok';

-- 2. the old id of each content (and of a rejected place, its own) -> its new id
CREATE TEMP TABLE iolab_v100_content AS
SELECT content_id AS old, iolab_content_id(min(sha256)) AS new FROM source_history WHERE content_id IS NOT NULL GROUP BY 1;

-- 3. runs, their samples, series and the store's files
CREATE TEMP TABLE iolab_v100_runs AS
SELECT r.run_id AS old, c.new + row_number() OVER (PARTITION BY r.source_id ORDER BY r.run_id) - 1 AS new
FROM runs r JOIN iolab_v100_content c ON c.old = r.source_id;
UPDATE samples s SET run_id = m.new FROM iolab_v100_runs m WHERE s.run_id = m.old;
UPDATE runs r SET run_id = m.new FROM iolab_v100_runs m WHERE r.run_id = m.old;
ALTER TABLE point_files ADD COLUMN series_base BIGINT;
UPDATE point_files p SET series_base = coalesce((SELECT min(s.series_id - s.column_no) FROM series s WHERE s.source_id = p.source_id), 0);
UPDATE series s SET series_id = c.new + s.column_no FROM iolab_v100_content c WHERE s.source_id = c.old;
UPDATE runs t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE array_perf_captures t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE array_perf_values t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE diskspd_cpu t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE diskspd_latency_percentiles t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE diskspd_params t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE diskspd_threads t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE elbencho_values t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE fio_disk_util t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE fio_hist_log t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE fio_job_values t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE fio_jobs t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE fio_latency_bins t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE fio_messages t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE fio_options t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE fio_percentiles t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE iometer_access_specs t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE iometer_latency_bins t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE iometer_results t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE iometer_sessions t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE iozone_values t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_config t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_grids t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_log t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_log_events t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_log_tests t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_log_values t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_tests t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_thresholds t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE jetstress_values t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE orion_console_runs t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE orion_headlines t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE orion_histograms t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE orion_latency_details t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE orion_luns t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE orion_matrix t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE orion_tests t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE pdh_captures t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE pdh_skipped_columns t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE point_files t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE profile_arrays t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE profile_drives t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE profile_group_drives t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE profile_groups t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE profile_mappings t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE profile_values t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE profile_volumes t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE published_results t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE qos_criteria t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE series t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE series_samples t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE vdbench_values t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE vscsi_buckets t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;
UPDATE vscsi_histograms t SET source_id = c.new FROM iolab_v100_content c WHERE t.source_id = c.old;

-- 4. places: an id from where each is and what it holds. The newest row of a place and its bytes
--    (in the analysis, or the last to leave) has it; the older rows of the same place and bytes
--    (left, and the place came back) have history ids 1, 2, ... in the order they came
CREATE TEMP TABLE iolab_v100_places AS
SELECT source_id AS old,
       CASE WHEN latest = 1 THEN iolab_hash63('place' || chr(31) || place || chr(31) || sha256)
            ELSE iolab_hash63('left' || chr(31) || place || chr(31) || sha256 || chr(31) || (n_rows - latest + 1)::VARCHAR)
       END AS new
FROM (SELECT source_id, sha256, coalesce(abs_path, path) AS place,
             row_number() OVER (PARTITION BY coalesce(abs_path, path), sha256 ORDER BY source_id DESC) AS latest,
             count(*) OVER (PARTITION BY coalesce(abs_path, path), sha256) AS n_rows
      FROM source_history);
UPDATE source_history h SET content_id = c.new FROM iolab_v100_content c WHERE h.content_id = c.old;
UPDATE source_history h SET left_for = m.new FROM iolab_v100_places m WHERE h.left_for = m.old;
UPDATE sidecar_targets t SET source_id = m.new FROM iolab_v100_places m WHERE t.source_id = m.old;
UPDATE source_history h SET source_id = m.new FROM iolab_v100_places m WHERE h.source_id = m.old;

DROP TABLE iolab_v100_places;
DROP TABLE iolab_v100_runs;
DROP TABLE iolab_v100_content;
DROP TABLE iolab_v100_drop;
DROP TABLE iolab_v100_keep;
DROP TABLE iolab_v100_owners;
DROP MACRO iolab_hash63;
DROP MACRO iolab_content_id;

COMMENT ON COLUMN source_history.source_id IS 'The place''s id: 63 bits of SHA-256 over its absolute path and sha256 (ingest/store/ids.py); a place that left and whose id is needed again holds a history id.';
COMMENT ON COLUMN source_history.content_id IS 'The id this content''s parsed rows are stored under (source_id of runs, series and the tool tables): the first 62 bits of its sha256.';
COMMENT ON COLUMN source_history.purged_at IS 'When the parsed rows of this content were deleted, no place in the analysis reading them any more (set on every place of the content).';
COMMENT ON COLUMN runs.run_id IS 'The run''s id: its file''s content id + the run''s place in the file (from 0).';
COMMENT ON COLUMN runs.source_id IS 'The content the run was read from (source_files.content_id).';
COMMENT ON COLUMN series.series_id IS 'The series'' id: its file''s content id + column_no.';
COMMENT ON COLUMN series.source_id IS 'The content the series was read from (source_files.content_id).';
COMMENT ON COLUMN point_files.source_id IS 'The content the points came from (source_files.content_id); the file is <source_id>.parquet.';
COMMENT ON COLUMN point_files.series_base IS 'A file written before V100: the first series id of its old numbering, until the file is rewritten with each point''s column_no (NULL then).';
