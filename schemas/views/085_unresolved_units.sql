-- Time series whose unit the file itself does not state, with the unit resolved where a companion
-- file settles it and, where nothing does, what it waits for. Every such series is listed: its
-- numbers stay visible (as written, unit NULL in series) and are never dropped.
--
-- What settles a unit is data (series_unit_rules, from the format modules' UNIT_RULES): a result
-- file of a companion format in the same folder states the tool version that ran, and a version
-- range gives the unit. No companion, a version in no range, or companions that disagree leave the
-- unit unresolved, and `waiting_for` says why; `to_ms` converts the stored value to milliseconds
-- where the unit is settled.
CREATE OR REPLACE VIEW series_unit_resolution AS
WITH unitless AS (
    SELECT s.series_id, f.source_id, f.path, s.metric, s.counter, f.format,
           regexp_replace(f.path, '[^/\\]*$', '') AS folder
    FROM series s
    JOIN source_files f ON f.content_id = s.source_id AND f.status = 'ok'  -- every place of the content
    WHERE s.unit IS NULL AND f.format IN (SELECT series_format FROM series_unit_rules)
),
companions AS (
    SELECT regexp_replace(path, '[^/\\]*$', '') AS folder, path, format, tool_version,
           TRY_CAST(regexp_extract(tool_version, '(\d+)\.(\d+)', 1) AS INTEGER) AS major,
           TRY_CAST(regexp_extract(tool_version, '(\d+)\.(\d+)', 2) AS INTEGER) AS minor
    FROM source_files
    WHERE status = 'ok' AND tool_version IS NOT NULL
      AND format IN (SELECT companion_format FROM series_unit_rules)
),
verdicts AS (  -- each companion, for each format it can settle: its unit, or NULL (a version in no range)
    SELECT c.folder, c.path, c.tool_version, f.series_format, r.unit, r.to_ms
    FROM companions c
    JOIN (SELECT DISTINCT series_format, companion_format FROM series_unit_rules) f ON f.companion_format = c.format
    LEFT JOIN series_unit_rules r
           ON r.series_format = f.series_format AND r.companion_format = c.format
          AND (c.major, c.minor) >= (r.first_major, r.first_minor) AND (c.major, c.minor) <= (r.last_major, r.last_minor)
),
per_folder AS (
    SELECT folder, series_format, count(DISTINCT unit) AS units, count(*) FILTER (unit IS NULL) AS unsure,
           max(unit) AS unit, max(to_ms) AS to_ms,  -- the one unit when units = 1
           string_agg(tool_version || ' (' || path || ')', '; ' ORDER BY path) AS evidence
    FROM verdicts GROUP BY folder, series_format
),
notes AS (SELECT series_format, max(note) AS note FROM series_unit_rules GROUP BY series_format)
SELECT u.series_id, u.source_id, u.path, u.metric, u.counter,
       CASE WHEN p.units = 1 AND p.unsure = 0 THEN p.unit END AS unit,
       CASE WHEN p.units = 1 AND p.unsure = 0 THEN p.to_ms END AS to_ms,
       p.evidence AS resolved_by,
       CASE
           WHEN p.folder IS NULL THEN 'the version of the tool that wrote it: no result file in its folder '
               || 'states one (' || n.note || ')'
           WHEN p.units > 1 THEN 'one tool version: the result files in its folder come from releases that '
               || 'write different units (' || p.evidence || ')'
           WHEN p.unsure > 0 THEN 'a tool version whose unit is known (' || n.note || '); its folder has '
               || p.evidence
       END AS waiting_for
FROM unitless u
LEFT JOIN per_folder p ON p.folder = u.folder AND p.series_format = u.format
LEFT JOIN notes n ON n.series_format = u.format;

-- The unresolved series in milliseconds where the unit is settled, beside the numbers as written:
-- series_summary's numbers (the one pass over the points), for the series that have any.
CREATE OR REPLACE VIEW series_summary_resolved AS
WITH v AS (  -- series_summary has a row per place of the file: the same numbers
    SELECT DISTINCT series_id, samples, avg, p95, max, min FROM series_summary WHERE samples > 0
)
SELECT r.series_id, r.source_id, r.path, r.metric, r.unit AS stored_unit, r.resolved_by, r.waiting_for,
       v.samples, v.avg * r.to_ms AS avg_ms, v.p95 * r.to_ms AS p95_ms, v.max * r.to_ms AS max_ms,
       v.min * r.to_ms AS min_ms, v.avg AS avg_as_written, v.max AS max_as_written
FROM series_unit_resolution r
JOIN v USING (series_id);
