-- Published results and QoS/sizing criteria (ingest/formats/published.py, ingest/formats/criteria.py).
CREATE TABLE published_results (
    source_id BIGINT NOT NULL, study VARCHAR, system VARCHAR, generation VARCHAR, raid_level VARCHAR, drives INTEGER,
    config_label VARCHAR, workload VARCHAR, block_size_text VARCHAR, tiles INTEGER, context VARCHAR, citation VARCHAR,
    metric VARCHAR, value_text VARCHAR, unit VARCHAR, line_no INTEGER
);
COMMENT ON TABLE published_results IS 'Every published figure exactly as typed in, with its citation; numeric ones are also samples.';
COMMENT ON COLUMN published_results.citation IS 'Where the figure was published (report, table, page).';
COMMENT ON COLUMN published_results.value_text IS 'The figure as written (ranges such as 16-17 stay text only).';

CREATE TABLE qos_criteria (
    source_id BIGINT NOT NULL, criterion VARCHAR, tool VARCHAR, description VARCHAR, comparator VARCHAR,
    threshold DOUBLE, unit VARCHAR, scope VARCHAR, citation VARCHAR, iolab_metric VARCHAR, line_no INTEGER
);
COMMENT ON TABLE qos_criteria IS 'Pass/fail and sizing criteria as data (criteria.csv and user files of the same shape).';
COMMENT ON COLUMN qos_criteria.comparator IS '<=, <, >=, >, = (a sizing constant) or * (a correction factor).';
COMMENT ON COLUMN qos_criteria.iolab_metric IS 'Canonical metric the criterion tests, when the file names it.';
