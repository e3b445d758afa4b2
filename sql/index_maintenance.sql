-- Keeping the index: deletes and VACUUM, inserts after the build, the blocks
-- reloption, REINDEX, empty and unlogged tables, a build that spills, and
-- simhash_index_check and simhash_index_stats on invalid and partitioned
-- indexes.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set index_docs :abs_srcdir '/sql/include/index_docs.psql'
\i :index_docs

-- Deletes and VACUUM
DELETE FROM docs WHERE id % 3 = 0;
UPDATE docs SET fp = pg_temp.flip(fp, '{63}') WHERE id % 7 = 0;
VACUUM docs;
SELECT simhash_index_check('docs_fp', true);
SELECT r, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, %s)', pg_temp.fp_of(1), r))
FROM unnest('{0,3,6,10,64}'::int[]) r;
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs ORDER BY fp <-> %L LIMIT 25) s',
                           pg_temp.fp_of(2), pg_temp.fp_of(2)));

-- Inserts after the build split pages and keep answers exact
INSERT INTO docs SELECT i, pg_temp.fp_of(i) FROM generate_series(5001, 12000) i;
INSERT INTO docs SELECT 200000 + k, pg_temp.flip('00000000ffffffff', ARRAY[k % 64]) FROM generate_series(1, 700) k;
INSERT INTO docs SELECT 300000 + k, 'aaaaaaaaaaaaaaaa' FROM generate_series(1, 1500) k;  -- one fingerprint, many rows
SELECT simhash_index_check('docs_fp', true);
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 2)', 'aaaaaaaaaaaaaaab'));
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 1)', '00000000ffffffff'));
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 7)', pg_temp.fp_of(6000)));
SELECT max(largest_bucket) FROM simhash_index_stats('docs_fp');

-- blocks reloption
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 0);
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 17);
CREATE INDEX docs_fp8 ON docs USING simhash (fp) WITH (blocks = 8);
SELECT partition, block_bits FROM simhash_index_stats('docs_fp8') ORDER BY partition LIMIT 3;
DROP INDEX docs_fp;
SELECT r, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, %s)', pg_temp.fp_of(4), r))
FROM unnest('{0,7,8,15,16,30}'::int[]) r;
CREATE INDEX docs_fp1 ON docs USING simhash (fp) WITH (blocks = 1);
DROP INDEX docs_fp8;
SELECT r, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, %s)', pg_temp.fp_of(4), r))
FROM unnest('{0,2,5}'::int[]) r;
DROP INDEX docs_fp1;

-- REINDEX, REINDEX CONCURRENTLY
CREATE INDEX docs_fp ON docs USING simhash (fp);
REINDEX INDEX docs_fp;
REINDEX INDEX CONCURRENTLY docs_fp;
SELECT simhash_index_check('docs_fp', true);
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp %% %L', pg_temp.fp_of(8)));
-- ALTER INDEX ... SET (blocks) takes effect at the next REINDEX: until then
-- the index keeps (and inserts use) the partitions it was built with.
ALTER INDEX docs_fp SET (blocks = 8);
SELECT count(*) AS partitions FROM simhash_index_stats('docs_fp');
INSERT INTO docs VALUES (400001, pg_temp.flip(pg_temp.fp_of(8), ARRAY[3]));
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp %% %L', pg_temp.fp_of(8)));
SELECT simhash_index_check('docs_fp', true);
REINDEX INDEX docs_fp;
SELECT count(*) AS partitions FROM simhash_index_stats('docs_fp');
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp %% %L', pg_temp.fp_of(8)));
ALTER INDEX docs_fp RESET (blocks);
REINDEX INDEX docs_fp;
DELETE FROM docs WHERE id = 400001;

-- Empty table, unlogged table
CREATE UNLOGGED TABLE empty_docs (fp simhash);
CREATE INDEX empty_docs_fp ON empty_docs USING simhash (fp);
SELECT simhash_index_check('empty_docs_fp', true);
SET enable_seqscan = off;
SELECT count(*) FROM empty_docs WHERE fp % '0123456789abcdef';
SELECT count(*) FROM (SELECT * FROM empty_docs ORDER BY fp <-> '0123456789abcdef' LIMIT 5) s;
INSERT INTO empty_docs VALUES ('0123456789abcdef'), ('0123456789abcdee'), (NULL);
SELECT fp FROM empty_docs WHERE fp % '0123456789abcdef' ORDER BY fp;
RESET enable_seqscan;

-- A build larger than maintenance_work_mem spills to one tuplesort per partition
CREATE TABLE spill AS SELECT i AS id, pg_temp.fp_of(i) AS fp FROM generate_series(1, 70000) i;
SET maintenance_work_mem = '1MB';
CREATE INDEX spill_fp ON spill USING simhash (fp) WITH (blocks = 3);
RESET maintenance_work_mem;
SELECT simhash_index_check('spill_fp', true);
SELECT partition, entries FROM simhash_index_stats('spill_fp');
SET enable_seqscan = off;
SELECT id FROM spill WHERE simhash_within(fp, pg_temp.flip(pg_temp.fp_of(4242), '{5,50}'), 2);
RESET enable_seqscan;
DROP TABLE spill;

-- simhash_index_check refuses an index that CREATE INDEX CONCURRENTLY left
-- invalid (it reported "corruption" in one, which need not hold every row),
-- and so does simhash_index_stats (it reported a bad metapage, XX002: the
-- failed build had written no metapage).
CREATE TABLE unfinished (id bigint);
INSERT INTO unfinished SELECT generate_series(1, 10);
CREATE INDEX CONCURRENTLY unfinished_fp ON unfinished USING simhash (((100 / (id - 5))::simhash));
SELECT indisvalid FROM pg_index WHERE indexrelid = 'unfinished_fp'::regclass;
SELECT simhash_index_check('unfinished_fp');
SELECT * FROM simhash_index_stats('unfinished_fp');
DROP TABLE unfinished;

-- A partitioned index has no pages; the hint names the function that was
-- called (simhash_index_stats' hint named simhash_index_check).
CREATE TABLE parted (fp simhash) PARTITION BY HASH (fp);
CREATE TABLE parted_0 PARTITION OF parted FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE INDEX parted_fp ON parted USING simhash (fp);
SELECT simhash_index_check('parted_fp');
SELECT * FROM simhash_index_stats('parted_fp');
DROP TABLE parted;
-- The hint's query runs as given: function and index schema-qualified, the
-- index's name a proper literal (it was bare, and broke on a quote), and
-- it reaches the leaves under a partition that is partitioned itself (it
-- read pg_inherits, one level down, and failed on that partition's index).
CREATE SCHEMA "odd schema";
CREATE TABLE "odd schema".parted (k int, fp simhash) PARTITION BY LIST (k);
CREATE TABLE "odd schema".parted_0 PARTITION OF "odd schema".parted FOR VALUES IN (0);
CREATE TABLE "odd schema".parted_1 PARTITION OF "odd schema".parted FOR VALUES IN (1) PARTITION BY HASH (fp);
CREATE TABLE "odd schema".parted_1a PARTITION OF "odd schema".parted_1 FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE INDEX "we'ird" ON "odd schema".parted USING simhash (fp);
INSERT INTO "odd schema".parted VALUES (0, '0123456789abcdef'), (1, '0123456789abcdef'), (1, 'fedcba9876543210');
SELECT * FROM simhash_index_stats('"odd schema"."we''ird"');
CREATE FUNCTION pg_temp.run_hint(stmt text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE hint text; r record;
BEGIN
    EXECUTE stmt;
EXCEPTION WHEN wrong_object_type THEN
    GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
    SET LOCAL search_path = pg_catalog;
    FOR r IN EXECUTE substr(hint, strpos(hint, 'SELECT')) LOOP
        RETURN NEXT r::text;
    END LOOP;
END $$;
SELECT pg_temp.run_hint($$SELECT * FROM simhash_index_stats('"odd schema"."we''ird"')$$);
SELECT pg_temp.run_hint($$SELECT simhash_index_check('"odd schema"."we''ird"')$$);
DROP SCHEMA "odd schema" CASCADE;
DROP TABLE docs, empty_docs;
