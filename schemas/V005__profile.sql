-- Storage array profile tool tables (ingest/formats/profile.py).
CREATE TABLE profile_arrays (
    source_id BIGINT NOT NULL, array_name VARCHAR, profile_kind VARCHAR, captured_at_text VARCHAR, firmware VARCHAR,
    nvsram VARCHAR, controllers INTEGER, controller_model VARCHAR, cache_mb_per_controller INTEGER,
    cache_block_kb INTEGER, start_flush_pct INTEGER, stop_flush_pct INTEGER, stated_drives INTEGER,
    stated_groups INTEGER, stated_volumes INTEGER, stated_hot_spares INTEGER, french_locale BOOLEAN
);
COMMENT ON TABLE profile_arrays IS 'One row per profile: the storage array and what its SUMMARY states.';
COMMENT ON COLUMN profile_arrays.profile_kind IS 'ibm-ds (PROFILE FOR STORAGE SUBSYSTEM) or santricity (PROFILE FOR STORAGE ARRAY).';
COMMENT ON COLUMN profile_arrays.captured_at_text IS 'Capture time as written on the PROFILE FOR line (locale-formatted).';
COMMENT ON COLUMN profile_arrays.cache_mb_per_controller IS 'Data cache per controller in MB (first controller).';
COMMENT ON COLUMN profile_arrays.stated_drives IS 'Number of drives the SUMMARY states.';
COMMENT ON COLUMN profile_arrays.stated_groups IS 'Number of arrays / volume groups the SUMMARY states.';
COMMENT ON COLUMN profile_arrays.stated_volumes IS 'Number of standard logical drives / volumes the SUMMARY states.';
COMMENT ON COLUMN profile_arrays.french_locale IS 'Numbers were written with decimal commas (French locale).';

CREATE TABLE profile_groups (
    source_id BIGINT NOT NULL, group_name VARCHAR, raid_level VARCHAR, status VARCHAR, drive_type VARCHAR,
    capacity_text VARCHAR, current_owner VARCHAR, drive_count INTEGER, line_no INTEGER
);
COMMENT ON TABLE profile_groups IS 'Arrays (IBM) / volume groups (SANtricity) with their RAID level and the drives listed in them.';
COMMENT ON COLUMN profile_groups.drive_count IS 'Drives listed under Associated drives (all members, both halves of a RAID-10 mirror; hot spares are never listed).';

CREATE TABLE profile_group_drives (source_id BIGINT NOT NULL, group_name VARCHAR, tray INTEGER, slot INTEGER, line_no INTEGER);
COMMENT ON TABLE profile_group_drives IS 'Which drive (tray/enclosure, slot) belongs to which array / volume group, in piece order.';

CREATE TABLE profile_volumes (
    source_id BIGINT NOT NULL, volume_name VARCHAR, status VARCHAR, capacity_text VARCHAR, capacity_bytes UBIGINT,
    raid_level VARCHAR, group_name VARCHAR, segment_size_kb INTEGER, preferred_owner VARCHAR, current_owner VARCHAR,
    read_cache VARCHAR, write_cache VARCHAR, line_no INTEGER
);
COMMENT ON TABLE profile_volumes IS 'Logical drives / volumes: capacity, RAID level, the group they live on, segment size, cache settings, owners.';
COMMENT ON COLUMN profile_volumes.capacity_bytes IS 'Capacity in bytes: the exact (N Bytes) figure when printed, else the GB/TB figure x 2^30/2^40 (Storage Manager units are binary; rounded to what the profile prints).';

CREATE TABLE profile_drives (
    source_id BIGINT NOT NULL, tray INTEGER, slot INTEGER, status VARCHAR, mode VARCHAR, capacity_text VARCHAR,
    capacity_bytes UBIGINT, media_type VARCHAR, interface_type VARCHAR, speed_rpm INTEGER, data_rate VARCHAR,
    product_id VARCHAR, firmware VARCHAR, group_name VARCHAR, hot_spare BOOLEAN, line_no INTEGER
);
COMMENT ON TABLE profile_drives IS 'Physical drives (tray/enclosure, slot): type, speed, capacity, status, product ID, firmware, hot-spare mode.';

CREATE TABLE profile_mappings (
    source_id BIGINT NOT NULL, volume_name VARCHAR, lun INTEGER, controller VARCHAR, accessible_by VARCHAR,
    status VARCHAR, line_no INTEGER
);
COMMENT ON TABLE profile_mappings IS 'MAPPINGS: volume -> LUN -> host or host group.';

CREATE TABLE profile_values (
    source_id BIGINT NOT NULL, section VARCHAR, block VARCHAR, indent INTEGER, key VARCHAR, value_text VARCHAR, line_no INTEGER
);
COMMENT ON TABLE profile_values IS 'Every Key: value line of the profile, as written, with its section and block (controller, drive, array).';
