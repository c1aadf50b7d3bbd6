-- The metrics a study is compared on by default (`iolab compare` without --metric, `--against previous`,
-- the comparison and trends pages): the vocabulary's headline metrics (metric_vocabulary.headline: a
-- run's throughput and its average latency) that the study's runs state, the whole run's where they
-- state one, else the per-direction ones: fio states its latency per direction only, so a fio study is
-- compared on avg_read_latency_ms and avg_write_latency_ms, an Iometer study on avg_latency_ms.
-- metric_no: their order in the study, throughputs first (IO/s, then MB/s), then latencies (all I/O,
-- then read, then write).
CREATE OR REPLACE VIEW headline_metrics AS
WITH present AS (
    SELECT DISTINCT m.study, m.metric, v.role, v.unit, v.io_direction
    FROM measurements m JOIN metric_vocabulary v ON v.metric = m.metric
    WHERE v.headline AND m.target IS NULL AND m.value IS NOT NULL AND m.study IS NOT NULL AND m.system IS NOT NULL
), k AS (
    SELECT *, bool_or(io_direction IS NULL) OVER (PARTITION BY study, role, unit) AS whole_stated FROM present
)
SELECT study, metric, role, unit, io_direction,
       row_number() OVER (PARTITION BY study ORDER BY role <> 'throughput', role, unit, io_direction NULLS FIRST, metric)
           AS metric_no
FROM k
WHERE io_direction IS NULL OR NOT whole_stated;
