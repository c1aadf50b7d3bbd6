-- PDH-CSV captures: esxtop batch output and Windows perfmon CSV (ingest/formats/pdh.py).
CREATE TABLE pdh_captures (
    source_id BIGINT NOT NULL, tool VARCHAR, time_zone VARCHAR, bias_minutes INTEGER, columns INTEGER,
    series INTEGER, samples INTEGER, has_date BOOLEAN, header_line INTEGER, hosts VARCHAR[]
);
COMMENT ON TABLE pdh_captures IS 'One row per PDH-CSV file: tool (esxtop when the header says (UTC)(0), else perfmon), zone, size.';
COMMENT ON COLUMN pdh_captures.time_zone IS 'Zone name from the (PDH-CSV 4.0) (<zone>)(<bias>) cell, as written (may be cut short).';
COMMENT ON COLUMN pdh_captures.bias_minutes IS 'Windows bias: UTC = local time + bias; NULL when the cell is truncated.';
COMMENT ON COLUMN pdh_captures.columns IS 'Header cells, the time stamp column included.';
COMMENT ON COLUMN pdh_captures.series IS 'Counter columns stored as series.';
COMMENT ON COLUMN pdh_captures.has_date IS 'False for spreadsheet re-saves whose stamps are a time of day only.';
COMMENT ON COLUMN pdh_captures.header_line IS '1-based line of the header (2 when resxtop wrote a junk line first).';

CREATE TABLE pdh_skipped_columns (source_id BIGINT NOT NULL, column_no INTEGER, header_text VARCHAR, reason VARCHAR);
COMMENT ON TABLE pdh_skipped_columns IS 'Header cells that name no counter (trailing comma, esxtop PCPU "-" tokens), with the reason they hold no series.';
