-- Words for numbers, shared by every view and page.
--
-- size_label(bytes)            4096 -> '4 KiB', 1048576 -> '1 MiB', 512 -> '512 B'
-- workload_label(bs, read %, random %, outstanding I/Os, fallback)
--                              '8 KiB random read, QD 32', '64 KiB sequential write, QD 4',
--                              '8 KiB random, 67 % read'; a run with no read/random mix keeps its
--                              own workload text (fallback), as its file wrote it, plus its size.
-- split_text(queue depth, workers)
--                              how a load is split: '16 x 1', '1 x 16' ('?' where a run does not say)
-- workload_key(read %, random %, workload)
--                              what a run with no read/random mix (a published table) is matched on:
--                              its workload as written; NULL for a run that states its mix
CREATE OR REPLACE MACRO size_label(b) AS
    CASE WHEN b IS NULL THEN NULL
         WHEN b >= 1048576 AND b % 1048576 = 0 THEN (b // 1048576)::BIGINT || ' MiB'
         WHEN b >= 1024 AND b % 1024 = 0 THEN (b // 1024)::BIGINT || ' KiB'
         ELSE b::BIGINT || ' B' END;

CREATE OR REPLACE MACRO pct_text(p) AS regexp_replace(printf('%.2f', p::DOUBLE), '\.?0+$', '');

CREATE OR REPLACE MACRO workload_label(bs, read_pct, random_pct, oio, fallback) AS
    CASE WHEN read_pct IS NULL AND random_pct IS NULL THEN concat_ws(', ', fallback, size_label(bs))
         ELSE concat_ws(', ',  -- the parts a run states, none of them led by a comma ('70 % read, QD 4')
                  nullif(concat_ws(' ',
                      size_label(bs),
                      CASE WHEN random_pct = 100 THEN 'random' WHEN random_pct = 0 THEN 'sequential'
                           WHEN random_pct IS NOT NULL THEN pct_text(random_pct) || ' % random' END,
                      CASE WHEN read_pct = 100 THEN 'read' WHEN read_pct = 0 THEN 'write' END), ''),
                  CASE WHEN read_pct > 0 AND read_pct < 100 THEN pct_text(read_pct) || ' % read' END,
                  'QD ' || oio::BIGINT)
    END;

CREATE OR REPLACE MACRO split_text(qd, workers) AS
    coalesce(CAST(qd AS VARCHAR), '?') || ' x ' || coalesce(CAST(workers AS VARCHAR), '?');

CREATE OR REPLACE MACRO workload_key(read_pct, random_pct, workload) AS
    CASE WHEN read_pct IS NULL AND random_pct IS NULL THEN workload END;
