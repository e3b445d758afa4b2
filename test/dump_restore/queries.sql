-- Asked of the database test/dump_restore/run.sh dumps, before the dump and
-- after its restore into another major: every answer must be the same.
-- Each answer follows a line "-- N: what it asks"; queries that an index
-- should serve also answer whether the plan uses it.
\pset footer off
SET client_min_messages = warning;
SET enable_seqscan = off;
-- whether the plan of query q reads index idx (EXPLAIN's text varies by major)
CREATE FUNCTION pg_temp.uses_index(q text, idx text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text; found boolean := false;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    found := found OR line LIKE '%' || idx || '%';
  END LOOP;
  RETURN found;
END $$;

\echo -- 1: the rows, and every fingerprint equal to simhash(body)
SELECT count(*), count(*) FILTER (WHERE fp IS DISTINCT FROM simhash(body)) AS stale FROM docs;
SELECT count(*) FROM marks;

\echo -- 2: radius 3 around a text, through the index
SELECT pg_temp.uses_index($$SELECT id FROM docs WHERE simhash_within(fp, (SELECT fp FROM docs WHERE id = 40), 3)$$, 'docs_fp_idx');
SELECT id FROM docs WHERE simhash_within(fp, (SELECT fp FROM docs WHERE id = 40), 3) ORDER BY id;

\echo -- 3: the % operator at threshold 6 around another text, through the index
SET simhash.threshold = 6;
SELECT pg_temp.uses_index($$SELECT id FROM docs WHERE fp % (SELECT fp FROM docs WHERE id = 1230)$$, 'docs_fp_idx');
SELECT id FROM docs WHERE fp % (SELECT fp FROM docs WHERE id = 1230) ORDER BY id;
RESET simhash.threshold;

\echo -- 4: every pair of texts within 3 (texts and their revised copies)
SELECT count(*), min(a.id), max(a.id) FROM docs a JOIN docs b ON simhash_within(a.fp, b.fp, 3) AND a.id < b.id;

\echo -- 5: radius 6 around a planted point, through the index
SELECT pg_temp.uses_index($$SELECT id FROM marks WHERE simhash_within(fp, '0123456789abcdef', 6)$$, 'marks_fp_idx');
SELECT id, fp, fp <-> '0123456789abcdef' AS d FROM marks WHERE simhash_within(fp, '0123456789abcdef', 6) ORDER BY id;

\echo -- 6: the 8 nearest to the planted point, by an ordered index scan
SELECT pg_temp.uses_index($$SELECT id FROM marks ORDER BY fp <-> '0123456789abcdef' LIMIT 8$$, 'marks_fp_idx');
SELECT id, fp <-> '0123456789abcdef' AS d FROM marks ORDER BY fp <-> '0123456789abcdef' LIMIT 8;

\echo -- 7: the distances of the 5 texts nearest to text 2000 (ties make the ids arbitrary)
SELECT pg_temp.uses_index($$SELECT id FROM docs ORDER BY fp <-> (SELECT fp FROM docs WHERE id = 2000) LIMIT 5$$, 'docs_fp_idx');
SELECT array_agg(d) FROM (SELECT fp <-> (SELECT fp FROM docs WHERE id = 2000) AS d FROM docs ORDER BY 1 LIMIT 5) s;

\echo -- 8: the trigger fingerprints a new row, and the index finds it
BEGIN;
INSERT INTO docs (id, body) SELECT 90000, body || ' added' FROM docs WHERE id = 40 RETURNING fp, fp = simhash(body) AS matches_function;
SELECT id FROM docs WHERE simhash_within(fp, (SELECT fp FROM docs WHERE id = 90000), 10) ORDER BY id;
ROLLBACK;

\echo -- 9: the exclusion constraint refuses a near copy and takes a far one
\set VERBOSITY terse
\set ON_ERROR_STOP 0
INSERT INTO unique_fps VALUES (3, '0123456789abcdee');
\set ON_ERROR_STOP 1
\set VERBOSITY default
INSERT INTO unique_fps VALUES (4, 'ffffffffffffffff');
SELECT id, fp FROM unique_fps ORDER BY id;
DELETE FROM unique_fps WHERE id = 4;

\echo -- 10: the indexes pass their structure check, against the table too
SELECT simhash_index_check('docs_fp_idx', true), simhash_index_check('marks_fp_idx', true), simhash_index_check('unique_fps_fp_excl', true);
