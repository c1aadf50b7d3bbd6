-- What each study declares in its sidecar (iolab.toml, labels of source_files), read in one place.
--
--   criteria    = ["id", ...]            QoS criteria and sizing rules of qos_criteria that apply
--   corrections = ["id", ...]            correction factors (criteria rows with comparator '*')
--   corrections = {id = "note", ...}     the same, as a table (its keys name the corrections)
--   baseline    = "<system>"             the system every other system of the study is compared with
--
-- Nothing applies unless a study names it: a criterion or correction in criteria.csv is a
-- definition, and the study's sidecar says which definitions hold for its runs.
-- Study-wide keys (baseline, sla, firmware_order, generation_order, corrections) hold for the whole
-- study: sidecars of one study that set one to different values are a conflict (study_conflicts:
-- the key, and what each says), refused rather than resolved: the views that read the key use
-- none of the values (study_baseline: no baseline; study_corrections: no factor, correction_source
-- says why; sla_declared, firmware_order, generation_comparison: nothing), and the ingest names
-- both sidecars and lines (ingest/declared.py). An sla is compared as the bound it states
-- (labels.sla_bound: "P99<=1MS" and "p99 <= 1000us" agree).
CREATE OR REPLACE VIEW study_conflicts AS
WITH v AS (
    SELECT f.study, k.key,
           CASE k.key WHEN 'sla' THEN concat_ws(' ', f.labels->'sla_bound'->>'metric', f.labels->'sla_bound'->>'strict',
                                                f.labels->'sla_bound'->>'bound_ms')
                      ELSE CAST(f.labels->('$.' || k.key) AS VARCHAR) END AS value,
           CASE k.key WHEN 'sla' THEN f.labels->>'sla' ELSE CAST(f.labels->('$.' || k.key) AS VARCHAR) END AS said
    FROM source_files f,
         (VALUES ('baseline'), ('sla'), ('firmware_order'), ('generation_order'), ('corrections')) k(key)
    WHERE f.status = 'ok' AND f.study IS NOT NULL AND (f.labels->('$.' || k.key)) IS NOT NULL
)
SELECT study, key, count(DISTINCT value) AS "values", string_agg(DISTINCT said, ' / ' ORDER BY said) AS said
FROM v GROUP BY study, key HAVING count(DISTINCT value) > 1;

CREATE OR REPLACE VIEW study_declarations AS
WITH lab AS (
    SELECT study, labels FROM source_files WHERE status = 'ok' AND study IS NOT NULL AND labels IS NOT NULL
), ids AS (
    SELECT study, 'criterion' AS kind,
           unnest(from_json((labels->'criteria'), '["VARCHAR"]')) AS criterion
    FROM lab WHERE json_type((labels->'criteria')) = 'ARRAY'
    UNION
    SELECT study, 'correction',
           unnest(CASE json_type((labels->'corrections')) WHEN 'OBJECT' THEN json_keys((labels->'corrections'))
                       ELSE from_json((labels->'corrections'), '["VARCHAR"]') END)
    FROM lab WHERE json_type((labels->'corrections')) IN ('ARRAY', 'OBJECT')
)
SELECT DISTINCT i.study, i.kind, i.criterion, q.comparator, q.threshold, q.unit, q.iolab_metric, q.description,
       q.citation, q.criterion IS NOT NULL AS defined, q.tool, q.roles, q.units, q.source_id AS criteria_source_id,
       q.line_no
FROM ids i
LEFT JOIN (SELECT q.* FROM qos_criteria q JOIN source_files f ON f.content_id = q.source_id AND f.status = 'ok') q
       ON q.criterion = i.criterion;

-- Scope: a criterion, sizing rule or correction applies to the runs of its tool (the criteria file's
-- tool column, as runs.tool names it, any case; 'any' or empty: every tool). A published figure
-- whose table names no tool is judged by 'any' rules only.
CREATE OR REPLACE MACRO tool_applies(rule_tool, run_tool) AS
    coalesce(lower(trim(rule_tool)), '') IN ('any', '') OR lower(trim(rule_tool)) = lower(trim(run_tool));

-- Which metrics a correction applies to: the one its file names (iolab_metric), else those whose
-- vocabulary role is among its roles (the file's roles column; none stated: throughput, the default)
-- and, where it names units (the units column: IO/s;MB/s), whose canonical unit is among them.
CREATE OR REPLACE MACRO correction_covers(rule_metric, rule_roles, rule_units, metric, role, unit) AS
    CASE WHEN rule_metric IS NOT NULL THEN rule_metric = metric
         ELSE list_contains(string_split(coalesce(rule_roles, 'throughput'), ';'), role)
              AND (rule_units IS NULL OR list_contains(string_split(rule_units, ';'), unit)) END;

-- The correction factor each study declared (the product, should it declare several); none (NULL,
-- correction_source says why) where its sidecars declare different corrections (study_conflicts).
-- A correction compares systems whatever tool measured them: its tool must be 'any' (or empty); one
-- that names a tool applies to nothing, and its scope says so. scope: in words, what each factor
-- applies to (correction_covers); metric_corrections holds, per study and vocabulary metric, the
-- product of the factors that apply to it: a metric outside every scope (a count, a flag, CPU use,
-- a setting) has no row, and the comparison takes it as measured (factor 1).
CREATE OR REPLACE VIEW study_corrections AS
WITH c AS (
    SELECT study, criterion, threshold, citation,
           coalesce(lower(trim(tool)), '') IN ('any', '') AS applies,
           CASE WHEN coalesce(lower(trim(tool)), '') NOT IN ('any', '')
                THEN 'not applied: its criteria file names the tool ' || tool || ', and a correction compares '
                     || 'systems whatever tool measured them (tool = any)'
                ELSE coalesce('metric ' || iolab_metric,
                              coalesce(replace(roles, ';', ', '), 'throughput (the default: its criteria file states no roles)')
                              || ' metrics' || coalesce(' in ' || replace(units, ';', ', '), '')) END AS scope
    FROM study_declarations
    WHERE kind = 'correction' AND defined AND comparator = '*'
      AND study NOT IN (SELECT study FROM study_conflicts WHERE key = 'corrections')
)
SELECT study, product(CASE WHEN applies THEN threshold ELSE 1.0 END) AS correction,
       string_agg(criterion || ' (' || coalesce(citation, 'no citation') || ')', '; ' ORDER BY criterion) AS correction_source,
       string_agg(criterion || ': ' || scope, '; ' ORDER BY criterion) AS scope
FROM c
GROUP BY study
UNION ALL
SELECT study, NULL, 'refused: the sidecars of this study declare different corrections ('
       || said || '); none is applied until one is declared once', NULL
FROM study_conflicts WHERE key = 'corrections';

CREATE OR REPLACE VIEW metric_corrections AS
SELECT d.study, v.metric, product(d.threshold) AS correction,
       string_agg(d.criterion || ' (' || coalesce(d.citation, 'no citation') || ')', '; ' ORDER BY d.criterion)
           AS correction_source
FROM study_declarations d
JOIN metric_vocabulary v ON correction_covers(d.iolab_metric, d.roles, d.units, v.metric, v.role, v.unit)
WHERE d.kind = 'correction' AND d.defined AND d.comparator = '*' AND coalesce(lower(trim(d.tool)), '') IN ('any', '')
  AND d.study NOT IN (SELECT study FROM study_conflicts WHERE key = 'corrections')
GROUP BY d.study, v.metric;

-- The baseline system of each study: the sidecar's `baseline`, else (documented default) the
-- alphabetically first system of the study. baseline_source says which rule chose it. Sidecars of
-- the study that name different baselines: none (baseline_system NULL), baseline_source says so.
CREATE OR REPLACE VIEW study_baseline AS
WITH declared AS (
    SELECT study, min(labels->>'baseline') AS baseline, count(DISTINCT labels->>'baseline') AS said
    FROM source_files WHERE status = 'ok' AND (labels->>'baseline') IS NOT NULL GROUP BY study
), systems AS (
    SELECT study, min(system) AS first_system, count(DISTINCT system) AS systems
    FROM measurements WHERE system IS NOT NULL GROUP BY study
)
SELECT s.study,
       CASE WHEN d.said > 1 THEN NULL ELSE coalesce(d.baseline, s.first_system) END AS baseline_system,
       CASE WHEN d.said > 1 THEN 'refused: the sidecars of this study name ' || d.said || ' different baselines; '
                                 || 'a study has one: set baseline once, in its top iolab.toml'
            WHEN d.baseline IS NOT NULL THEN 'sidecar: baseline = "' || d.baseline || '"'
            ELSE 'default: the alphabetically first system of the study (set baseline = "<system>" in its iolab.toml)'
       END AS baseline_source,
       s.systems
FROM systems s LEFT JOIN declared d USING (study);
