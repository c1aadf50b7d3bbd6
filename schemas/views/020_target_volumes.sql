-- Which array volume, and how many physical drives, stand behind each workload target of a run.
--
-- Targets: Iometer disks, Jetstress volumes/instances (scopes target/volume/instance) and the
-- LUNs of an ORION summary. Matching, first rule that applies:
--   sidecar:exact  a [[targets]] entry of the file's iolab.toml names the target exactly
--   sidecar:glob   a [[targets]] entry matches it as a glob (e.g. "1: *")
--   name           an array profile holds a volume of the same name (case-insensitive, - = _)
-- Drives: the count the sidecar's [[targets]] entry declares (drives = N), else the member count of
-- the volume's array/volume group in a loaded profile (every member counts, both halves of a RAID-10
-- mirror; hot spares are never members). drives_source says which ('declared', 'profile'), and
-- profile_drives what the profile says where a declared count overrides it (the pages say so). A
-- profile of the same study is preferred; an entry naming an array only matches that array's profile.
CREATE OR REPLACE VIEW run_targets AS
SELECT DISTINCT s.run_id, f.source_id, s.target
FROM samples s JOIN runs r USING (run_id) JOIN source_files f ON f.content_id = r.source_id AND f.status = 'ok'
WHERE s.scope IN ('target', 'volume', 'instance') AND s.target IS NOT NULL
UNION
SELECT r.run_id, f.source_id, l.lun
FROM runs r JOIN orion_luns l USING (source_id) JOIN source_files f ON f.content_id = r.source_id AND f.status = 'ok';

CREATE OR REPLACE VIEW target_volumes AS
WITH mapped AS (
    SELECT rt.run_id, rt.source_id, rt.target, st.volume, st.array_name, st.drives AS drives_declared,
           CASE WHEN rt.target = st.target THEN 'sidecar:exact' ELSE 'sidecar:glob' END AS match_rule,
           row_number() OVER (PARTITION BY rt.run_id, rt.source_id, rt.target ORDER BY rt.target = st.target DESC) AS pick
    FROM run_targets rt
    JOIN sidecar_targets st ON st.source_id = rt.source_id
                           AND (rt.target = st.target OR rt.target GLOB st.target)
), by_name AS (
    SELECT rt.run_id, rt.source_id, rt.target, v.volume_name AS volume, a.array_name, NULL::INTEGER AS drives_declared,
           'name' AS match_rule,
           row_number() OVER (PARTITION BY rt.run_id, rt.source_id, rt.target ORDER BY pf.study = f.study DESC, v.source_id DESC) AS pick
    FROM run_targets rt
    JOIN source_files f ON f.source_id = rt.source_id
    JOIN profile_volumes v ON replace(upper(v.volume_name), '-', '_') = replace(upper(rt.target), '-', '_')
    JOIN profile_arrays a ON a.source_id = v.source_id
    JOIN source_files pf ON pf.content_id = v.source_id AND pf.status = 'ok'
    WHERE NOT EXISTS (SELECT 1 FROM mapped m WHERE m.run_id = rt.run_id AND m.source_id = rt.source_id AND m.target = rt.target)
), matched AS (
    SELECT * EXCLUDE (pick) FROM mapped WHERE pick = 1
    UNION ALL
    SELECT * EXCLUDE (pick) FROM by_name WHERE pick = 1
), in_profile AS (
    SELECT m.run_id, m.source_id, m.target, v.source_id AS profile_source_id, a.array_name AS profile_array, v.group_name,
           v.raid_level, g.drive_count,
           row_number() OVER (PARTITION BY m.run_id, m.source_id, m.target ORDER BY pf.study = f.study DESC, v.source_id DESC) AS pick
    FROM matched m
    JOIN source_files f ON f.source_id = m.source_id
    JOIN profile_volumes v ON v.volume_name = m.volume
    JOIN profile_arrays a ON a.source_id = v.source_id AND (m.array_name IS NULL OR a.array_name = m.array_name)
    JOIN source_files pf ON pf.content_id = v.source_id AND pf.status = 'ok'
    LEFT JOIN profile_groups g ON g.source_id = v.source_id AND g.group_name = v.group_name
)
SELECT m.run_id, m.source_id, m.target, m.volume, coalesce(p.profile_array, m.array_name) AS array_name,
       m.match_rule, p.group_name, p.raid_level,
       coalesce(m.drives_declared, CASE WHEN p.drive_count > 0 THEN p.drive_count END) AS drives,
       CASE WHEN m.drives_declared IS NOT NULL THEN 'declared' WHEN p.drive_count > 0 THEN 'profile' END AS drives_source,
       p.profile_source_id,
       CASE WHEN p.drive_count > 0 THEN p.drive_count END AS profile_drives
FROM matched m
LEFT JOIN in_profile p ON p.run_id = m.run_id AND p.source_id = m.source_id AND p.target = m.target AND p.pick = 1;
