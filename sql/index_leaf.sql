-- The leaf pages' layout: packed tids, grouped and plain entries, leaves cut
-- at group boundaries, and the tails VACUUM merges.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

-- A leaf's tids are packed in the bits its own tids need, so a tail entry
-- far away in the heap widens every packed tid of its page: 990 rows of one
-- fingerprint in the first heap pages fill one leaf per partition (tids of
-- 11 bits), 40 more after 200,000 rows that are not indexed go to its
-- tail, and packed together the 1029 that VACUUM keeps would need 18 bits
-- each, more than the page.  VACUUM keeps them where they were (it used to
-- fail on the rewrite), and the next inserts split the page.
CREATE TABLE far_tids (id int, fp simhash) WITH (autovacuum_enabled = off);
INSERT INTO far_tids SELECT k, 'c0ffee00c0ffee00' FROM generate_series(1, 990) k;
INSERT INTO far_tids SELECT k, NULL FROM generate_series(1001, 200000) k;
CREATE INDEX far_tids_fp ON far_tids USING simhash (fp);
SELECT leaf_pages FROM simhash_index_stats('far_tids_fp') WHERE partition = 0;
INSERT INTO far_tids SELECT k, 'c0ffee00c0ffee00' FROM generate_series(200001, 200040) k;
DELETE FROM far_tids WHERE id = 500;
VACUUM (INDEX_CLEANUP ON) far_tids;
SELECT simhash_index_check('far_tids_fp', true);
INSERT INTO far_tids SELECT k, 'c0ffee00c0ffee00' FROM generate_series(200041, 200400) k;
SELECT simhash_index_check('far_tids_fp', true);
SELECT leaf_pages > 1 AS split FROM simhash_index_stats('far_tids_fp') WHERE partition = 0;
SET enable_seqscan = off;
SELECT count(*) FROM far_tids WHERE fp % 'c0ffee00c0ffee01';
RESET enable_seqscan;
DROP TABLE far_tids;

-- A leaf whose groups average fewer than 6 entries is written as plain
-- entries, which take more room than grouped ones.  Here one leaf holds 130
-- groups of 7 (grouped) and 50 tail entries of new prefixes; VACUUM then
-- removes one entry of each group, so neither all the survivors nor the
-- grouped ones alone (5.96 a group) would fit the page plain.  It keeps the
-- grouped ones grouped (it used to fail: "776 entries do not fit a page").
CREATE TABLE vac_form (id int, fp simhash) WITH (autovacuum_enabled = off);
INSERT INTO vac_form
SELECT g * 7 + i, (((2 * g)::bigint << 48) | (hashint8(g * 7 + i) & x'0000ffffffffffff'::bigint))::simhash
FROM generate_series(0, 299) g, generate_series(0, 6) i;
CREATE INDEX vac_form_fp ON vac_form USING simhash (fp) WITH (blocks = 1);
INSERT INTO vac_form
SELECT 10000 + k, (((2 * k + 1)::bigint << 48) | (hashint8(k) & x'0000ffffffffffff'::bigint))::simhash
FROM generate_series(0, 49) k;
DELETE FROM vac_form WHERE id % 7 = 0 AND id < 7 * 130;
VACUUM (INDEX_CLEANUP ON) vac_form;
SELECT simhash_index_check('vac_form_fp', true);
SET enable_seqscan = off;
SELECT count(*) FROM vac_form WHERE simhash_within(fp, '0000000000000000', 64);
RESET enable_seqscan;
DROP TABLE vac_form;

-- Leaves end at a group boundary (all keys of one 16-bit block value) where
-- one is near the fill, so that a probe of a group reads one leaf, not two
-- (SHX_HI_CLEAN).  Partition 0 here has 40 groups of 400 entries, two to a
-- page: the largest key of every group is found on one page, as its
-- smallest is (17 of the 40 took a second page when pages were cut inside
-- groups).
CREATE TABLE clean_cut (id int, fp simhash) WITH (autovacuum_enabled = off);
INSERT INTO clean_cut
SELECT i, ((((i % 40) + 1)::bigint << 48) | (hashint8(i) & x'0000ffffffffffff'::bigint))::simhash
FROM generate_series(1, 16000) i;
CREATE INDEX clean_cut_fp ON clean_cut USING simhash (fp);
VACUUM ANALYZE clean_cut;
\getenv abs_srcdir PG_ABS_SRCDIR
\set statement_buffers :abs_srcdir '/sql/include/statement_buffers.psql'
\i :statement_buffers
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(DISTINCT b) AS one_page_per_probe, count(*) AS probes
FROM (SELECT pg_temp.statement_buffers(format($$SELECT fp FROM clean_cut WHERE fp = %L$$, e)) AS b
      FROM generate_series(1, 40) v,
           LATERAL (SELECT fp FROM clean_cut WHERE fp::bigint >> 48 = v ORDER BY fp LIMIT 1) lo (e)
      UNION ALL
      SELECT pg_temp.statement_buffers(format($$SELECT fp FROM clean_cut WHERE fp = %L$$, e))
      FROM generate_series(1, 40) v,
           LATERAL (SELECT fp FROM clean_cut WHERE fp::bigint >> 48 = v ORDER BY fp DESC LIMIT 1) hi (e)) s;
-- A page ending at such a boundary keeps every key equal to its hi: copies
-- of the last key of group 2, inserted until its page and the pages split
-- off it are full, stay left of the boundary (an insert of a full page's hi
-- went on to the right sibling, where a walk ending at that hi never looks).
INSERT INTO clean_cut SELECT 100000 + i, ((3::bigint << 48) - 1)::simhash FROM generate_series(1, 3000) i;
SELECT count(*) AS copies_found FROM clean_cut WHERE fp = ((3::bigint << 48) - 1)::simhash;
SELECT count(*) AS group_2_found FROM clean_cut WHERE fp::bigint >> 48 = 2 AND simhash_within(fp, ((3::bigint << 48) - 1)::simhash, 48);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) AS group_2_rows FROM clean_cut WHERE fp::bigint >> 48 = 2 AND simhash_within(fp, ((3::bigint << 48) - 1)::simhash, 48);
SELECT simhash_index_check('clean_cut_fp', true);
DROP TABLE clean_cut;

-- VACUUM merges the tail of each grouped leaf (the entries inserts appended
-- since the page was last written sorted, which every probe of the page
-- reads whole) into its sorted region, as GIN's VACUUM flushes its pending
-- list; simhash_index_stats counts them in tail_entries.  VACUUM only
-- removed dead entries: the tails stayed until a page filled.
CREATE TABLE tails (id int, fp simhash) WITH (autovacuum_enabled = off);
INSERT INTO tails
SELECT i, ((((i % 40) + 1)::bigint << 48) | (hashint8(i) & x'0000ffffffffffff'::bigint))::simhash
FROM generate_series(1, 8000) i;
CREATE INDEX tails_fp ON tails USING simhash (fp) WITH (blocks = 1);
INSERT INTO tails
SELECT i, ((((i % 40) + 1)::bigint << 48) | (hashint8(i) & x'0000ffffffffffff'::bigint))::simhash
FROM generate_series(8001, 8300) i;
SELECT leaf_pages, tail_entries FROM simhash_index_stats('tails_fp');
VACUUM tails;
SELECT leaf_pages, tail_entries FROM simhash_index_stats('tails_fp');
SELECT simhash_index_check('tails_fp', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS near_8300 FROM tails WHERE simhash_within(fp, (SELECT fp FROM tails WHERE id = 8300), 20);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) AS near_8300 FROM tails WHERE simhash_within(fp, (SELECT fp FROM tails WHERE id = 8300), 20);
DROP TABLE tails;
