-- IOzone auto-mode text output (ingest/formats/iozone_text.py).
CREATE TABLE iozone_values (
    source_id BIGINT NOT NULL, run_key VARCHAR, file_kb BIGINT, reclen_kb BIGINT, column_name VARCHAR,
    value DOUBLE, text VARCHAR, line_no INTEGER
);
COMMENT ON TABLE iozone_values IS 'Every cell of the IOzone auto-mode table (one row per file size, record size and test column, as written in kBytes/sec or operations/sec), plus each banner line (column_name ''(banner)'').';
COMMENT ON COLUMN iozone_values.source_id IS 'The file (source_files).';
COMMENT ON COLUMN iozone_values.run_key IS 'The run within the file (runs.run_key) this cell gave: <file kB>/<reclen kB>/<test>; NULL for banner lines.';
COMMENT ON COLUMN iozone_values.file_kb IS 'File size in kB (the kB column; IOzone kB = 1024 bytes).';
COMMENT ON COLUMN iozone_values.reclen_kb IS 'Record size in kB (reclen: the I/O size of every read/write call).';
COMMENT ON COLUMN iozone_values.column_name IS 'The test column: the two header lines joined (write, rewrite, read, reread, random read, random write, bkwd read, record rewrite, stride read, fwrite, frewrite, fread, freread), or (banner).';
COMMENT ON COLUMN iozone_values.value IS 'The number as written (kBytes/sec unless the banner says operations per second); NULL for banner lines.';
COMMENT ON COLUMN iozone_values.text IS 'The banner line as written (Command line used, O_DIRECT feature enabled, Output is in kBytes/sec...); NULL for table cells.';
COMMENT ON COLUMN iozone_values.line_no IS 'Line of the raw file.';
