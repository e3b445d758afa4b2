-- Skewed keys: one fingerprint stored many times, counter values in one
-- block value, and churn (copies in, the oldest deleted, VACUUM), read and
-- written through pages the index keeps few and full.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set statement_buffers :abs_srcdir '/sql/include/statement_buffers.psql'
\i :statement_buffers

-- A fingerprint stored in many rows (the same short text everywhere): an
-- insert of it touches a bounded number of pages however long the run of
-- equal keys (it used to walk the whole run, a lock per page), and the run's
-- pages stay full: packed, about 1,000 entries each (they used to fill by
-- their tail alone, 581 entries of 14 bytes, 52 pages here).
CREATE TABLE repeated (id int, fp simhash);
CREATE INDEX repeated_fp ON repeated USING simhash (fp);
INSERT INTO repeated SELECT k, 'c0ffee00c0ffee00' FROM generate_series(1, 30000) k;
SELECT pg_temp.statement_buffers($$INSERT INTO repeated VALUES (0, 'c0ffee00c0ffee00')$$) < 40 AS insert_touches_few_pages;
SELECT bool_and(leaf_pages <= 30000 / 800) AS run_pages_full FROM simhash_index_stats('repeated_fp');
-- A key after that run in the same 16-bit block value: the first such
-- insert passes the run's pages and records a skip over them, the next ones
-- jump (as do scans).
INSERT INTO repeated VALUES (1, 'c0ffff0000000000');
SELECT pg_temp.statement_buffers($$INSERT INTO repeated VALUES (2, 'c0ffff0000000001')$$) < 40 AS after_run_touches_few_pages;
INSERT INTO repeated SELECT k, 'c0ffee00c0ffee00' FROM generate_series(1, 3000) k;
SELECT pg_temp.statement_buffers($$INSERT INTO repeated VALUES (3, 'c0ffff0000000003')$$) < 40 AS skip_survives_splits;
SELECT simhash_index_check('repeated_fp', true);
SET enable_seqscan = off;
SELECT count(*) FROM repeated WHERE fp = 'c0ffee00c0ffee00';
SELECT count(*) FROM repeated WHERE fp % 'c0ffee00c0ffee01';
SELECT id FROM repeated WHERE simhash_within(fp, 'c0ffff0000000002', 1) ORDER BY id;
-- An index scan reads leaf pages as rows are asked for: "is there a near
-- duplicate?" stops at the first, not after all 33,001.
SET enable_bitmapscan = off;
SELECT pg_temp.statement_buffers($$SELECT 1 FROM repeated WHERE fp % 'c0ffee00c0ffee01' LIMIT 1$$) < 20 AS first_match_reads_few_pages;
-- So does KNN: while it reads a probe, the rows it finds one bit past what
-- it has proved complete are the nearest any row can be, and are returned
-- as they come (it used to collect the whole run of 33,001 first: ~70 pages
-- for LIMIT 1, twice that one bit away).  Each row still comes once, in
-- distance order.
SELECT pg_temp.statement_buffers($$SELECT 1 FROM repeated ORDER BY fp <-> 'c0ffee00c0ffee00' LIMIT 1$$) < 10 AS knn_tie_reads_few_pages,
       pg_temp.statement_buffers($$SELECT 1 FROM repeated ORDER BY fp <-> 'c0ffee00c0ffee01' LIMIT 1$$) < 100 AS knn_tie_one_bit_away;
SELECT count(*) AS rows, count(DISTINCT ctid) AS distinct_rows, bool_and(d >= prev) AS in_order
FROM (SELECT ctid, d, lag(d, 1, 0) OVER (ORDER BY n) AS prev
      FROM (SELECT ctid, fp <-> 'c0ffee00c0ffee01' AS d, row_number() OVER () AS n
            FROM (SELECT ctid, fp FROM repeated ORDER BY fp <-> 'c0ffee00c0ffee01' LIMIT 33003) k) numbered) s;
-- = and small radii probe only the partitions the pigeonhole needs (one
-- for =, r + 1 for a radius r below the 4 blocks), and = only its own key:
-- these fingerprints share their last blocks with the 33,001 stored ones,
-- whose pages every partition used to read (about 70 each).
SELECT pg_temp.statement_buffers($$SELECT 1 FROM repeated WHERE fp = 'aaaaee00c0ffee00'$$) < 20 AS equality_reads_few_pages,
       pg_temp.statement_buffers($$SELECT 1 FROM repeated WHERE simhash_within(fp, 'aaaaee00c0ffee00', 0)$$) < 20 AS radius_0_reads_few_pages,
       pg_temp.statement_buffers($$SELECT 1 FROM repeated WHERE simhash_within(fp, 'aaaaeeeec0ffee00', 1)$$) < 20 AS radius_1_reads_few_pages;
SELECT count(*) FROM repeated WHERE fp = 'aaaaee00c0ffee00' OR simhash_within(fp, 'aaaaeeeec0ffee00', 1);
SELECT count(*) FROM repeated WHERE simhash_within(fp, 'c0ffee00c0ffee03', 2);
RESET enable_bitmapscan;
RESET enable_seqscan;
DROP TABLE repeated;

-- Many different fingerprints in one 16-bit block value: counter values
-- (top 32 bits 0) inserted in order.  Every insert walked the block value's
-- pages from the directory's leaf, more each time (quadratic); a walk now
-- leaves starts for later ones in this backend (shx_hints.cpp).
CREATE TABLE counter (id int, fp simhash);
CREATE INDEX counter_fp ON counter USING simhash (fp);
INSERT INTO counter SELECT g, simhash_from_bigint(g) FROM generate_series(1, 60000) g;
SELECT pg_temp.statement_buffers($$INSERT INTO counter VALUES (60001, simhash_from_bigint(60001))$$) < 40 AS ascending_insert_touches_few_pages;
SELECT pg_temp.statement_buffers($$INSERT INTO counter VALUES (0, simhash_from_bigint(31234))$$) < 40 AS insert_inside_touches_few_pages;
SELECT simhash_index_check('counter_fp', true);
-- Ascending keys split a full page near its end (leaving it at the
-- fillfactor, 90%), not in half: no later key comes back to refill the left
-- half, so the pages stayed half empty (191 in a partition here, 99
-- after a REINDEX).
SELECT partition, leaf_pages < 120 AS pages_full FROM simhash_index_stats('counter_fp') ORDER BY partition;
SET enable_seqscan = off;
SELECT pg_temp.statement_buffers($$SELECT 1 FROM counter WHERE fp = simhash_from_bigint(59000)$$) < 20 AS equality_reads_few_pages;
SELECT count(*) FROM counter WHERE fp = simhash_from_bigint(31234);
SELECT count(*) FROM counter WHERE simhash_within(fp, simhash_from_bigint(40000), 2);
RESET enable_seqscan;
SELECT count(*) FROM counter WHERE simhash_within(fp, simhash_from_bigint(40000), 2);
-- Pages are never freed, and a page keeps its key range: once rising keys
-- leave a range behind (a sliding window of counter values), VACUUM empties
-- its pages and nothing refills them.  simhash_index_stats counts them;
-- REINDEX gives them back.
DELETE FROM counter WHERE id <= 40000;
VACUUM counter;
SELECT partition, entries, empty_leaf_pages > 40 AS many_empty FROM simhash_index_stats('counter_fp') ORDER BY partition;
REINDEX INDEX counter_fp;
SELECT partition, entries, empty_leaf_pages FROM simhash_index_stats('counter_fp') ORDER BY partition;
DROP TABLE counter;

-- A relcache reload of an open index (an ANALYZE, here in the middle of an
-- INSERT) frees its cached state but not the walk starts hung off it: each
-- reload left 196 kB behind in the index's context, 3.9 MB after 20 (found
-- by testing).  And only the partitions with a crowded slot (here
-- the two whose block of a counter value is 0) hold hints, 12 kB each, where
-- every index took 196 kB.  A fresh backend, so that only this index's
-- state is counted.
\c
CREATE TABLE reloaded (id int, fp simhash);
CREATE INDEX reloaded_fp ON reloaded USING simhash (fp);
INSERT INTO reloaded SELECT g, simhash_from_bigint(g) FROM generate_series(1, 20000) g;
CREATE TEMP TABLE state_bytes (bytes bigint);
CREATE FUNCTION pg_temp.analyze_every(i int, every int, last int) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
    IF i % every = 0 THEN ANALYZE reloaded; END IF;
    IF i = last THEN
        INSERT INTO state_bytes SELECT sum(total_bytes) FROM pg_backend_memory_contexts
         WHERE ident = 'reloaded_fp' OR name = 'simhash index state';
    END IF;
    RETURN true;
END $$;
INSERT INTO reloaded SELECT g, simhash_from_bigint(g) FROM generate_series(20001, 22000) g
 WHERE pg_temp.analyze_every(g, 100, 22000);
SELECT bytes < 100000 AS state_memory_bounded FROM state_bytes;
SELECT simhash_index_check('reloaded_fp', true);
-- A session that only reads also leaves walk starts in a crowded slot (only
-- inserts did, so every lookup of a reader crossed the slot's pages; found
-- by testing): its second lookup there reads a few pages.
\c
\getenv abs_srcdir PG_ABS_SRCDIR
\set statement_buffers :abs_srcdir '/sql/include/statement_buffers.psql'
\i :statement_buffers
SET enable_seqscan = off;
SELECT pg_temp.statement_buffers($$SELECT 1 FROM reloaded WHERE fp = simhash_from_bigint(21000)$$) > 20 AS first_lookup_crosses_slot,
       pg_temp.statement_buffers($$SELECT 1 FROM reloaded WHERE fp = simhash_from_bigint(21500)$$) < 10 AS next_lookup_reads_few_pages;
SELECT count(*) FROM reloaded WHERE fp = simhash_from_bigint(21500);
RESET enable_seqscan;
DROP TABLE reloaded;
-- A fingerprint stored very many times under churn (new copies in, the
-- oldest deleted, VACUUM): inserts used to fill and split the pages at the
-- start of its run while VACUUM emptied pages further along, so the index
-- grew with every row ever written (16 pages a round here).  Inserts now
-- look along the run for room from where the last search stopped, which the
-- run's first page keeps for every session (insert_along_run).  The rows
-- come in batches, each followed by a relcache reload of the index (as a
-- new session starts without it): a position kept in the backend alone
-- was lost that way, and the run grew as before.
CREATE TABLE churn (id bigserial, fp simhash) WITH (autovacuum_enabled = off);
INSERT INTO churn (fp) SELECT CASE WHEN g % 2 = 0 THEN 'aaaaaaaaaaaaaaaa'::simhash
                                   ELSE simhash_from_bigint(hashint8(g)) END FROM generate_series(1, 40000) g;
CREATE INDEX churn_fp ON churn USING simhash (fp);
CREATE TEMP TABLE churn_size (round int, pages bigint);
\set ECHO none
SELECT a, b, c FROM (
  SELECT r, k, format($$INSERT INTO churn (fp) SELECT CASE WHEN g %% 2 = 0 THEN 'aaaaaaaaaaaaaaaa'::simhash
                          ELSE simhash_from_bigint(hashint8(g + %s)) END FROM generate_series(1, 400) g$$, r * 100000 + k * 400) AS a,
               'ALTER INDEX churn_fp SET (fillfactor = 90)' AS b, 'DISCARD PLANS' AS c
    FROM generate_series(1, 8) r, generate_series(1, 20) k
  UNION ALL
  SELECT r, 21, $$DELETE FROM churn WHERE id IN (SELECT id FROM churn ORDER BY id LIMIT 8000)$$, 'VACUUM churn',
         format($$INSERT INTO churn_size VALUES (%s, pg_relation_size('churn_fp') / 8192)$$, r)
    FROM generate_series(1, 8) r) rounds
 ORDER BY r, k \gexec
\set ECHO all
SELECT max(pages) FILTER (WHERE round = 8) - max(pages) FILTER (WHERE round = 2) <= 24 AS holds_its_size FROM churn_size;
SELECT simhash_index_check('churn_fp', true);
SET enable_seqscan = off;
SELECT count(*) AS copies FROM churn WHERE fp = 'aaaaaaaaaaaaaaaa';
SELECT count(*) AS near FROM churn WHERE fp % 'aaaaaaaaaaaaaaab';
RESET enable_seqscan;
SELECT count(*) FILTER (WHERE fp = 'aaaaaaaaaaaaaaaa') AS copies_seq, count(*) FILTER (WHERE fp % 'aaaaaaaaaaaaaaab') AS near_seq FROM churn;
DROP TABLE churn;
-- The same churn with other fingerprints written just below the popular one
-- in its block value (as near copies of a popular text are), so they share
-- its run's first leaf.  Their splits of that leaf used to cut among the
-- popular key's copies, leaving room for it at the run's front each time:
-- its inserts never went along the run, and the run grew while VACUUM
-- emptied its pages (34 leaves to 78 here, 22 of them empty).
-- Splits now cut where the copies start.
CREATE TABLE below (id bigserial, fp simhash, hot bool) WITH (autovacuum_enabled = off);
INSERT INTO below (fp, hot) SELECT 'abcd000000001000', true FROM generate_series(1, 30000);
INSERT INTO below (fp, hot) SELECT ('abcd000000000' || lpad(to_hex(i % 4096), 3, '0'))::simhash, false
  FROM generate_series(1, 3000) i;
CREATE INDEX below_fp ON below USING simhash (fp);
CREATE TEMP TABLE below_built AS SELECT partition, leaf_pages FROM simhash_index_stats('below_fp');
\set ECHO none
SELECT CASE WHEN i % 151 = 0 THEN 'VACUUM below' ELSE
  format($$INSERT INTO below (fp, hot) SELECT 'abcd000000001000', true FROM generate_series(1, 20);
           INSERT INTO below (fp, hot) VALUES (('abcd000000000' || lpad(to_hex(%s), 3, '0'))::simhash, false);
           DELETE FROM below WHERE id IN (SELECT id FROM below WHERE hot ORDER BY id LIMIT 20);
           DELETE FROM below WHERE id IN (SELECT id FROM below WHERE NOT hot ORDER BY id LIMIT 1)$$, i * 997 % 4096) END
  FROM generate_series(1, 151 * 8) i \gexec
\set ECHO all
SELECT s.partition, s.leaf_pages - b.leaf_pages <= 10 AS holds_its_size, s.empty_leaf_pages <= 2 AS reuses_emptied_pages
  FROM simhash_index_stats('below_fp') s JOIN below_built b USING (partition) ORDER BY 1;
SELECT simhash_index_check('below_fp', true);
SET enable_seqscan = off;
SELECT count(*) AS copies FROM below WHERE fp = 'abcd000000001000';
SELECT count(*) AS near FROM below WHERE fp % 'abcd000000000800';
RESET enable_seqscan;
SELECT count(*) FILTER (WHERE fp = 'abcd000000001000') AS copies_seq, count(*) FILTER (WHERE fp % 'abcd000000000800') AS near_seq FROM below;
-- Such a split leaves the directory slot naming the page that ends below
-- the popular key, and every insert of the key read that page and stepped
-- right in each partition (28 buffers an insert here).  A walk
-- that crosses the clean end leaves a start there for the session's next
-- walks (shx_hint_leaving), so a session's later inserts of the key read 16.
\c
\i :statement_buffers
SELECT pg_temp.statement_buffers($$INSERT INTO below (fp, hot) VALUES ('abcd000000001000', true)$$) > 0 AS first_insert,
       pg_temp.statement_buffers($$INSERT INTO below (fp, hot) VALUES ('abcd000000001000', true)$$) <= 20 AS next_insert_reads_few_pages;
SELECT simhash_index_check('below_fp', true);
DROP TABLE below;
-- The largest fingerprint, all ones (every partition's rotation of it too),
-- stored many times under churn: its run ends each partition's chain, and
-- a search for room that reached the chain's end gave up there without
-- going back to the run's start, so the run grew at every pass while
-- VACUUM emptied its pages (11 leaves to 23, 6 of them empty,
-- over 12 turnovers here; fffffffffffffffe stays at 13).
CREATE TABLE ones (id bigserial, fp simhash) WITH (autovacuum_enabled = off);
INSERT INTO ones (fp) SELECT 'ffffffffffffffff' FROM generate_series(1, 10000);
CREATE INDEX ones_fp ON ones USING simhash (fp);
CREATE TEMP TABLE ones_built AS SELECT partition, leaf_pages FROM simhash_index_stats('ones_fp');
\set ECHO none
SELECT CASE WHEN i % 51 = 0 THEN 'VACUUM ones'
            ELSE $$INSERT INTO ones (fp) SELECT 'ffffffffffffffff' FROM generate_series(1, 20);
                   DELETE FROM ones WHERE id IN (SELECT id FROM ones ORDER BY id LIMIT 20)$$ END
  FROM generate_series(1, 51 * 120) i \gexec
\set ECHO all
SELECT s.partition, s.leaf_pages - b.leaf_pages <= 3 AS holds_its_size, s.empty_leaf_pages <= 1 AS reuses_emptied_pages
  FROM simhash_index_stats('ones_fp') s JOIN ones_built b USING (partition) ORDER BY 1;
SELECT simhash_index_check('ones_fp', true);
SET enable_seqscan = off;
SELECT count(*) AS copies FROM ones WHERE fp = 'ffffffffffffffff';
RESET enable_seqscan;
DROP TABLE ones;
