-- ALTER EXTENSION simhash UPDATE from 1.0 to 1.1 on a database with data, a
-- fingerprinting trigger and a simhash index: the update runs, the index
-- answers radius and KNN queries through itself with the rows it gave
-- before, and the updated extension has exactly the objects of a fresh
-- install.  The objects the update adds are listed below by name, so an
-- object missing from simhash--1.0--1.1.sql fails this test even though a
-- fresh install, which runs the same script, would miss it too.
-- In a database of its own, which starts at 1.0.
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS simhash_upgrade;
CREATE DATABASE simhash_upgrade;
\c simhash_upgrade
SET client_min_messages = warning;
CREATE EXTENSION simhash VERSION '1.0';
RESET client_min_messages;
SELECT extversion FROM pg_extension WHERE extname = 'simhash';

-- The extension's members, each with what defines it beyond its name (a
-- function's C symbol, volatility, strictness, parallel safety, leakproof,
-- support function; every object's comment).  Implicit array types, members
-- from PostgreSQL 17 on, are left out: they come and go with their types.
CREATE FUNCTION pg_temp.simhash_members() RETURNS TABLE (member text, definition text)
LANGUAGE sql AS $$
  SELECT pg_describe_object(d.classid, d.objid, 0),
         concat_ws(' | ', p.prosrc, p.provolatile, p.proisstrict, p.proparallel, p.proleakproof,
                   nullif(p.prosupport, 0)::regproc, p.prorettype::regtype,
                   obj_description(d.objid, d.classid::regclass::name))
  FROM pg_depend d
  LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
  WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
    AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'simhash')
    AND NOT EXISTS (SELECT FROM pg_type t WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
                    AND t.typcategory = 'A' AND t.typelem <> 0)
$$;
CREATE TABLE members_1_0 AS SELECT * FROM pg_temp.simhash_members();

-- Documents fingerprinted by the trigger, some of them near copies of
-- others (one word of forty changed), and a simhash index.
CREATE TABLE docs (id int PRIMARY KEY, body text, fp simhash);
CREATE TRIGGER docs_fp BEFORE INSERT OR UPDATE ON docs
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger(fp, body);
INSERT INTO docs (id, body)
SELECT i, (SELECT string_agg('w' || ((i * 7919 + j * 104729) % 997), ' ' ORDER BY j)
           FROM generate_series(1, 40) j)
FROM generate_series(1, 2000) i;
INSERT INTO docs (id, body)
SELECT 100000 + id, regexp_replace(body, '^w[0-9]+', 'changed') FROM docs WHERE id % 10 = 0;
CREATE INDEX docs_fp_idx ON docs USING simhash (fp);
ANALYZE docs;

-- What the index answers now, for 40 queries (20 documents and their near
-- copies; the texts repeat every 997 ids): rows within 3 bits, and the
-- 10 nearest (ids of rows strictly nearer than the 10th, with every
-- distance, so that ties at the 10th do not matter).
CREATE TABLE queries AS SELECT id AS qid, fp AS q FROM docs WHERE id % 100 = 0;
CREATE FUNCTION answers() RETURNS TABLE (qid int, within3 int[], knn_ids int[], knn_distances int[])
LANGUAGE sql AS $$
  SELECT qid,
         (SELECT array_agg(d.id ORDER BY d.id) FROM docs d WHERE simhash_within(d.fp, q, 3)),
         (SELECT array_agg(k.id ORDER BY k.id) FILTER (WHERE k.dist < (SELECT max(dist) FROM
              (SELECT d.fp <-> q AS dist FROM docs d ORDER BY d.fp <-> q LIMIT 10) m))
          FROM (SELECT d.id, d.fp <-> q AS dist FROM docs d ORDER BY d.fp <-> q LIMIT 10) k),
         (SELECT array_agg(k.dist ORDER BY k.dist)
          FROM (SELECT d.fp <-> q AS dist FROM docs d ORDER BY d.fp <-> q LIMIT 10) k)
  FROM queries
$$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE TABLE answers_1_0 AS SELECT * FROM answers();
RESET enable_seqscan;
RESET enable_bitmapscan;
-- the same by sequential scans: the index answered right before the update
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS queries, count(*) FILTER (WHERE cardinality(a.within3) > 1) > 0 AS some_with_near_copies,
       count(*) FILTER (WHERE a IS DISTINCT FROM s) AS differing_from_seqscan
FROM answers_1_0 a JOIN answers() s USING (qid);
RESET enable_indexscan;
RESET enable_bitmapscan;

-- The update.
ALTER EXTENSION simhash UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'simhash';

-- The index answers through itself, as before.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, '0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
SELECT count(*) AS queries, count(*) FILTER (WHERE a IS DISTINCT FROM b) AS differing_from_1_0
FROM answers_1_0 a JOIN answers() b USING (qid);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT simhash_index_check('docs_fp_idx', true);

-- The trigger and the index take new rows.
INSERT INTO docs (id, body) SELECT 200000, body FROM docs WHERE id = 100;
UPDATE docs SET body = body || ' appended' WHERE id = 200;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id FROM docs WHERE fp = (SELECT fp FROM docs WHERE id = 100) ORDER BY id;
SELECT fp = simhash(body) AS refingerprinted FROM docs WHERE id = 200;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- and 1.1's simhash('literal') is there
SELECT simhash('hello world') = simhash('hello world'::text) AS literal_call;

-- What the update added, by name: each 1.1 object must be listed here.
SELECT member FROM pg_temp.simhash_members()
EXCEPT SELECT member FROM members_1_0 ORDER BY 1;
-- and nothing of 1.0 is gone or changed
SELECT member, definition FROM members_1_0
EXCEPT SELECT member, definition FROM pg_temp.simhash_members() ORDER BY 1;

-- The updated extension equals a fresh 1.1 install, definitions included.
CREATE TABLE members_updated AS SELECT * FROM pg_temp.simhash_members();
SET client_min_messages = warning;
DROP EXTENSION simhash CASCADE;
CREATE EXTENSION simhash;
RESET client_min_messages;
SELECT extversion FROM pg_extension WHERE extname = 'simhash';
SELECT count(*) > 100 AS members FROM members_updated;
SELECT 'only updated' AS side, * FROM (SELECT * FROM members_updated
    EXCEPT SELECT * FROM pg_temp.simhash_members()) u
UNION ALL
SELECT 'only fresh', * FROM (SELECT * FROM pg_temp.simhash_members()
    EXCEPT SELECT * FROM members_updated) f
ORDER BY 1, 2;

\c :regress_db
DROP DATABASE simhash_upgrade;
