-- Stopping near-duplicates at write time: an exclusion constraint on the
-- simhash index (EXCLUDE USING simhash (fp WITH %)).  The conflict check
-- scans the index with a dirty snapshot, not an MVCC one.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
SET simhash.threshold = 3;

CREATE TABLE uniq_docs (id int PRIMARY KEY, fp simhash,
                        CONSTRAINT no_near_duplicates EXCLUDE USING simhash (fp WITH %));
INSERT INTO uniq_docs VALUES (1, 'ffff000000000000');
-- 3 bits from row 1: rejected, naming both fingerprints
INSERT INTO uniq_docs VALUES (2, 'ffff000000000007');
-- 4 bits from row 1: accepted
INSERT INTO uniq_docs VALUES (3, 'ffff00000000000f');
-- NULL fingerprints (texts without features) never conflict
INSERT INTO uniq_docs VALUES (4, NULL), (5, NULL);
-- a near-duplicate inside one statement conflicts with the row before it
INSERT INTO uniq_docs VALUES (6, '00000000ffff0000'), (7, '00000000ffff0001');
-- the ingest pattern: keep the first copy, skip the rest silently
INSERT INTO uniq_docs VALUES (8, '00000000ffff0000'), (9, '00000000ffff0003'), (10, '00000000fff00000')
    ON CONFLICT DO NOTHING;
-- an update that makes a row a near-duplicate of another is rejected too
UPDATE uniq_docs SET fp = 'ffff000000000100' WHERE id = 8;
-- an update of a row to something near its own old value is fine
UPDATE uniq_docs SET fp = '00000000ffff0001' WHERE id = 8;
SELECT id, fp FROM uniq_docs ORDER BY id;

-- The radius is simhash.threshold in the session that writes: set it for
-- the database or role (ALTER DATABASE ... SET simhash.threshold) so every
-- writer agrees.
SET simhash.threshold = 0;
INSERT INTO uniq_docs VALUES (11, 'ffff000000000001');
SET simhash.threshold = 6;
INSERT INTO uniq_docs VALUES (12, '00000000ffff003f');
SET simhash.threshold = 4;
INSERT INTO uniq_docs VALUES (12, '00000000ffff003f');
RESET simhash.threshold;
-- So a writer who may SET can admit near-duplicates; the README's remedy
-- for writers not trusted with that: a SECURITY DEFINER function that fixes
-- the threshold for its own statements, and no INSERT on the table.
CREATE ROLE regress_simhash_writer;
CREATE FUNCTION add_doc(i int, f simhash) RETURNS int LANGUAGE sql
    SECURITY DEFINER SET simhash.threshold = 3 SET search_path = public, pg_temp
    AS $$ INSERT INTO uniq_docs VALUES (i, f) RETURNING id $$;
REVOKE ALL ON FUNCTION add_doc(int, simhash) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION add_doc(int, simhash) TO regress_simhash_writer;
SET ROLE regress_simhash_writer;
SET simhash.threshold = 0;
SELECT add_doc(13, 'ffff000000000003');  -- 2 bits from row 1: refused at 3
SELECT add_doc(13, '0f0f0f0f0f0f0f0f');
INSERT INTO uniq_docs VALUES (14, 'ffff000000000003');
SHOW simhash.threshold;
RESET ROLE;
RESET simhash.threshold;
DELETE FROM uniq_docs WHERE id = 13;
DROP FUNCTION add_doc(int, simhash);
DROP ROLE regress_simhash_writer;
-- One column per index: near-duplicates within a category are refused by
-- one partial constraint per value (README).
CREATE TABLE cat_docs (cat int, fp simhash,
    CONSTRAINT cat1_near EXCLUDE USING simhash (fp WITH %) WHERE (cat = 1),
    CONSTRAINT cat2_near EXCLUDE USING simhash (fp WITH %) WHERE (cat = 2));
INSERT INTO cat_docs VALUES (1, 'ffff000000000000'), (2, 'ffff000000000001');
INSERT INTO cat_docs VALUES (1, 'ffff000000000003');
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/sql/include/sqlstate_of.psql'
\i :sqlstate_of
SELECT pg_temp.sqlstate_of($$CREATE TABLE two_cols (cat int, fp simhash, EXCLUDE USING simhash (fp WITH %, cat WITH =))$$) AS two_columns;
DROP TABLE cat_docs;

-- Adding the constraint to a table that already holds near-duplicates fails
-- and names a pair.
CREATE TABLE dup_docs (id int, fp simhash);
INSERT INTO dup_docs VALUES (1, 'aaaaaaaaaaaaaaaa'), (2, 'aaaaaaaaaaaaaaab'), (3, '5555555555555555');
ALTER TABLE dup_docs ADD CONSTRAINT dup_docs_near EXCLUDE USING simhash (fp WITH %);
DELETE FROM dup_docs WHERE id = 2;
ALTER TABLE dup_docs ADD CONSTRAINT dup_docs_near EXCLUDE USING simhash (fp WITH %);
INSERT INTO dup_docs VALUES (4, 'aaaaaaaaaaaaaaa8');

-- Exact duplicates only: WITH =
CREATE TABLE exact_docs (fp simhash, EXCLUDE USING simhash (fp WITH =));
INSERT INTO exact_docs VALUES ('0123456789abcdef'), ('0123456789abcdee');
INSERT INTO exact_docs VALUES ('0123456789abcdef');

-- The application writes only the text: a generated column fingerprints it.
CREATE TABLE pages (id int, body text,
                    fp simhash GENERATED ALWAYS AS (simhash(body)) STORED,
                    EXCLUDE USING simhash (fp WITH %));
CREATE FUNCTION pg_temp.page_text(first int, last int) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT string_agg(md5(i::text), ' ' ORDER BY i) FROM generate_series(first, last) i $$;
INSERT INTO pages (id, body) VALUES (1, pg_temp.page_text(1, 400));
-- the same page with one word replaced, or one word appended: refused
INSERT INTO pages (id, body) VALUES (2, replace(pg_temp.page_text(1, 400), md5('5'), 'edited'));
INSERT INTO pages (id, body) VALUES (3, pg_temp.page_text(1, 400) || ' appended');
-- another page: accepted
INSERT INTO pages (id, body) VALUES (4, pg_temp.page_text(401, 800));
SELECT id, fp FROM pages ORDER BY id;

-- ... or no stored fingerprint at all: the constraint on the expression.
CREATE TABLE notes (id int, body text, EXCLUDE USING simhash ((simhash(body)) WITH %));
INSERT INTO notes VALUES (1, pg_temp.page_text(1, 300));
INSERT INTO notes VALUES (2, pg_temp.page_text(1, 300) || ' extra');
INSERT INTO notes VALUES (3, pg_temp.page_text(301, 600)), (4, NULL);
SELECT id FROM notes ORDER BY id;

-- A deferred constraint is checked at commit: a transaction may pass
-- through a state with near-duplicates as long as it leaves none.
CREATE TABLE deferred_docs (id int, fp simhash,
                            EXCLUDE USING simhash (fp WITH %) DEFERRABLE INITIALLY DEFERRED);
BEGIN;
INSERT INTO deferred_docs VALUES (1, 'abcdef0123456789'), (2, 'abcdef0123456788');
DELETE FROM deferred_docs WHERE id = 1;
COMMIT;
BEGIN;
INSERT INTO deferred_docs VALUES (3, 'abcdef012345678b');
SELECT count(*) FROM deferred_docs;
COMMIT;
SELECT id FROM deferred_docs ORDER BY id;
-- A deferred check looks at insert (at the threshold then) and again at
-- commit (at the threshold then) only for rows that conflicted at insert,
-- as PostgreSQL checks any deferred exclusion constraint: either
-- threshold lets a row in (README, "Refusing near-duplicates").
BEGIN;
SET LOCAL simhash.threshold = 0;
INSERT INTO deferred_docs VALUES (4, 'abcdef0123456789');  -- 1 bit from row 2
SET LOCAL simhash.threshold = 3;
COMMIT;
BEGIN;
INSERT INTO deferred_docs VALUES (5, 'abcdef012345678f');  -- conflicts at 3
SET LOCAL simhash.threshold = 0;
COMMIT;
BEGIN;
INSERT INTO deferred_docs VALUES (6, 'abcdef012345670f');  -- conflicts at 3
COMMIT;
SELECT id FROM deferred_docs ORDER BY id;

-- Enough rows that the conflict check probes a real index: every one of
-- 2000 well-spread rows is accepted, and a copy of each with 1 to 3 bits
-- flipped is rejected (counted through ON CONFLICT DO NOTHING).
CREATE TABLE many_docs (id int, fp simhash, EXCLUDE USING simhash (fp WITH %) WITH (fillfactor = 40));
INSERT INTO many_docs SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::bigint::simhash
    FROM generate_series(1, 2000) i ON CONFLICT DO NOTHING;
SELECT count(*) AS accepted FROM many_docs;
WITH ins AS (
    INSERT INTO many_docs
    SELECT 100000 + id, (fp::bigint # (1::bigint << (id % 64)) # CASE WHEN id % 3 = 0 THEN 0 ELSE 1::bigint << ((id * 7) % 64) END)::simhash
    FROM many_docs ON CONFLICT DO NOTHING RETURNING 1)
SELECT count(*) AS near_copies_accepted FROM ins;
SELECT simhash_index_check(conindid, true) FROM pg_constraint WHERE conname = 'many_docs_fp_excl';

-- Deduplicating an existing table (the README's recipe): copy it, oldest
-- first, into a table whose constraint keeps one of each near-duplicate
-- group.  A chain a ~ b ~ c with a and c 6 bits apart keeps a and c: b is
-- near a kept row, c is not.  "Delete every row with an older
-- near-duplicate" would delete c too, leaving nothing near it.
CREATE TABLE posts (id int PRIMARY KEY, fp simhash);
INSERT INTO posts VALUES (1, '0000000000000000'), (2, '0000000000000007'),  -- a, b: 3 bits apart
                         (3, '000000000000003f'),                            -- c: 3 from b, 6 from a
                         (4, 'ffff000000000000'), (5, 'ffff000000000001'),  -- 1 bit apart
                         (6, NULL);
SELECT a.id, b.id, a.fp <-> b.fp AS distance FROM posts a JOIN posts b ON a.fp % b.fp AND a.id < b.id ORDER BY 1, 2;
CREATE INDEX ON posts USING simhash (fp);  -- not copied: the constraint brings its own
CREATE TABLE posts_unique (LIKE posts INCLUDING ALL EXCLUDING INDEXES, EXCLUDE USING simhash (fp WITH %));
INSERT INTO posts_unique SELECT * FROM posts ORDER BY id ON CONFLICT DO NOTHING;
SELECT id FROM posts_unique ORDER BY id;
-- no two kept rows within the threshold; every dropped row is near a kept one
SELECT count(*) AS kept_pairs_within FROM posts_unique a JOIN posts_unique b ON a.fp % b.fp AND a.id < b.id;
SELECT count(*) AS dropped_and_alone FROM posts p
 WHERE NOT EXISTS (SELECT 1 FROM posts_unique u WHERE u.id = p.id)
   AND NOT EXISTS (SELECT 1 FROM posts_unique u WHERE u.fp % p.fp);
-- which kept row stands for each row
SELECT p.id, CASE WHEN p.fp IS NULL THEN p.id
                  ELSE (SELECT u.id FROM posts_unique u WHERE u.fp % p.fp ORDER BY u.fp <-> p.fp, u.id LIMIT 1) END AS kept_as
  FROM posts p ORDER BY p.id;
SELECT count(*) AS indexes_of_the_copy FROM pg_index WHERE indrelid = 'posts_unique'::regclass;
DELETE FROM posts p WHERE NOT EXISTS (SELECT 1 FROM posts_unique u WHERE u.id = p.id);
SELECT id FROM posts ORDER BY id;
DROP TABLE posts, posts_unique;
-- With a generated fingerprint the copy names the other columns and
-- computes its own.
CREATE TABLE gposts (id int PRIMARY KEY, body text, fp simhash GENERATED ALWAYS AS (simhash(body)) STORED);
INSERT INTO gposts (id, body) VALUES (1, 'Near-duplicate detection inside PostgreSQL databases'),
    (2, 'near duplicate detection inside postgresql databases!'), (3, 'An unrelated sentence about cooking pasta');
CREATE TABLE gposts_unique (LIKE gposts INCLUDING ALL EXCLUDING INDEXES, EXCLUDE USING simhash (fp WITH %));
INSERT INTO gposts_unique (id, body) SELECT id, body FROM gposts ORDER BY id ON CONFLICT DO NOTHING;
SELECT id, fp = simhash(body) AS computed FROM gposts_unique ORDER BY id;
DROP TABLE gposts, gposts_unique;

-- The constraint's index serves queries like any simhash index.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM uniq_docs ORDER BY fp <-> 'ffff000000000001' LIMIT 2;
SELECT id FROM uniq_docs ORDER BY fp <-> 'ffff000000000001' LIMIT 2;
RESET enable_seqscan;

DROP TABLE uniq_docs, dup_docs, exact_docs, pages, notes, deferred_docs, many_docs;
