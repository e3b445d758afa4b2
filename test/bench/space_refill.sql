-- Space left by a mass delete, and how new rows refill it (README, "Space,
-- VACUUM and REINDEX").  Run with psql in a scratch database that has the
-- extension: psql -X -f test/bench/space_refill.sql.  About a minute; it
-- creates and drops the table space_refill.
\set ON_ERROR_STOP 1
-- 64 random bits per row: two 32-bit hashes of the row number
CREATE FUNCTION pg_temp.random_fp(g bigint) RETURNS simhash LANGUAGE sql IMMUTABLE
    RETURN simhash_from_bigint(hashint8(g) # (hashint8(g + 7777777) << 32));
CREATE TABLE space_refill (id bigserial, fp simhash) WITH (autovacuum_enabled = off);
INSERT INTO space_refill (fp) SELECT pg_temp.random_fp(g) FROM generate_series(1, 1000000) g;
CREATE INDEX space_refill_fp ON space_refill USING simhash (fp);
CREATE TEMP TABLE phases (n serial, phase text, pages bigint, empty_leaves bigint);
\set record 'INSERT INTO phases (phase, pages, empty_leaves) SELECT :\'phase\', pg_relation_size(\'space_refill_fp\') / 8192, sum(empty_leaf_pages) FROM simhash_index_stats(\'space_refill_fp\')'
\set phase 'built, 1M rows'
:record;
DELETE FROM space_refill WHERE id % 10 <> 0;
VACUUM space_refill;
\set phase 'after deleting 90% and VACUUM'
:record;
INSERT INTO space_refill (fp) SELECT pg_temp.random_fp(g) FROM generate_series(2000001, 2900000) g;
\set phase 'after 900,000 new rows'
:record;
REINDEX INDEX space_refill_fp;
\set phase 'the same rows rebuilt'
:record;
SELECT phase, pages, empty_leaves FROM phases ORDER BY n;
DROP TABLE space_refill;
