-- Core tables shared by every format: provenance, runs, canonical samples, time series.
-- Applied once, recorded in schema_history with its checksum (ingest/db.py).

CREATE TABLE source_files (
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
    -- labels from iolab.toml sidecars (refreshed on every ingest of the folder)
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
    UNIQUE (path, sha256)
);
COMMENT ON TABLE source_files IS 'One row per raw file seen: where it is, what it hashes to, how it was parsed, and its sidecar labels.';
COMMENT ON COLUMN source_files.source_id IS 'Surrogate key; every stored number links back here.';
COMMENT ON COLUMN source_files.path IS 'Path of the raw file as given to iolab ingest (relative to the working directory when possible).';
COMMENT ON COLUMN source_files.sha256 IS 'SHA-256 of the raw bytes; identical content is ingested once.';
COMMENT ON COLUMN source_files.size_bytes IS 'Size of the raw file in bytes.';
COMMENT ON COLUMN source_files.format IS 'Format claimed by exactly one sniffer (ingest/formats/<module>.FORMAT).';
COMMENT ON COLUMN source_files.parser IS 'Python module that parsed the file.';
COMMENT ON COLUMN source_files.parser_version IS 'VERSION of that module at ingest time.';
COMMENT ON COLUMN source_files.tool_version IS 'Version of the benchmark tool as written in the file (Iometer 2008.06.18, ORION 10.2.0.1.0, ...).';
COMMENT ON COLUMN source_files.ingested_at IS 'Wall-clock time (UTC) of the ingest.';
COMMENT ON COLUMN source_files.status IS 'ok = all its rows stored; rejected = nothing stored but this record.';
COMMENT ON COLUMN source_files.error IS 'Why the file was rejected, in words.';
COMMENT ON COLUMN source_files.error_line IS '1-based line of the raw file the error points at, when there is one.';
COMMENT ON COLUMN source_files.study IS 'Study label (sidecar), default: the first folder under the ingested root.';
COMMENT ON COLUMN source_files.system IS 'System under test (sidecar).';
COMMENT ON COLUMN source_files.generation IS 'Product generation, for cross-generation comparisons (sidecar).';
COMMENT ON COLUMN source_files.tiles IS 'Benchmark tiles (VMmark/ESG style) running when the file was captured (sidecar).';
COMMENT ON COLUMN source_files.vms IS 'Virtual machines in the test (sidecar).';
COMMENT ON COLUMN source_files.config_label IS 'Configuration label such as "write cache enabled" (sidecar).';
COMMENT ON COLUMN source_files.price_usd IS 'Price of the system under test in US dollars (sidecar).';
COMMENT ON COLUMN source_files.watts IS 'Power draw of the system under test in watts (sidecar).';
COMMENT ON COLUMN source_files.tags IS 'Free-form tags (sidecar).';
COMMENT ON COLUMN source_files.labels IS 'Every sidecar key that applies to the file, as JSON.';

CREATE TABLE runs (
    run_id           BIGINT PRIMARY KEY,
    source_id        BIGINT NOT NULL,
    run_key          VARCHAR NOT NULL,
    tool             VARCHAR NOT NULL,
    tool_version     VARCHAR,
    started_at       TIMESTAMP,
    ended_at         TIMESTAMP,
    workload         VARCHAR,
    description      VARCHAR,
    status           VARCHAR,
    test_type        VARCHAR,
    block_size_bytes BIGINT,
    read_pct         DOUBLE,
    random_pct       DOUBLE,
    run_group        VARCHAR,
    system           VARCHAR,
    generation       VARCHAR,
    config_label     VARCHAR,
    raid_level       VARCHAR,
    drives           INTEGER,
    tiles            INTEGER,
    UNIQUE (source_id, run_key)
);
COMMENT ON TABLE runs IS 'One measured test point: an Iometer results block, an Orion test, a Jetstress test, a published row.';
COMMENT ON COLUMN runs.run_key IS 'Key of the run inside its file (e.g. s1/r3 = Iometer session 1, results block 3).';
COMMENT ON COLUMN runs.tool IS 'Iometer, Orion, Jetstress, esxtop, perfmon, published, ...';
COMMENT ON COLUMN runs.tool_version IS 'Tool version string as written in the file.';
COMMENT ON COLUMN runs.started_at IS 'Start of the run (local time of the test host, as written).';
COMMENT ON COLUMN runs.ended_at IS 'End of the run (local time of the test host, as written).';
COMMENT ON COLUMN runs.workload IS 'Workload name: Iometer access specification, Jetstress test type, Orion test name.';
COMMENT ON COLUMN runs.description IS 'Free text the tool recorded (Iometer test description, Jetstress test description).';
COMMENT ON COLUMN runs.status IS 'complete, aborted, unterminated (file ends mid-session), pass, fail.';
COMMENT ON COLUMN runs.test_type IS 'Tool-specific test type (Iometer cycling mode, Orion -run, Jetstress Performance/Stress).';
COMMENT ON COLUMN runs.block_size_bytes IS 'Transfer size in bytes when the workload uses one size; NULL for mixed sizes.';
COMMENT ON COLUMN runs.read_pct IS 'Share of reads in percent when the workload has one read/write mix.';
COMMENT ON COLUMN runs.random_pct IS 'Share of random I/O in percent when the workload has one.';
COMMENT ON COLUMN runs.system IS 'System under test when the file names it per run (published tables); else NULL and the sidecar label applies.';
COMMENT ON COLUMN runs.generation IS 'Product generation named per run (published tables).';
COMMENT ON COLUMN runs.config_label IS 'Configuration named per run (e.g. Write Cache Enabled).';
COMMENT ON COLUMN runs.raid_level IS 'RAID level named per run (e.g. RAID-10).';
COMMENT ON COLUMN runs.drives IS 'Physical drives behind the run as the file states it (published tables: HDDs / drives behind).';
COMMENT ON COLUMN runs.tiles IS 'Tiles named per run (published tables).';
COMMENT ON COLUMN runs.run_group IS 'Runs of one test spread over several files (ORION <test>_<date>_summary.txt, _iops.csv, ...) share this key.';

CREATE TABLE samples (
    run_id          BIGINT NOT NULL,
    scope           VARCHAR NOT NULL,
    target          VARCHAR,
    metric          VARCHAR NOT NULL,
    value           DOUBLE NOT NULL,
    unit            VARCHAR NOT NULL,
    outstanding_ios INTEGER,
    small_oio       INTEGER,
    large_oio       INTEGER,
    line_no         INTEGER
);
COMMENT ON TABLE samples IS 'Canonical numbers, one per row, in canonical units; read them through the measurements view.';
COMMENT ON COLUMN samples.scope IS 'What the number describes: all, manager, processor, worker, target, volume, instance, host, point, test.';
COMMENT ON COLUMN samples.target IS 'Name of the manager/worker/CPU/disk/volume/instance the number is for (NULL for scope all).';
COMMENT ON COLUMN samples.metric IS 'Canonical metric name (schemas/README.md lists them).';
COMMENT ON COLUMN samples.value IS 'The number, converted to the canonical unit.';
COMMENT ON COLUMN samples.unit IS 'Canonical unit: IO/s, MB/s (10^6 bytes/s), ms, %, count, bytes, ...';
COMMENT ON COLUMN samples.outstanding_ios IS 'Outstanding I/Os (queue depth) of the row, when the tool records it.';
COMMENT ON COLUMN samples.small_oio IS 'Orion: outstanding small I/Os of the data point.';
COMMENT ON COLUMN samples.large_oio IS 'Orion: outstanding large I/Os of the data point.';
COMMENT ON COLUMN samples.line_no IS '1-based line of the raw file the number was read from.';

CREATE TABLE series (
    series_id     BIGINT PRIMARY KEY,
    source_id     BIGINT NOT NULL,
    column_no     INTEGER NOT NULL,
    original_name VARCHAR NOT NULL,
    host          VARCHAR,
    object        VARCHAR NOT NULL,
    instance      VARCHAR,
    counter       VARCHAR NOT NULL,
    instance_name VARCHAR,
    instance_id   VARCHAR,
    sub_instance  VARCHAR,
    metric        VARCHAR,
    unit          VARCHAR
);
COMMENT ON TABLE series IS 'Dimension of time series: one row per counter column of an esxtop/perfmon file or per Iometer instantaneous worker metric.';
COMMENT ON COLUMN series.column_no IS '0-based column (or counter index) in the raw file.';
COMMENT ON COLUMN series.original_name IS 'The column header exactly as written.';
COMMENT ON COLUMN series.host IS 'Host part of \\host\Object(instance)\Counter.';
COMMENT ON COLUMN series.object IS 'Object type (Physical Disk, Vcpu, LogicalDisk, Iometer Worker, ...).';
COMMENT ON COLUMN series.instance IS 'Instance inside the parentheses, NULL when the object has none.';
COMMENT ON COLUMN series.counter IS 'Counter name as written.';
COMMENT ON COLUMN series.instance_name IS 'The instance''s name part: VM or group name (gid:name), vSwitch, adapter, perfmon name without #N.';
COMMENT ON COLUMN series.instance_id IS 'The instance''s id part: esxtop group id (gid), port id, perfmon #N index.';
COMMENT ON COLUMN series.sub_instance IS 'The rest: Vcpu world (wid:world), Network Port client, Virtual Disk controller, disk path.';
COMMENT ON COLUMN series.metric IS 'Canonical metric name where one applies.';
COMMENT ON COLUMN series.unit IS 'Canonical unit where known.';

CREATE TABLE series_samples (
    source_id BIGINT NOT NULL,
    sample_no INTEGER NOT NULL,
    ts        TIMESTAMP,
    ts_text   VARCHAR
);
COMMENT ON TABLE series_samples IS 'One row per sample line of a time-series file: when it was taken.';
COMMENT ON COLUMN series_samples.source_id IS 'The file (source_files).';
COMMENT ON COLUMN series_samples.sample_no IS '0-based sample (data line) number within the file.';
COMMENT ON COLUMN series_samples.ts IS 'Time stamp as written (esxtop: UTC; perfmon: local time, see pdh_captures.bias_minutes); NULL when the file gives a time of day without a date.';
COMMENT ON COLUMN series_samples.ts_text IS 'The time stamp text exactly as written.';

CREATE TABLE point_files (
    source_id BIGINT NOT NULL,
    file_name VARCHAR NOT NULL,
    points    BIGINT NOT NULL,
    bytes     BIGINT NOT NULL
);
COMMENT ON TABLE point_files IS 'Parquet files of the time-series store (<database>.points/), one per source; series_points reads them.';
COMMENT ON COLUMN point_files.source_id IS 'The file the points came from.';
COMMENT ON COLUMN point_files.file_name IS 'Parquet file name inside the store folder.';
COMMENT ON COLUMN point_files.points IS 'Values it holds.';
COMMENT ON COLUMN point_files.bytes IS 'Its size on disk.';

CREATE TABLE sidecar_targets (
    source_id BIGINT NOT NULL,
    target    VARCHAR NOT NULL,
    volume    VARCHAR,
    drives    INTEGER,
    array_name VARCHAR
);
COMMENT ON TABLE sidecar_targets IS 'Workload target -> array volume mappings declared in iolab.toml [[targets]] tables.';
COMMENT ON COLUMN sidecar_targets.target IS 'Target name as the tool writes it (Iometer disk, Jetstress volume, Orion LUN, esxtop device), or a glob.';
COMMENT ON COLUMN sidecar_targets.volume IS 'Array volume / logical drive name it lands on.';
COMMENT ON COLUMN sidecar_targets.drives IS 'Declared physical drive count behind the target, used when no profile is loaded.';
COMMENT ON COLUMN sidecar_targets.array_name IS 'Storage array name as in its profile (optional).';
COMMENT ON COLUMN runs.run_id IS 'Surrogate key of the run.';
COMMENT ON COLUMN runs.source_id IS 'The file the run was read from (source_files).';
COMMENT ON COLUMN samples.run_id IS 'The run the number belongs to (runs).';
COMMENT ON COLUMN series.series_id IS 'Surrogate key of the series.';
COMMENT ON COLUMN series.source_id IS 'The file the series was read from (source_files).';
COMMENT ON COLUMN sidecar_targets.source_id IS 'The file the mapping applies to.';
