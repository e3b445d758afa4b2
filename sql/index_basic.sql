-- The simhash index access method: every operator through the index against a
-- forced sequential scan, on deterministic data with planted near-duplicates.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set index_docs :abs_srcdir '/sql/include/index_docs.psql'
\i :index_docs
SELECT simhash_index_check('docs_fp', true);
SELECT partition, block_bits, entries, leaf_pages FROM simhash_index_stats('docs_fp');

-- simhash_within, radii 0-8 and 64
SELECT r, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, %s)', pg_temp.fp_of(7), r))
FROM generate_series(0, 8) r UNION ALL
SELECT 64, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 64)', pg_temp.fp_of(7)))
ORDER BY 1;
-- argument order does not matter
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(%L, fp, 5)', pg_temp.fp_of(3)));
-- % follows simhash.threshold
SELECT t, set_config('simhash.threshold', t::text, false) IS NOT NULL AS set,
       pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp %% %L', pg_temp.fp_of(11)))
FROM generate_series(0, 8) t;
RESET simhash.threshold;
-- =
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp = %L', pg_temp.fp_of(42)));
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp = %L', '0123456789abcdef'));
-- two conditions
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 6) AND fp %% %L',
                           pg_temp.fp_of(5), pg_temp.flip(pg_temp.fp_of(5), '{1}')));

-- KNN: exact distance order, alone and with a radius condition
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs ORDER BY fp <-> %L LIMIT 25) s',
                           pg_temp.fp_of(9), pg_temp.fp_of(9)));
SELECT id, fp <-> pg_temp.fp_of(9) AS d FROM docs ORDER BY fp <-> pg_temp.fp_of(9), id LIMIT 12;
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs WHERE simhash_within(fp, %L, 4) ORDER BY fp <-> %L LIMIT 5) s',
                           pg_temp.fp_of(9), pg_temp.fp_of(9), pg_temp.fp_of(9)));
-- KNN within a radius of the same point (the scan stops at the radius while
-- probes cover it, else collects and sorts): the order, then the exact set
SELECT r, pg_temp.same(format('SELECT array_agg(d) || array_agg(id ORDER BY d, id) FROM (SELECT id, fp <-> %L AS d FROM docs WHERE simhash_within(fp, %L, %s) ORDER BY fp <-> %L) s',
                              pg_temp.fp_of(9), pg_temp.fp_of(9), r, pg_temp.fp_of(9)))
  FROM unnest(ARRAY[0, 2, 3, 6, 9, 12]) r;
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs WHERE fp %% %L ORDER BY fp <-> %L LIMIT 4) s',
                           pg_temp.fp_of(12), pg_temp.fp_of(12), pg_temp.fp_of(12)));
-- a radius around another point only filters
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs WHERE simhash_within(fp, %L, 3) ORDER BY fp <-> %L LIMIT 7) s',
                           pg_temp.fp_of(9), pg_temp.flip(pg_temp.fp_of(9), '{1,40}'), pg_temp.fp_of(9)));
-- KNN from a point far from every row still returns k rows in order
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs ORDER BY fp <-> %L LIMIT 3) s',
                           'ffffffffffffffff', 'ffffffffffffffff'));

-- NULLs are not indexed and never match
SELECT count(*) FROM docs WHERE fp IS NULL;
SET enable_seqscan = off;
SELECT count(*) FROM docs WHERE fp = NULL::simhash;
SELECT count(*) FROM docs WHERE simhash_within(fp, pg_temp.fp_of(1), NULL);
SELECT count(*) FROM docs WHERE simhash_within(fp, NULL, 3);
SELECT count(*) FROM (SELECT id FROM docs ORDER BY fp <-> NULL LIMIT 3) s;
-- radius out of range: same error as without the index
SELECT simhash_within(fp, pg_temp.fp_of(1), 65) FROM docs WHERE id = 1;
SELECT count(*) FROM docs WHERE simhash_within(fp, pg_temp.fp_of(1), 65);
SELECT count(*) FROM docs WHERE simhash_within(fp, pg_temp.fp_of(1), -1);
RESET enable_seqscan;

-- The planner picks the index for selective conditions on its own.
ANALYZE docs;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp % '0123456789abcdef';
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, '0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp = '0123456789abcdef';
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
-- ... and a sequential scan when the radius makes the index useless
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, '0123456789abcdef', 40);

-- index-only scan: the index returns the fingerprint itself
VACUUM docs;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT fp FROM docs WHERE fp % '0123456789abcdef';
SELECT fp, fp <-> pg_temp.fp_of(3) AS d FROM docs WHERE simhash_within(fp, pg_temp.fp_of(3), 2) ORDER BY d, fp;
RESET enable_bitmapscan;
-- a nested loop probing the index once per outer row ("near-duplicates of these new rows")
CREATE TABLE incoming (id int, fp simhash);
INSERT INTO incoming SELECT c, pg_temp.flip(pg_temp.fp_of(c), '{0,33}') FROM generate_series(1, 5) c;
ANALYZE incoming;
EXPLAIN (COSTS OFF) SELECT i.id, d.id FROM incoming i JOIN docs d ON d.fp % i.fp;
SELECT i.id, array_agg(d.id ORDER BY d.id) FROM incoming i JOIN docs d ON d.fp % i.fp GROUP BY i.id ORDER BY i.id;
EXPLAIN (COSTS OFF) SELECT i.id, d.id FROM incoming i JOIN docs d ON simhash_within(d.fp, i.fp, 4);
SELECT i.id, count(*) FROM incoming i JOIN docs d ON simhash_within(d.fp, i.fp, 4) GROUP BY i.id ORDER BY i.id;
-- A btree (here a unique constraint) on the column: the planner asks
-- simhash_within's support function about every index on fp, and the
-- btree's strategy 3 is =; building the index condition from it failed
-- planning with "type simhash is not composite".
CREATE TABLE keyed (id int, fp simhash UNIQUE);
INSERT INTO keyed SELECT min(id), fp FROM docs WHERE fp IS NOT NULL GROUP BY fp;
SELECT count(*) FROM keyed WHERE simhash_within(fp, pg_temp.fp_of(7), 4);
SELECT count(*) FROM keyed WHERE simhash_within(pg_temp.fp_of(7), fp, 4);
CREATE INDEX keyed_sh ON keyed USING simhash (fp);
ANALYZE keyed;
EXPLAIN (COSTS OFF) SELECT id FROM keyed WHERE simhash_within(fp, '0123456789abcdef', 3);
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM keyed WHERE simhash_within(fp, %L, 4)', pg_temp.fp_of(7)));
-- Under row-level security only a LEAKPROOF condition may go into an index
-- scan; % cannot fail, so a role the policy applies to still gets the index
-- (simhash_within raises an error on its radius argument, so it cannot be).
CREATE ROLE regress_simhash_tenant;
ALTER TABLE keyed ENABLE ROW LEVEL SECURITY;
CREATE POLICY even_ids ON keyed USING (id % 2 = 0);
GRANT SELECT ON keyed TO regress_simhash_tenant;
SET ROLE regress_simhash_tenant;
EXPLAIN (COSTS OFF) SELECT id FROM keyed WHERE fp % '0123456789abcdef';
SELECT array_agg(id ORDER BY id) FROM keyed WHERE fp % pg_temp.fp_of(7);
RESET ROLE;
SELECT array_agg(id ORDER BY id) FROM keyed WHERE fp % pg_temp.fp_of(7);  -- the owner: every row
DROP TABLE keyed;
DROP ROLE regress_simhash_tenant;

-- An index scan reads simhash.threshold when it starts: a SET between the
-- FETCHes of an open cursor does not change what its scan returns (README,
-- "Settings"; a sequential scan tests each row when it reads it).
CREATE TABLE cur (id int, fp simhash);
INSERT INTO cur SELECT i, 'abcdef0123456789' FROM generate_series(1, 4) i;
INSERT INTO cur VALUES (5, 'abcdef0123456788');
CREATE INDEX cur_fp ON cur USING simhash (fp);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM cur WHERE fp % 'abcdef0123456788';
BEGIN;
DECLARE k CURSOR FOR SELECT id FROM cur WHERE fp % 'abcdef0123456788';
FETCH 1 FROM k;
SET LOCAL simhash.threshold = 0;
FETCH ALL FROM k;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE cur;

-- Like amcheck's functions, the check (which holds off writers) and the
-- statistics (which show the table's contents) are not granted to PUBLIC;
-- any role could run them on any table.
CREATE ROLE regress_simhash_reader;
SET ROLE regress_simhash_reader;
SELECT simhash_index_check('docs_fp');
SELECT count(*) FROM simhash_index_stats('docs_fp');
RESET ROLE;
GRANT EXECUTE ON FUNCTION simhash_index_check(regclass, boolean), simhash_index_stats(regclass) TO regress_simhash_reader;
SET ROLE regress_simhash_reader;
SELECT simhash_index_check('docs_fp');
SELECT count(*) FROM simhash_index_stats('docs_fp');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION simhash_index_check(regclass, boolean), simhash_index_stats(regclass) FROM regress_simhash_reader;
DROP ROLE regress_simhash_reader;

-- Index-only scans check rows on pages not all-visible in the heap; a row
-- updated in place (HOT) is found through its chain's first tuple.  The
-- check once moved the scan's copy of the tid to the chain's live member,
-- where the executor's own heap visit then found nothing: the updated rows
-- went missing (found by the randomized differential test).
CREATE TABLE hot_rows (id int, note text, fp simhash) WITH (fillfactor = 50);
INSERT INTO hot_rows SELECT i, '', ('0123456789abcdef'::simhash::bigint # (1::bigint << i))::simhash
  FROM generate_series(0, 39) i;
INSERT INTO hot_rows SELECT i, '', ((hashint4(i)::bigint << 32) | (hashint4(-i)::bigint & 4294967295))::simhash
  FROM generate_series(40, 2000) i;
CREATE INDEX hot_rows_fp ON hot_rows USING simhash (fp);
VACUUM ANALYZE hot_rows;
UPDATE hot_rows SET note = 'updated' WHERE id < 20;
SELECT n_tup_hot_upd > 0 AS hot_updates FROM pg_stat_xact_user_tables WHERE relname = 'hot_rows';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT fp FROM hot_rows WHERE fp % '0123456789abcdef';
SELECT count(*) AS index_only FROM (SELECT fp FROM hot_rows WHERE fp % '0123456789abcdef') s;
SELECT count(*) AS knn_index_only FROM (SELECT fp FROM hot_rows ORDER BY fp <-> '0123456789abcdef' LIMIT 40) s
 WHERE fp % '0123456789abcdef';
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE hot_rows;

-- Every scan counts in pg_stat_user_indexes.idx_scan, as btree's do (it
-- stayed 0, so "unused index" queries picked simhash indexes to drop; found
-- by testing): an index scan, a KNN scan and a bitmap scan.
-- (The counts of earlier statements, still pending in this backend, go out first.)
SELECT pg_stat_force_next_flush();
BEGIN;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) >= 0 AS index_scan FROM docs WHERE fp % '0123456789abcdef';
SELECT count(*) >= 0 AS knn FROM (SELECT id FROM docs ORDER BY fp <-> '0123456789abcdef' LIMIT 3) k;
SET LOCAL enable_bitmapscan = on;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;
SELECT count(*) >= 0 AS bitmap_scan FROM docs WHERE fp % '0123456789abcdef';
SELECT pg_stat_get_xact_numscans('docs_fp'::regclass) AS scans;
COMMIT;

-- Pages read again through the buffer they were found in before
-- (ReadRecentBuffer, shx_buffer_guess.cpp) count in pg_statio_*_indexes as
-- ReadBuffer's reads do: a scan repeated in one transaction fetches as
-- many blocks each time, all hits.
BEGIN;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) > 0 AS found FROM docs WHERE simhash_within(fp, pg_temp.fp_of(8), 9);
SELECT pg_stat_get_xact_blocks_fetched('docs_fp'::regclass) AS f1 \gset
SELECT count(*) > 0 AS found FROM docs WHERE simhash_within(fp, pg_temp.fp_of(8), 9);
SELECT pg_stat_get_xact_blocks_fetched('docs_fp'::regclass) AS f2, pg_stat_get_xact_blocks_hit('docs_fp'::regclass) AS h2 \gset
SELECT count(*) > 0 AS found FROM docs WHERE simhash_within(fp, pg_temp.fp_of(8), 9);
SELECT :f2 - :f1 > 0 AS counted, :f2 - :f1 = pg_stat_get_xact_blocks_fetched('docs_fp'::regclass) - :f2 AS same,
       pg_stat_get_xact_blocks_hit('docs_fp'::regclass) - :h2 = pg_stat_get_xact_blocks_fetched('docs_fp'::regclass) - :f2 AS all_hits;
COMMIT;

-- Catalog: operator class, properties
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'simhash_ops';
SELECT p, pg_index_column_has_property('docs_fp'::regclass, 1, p)
FROM unnest('{orderable,distance_orderable,returnable,search_nulls}'::text[]) p;
SELECT simhash_index_check('docs'::regclass);
SELECT simhash_index_check('docs_pkey'::regclass);
DROP TABLE docs, incoming;
