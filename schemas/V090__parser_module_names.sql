-- The installed package is named `iolab` (its source folder stays ingest/, mapped by pyproject's
-- package-dir), so a parser's module is `iolab.formats.<name>` where it was `ingest.formats.<name>`.
-- Files ingested before keep their place and are not parsed again (same sha256, same parser VERSION):
-- their provenance takes the new module name, so one database never names one parser two ways.
UPDATE source_history SET parser = 'iolab.' || substr(parser, length('ingest.') + 1)
WHERE parser LIKE 'ingest.%';
COMMENT ON COLUMN source_history.parser IS 'Python module that parsed the file (iolab.formats.<name>; `ingest.formats.` before V090, renamed here).';
