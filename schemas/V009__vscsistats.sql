-- vscsiStats -c histograms (ingest/formats/vscsistats.py).
CREATE TABLE vscsi_histograms (
    source_id BIGINT NOT NULL, histogram_no INTEGER, title VARCHAR, world_group_id BIGINT, vdisk_handle_id BIGINT,
    vdisk VARCHAR, kind VARCHAR, direction VARCHAR, min DOUBLE, max DOUBLE, mean DOUBLE, count DOUBLE, line_no INTEGER
);
COMMENT ON TABLE vscsi_histograms IS 'One row per vscsiStats histogram: title, VM world group, virtual disk, min/max/mean/count as written.';
COMMENT ON COLUMN vscsi_histograms.kind IS 'latency_us, io_length_bytes, seek_distance_lbn, outstanding_ios, interarrival_us, other (from the title).';
COMMENT ON COLUMN vscsi_histograms.direction IS 'all, read or write (from the title).';

CREATE TABLE vscsi_buckets (
    source_id BIGINT NOT NULL, histogram_no INTEGER, bucket_no INTEGER, upper_bound BIGINT, is_overflow BOOLEAN,
    frequency BIGINT, line_no INTEGER
);
COMMENT ON TABLE vscsi_buckets IS 'Histogram buckets: frequency of values <= upper_bound (and > the previous bound); is_overflow marks the repeated last limit (values above it).';
