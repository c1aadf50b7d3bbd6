-- Storage array profiles: Dell PowerVault MD (Modular Disk Storage Manager) profiles are read too.
COMMENT ON COLUMN profile_arrays.profile_kind IS 'ibm-ds (PROFILE FOR STORAGE SUBSYSTEM), dell-md (PROFILE FOR STORAGE ARRAY with Dell PowerVault MD wording: disk groups, virtual disks, physical disks) or santricity (PROFILE FOR STORAGE ARRAY otherwise).';
COMMENT ON COLUMN profile_arrays.stated_groups IS 'Number of arrays / volume groups / disk groups the SUMMARY (or STORAGE ARRAY section) states.';
COMMENT ON COLUMN profile_arrays.stated_volumes IS 'Number of standard logical drives / volumes / virtual disks the SUMMARY (or STORAGE ARRAY section) states.';
COMMENT ON COLUMN profile_arrays.stated_drives IS 'Number of drives / physical disks the SUMMARY (or STORAGE ARRAY section) states.';
