-- Iometer tool tables: lossless copies of every section of a results file (ingest/formats/iometer.py).

CREATE TABLE iometer_sessions (
    source_id BIGINT NOT NULL, session_no INTEGER NOT NULL, line_no INTEGER, test_type INTEGER,
    test_type_name VARCHAR, test_description VARCHAR, version VARCHAR, started_at TIMESTAMP, status VARCHAR
);
COMMENT ON TABLE iometer_sessions IS 'One row per ''Test Type session of an Iometer file (files are appended to, so one file can hold many).';
COMMENT ON COLUMN iometer_sessions.test_type IS 'Iometer test type index: 0 normal, 1 cycle targets, 2 cycle workers, 3/4 increment targets parallel/serial, 5 cycle workers+targets, 6 cycle outstanding I/Os, 7 cycle outstanding I/Os + targets.';
COMMENT ON COLUMN iometer_sessions.status IS 'complete (''End Test seen), aborted (Aborted test line), unterminated (the session just stops).';
COMMENT ON COLUMN iometer_sessions.version IS 'Iometer version string (does not identify the column layout; see iometer_results.layout).';

CREATE TABLE iometer_access_specs (
    source_id BIGINT NOT NULL, session_no INTEGER NOT NULL, spec_block_no INTEGER, spec_name VARCHAR,
    default_assignment INTEGER, line_no INTEGER, size_bytes BIGINT, pct_of_size INTEGER, pct_reads INTEGER,
    pct_random INTEGER, delay_ms BIGINT, burst BIGINT, align_bytes BIGINT, reply_bytes BIGINT
);
COMMENT ON TABLE iometer_access_specs IS 'Access specification lines (size,% of size,% reads,% random,delay,burst,align,reply), one row per line; a mixed spec has several.';

CREATE TABLE iometer_latency_bins (
    source_id BIGINT NOT NULL, line_no INTEGER NOT NULL, bin_no INTEGER NOT NULL, bin_label VARCHAR,
    lower_us DOUBLE, upper_us DOUBLE, io_count UBIGINT
);
COMMENT ON TABLE iometer_latency_bins IS 'Iometer 1.1.0 latency histogram (21 bins) of a results row (joined by source_id, line_no). DISK rows carry their worker''s bins (writer quirk).';
COMMENT ON COLUMN iometer_latency_bins.upper_us IS 'Upper bound in microseconds; NULL for the open-ended >= 10 s bin.';
COMMENT ON COLUMN iometer_latency_bins.io_count IS 'I/Os completed within the bin.';

CREATE TABLE iometer_results (
    source_id BIGINT NOT NULL,
    session_no INTEGER,
    block_no INTEGER,
    line_no INTEGER,
    layout INTEGER,
    manager_name VARCHAR,
    worker_name VARCHAR,
    ended_at TIMESTAMP,
    row_type VARCHAR,
    target_name VARCHAR,
    access_spec VARCHAR,
    n_managers UBIGINT,
    n_workers UBIGINT,
    n_disks UBIGINT,
    iops DOUBLE,
    read_iops DOUBLE,
    write_iops DOUBLE,
    mbps_binary DOUBLE,
    read_mbps_binary DOUBLE,
    write_mbps_binary DOUBLE,
    mbps_decimal DOUBLE,
    read_mbps_decimal DOUBLE,
    write_mbps_decimal DOUBLE,
    transactions_per_s DOUBLE,
    connections_per_s DOUBLE,
    avg_response_ms DOUBLE,
    avg_read_response_ms DOUBLE,
    avg_write_response_ms DOUBLE,
    avg_transaction_ms DOUBLE,
    avg_connection_ms DOUBLE,
    max_response_ms DOUBLE,
    max_read_response_ms DOUBLE,
    max_write_response_ms DOUBLE,
    max_transaction_ms DOUBLE,
    max_connection_ms DOUBLE,
    errors UBIGINT,
    read_errors UBIGINT,
    write_errors UBIGINT,
    bytes_read UBIGINT,
    bytes_written UBIGINT,
    read_ios UBIGINT,
    write_ios UBIGINT,
    connections UBIGINT,
    transactions_per_connection BIGINT,
    total_raw_read_response_ticks UBIGINT,
    total_raw_write_response_ticks UBIGINT,
    total_raw_transaction_ticks UBIGINT,
    total_raw_connection_ticks UBIGINT,
    max_raw_read_response_ticks UBIGINT,
    max_raw_write_response_ticks UBIGINT,
    max_raw_transaction_ticks UBIGINT,
    max_raw_connection_ticks UBIGINT,
    total_raw_run_ticks UBIGINT,
    starting_sector UBIGINT,
    maximum_size UBIGINT,
    queue_depth UBIGINT,
    cpu_util_pct DOUBLE,
    cpu_user_pct DOUBLE,
    cpu_privileged_pct DOUBLE,
    cpu_dpc_pct DOUBLE,
    cpu_interrupt_pct DOUBLE,
    timer_resolution_hz DOUBLE,
    interrupts_per_s DOUBLE,
    cpu_effectiveness DOUBLE,
    packets_per_s DOUBLE,
    packet_errors DOUBLE,
    segments_retransmitted_per_s DOUBLE,
    ts TIMESTAMP
);
COMMENT ON TABLE iometer_results IS 'Every results row (ALL, MANAGER, PROCESSOR, WORKER, DISK, NETWORK), every column, as written. MBps columns keep their original unit.';
COMMENT ON COLUMN iometer_results.layout IS 'Header width: 56 (2001-2010), 59 (1.1.0 rc1..2013), 80 (1.1.0 with latency bins).';
COMMENT ON COLUMN iometer_results.manager_name IS 'Manager the row belongs to (from row order).';
COMMENT ON COLUMN iometer_results.worker_name IS 'Worker the row belongs to (from row order).';
COMMENT ON COLUMN iometer_results.ended_at IS 'The ''Time Stamp after the results block (end of the test point).';
COMMENT ON COLUMN iometer_results.ts IS 'Instantaneous files only: the per-row time stamp.';
COMMENT ON COLUMN iometer_results.mbps_binary IS 'Header MBps / MBps (Binary) / MiBps (Binary): 2^20 bytes per second.';
COMMENT ON COLUMN iometer_results.mbps_decimal IS 'Header MBps (Decimal): 10^6 bytes per second.';
COMMENT ON COLUMN iometer_results.row_type IS 'Iometer column: Target Type.';
COMMENT ON COLUMN iometer_results.target_name IS 'Iometer column: Target Name.';
COMMENT ON COLUMN iometer_results.access_spec IS 'Iometer column: Access Specification Name.';
COMMENT ON COLUMN iometer_results.n_managers IS 'Iometer column: # Managers.';
COMMENT ON COLUMN iometer_results.n_workers IS 'Iometer column: # Workers.';
COMMENT ON COLUMN iometer_results.n_disks IS 'Iometer column: # Disks.';
COMMENT ON COLUMN iometer_results.iops IS 'Iometer column: IOps.';
COMMENT ON COLUMN iometer_results.read_iops IS 'Iometer column: Read IOps.';
COMMENT ON COLUMN iometer_results.write_iops IS 'Iometer column: Write IOps.';
COMMENT ON COLUMN iometer_results.read_mbps_binary IS 'Iometer column: Read MBps / Read MBps (Binary) / Read MiBps (Binary).';
COMMENT ON COLUMN iometer_results.write_mbps_binary IS 'Iometer column: Write MBps / Write MBps (Binary) / Write MiBps (Binary).';
COMMENT ON COLUMN iometer_results.read_mbps_decimal IS 'Iometer column: Read MBps (Decimal).';
COMMENT ON COLUMN iometer_results.write_mbps_decimal IS 'Iometer column: Write MBps (Decimal).';
COMMENT ON COLUMN iometer_results.transactions_per_s IS 'Iometer column: Transactions per Second.';
COMMENT ON COLUMN iometer_results.connections_per_s IS 'Iometer column: Connections per Second.';
COMMENT ON COLUMN iometer_results.avg_response_ms IS 'Iometer column: Average Response Time.';
COMMENT ON COLUMN iometer_results.avg_read_response_ms IS 'Iometer column: Average Read Response Time.';
COMMENT ON COLUMN iometer_results.avg_write_response_ms IS 'Iometer column: Average Write Response Time.';
COMMENT ON COLUMN iometer_results.avg_transaction_ms IS 'Iometer column: Average Transaction Time.';
COMMENT ON COLUMN iometer_results.avg_connection_ms IS 'Iometer column: Average Connection Time.';
COMMENT ON COLUMN iometer_results.max_response_ms IS 'Iometer column: Maximum Response Time.';
COMMENT ON COLUMN iometer_results.max_read_response_ms IS 'Iometer column: Maximum Read Response Time.';
COMMENT ON COLUMN iometer_results.max_write_response_ms IS 'Iometer column: Maximum Write Response Time.';
COMMENT ON COLUMN iometer_results.max_transaction_ms IS 'Iometer column: Maximum Transaction Time.';
COMMENT ON COLUMN iometer_results.max_connection_ms IS 'Iometer column: Maximum Connection Time.';
COMMENT ON COLUMN iometer_results.errors IS 'Iometer column: Errors.';
COMMENT ON COLUMN iometer_results.read_errors IS 'Iometer column: Read Errors.';
COMMENT ON COLUMN iometer_results.write_errors IS 'Iometer column: Write Errors.';
COMMENT ON COLUMN iometer_results.bytes_read IS 'Iometer column: Bytes Read.';
COMMENT ON COLUMN iometer_results.bytes_written IS 'Iometer column: Bytes Written.';
COMMENT ON COLUMN iometer_results.read_ios IS 'Iometer column: Read I/Os.';
COMMENT ON COLUMN iometer_results.write_ios IS 'Iometer column: Write I/Os.';
COMMENT ON COLUMN iometer_results.connections IS 'Iometer column: Connections.';
COMMENT ON COLUMN iometer_results.transactions_per_connection IS 'Iometer column: Transactions per Connection.';
COMMENT ON COLUMN iometer_results.total_raw_read_response_ticks IS 'Iometer column: Total Raw Read Response Time.';
COMMENT ON COLUMN iometer_results.total_raw_write_response_ticks IS 'Iometer column: Total Raw Write Response Time.';
COMMENT ON COLUMN iometer_results.total_raw_transaction_ticks IS 'Iometer column: Total Raw Transaction Time.';
COMMENT ON COLUMN iometer_results.total_raw_connection_ticks IS 'Iometer column: Total Raw Connection Time.';
COMMENT ON COLUMN iometer_results.max_raw_read_response_ticks IS 'Iometer column: Maximum Raw Read Response Time.';
COMMENT ON COLUMN iometer_results.max_raw_write_response_ticks IS 'Iometer column: Maximum Raw Write Response Time.';
COMMENT ON COLUMN iometer_results.max_raw_transaction_ticks IS 'Iometer column: Maximum Raw Transaction Time.';
COMMENT ON COLUMN iometer_results.max_raw_connection_ticks IS 'Iometer column: Maximum Raw Connection Time.';
COMMENT ON COLUMN iometer_results.total_raw_run_ticks IS 'Iometer column: Total Raw Run Time.';
COMMENT ON COLUMN iometer_results.starting_sector IS 'Iometer column: Starting Sector.';
COMMENT ON COLUMN iometer_results.maximum_size IS 'Iometer column: Maximum Size.';
COMMENT ON COLUMN iometer_results.queue_depth IS 'Iometer column: Queue Depth.';
COMMENT ON COLUMN iometer_results.cpu_util_pct IS 'Iometer column: % CPU Utilization.';
COMMENT ON COLUMN iometer_results.cpu_user_pct IS 'Iometer column: % User Time.';
COMMENT ON COLUMN iometer_results.cpu_privileged_pct IS 'Iometer column: % Privileged Time.';
COMMENT ON COLUMN iometer_results.cpu_dpc_pct IS 'Iometer column: % DPC Time.';
COMMENT ON COLUMN iometer_results.cpu_interrupt_pct IS 'Iometer column: % Interrupt Time.';
COMMENT ON COLUMN iometer_results.timer_resolution_hz IS 'Iometer column: Processor Speed.';
COMMENT ON COLUMN iometer_results.interrupts_per_s IS 'Iometer column: Interrupts per Second.';
COMMENT ON COLUMN iometer_results.cpu_effectiveness IS 'Iometer column: CPU Effectiveness.';
COMMENT ON COLUMN iometer_results.packets_per_s IS 'Iometer column: Packets/Second.';
COMMENT ON COLUMN iometer_results.packet_errors IS 'Iometer column: Packet Errors.';
COMMENT ON COLUMN iometer_results.segments_retransmitted_per_s IS 'Iometer column: Segments Retransmitted/Second.';
