-- data/ is the truth. Every place a file was ever found is kept in source_history, with when and
-- why it left the analysis (deleted, moved, replaced by a new version, removed); `source_files`
-- becomes a view of the places in the analysis now (schemas/views/000_places.sql). The table is
-- made anew because UNIQUE (path, sha256) must go: a file deleted and restored is a new place.
CREATE TABLE source_history (
    source_id      BIGINT PRIMARY KEY,
    path           VARCHAR NOT NULL,
    sha256         VARCHAR NOT NULL,
    size_bytes     BIGINT NOT NULL,
    format         VARCHAR,
    parser         VARCHAR,
    parser_version VARCHAR,
    tool_version   VARCHAR,
    ingested_at    TIMESTAMP NOT NULL,
    status         VARCHAR NOT NULL CHECK (status IN ('ok', 'rejected')),
    error          VARCHAR,
    error_line     INTEGER,
    study          VARCHAR,
    system         VARCHAR,
    generation     VARCHAR,
    tiles          INTEGER,
    vms            INTEGER,
    config_label   VARCHAR,
    price_usd      DOUBLE,
    watts          DOUBLE,
    tags           VARCHAR[],
    labels         JSON,
    content_id     BIGINT,
    mtime_ns       BIGINT,
    abs_path       VARCHAR,
    ctime_ns       BIGINT,
    inode          BIGINT,
    left_at        TIMESTAMP,
    left_reason    VARCHAR,
    left_for       BIGINT,
    purged_at      TIMESTAMP
);
INSERT INTO source_history
SELECT source_id, path, sha256, size_bytes, format, parser, parser_version, tool_version, ingested_at, status,
       error, error_line, study, system, generation, tiles, vms, config_label, price_usd, watts, tags, labels,
       content_id, mtime_ns, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM source_files;
DROP TABLE source_files;

COMMENT ON TABLE source_history IS 'Every place a raw file was ever found, in the analysis or not: read source_files for the places in the analysis now.';
COMMENT ON COLUMN source_history.source_id IS 'Surrogate key; every stored number links back here.';
COMMENT ON COLUMN source_history.path IS 'Where the file is, relative to the folder holding its data root (data/<study>/x.csv): the same whatever the current folder or path spelling.';
COMMENT ON COLUMN source_history.sha256 IS 'SHA-256 of the raw bytes; identical content is parsed once.';
COMMENT ON COLUMN source_history.size_bytes IS 'Size of the raw file in bytes.';
COMMENT ON COLUMN source_history.format IS 'Format claimed by exactly one sniffer (ingest/formats/<module>.FORMAT).';
COMMENT ON COLUMN source_history.parser IS 'Python module that parsed the file.';
COMMENT ON COLUMN source_history.parser_version IS 'VERSION of that module at ingest time.';
COMMENT ON COLUMN source_history.tool_version IS 'Version of the benchmark tool as written in the file.';
COMMENT ON COLUMN source_history.ingested_at IS 'Wall-clock time (UTC) the place was first recorded.';
COMMENT ON COLUMN source_history.status IS 'ok = all its rows stored; rejected = nothing stored but this record.';
COMMENT ON COLUMN source_history.error IS 'Why the file was rejected, in words.';
COMMENT ON COLUMN source_history.error_line IS '1-based line of the raw file the error points at, when there is one.';
COMMENT ON COLUMN source_history.study IS 'Study label (sidecar); default: the first folder under the data root.';
COMMENT ON COLUMN source_history.system IS 'System under test (sidecar).';
COMMENT ON COLUMN source_history.generation IS 'Product generation (sidecar).';
COMMENT ON COLUMN source_history.tiles IS 'Benchmark tiles running when the file was captured (sidecar).';
COMMENT ON COLUMN source_history.vms IS 'Virtual machines in the test (sidecar).';
COMMENT ON COLUMN source_history.config_label IS 'Configuration label such as "write cache enabled" (sidecar).';
COMMENT ON COLUMN source_history.price_usd IS 'Price of the system under test in US dollars (sidecar).';
COMMENT ON COLUMN source_history.watts IS 'Power draw of the system under test in watts (sidecar).';
COMMENT ON COLUMN source_history.tags IS 'Free-form tags (sidecar).';
COMMENT ON COLUMN source_history.labels IS 'Every sidecar key that applies to the file, as JSON.';
COMMENT ON COLUMN source_history.content_id IS 'source_id under which this content''s parsed rows are stored (itself for the first place it was found).';
COMMENT ON COLUMN source_history.mtime_ns IS 'Modification time (ns) when the file was last read or confirmed unchanged.';
COMMENT ON COLUMN source_history.abs_path IS 'The place''s identity: the absolute path with every folder''s links resolved (the file''s own link kept). NULL for places recorded before V060 until their folder is ingested again.';
COMMENT ON COLUMN source_history.ctime_ns IS 'The inode''s change time (ns) when last read: with size, mtime and inode it lets a re-ingest skip hashing (nothing can rewrite a file without moving its ctime).';
COMMENT ON COLUMN source_history.inode IS 'The file''s inode number when last read.';
COMMENT ON COLUMN source_history.left_at IS 'When the place left the analysis (UTC); NULL while it is in it.';
COMMENT ON COLUMN source_history.left_reason IS 'Why it left: deleted, moved, replaced (the file changed), removed (iolab remove).';
COMMENT ON COLUMN source_history.purged_at IS 'On the place that owns a content''s parsed rows (content_id = source_id): when those rows were deleted, no place in the analysis reading them any more.';
COMMENT ON COLUMN source_history.left_for IS 'The place that took over (a new version, or where it moved), when there is one.';

CREATE TABLE data_roots (
    path     VARCHAR PRIMARY KEY,
    added_at TIMESTAMP NOT NULL
);
COMMENT ON TABLE data_roots IS 'The folders this database mirrors. A place belongs to the root holding it; sidecars apply from that root down, and the default study is the first folder under it.';
COMMENT ON COLUMN data_roots.path IS 'Absolute path of the folder, links resolved.';
COMMENT ON COLUMN data_roots.added_at IS 'When it was first ingested (UTC).';

CREATE TABLE store_identity (
    store_id VARCHAR NOT NULL
);
COMMENT ON TABLE store_identity IS 'This database''s own id: its time-series files live in <database>.points/<store_id>/, so a moved or copied database never touches another''s files.';
COMMENT ON COLUMN store_identity.store_id IS 'Random id made when the database was created.';
