-- New vs old system at matched points, with an explicit, recorded correction factor.
--
-- Which generation is older is declared, not guessed: the study's sidecar lists
-- generation_order = ["old", ..., "new"]; every later generation is compared with every earlier one.
-- Sidecars of one study with different orders: none is used (study_conflicts, 025_declared.sql).
-- A point of the old system is matched with a point of the new one that has the same workload,
-- block size, RAID level and metric, then, in this order of preference:
--   drives   equal drive count; else the nearest drive count (ties: the smaller); a point that
--            states no drive count matches points that state none
--   config   the same config label; where the old point states none, the new system's best
--            configuration at that point (the highest value: how vendors compare with an older
--            system whose settings are not stated; match_rule says which configuration was used)
-- correction: the factor(s) the study declares (sidecar `corrections = [...]`, defined in a
-- criteria file with comparator '*', view study_corrections), applied to the old value;
-- pct_better = (new / (old x correction) - 1) x 100. No declared correction: factor 1.
CREATE OR REPLACE VIEW generation_comparison AS
WITH orders AS (
    -- rank: the generation's (first) position in the study's list
    SELECT DISTINCT study, generation, array_position(gens, generation) AS rank
    FROM (SELECT study, gens, unnest(gens) AS generation
          FROM (SELECT study, from_json((labels->'generation_order'), '["VARCHAR"]') AS gens
                FROM source_files WHERE status = 'ok' AND (labels->'generation_order') IS NOT NULL
                  AND study NOT IN (SELECT study FROM study_conflicts WHERE key = 'generation_order')))
), pts AS (
    SELECT m.study, m.system, m.generation, m.workload, m.raid_level, m.config_label, m.drives_stated AS drives,
           coalesce(pr.block_size_text, m.block_size_bytes::VARCHAR) AS block_size, m.metric, m.value, m.run_id,
           o.rank
    FROM measurements m
    JOIN orders o ON o.study = m.study AND o.generation = m.generation
    LEFT JOIN published_results pr ON pr.source_id = m.content_id AND 'row' || pr.line_no = m.run_key
                                  AND pr.metric = CASE m.metric WHEN 'avg_latency_ms' THEN 'avg_response_ms' ELSE m.metric END
    WHERE m.metric IN ('iops', 'mbps') AND m.scope IN ('all', 'test')
), pairs AS (
    SELECT o.study, n.system AS new_system, o.system AS old_system, n.generation AS new_generation,
           o.generation AS old_generation, o.workload, o.raid_level, o.block_size, o.metric,
           n.value AS new_value, o.value AS old_value, n.drives AS new_drives, o.drives AS old_drives,
           n.config_label AS new_config, o.config_label AS old_config,
           CASE WHEN n.drives IS NOT DISTINCT FROM o.drives THEN 'drives: equal'
                ELSE 'drives: nearest (' || n.drives || ' for ' || o.drives || ')' END
           || CASE WHEN n.config_label IS NOT DISTINCT FROM o.config_label THEN '; config: equal'
                   ELSE '; config: ' || coalesce(n.config_label, 'none') || ' for ' || coalesce(o.config_label, 'none') END
           AS match_rule,
           row_number() OVER (
               PARTITION BY o.study, o.run_id, o.metric, n.generation
               ORDER BY n.drives IS NOT DISTINCT FROM o.drives DESC,
                        abs(coalesce(n.drives, 0) - coalesce(o.drives, 0)) ASC, n.drives ASC,
                        n.config_label IS NOT DISTINCT FROM o.config_label DESC,
                        CASE WHEN o.config_label IS NULL THEN n.value END DESC NULLS LAST,
                        n.config_label) AS pick
    FROM pts o
    JOIN pts n ON n.study = o.study AND n.rank > o.rank AND n.workload = o.workload
              AND n.raid_level IS NOT DISTINCT FROM o.raid_level AND n.block_size IS NOT DISTINCT FROM o.block_size
              AND n.metric = o.metric
              AND ((n.drives IS NULL) = (o.drives IS NULL))
)
SELECT p.* EXCLUDE (pick), coalesce(c.correction, 1.0) AS correction, c.correction_source,
       (p.new_value / (p.old_value * coalesce(c.correction, 1.0)) - 1) * 100 AS pct_better,
       (p.new_value / p.old_value - 1) * 100 AS pct_better_uncorrected
FROM pairs p LEFT JOIN study_corrections c USING (study)
WHERE p.pick = 1;
