-- Time series whose unit the file itself does not state, with the unit resolved where a companion
-- file settles it and, where nothing does, what it waits for. Every such series is listed: its
-- numbers stay visible (as written, unit NULL in series) and are never dropped.
--
-- fio latency logs (_lat/_clat/_slat.N.log) hold bare numbers: fio 3.0 and later log latency in
-- ns, earlier releases in usec (fio commit d6bb626e "nanosecond: update completion latency
-- recording", June 2017, after fio-2.20). A fio JSON or terse result in the same folder states
-- the fio version that ran: 3.x -> ns, up to 2.20 -> us; 2.21 to 2.99, no companion, or companions
-- of both kinds leave the unit unresolved, and `waiting_for` says why; `to_ms` converts the stored
-- value to milliseconds where the unit is settled.
CREATE OR REPLACE VIEW series_unit_resolution AS
WITH unitless AS (
    SELECT s.series_id, f.source_id, f.path, s.metric, s.counter,
           regexp_replace(f.path, '[^/\\]*$', '') AS folder
    FROM series s
    JOIN source_files f ON f.content_id = s.source_id AND f.status = 'ok'  -- every place of the content
    WHERE s.unit IS NULL AND f.format = 'fio-log'
),
companions AS (
    SELECT regexp_replace(path, '[^/\\]*$', '') AS folder, path, tool_version,
           TRY_CAST(regexp_extract(tool_version, '(\d+)\.(\d+)', 1) AS INTEGER) AS major,
           TRY_CAST(regexp_extract(tool_version, '(\d+)\.(\d+)', 2) AS INTEGER) AS minor
    FROM source_files
    WHERE status = 'ok' AND format IN ('fio-json', 'fio-terse') AND tool_version IS NOT NULL
),
verdicts AS (
    SELECT folder, path, tool_version,
           CASE WHEN major >= 3 THEN 'ns' WHEN major < 2 OR (major = 2 AND minor <= 20) THEN 'us' END AS unit
    FROM companions
),
per_folder AS (
    SELECT folder, count(DISTINCT unit) AS units, count(*) FILTER (unit IS NULL) AS unsure,
           max(unit) AS unit,  -- the one unit when units = 1
           string_agg(tool_version || ' (' || path || ')', '; ' ORDER BY path) AS evidence
    FROM verdicts GROUP BY folder
)
SELECT u.series_id, u.source_id, u.path, u.metric, u.counter,
       CASE WHEN p.units = 1 AND p.unsure = 0 THEN p.unit END AS unit,
       CASE WHEN p.units = 1 AND p.unsure = 0 THEN CASE p.unit WHEN 'ns' THEN 1e-6 ELSE 1e-3 END END AS to_ms,
       p.evidence AS resolved_by,
       CASE
           WHEN p.folder IS NULL THEN 'the fio version that wrote it: no fio JSON or terse result in its folder '
               || 'states one (fio 3.x logs latency in ns, fio 2.x in usec)'
           WHEN p.units > 1 THEN 'one fio version: the fio results in its folder come from fio releases that '
               || 'log latency in different units (' || p.evidence || ')'
           WHEN p.unsure > 0 THEN 'a fio version outside 2.21-2.99, the releases around the switch from usec to '
               || 'ns (' || p.evidence || ')'
       END AS waiting_for
FROM unitless u
LEFT JOIN per_folder p USING (folder);

-- The unresolved series in milliseconds where the unit is settled, beside the numbers as written.
CREATE OR REPLACE VIEW series_summary_resolved AS
WITH v AS (
    SELECT series_id, count(value) AS samples, avg(value) AS avg, quantile_cont(value, 0.95) AS p95,
           max(value) AS max, min(value) AS min
    FROM series_values GROUP BY series_id
)
SELECT r.series_id, r.source_id, r.path, r.metric, r.unit AS stored_unit, r.resolved_by, r.waiting_for,
       v.samples, v.avg * r.to_ms AS avg_ms, v.p95 * r.to_ms AS p95_ms, v.max * r.to_ms AS max_ms,
       v.min * r.to_ms AS min_ms, v.avg AS avg_as_written, v.max AS max_as_written
FROM series_unit_resolution r
JOIN v USING (series_id);
