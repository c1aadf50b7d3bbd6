-- New generation against old at matched points: a selection of the comparison (075_comparison.sql),
-- which holds the one rule of matching, averaging and correcting.
--
-- Which generation is older is declared, not guessed: the study's sidecar lists
-- generation_order = ["old", ..., "new"] (sidecars of one study with different orders: none is used,
-- study_conflicts, 025_declared.sql). A system's generation is its runs' (sidecar generation, or a
-- published table's column): a system with runs of two generations is in no generation comparison.
-- Each row is a row of `comparison` whose system is of a later generation than the study's
-- baseline: the same block size, read/random mix, load (outstanding I/Os), scope and metric (a
-- published table's workload as written), each side the mean of its repeats (n_old, n_new) of its
-- current measurement, the same configuration or the system's best where the baseline states none,
-- the drive counts of both sides stated (old_drives, new_drives, from the sidecar, the array
-- profile or the published table: match_rule and *_drives_source say which), the correction applied
-- where its scope covers the metric (study_corrections, metric_corrections) and the comparison's 95 %
-- interval and verdict. pct_better = (new / (old x correction) - 1) x 100 where higher is better,
-- ((old / correction) / new - 1) x 100 where lower is better. Generations are compared through the
-- baseline: set the baseline to the oldest generation to compare every later one with it (a system
-- older than the baseline is in the comparison, not here).
CREATE OR REPLACE VIEW generation_comparison AS
WITH orders AS (
    -- rank: the generation's (first) position in the study's list
    SELECT study, generation, min(array_position(gens, generation)) AS rank
    FROM (SELECT study, gens, unnest(gens) AS generation
          FROM (SELECT study, from_json((labels->'generation_order'), '["VARCHAR"]') AS gens
                FROM source_files WHERE status = 'ok' AND (labels->'generation_order') IS NOT NULL
                  AND study NOT IN (SELECT study FROM study_conflicts WHERE key = 'generation_order')))
    GROUP BY study, generation
), gens AS (
    -- each system's one generation, placed in the order
    SELECT g.study, g.system, g.generation, o.rank
    FROM (SELECT study, system, min(generation) AS generation FROM study_runs
          WHERE system IS NOT NULL AND generation IS NOT NULL
          GROUP BY study, system HAVING count(DISTINCT generation) = 1) g
    JOIN orders o ON o.study = g.study AND o.generation = g.generation
)
SELECT c.study, c.baseline_system AS old_system, c.system AS new_system, og.generation AS old_generation,
       ng.generation AS new_generation, c.baseline_measurement AS old_measurement, c.measurement AS new_measurement,
       c.workload_label, c.workload_key, c.block_size_bytes, c.read_pct, c.random_pct, c.load, c.scope, c.metric,
       c.unit, c.direction, c.baseline_raid_level AS old_raid_level, c.raid_level AS new_raid_level,
       c.baseline_drives AS old_drives, c.drives AS new_drives, c.baseline_drives_source AS old_drives_source,
       c.drives_source AS new_drives_source, c.baseline_config AS old_config, c.config AS new_config,
       c.baseline_value AS old_value, c.value AS new_value, c.n_baseline AS n_old, c.n AS n_new,
       c.sd_baseline AS sd_old, c.sd AS sd_new, c.correction, c.correction_source, c.ratio, c.pct_better,
       c.pct_better_uncorrected, c.ci95_low_pct, c.ci95_high_pct, c.verdict, c.match_rule
FROM comparison c
JOIN gens og ON og.study = c.study AND og.system = c.baseline_system
JOIN gens ng ON ng.study = c.study AND ng.system = c.system AND ng.rank > og.rank;
