-- The checksum of the view definitions (schemas/views/*.sql) last created in this database: an open
-- recreates the views only when they changed (creating them all cost ~0.15 s on every command).
CREATE TABLE view_state (
    checksum   VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL
);
COMMENT ON TABLE view_state IS 'Checksum of the view SQL last created here (one row).';
COMMENT ON COLUMN view_state.checksum IS 'sha256 of schemas/views/*.sql, joined in name order.';
COMMENT ON COLUMN view_state.created_at IS 'When those views were created (UTC).';
