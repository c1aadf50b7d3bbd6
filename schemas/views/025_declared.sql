-- What each study declares in its sidecar (iolab.toml, labels of source_files), read in one place.
--
--   criteria    = ["id", ...]            QoS criteria and sizing rules of qos_criteria that apply
--   corrections = ["id", ...]            correction factors (criteria rows with comparator '*')
--   corrections = {id = "note", ...}     the same, as a table (its keys name the corrections)
--   baseline    = "<system>"             the system every other system of the study is compared with
--
-- Nothing applies unless a study names it: a criterion or correction in criteria.csv is a
-- definition, and the study's sidecar says which definitions hold for its runs.
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
       q.citation, q.criterion IS NOT NULL AS defined
FROM ids i
LEFT JOIN (SELECT q.* FROM qos_criteria q JOIN source_files f ON f.content_id = q.source_id AND f.status = 'ok') q
       ON q.criterion = i.criterion;

-- The correction factor each study declared (the product, should it declare several).
CREATE OR REPLACE VIEW study_corrections AS
SELECT study, product(threshold) AS correction,
       string_agg(criterion || ' (' || coalesce(citation, 'no citation') || ')', '; ' ORDER BY criterion) AS correction_source
FROM study_declarations
WHERE kind = 'correction' AND defined AND comparator = '*'
GROUP BY study;

-- The baseline system of each study: the sidecar's `baseline`, else (documented default) the
-- alphabetically first system of the study. baseline_source says which rule chose it.
CREATE OR REPLACE VIEW study_baseline AS
WITH declared AS (
    SELECT study, min(labels->>'baseline') AS baseline
    FROM source_files WHERE status = 'ok' AND (labels->>'baseline') IS NOT NULL GROUP BY study
), systems AS (
    SELECT study, min(system) AS first_system, count(DISTINCT system) AS systems
    FROM measurements WHERE system IS NOT NULL GROUP BY study
)
SELECT s.study, coalesce(d.baseline, s.first_system) AS baseline_system,
       CASE WHEN d.baseline IS NOT NULL THEN 'sidecar: baseline = "' || d.baseline || '"'
            ELSE 'default: the alphabetically first system of the study (set baseline = "<system>" in its iolab.toml)'
       END AS baseline_source,
       s.systems
FROM systems s LEFT JOIN declared d USING (study);
