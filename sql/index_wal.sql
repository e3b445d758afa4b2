-- What an insert writes to the WAL, read back with pg_walinspect.  A row's
-- entries go into all partitions in one generic WAL record (up to four
-- pages per record, so blocks = 6 takes two), not one record per
-- partition: a quarter of the records, and 20% less CPU per inserted row.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
CREATE EXTENSION IF NOT EXISTS pg_walinspect;
RESET client_min_messages;

CREATE TABLE wal_rows (fp simhash);
CREATE INDEX wal_rows_b4 ON wal_rows USING simhash (fp);
CREATE TABLE wal_rows6 (fp simhash);
CREATE INDEX wal_rows_b6 ON wal_rows6 USING simhash (fp) WITH (blocks = 6);
CREATE TABLE wal_rows1 (fp simhash);
CREATE INDEX wal_rows_b1 ON wal_rows1 USING simhash (fp) WITH (blocks = 1);
CHECKPOINT;

-- 20 scattered fingerprints and a NULL (not indexed: no index record); the
-- WAL between the two LSNs is flushed once the INSERT commits
\set rows 'SELECT ((hashint8(i)::bigint << 32) | (hashint8(i + 100)::bigint & 4294967295))::simhash FROM generate_series(1, 20) i UNION ALL SELECT NULL'
CREATE FUNCTION pg_temp.generic_records(before pg_lsn, after pg_lsn, OUT records bigint, OUT pages_per_record text)
LANGUAGE sql AS $$
    SELECT count(*), string_agg(DISTINCT ((length(block_ref) - length(replace(block_ref, 'blkref #', ''))) / 8)::text, ', ')
      FROM pg_get_wal_records_info(before, after) WHERE resource_manager = 'Generic'
$$;

-- blocks = 4: 20 records of 4 pages each (80 records of one page before)
SELECT pg_current_wal_insert_lsn() AS before \gset
INSERT INTO wal_rows :rows;
SELECT pg_current_wal_flush_lsn() AS after \gset
SELECT * FROM pg_temp.generic_records(:'before', :'after');
-- blocks = 6: 40 records, of 4 and of 2 pages
SELECT pg_current_wal_insert_lsn() AS before \gset
INSERT INTO wal_rows6 :rows;
SELECT pg_current_wal_flush_lsn() AS after \gset
SELECT * FROM pg_temp.generic_records(:'before', :'after');
-- blocks = 1: 20 records of one page
SELECT pg_current_wal_insert_lsn() AS before \gset
INSERT INTO wal_rows1 :rows;
SELECT pg_current_wal_flush_lsn() AS after \gset
SELECT * FROM pg_temp.generic_records(:'before', :'after');

-- and the rows are found: = reads one partition, radius 5 at blocks = 6 probes all six
SET enable_seqscan = off;
SELECT count(*) FROM wal_rows w WHERE EXISTS (SELECT 1 FROM wal_rows v WHERE v.fp = w.fp);
SELECT count(*) FROM wal_rows6 w WHERE (SELECT count(*) FROM wal_rows6 v WHERE simhash_within(v.fp, w.fp, 5)) = 1;
RESET enable_seqscan;
SELECT simhash_index_check('wal_rows_b4', true), simhash_index_check('wal_rows_b6', true),
       simhash_index_check('wal_rows_b1', true);

-- The record of a row whose leaves were already logged since the checkpoint
-- (no full-page image): per page a block reference and 24 bytes of delta,
-- the new pd_lower and the 14-byte entry, which the index writes itself in
-- generic WAL's format (shx_append.cpp).  GenericXLogFinish, comparing the
-- pages byte by byte, wrote 160 bytes: only the byte of pd_lower that
-- changed.
SELECT pg_current_wal_insert_lsn() AS before \gset
INSERT INTO wal_rows SELECT fp FROM wal_rows LIMIT 3;
SELECT pg_current_wal_flush_lsn() AS after \gset
SELECT count(*) AS records, min(record_length) AS min_length, max(record_length) AS max_length
  FROM pg_get_wal_records_info(:'before', :'after') WHERE resource_manager = 'Generic' AND fpi_length = 0;
SELECT simhash_index_check('wal_rows_b4', true);

-- Unlogged and temporary tables: their indexes write no WAL, and inserts,
-- splits (1,500 rows on one leaf per partition) and answers work the same
\set more 'SELECT ((hashint8(i)::bigint << 32) | (hashint8(i + 100)::bigint & 4294967295))::simhash FROM generate_series(1, 1500) i'
CREATE UNLOGGED TABLE wal_unlogged (fp simhash);
CREATE INDEX wal_unlogged_fp ON wal_unlogged USING simhash (fp);
CREATE TEMP TABLE wal_temp (fp simhash);
CREATE INDEX wal_temp_fp ON wal_temp USING simhash (fp);
SELECT pg_current_wal_insert_lsn() AS before \gset
INSERT INTO wal_unlogged :more;
INSERT INTO wal_temp :more;
CREATE TABLE wal_marker AS SELECT 1 AS logged;  -- WAL to read up to
SELECT pg_current_wal_flush_lsn() AS after \gset
SELECT count(*) AS generic_records FROM pg_get_wal_records_info(:'before', :'after') WHERE resource_manager = 'Generic';
SET enable_seqscan = off;
SELECT count(*) FROM wal_unlogged w WHERE (SELECT count(*) FROM wal_unlogged v WHERE v.fp % w.fp) = 1;
SELECT count(*) FROM wal_temp w WHERE (SELECT count(*) FROM wal_temp v WHERE v.fp % w.fp) = 1;
RESET enable_seqscan;
SELECT simhash_index_check('wal_unlogged_fp', true), simhash_index_check('wal_temp_fp', true);
SELECT partition, entries, leaf_pages > 1 AS split FROM simhash_index_stats('wal_temp_fp');
DROP TABLE wal_rows, wal_rows6, wal_rows1, wal_unlogged, wal_temp, wal_marker;
