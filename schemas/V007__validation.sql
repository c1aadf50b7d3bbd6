-- Great Expectations results (validation/run.py): one row per expectation per validation run.
CREATE TABLE validation_results (
    run_id INTEGER NOT NULL, run_at TIMESTAMP NOT NULL, suite VARCHAR NOT NULL, expectation VARCHAR NOT NULL,
    kwargs JSON, success BOOLEAN NOT NULL, unexpected_count BIGINT, examples JSON, rows_validated BIGINT
);
COMMENT ON TABLE validation_results IS 'Outcome of every expectation of every suite (validation/<suite>.py) in every `iolab validate` run.';
COMMENT ON COLUMN validation_results.run_id IS 'Validation run (all suites validated together share it).';
COMMENT ON COLUMN validation_results.run_at IS 'When the run started (UTC).';
COMMENT ON COLUMN validation_results.suite IS 'Suite = the table or view it validates.';
COMMENT ON COLUMN validation_results.expectation IS 'Great Expectations expectation type.';
COMMENT ON COLUMN validation_results.kwargs IS 'Its arguments (column, bounds, condition).';
COMMENT ON COLUMN validation_results.success IS 'Whether the data met it.';
COMMENT ON COLUMN validation_results.unexpected_count IS 'Rows that did not.';
COMMENT ON COLUMN validation_results.examples IS 'Up to five offending values.';
COMMENT ON COLUMN validation_results.rows_validated IS 'Rows in the frame the suite validated.';
