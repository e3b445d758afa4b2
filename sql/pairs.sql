-- simhash_pairs and simhash_clusters against the self-join and plain-SQL
-- references: planted chains (a ~ b ~ c with a, c beyond the radius), exact
-- repeats, NULLs, deleted and updated rows (MVCC, HOT), radii 0, 3, 8, 20
-- and 64, indexes of 4 and 5 blocks, a skewed block value, bad arguments.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/sql/include/sqlstate_of.psql'
\i :sqlstate_of

-- Deterministic pseudo-random fingerprints (md5 of the row number).
CREATE FUNCTION pg_temp.fp_of(i int) RETURNS simhash LANGUAGE sql IMMUTABLE AS
$$ SELECT ('x' || substr(md5(i::text), 1, 16))::bit(64)::bigint::simhash $$;
-- fp with the bits listed in flips (0 = least significant) inverted.
CREATE FUNCTION pg_temp.flip(fp simhash, flips int[]) RETURNS simhash LANGUAGE sql IMMUTABLE AS
$$ SELECT (fp::bigint # coalesce((SELECT bit_or(1::bigint << f) FROM unnest(flips) f), 0))::simhash $$;

CREATE TABLE pt (id int PRIMARY KEY, fp simhash, note text);
-- 1,500 random rows
INSERT INTO pt SELECT i, pg_temp.fp_of(i), NULL FROM generate_series(1, 1500) i;
-- chains: b is 3 bits from a, c 3 further bits from b (6 from a)
INSERT INTO pt SELECT 2000 + i, pg_temp.flip(pg_temp.fp_of(i), ARRAY[1, 20, 40]), NULL FROM generate_series(1, 40) i;
INSERT INTO pt SELECT 3000 + i, pg_temp.flip(pg_temp.fp_of(i), ARRAY[1, 20, 40, 5, 25, 60]), NULL FROM generate_series(1, 40) i;
-- near copies 0 to 12 bits away, spread over the blocks
INSERT INTO pt SELECT 4000 + i, pg_temp.flip(pg_temp.fp_of(100 + i), (SELECT array_agg(j * 5) FROM generate_series(1, i % 13) j)), NULL
FROM generate_series(1, 120) i;
-- exact repeats: row 7's fingerprint 6 more times
INSERT INTO pt SELECT 5000 + i, pg_temp.fp_of(7), NULL FROM generate_series(1, 6) i;
-- NULL fingerprints never pair
INSERT INTO pt SELECT 6000 + i, NULL, NULL FROM generate_series(1, 5) i;
-- a skewed block value: 300 fingerprints sharing their top 16 bits and 16
-- more (partitions 0 and 1), otherwise random, some within a few bits of
-- each other, and one of them stored 40 times
INSERT INTO pt SELECT 7000 + i,
    ((x'12345678'::bit(32)::bigint << 32) | (pg_temp.fp_of(7000 + i % 150)::bigint & x'00000000FFFFFFFF'::bigint)
        # CASE WHEN i >= 150 THEN 1::bigint << (i % 7) ELSE 0 END)::simhash, NULL
FROM generate_series(0, 299) i;
INSERT INTO pt SELECT 8000 + i, (SELECT fp FROM pt WHERE id = 7003), NULL FROM generate_series(1, 40) i;
CREATE INDEX pt_fp_idx ON pt USING simhash (fp);
CREATE INDEX pt_fp5_idx ON pt USING simhash (fp) WITH (blocks = 5);

-- MVCC: deleted rows, a row updated to a new fingerprint, HOT updates
-- (the row's ctid moves, the index still names the old one)
DELETE FROM pt WHERE id IN (2, 3, 5001, 3004, 7010);
UPDATE pt SET fp = pg_temp.flip(fp, ARRAY[63]) WHERE id = 4005;
UPDATE pt SET note = 'moved' WHERE id % 50 = 0 OR id IN (1, 5002, 2001, 8001);
SELECT count(*) AS hot_updated FROM pt WHERE note = 'moved';

-- "n pairs; missing m; extra e": the function against the self-join
-- through the index (%, or simhash_within for an explicit radius)
CREATE FUNCTION pg_temp.check_pairs(idx regclass, r int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint; missing bigint; extra bigint; dup bigint;
BEGIN
    CREATE TEMP TABLE f ON COMMIT DROP AS SELECT * FROM simhash_pairs(idx, r);
    CREATE TEMP TABLE j ON COMMIT DROP AS
        SELECT x.ctid AS a, y.ctid AS b, x.fp <-> y.fp AS distance
        FROM pt x JOIN pt y ON simhash_within(x.fp, y.fp, r) AND x.ctid < y.ctid;
    SELECT count(*) INTO n FROM f;
    SELECT count(*) INTO missing FROM (SELECT * FROM j EXCEPT ALL SELECT * FROM f) s;
    SELECT count(*) INTO extra FROM (SELECT * FROM f EXCEPT ALL SELECT * FROM j) s;
    SELECT count(*) - count(DISTINCT (least(a, b), greatest(a, b))) INTO dup FROM f;
    DROP TABLE f;
    DROP TABLE j;
    RETURN format('%s pairs; missing %s, extra %s, repeated %s', n, missing, extra, dup);
END $$;

BEGIN;
SELECT r, pg_temp.check_pairs('pt_fp_idx', r) FROM unnest(ARRAY[0, 1, 3, 4, 8, 20]) r;
SELECT r, pg_temp.check_pairs('pt_fp5_idx', r) FROM unnest(ARRAY[0, 3, 8]) r;
COMMIT;

-- the default radius is simhash.threshold, as % uses it
SET simhash.threshold = 4;
SELECT count(*) = (SELECT count(*) FROM pt x JOIN pt y ON x.fp % y.fp AND x.ctid < y.ctid) AS default_is_threshold,
       count(*) FROM simhash_pairs('pt_fp_idx');
RESET simhash.threshold;

-- pairs join back to the table by ctid; a < b and the distance is the rows'
SELECT count(*) AS pairs, bool_and(p.a < p.b) AS ordered, bool_and(x.fp <-> y.fp = p.distance) AS distances,
       count(*) FILTER (WHERE x.note = 'moved' OR y.note = 'moved') AS with_moved_rows,
       count(*) FILTER (WHERE x.id IN (2, 3, 5001, 3004, 7010) OR y.id IN (2, 3, 5001, 3004, 7010)) AS with_deleted
FROM simhash_pairs('pt_fp_idx', 3) p JOIN pt x ON x.ctid = p.a JOIN pt y ON y.ctid = p.b;

-- a chain: 2001 ~ 1 and 2001 ~ 3001 within 3, 1 and 3001 are 6 apart
SELECT x.id, y.id, p.distance FROM simhash_pairs('pt_fp_idx', 3) p JOIN pt x ON x.ctid = p.a JOIN pt y ON y.ctid = p.b
WHERE x.id IN (1, 2001, 3001) OR y.id IN (1, 2001, 3001) ORDER BY 1, 2;

-- the statement's snapshot: rows deleted in this transaction are gone, rows added are there
BEGIN;
DELETE FROM pt WHERE id = 2001;
INSERT INTO pt VALUES (9001, pg_temp.flip(pg_temp.fp_of(1), ARRAY[9]), NULL);
SELECT x.id, y.id, p.distance FROM simhash_pairs('pt_fp_idx', 3) p JOIN pt x ON x.ctid = p.a JOIN pt y ON y.ctid = p.b
WHERE x.id IN (1, 2001, 3001, 9001) OR y.id IN (1, 2001, 3001, 9001) ORDER BY 1, 2;
ROLLBACK;

-- radius 64: every pair of a small table
CREATE TABLE small (id int, fp simhash);
INSERT INTO small SELECT i, pg_temp.fp_of(i) FROM generate_series(1, 40) i;
INSERT INTO small VALUES (41, NULL), (42, pg_temp.fp_of(1));
CREATE INDEX small_idx ON small USING simhash (fp);
SELECT count(*) AS all_pairs, count(DISTINCT (a, b)) AS distinct_pairs FROM simhash_pairs('small_idx', 64);
SELECT r, count(*) AS pairs, (SELECT count(*) FROM small x JOIN small y ON (x.fp <-> y.fp) <= r AND x.ctid < y.ctid) AS seq_join
FROM unnest(ARRAY[28, 32, 40, 64]) r, simhash_pairs('small_idx', r) GROUP BY r ORDER BY r;

-- Clusters.  References in plain SQL over the self-join's pairs.
CREATE TEMP TABLE edges AS
    SELECT x.ctid AS a, y.ctid AS b FROM pt x JOIN pt y ON simhash_within(x.fp, y.fp, 3) AND x.ctid < y.ctid;
-- connected components: each node's smallest reachable ctid
CREATE TEMP TABLE comp_ref AS
WITH RECURSIVE und(u, v) AS (SELECT a, b FROM edges UNION SELECT b, a FROM edges),
reach(node, root) AS (SELECT u, u FROM und UNION SELECT und.v, reach.root FROM reach JOIN und ON und.u = reach.node)
SELECT node AS member, min(root) AS representative FROM reach GROUP BY node;
SELECT count(*) AS rows_in_clusters, count(DISTINCT representative) AS clusters FROM comp_ref;
SELECT (SELECT count(*) FROM simhash_clusters('pt_fp_idx', 3)) AS function_rows,
       (SELECT count(*) FROM (SELECT * FROM comp_ref EXCEPT SELECT * FROM simhash_clusters('pt_fp_idx', 3)) s) AS missing,
       (SELECT count(*) FROM (SELECT * FROM simhash_clusters('pt_fp_idx', 3) EXCEPT SELECT * FROM comp_ref) s) AS extra;
-- the chain is one cluster
SELECT count(DISTINCT c.representative) AS chain_clusters FROM simhash_clusters('pt_fp_idx', 3) c JOIN pt ON pt.ctid = c.member
WHERE pt.id IN (1, 2001, 3001);

-- keep_first: walk the rows in ctid order, keep a row unless a kept row is within 3
CREATE FUNCTION pg_temp.keep_first_ref(r int) RETURNS TABLE(member tid, representative tid) LANGUAGE plpgsql AS $$
DECLARE row record; k tid;
BEGIN
    CREATE TEMP TABLE kept (ctid_of tid, fp simhash) ON COMMIT DROP;
    FOR row IN SELECT ctid, fp FROM pt WHERE fp IS NOT NULL ORDER BY ctid LOOP
        SELECT ctid_of INTO k FROM kept WHERE simhash_within(kept.fp, row.fp, r) ORDER BY ctid_of LIMIT 1;
        IF k IS NULL THEN
            INSERT INTO kept VALUES (row.ctid, row.fp);
            member := row.ctid; representative := row.ctid;
        ELSE
            member := row.ctid; representative := k;
        END IF;
        RETURN NEXT;
    END LOOP;
    DROP TABLE kept;
END $$;
BEGIN;
CREATE TEMP TABLE keep_ref AS SELECT * FROM pg_temp.keep_first_ref(3);
-- the function lists the rows that have a neighbour; the reference every row
SELECT (SELECT count(*) FROM simhash_clusters('pt_fp_idx', 3, 'keep_first')) AS function_rows,
       (SELECT count(*) FROM keep_ref WHERE member <> representative) AS ref_removed,
       (SELECT count(*) FROM (SELECT * FROM keep_ref k WHERE EXISTS (SELECT FROM edges e WHERE k.member IN (e.a, e.b))
                              EXCEPT SELECT * FROM simhash_clusters('pt_fp_idx', 3, 'keep_first')) s) AS missing,
       (SELECT count(*) FROM (SELECT * FROM simhash_clusters('pt_fp_idx', 3, 'keep_first') EXCEPT SELECT * FROM keep_ref) s) AS extra;
COMMIT;
-- a chain keeps its first and last rows (6 bits apart), not the middle one
SELECT pt.id, rep.id AS representative FROM simhash_clusters('pt_fp_idx', 3, 'keep_first') c
JOIN pt ON pt.ctid = c.member JOIN pt rep ON rep.ctid = c.representative WHERE pt.id IN (1, 2001, 3001) ORDER BY 1;
-- the copies of one fingerprint: one cluster, one kept row
SELECT count(*) AS copies, count(DISTINCT c.representative) AS representatives
FROM simhash_clusters('pt_fp_idx', 0, 'keep_first') c JOIN pt ON pt.ctid = c.member WHERE pt.fp = pg_temp.fp_of(7);

-- deduplicating is one DELETE; afterwards no two rows are within 3, and
-- exactly the kept rows remain
BEGIN;
DELETE FROM pt USING simhash_clusters('pt_fp_idx', 3, 'keep_first') c
WHERE pt.ctid = c.member AND c.member <> c.representative;
SELECT count(*) AS left_pairs FROM simhash_pairs('pt_fp_idx', 3);
SELECT count(*) = (SELECT count(*) FROM keep_ref WHERE member = representative) + 5 AS kept_rows_and_nulls FROM pt;
ROLLBACK;

-- bad arguments
SELECT pg_temp.sqlstate_of($$SELECT * FROM simhash_pairs('pt_pkey', 3)$$) AS btree_index,
       pg_temp.sqlstate_of($$SELECT * FROM simhash_pairs('pt', 3)$$) AS a_table,
       pg_temp.sqlstate_of($$SELECT * FROM simhash_pairs('pt_fp_idx', -1)$$) AS radius_neg,
       pg_temp.sqlstate_of($$SELECT * FROM simhash_pairs('pt_fp_idx', 65)$$) AS radius_65,
       pg_temp.sqlstate_of($$SELECT * FROM simhash_clusters('pt_fp_idx', 3, 'nearest')$$) AS method;
\set VERBOSITY terse
SELECT * FROM simhash_pairs('pt_pkey', 3);
SELECT * FROM simhash_pairs('pt_fp_idx', 65);
SELECT * FROM simhash_clusters('pt_fp_idx', 3, 'nearest');
\set VERBOSITY default
SELECT count(*) AS null_index FROM simhash_pairs(NULL, 3);

-- reading the pairs needs SELECT on the table
CREATE ROLE regress_simhash_pairs_reader;
GRANT USAGE ON SCHEMA public TO regress_simhash_pairs_reader;
SET ROLE regress_simhash_pairs_reader;
SELECT pg_temp.sqlstate_of($$SELECT * FROM simhash_pairs('pt_fp_idx', 3)$$) AS without_select;
RESET ROLE;
REVOKE USAGE ON SCHEMA public FROM regress_simhash_pairs_reader;
DROP ROLE regress_simhash_pairs_reader;

DROP TABLE pt, small;
