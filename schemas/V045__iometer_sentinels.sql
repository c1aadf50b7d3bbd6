-- Iometer 1.1.0 writes -1 and 2^64-1 for "not applicable" (Queue Depth of ALL/MANAGER rows,
-- Transactions per Connection). Canonical samples never carry them; this column keeps them as written.
ALTER TABLE iometer_results ADD COLUMN sentinels VARCHAR;
COMMENT ON COLUMN iometer_results.sentinels IS 'Cells Iometer wrote as its not-applicable sentinel (-1 or 18446744073709551615), as header=text pairs joined by ";", exactly as written. The typed column keeps the value where its type can hold it (2^64-1 in UBIGINT, -1 in BIGINT/DOUBLE) and is NULL where it cannot (-1 in a UBIGINT column); samples and run signatures treat every sentinel as missing. NULL when the row has none.';
