-- KNN scans (ORDER BY fp <-> q) in their later stages, on a table large
-- enough for them: a first pass of probes that keeps only rows near the
-- query, the redo of its levels when the scan must go farther, and the
-- read of a whole partition past the last probe level.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
CREATE TEMP TABLE knn (i int, fp simhash);
INSERT INTO knn SELECT i, ((hashint8(i)::bigint << 32) | (hashint8(i + 5000000)::bigint & 4294967295))::simhash
  FROM generate_series(1, 60000) i;
-- three query points, each with 60 near copies 1 to 12 bits away (random
-- bits flipped): rows a probe of q's own block value reaches, farther than
-- a first pass of 3 bits keeps
CREATE TEMP TABLE queries (k int, q simhash);
INSERT INTO queries SELECT k, ((hashint8(-k)::bigint << 32) | (hashint8(k + 9000000)::bigint & 4294967295))::simhash
  FROM generate_series(1, 3) k;
INSERT INTO knn SELECT 100000 + k * 100 + j,
       (q::bigint # (SELECT bit_or(1::bigint << (abs(hashint8(k * 100000 + j * 100 + b)) % 64))
                       FROM generate_series(1, 1 + j % 12) b))::simhash
  FROM queries, generate_series(1, 60) j;
-- 4 blocks of 16 bits: at 60,000 rows (100 leaf pages per partition) KNN
-- probes levels 0 and 1 (every row within 7 bits), then reads partition 0
-- whole.  simhash.knn_first_pass_rows = 0 makes the first pass keep only
-- rows within 3 bits, so a scan that goes farther redoes level 0 before
-- level 1; the default keeps rows within 7 bits from the start.
CREATE INDEX knn_fp ON knn USING simhash (fp) WITH (blocks = 4);
ANALYZE knn;

-- what a scan returns, in order: ORDER BY fp <-> q LIMIT lim, within
-- radius r of q when r is not NULL; through the index, or by a sort
CREATE FUNCTION knn_scan(q simhash, r int, lim int) RETURNS TABLE (rn bigint, i int, d int)
  LANGUAGE plpgsql AS $$
BEGIN
  IF r IS NULL THEN
    RETURN QUERY SELECT row_number() OVER (), t.i, t.d
      FROM (SELECT knn.i, knn.fp <-> q AS d FROM knn ORDER BY knn.fp <-> q LIMIT lim) t;
  ELSE
    RETURN QUERY SELECT row_number() OVER (), t.i, t.d
      FROM (SELECT knn.i, knn.fp <-> q AS d FROM knn WHERE simhash_within(knn.fp, q, r)
             ORDER BY knn.fp <-> q LIMIT lim) t;
  END IF;
END $$;
CREATE FUNCTION knn_by_index(q simhash, r int, lim int) RETURNS TABLE (rn bigint, i int, d int)
  LANGUAGE sql SET enable_seqscan = off SET enable_bitmapscan = off SET enable_sort = off
  AS $$ SELECT * FROM knn_scan(q, r, lim) $$;
CREATE FUNCTION knn_by_sort(q simhash, r int, lim int) RETURNS TABLE (rn bigint, i int, d int)
  LANGUAGE sql SET enable_indexscan = off SET enable_bitmapscan = off
  AS $$ SELECT * FROM knn_scan(q, r, lim) $$;

-- the plans those take
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT i FROM knn ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT i FROM knn WHERE simhash_within(fp, '0123456789abcdef', 7)
  ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort;

-- The cases: every row within 7 bits in distance order, where the scan
-- stops at the radius (with a first pass of 3 bits it must redo level 0 for
-- the rows 4 to 7 bits away that level 0 reached); the 10, the 500 and the
-- 70,000 (all) nearest, past the probes to a read of partition 0 whole.
CREATE TEMP TABLE cases (r int, lim int);
INSERT INTO cases VALUES (7, 100000), (NULL, 10), (NULL, 500), (NULL, 70000);
SET simhash.knn_first_pass_rows = 0;
CREATE TEMP TABLE by_index AS
SELECT 0 AS first_pass_rows, k, r, lim, s.* FROM queries, cases, knn_by_index(q, r, lim) s;
RESET simhash.knn_first_pass_rows;
INSERT INTO by_index SELECT 100, k, r, lim, s.* FROM queries, cases, knn_by_index(q, r, lim) s;
CREATE TEMP TABLE by_sort AS SELECT k, r, lim, s.* FROM queries, cases, knn_by_sort(q, r, lim) s;

-- Index and sort must return the same rows, each once, at the same
-- distances in the same order (rows at the last distance of a LIMIT may
-- differ: ties).
WITH last AS (SELECT k, r, lim, max(d) AS d FROM by_sort GROUP BY k, r, lim),
     ix AS (SELECT first_pass_rows, k, r, lim, count(*) AS rows, count(DISTINCT i) AS distinct_rows,
                   array_agg(d ORDER BY rn) AS ds,
                   array_agg(i ORDER BY i) FILTER (WHERE d < (SELECT l.d FROM last l WHERE (l.k, l.lim) = (x.k, x.lim) AND l.r IS NOT DISTINCT FROM x.r)) AS near
              FROM by_index x GROUP BY first_pass_rows, k, r, lim),
     so AS (SELECT k, r, lim, array_agg(d ORDER BY rn) AS ds,
                   array_agg(i ORDER BY i) FILTER (WHERE d < (SELECT l.d FROM last l WHERE (l.k, l.lim) = (x.k, x.lim) AND l.r IS NOT DISTINCT FROM x.r)) AS near
              FROM by_sort x GROUP BY k, r, lim)
SELECT first_pass_rows, ix.k, ix.r, ix.lim, ix.rows, ix.distinct_rows, ix.ds = so.ds AS same_distances,
       ix.near IS NOT DISTINCT FROM so.near AS same_rows
  FROM ix FULL JOIN so ON (ix.k, ix.lim) = (so.k, so.lim) AND ix.r IS NOT DISTINCT FROM so.r
 ORDER BY first_pass_rows, ix.k, ix.r, ix.lim;
SELECT simhash_index_check('knn_fp', true);
-- the setting's range
SET simhash.knn_first_pass_rows = -1;
SHOW simhash.knn_first_pass_rows;
-- KNN with a condition on another column that few rows pass.  The planner
-- prices LIMIT k as the share k / rows of a path's cost, so an ordered scan
-- whose rows the condition mostly rejects is charged for the walk to the
-- depth k / share passing only if each row of the walk is priced as it
-- costs: met in every partition and kept in distance order.  Priced as an
-- index tuple alone, LIMIT 1 at 0.1% passing took the ordered scan, about
-- 1,000 rows in distance order (2.4 ms here), where sorting the 60 rows of
-- cat = 5 takes 0.1 ms (at 1M rows and LIMIT 10, 7-10 ms against 1 ms).
-- When most rows pass, or without a
-- condition, the ordered scan stays.
CREATE TEMP TABLE tagged AS SELECT i, fp, i % 1000 AS cat FROM knn;
CREATE INDEX ON tagged USING simhash (fp);
CREATE INDEX ON tagged (cat);
ANALYZE tagged;
EXPLAIN (COSTS OFF) SELECT i FROM tagged WHERE cat = 5 ORDER BY fp <-> '0123456789abcdef' LIMIT 1;
EXPLAIN (COSTS OFF) SELECT i FROM tagged WHERE cat < 900 ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT i FROM tagged ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
-- the answer either way
SELECT i, fp <-> '0123456789abcdef' AS d FROM tagged WHERE cat = 5 ORDER BY fp <-> '0123456789abcdef', i LIMIT 1;
SET enable_bitmapscan = off; SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT fp <-> '0123456789abcdef' AS d FROM tagged WHERE cat = 5 ORDER BY fp <-> '0123456789abcdef' LIMIT 1;
SELECT fp <-> '0123456789abcdef' AS d FROM tagged WHERE cat = 5 ORDER BY fp <-> '0123456789abcdef' LIMIT 1;
RESET enable_bitmapscan; RESET enable_sort;
DROP TABLE tagged;
-- Two distances in ORDER BY (fp <-> q1, fp <-> q2): the planner hands the
-- index both ordering operators and trusts the order of both, so rows tied
-- on the first must come in the order of the second.  The index used to
-- order by the first alone, and a LIMIT returned the wrong rows.
-- Each query's (d1, d2) sequence, through the index
-- (a KNN walk; an index-only scan; keys around another point, which sort
-- every match; a NULL first query), against a sort.
-- (EXECUTE plans each call afresh, under the enable_* settings of the moment)
CREATE FUNCTION pg_temp.two_keys(q1 simhash, q2 simhash, lim int, only_fp bool, around simhash)
  RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE format($q$SELECT string_agg(format('%%s/%%s', fp <-> %L::simhash, fp <-> %L::simhash), ' ' ORDER BY n)
                      FROM (SELECT fp, row_number() OVER () AS n
                              FROM (SELECT %s FROM knn %s ORDER BY fp <-> %L::simhash, fp <-> %L::simhash LIMIT %s) s) t$q$,
                 q1, q2, CASE WHEN only_fp THEN 'fp' ELSE 'i, fp' END,
                 CASE WHEN around IS NULL THEN '' ELSE format('WHERE simhash_within(fp, %L::simhash, 40)', around) END,
                 q1, q2, lim) INTO r;
  RETURN r;
END $$;
VACUUM knn;
SET enable_sort = off; SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT i FROM knn ORDER BY fp <-> '0123456789abcdef', fp <-> 'fedcba9876543210' LIMIT 5;
EXPLAIN (COSTS OFF) SELECT fp FROM knn ORDER BY fp <-> '0123456789abcdef', fp <-> 'fedcba9876543210' LIMIT 5;
CREATE TEMP TABLE two_ix AS
SELECT a.k, b.k AS k2, lim, only_fp, around IS NOT NULL AS around, pg_temp.two_keys(a.q, b.q, lim, only_fp, around) AS r
  FROM queries a, queries b, (VALUES (1), (50), (3000)) l(lim), (VALUES (false), (true)) o(only_fp),
       (VALUES (NULL::simhash), ('0123456789abcdef')) w(around)
 WHERE a.k <> b.k;
-- a NULL first query: every first distance is NULL, and the second orders
SELECT string_agg(coalesce((fp <-> NULL::simhash)::text, 'null') || '/' || (fp <-> q), ' ') AS null_first_ix
  FROM (SELECT fp, q FROM knn, queries WHERE k = 2 ORDER BY fp <-> NULL::simhash, fp <-> q LIMIT 5) s;
RESET enable_sort; RESET enable_seqscan; RESET enable_bitmapscan;
SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS queries, count(*) FILTER (WHERE ix.r = pg_temp.two_keys(a.q, b.q, ix.lim, ix.only_fp,
                                                   CASE WHEN ix.around THEN '0123456789abcdef'::simhash END)) AS equal
  FROM two_ix ix JOIN queries a ON a.k = ix.k JOIN queries b ON b.k = ix.k2;
SELECT string_agg(coalesce((fp <-> NULL::simhash)::text, 'null') || '/' || (fp <-> q), ' ') AS null_first_sort
  FROM (SELECT fp, q FROM knn, queries WHERE k = 2 ORDER BY fp <-> NULL::simhash, fp <-> q LIMIT 5) s;
RESET enable_indexscan; RESET enable_indexonlyscan; RESET enable_bitmapscan;

-- A NULL query ties every row (each distance is NULL, and NULL rows too):
-- the scan streams rows as it reads them, as an unordered scan does, so
-- LIMIT 3 reads a few pages instead of collecting the whole index first
-- (64 MB and a second at 3M rows).  Seen through a generic
-- plan's parameter or a LATERAL join's rows; a constant NULL is folded.
\getenv abs_srcdir PG_ABS_SRCDIR
\set statement_buffers :abs_srcdir '/sql/include/statement_buffers.psql'
\i :statement_buffers
INSERT INTO knn VALUES (-1, NULL), (-2, NULL);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT l.i FROM (VALUES (NULL::simhash), (NULL)) a(q), LATERAL (SELECT i FROM knn ORDER BY fp <-> a.q LIMIT 3) l;
SELECT pg_temp.statement_buffers($$SELECT l.i FROM (VALUES (NULL::simhash), (NULL)) a(q),
                                   LATERAL (SELECT i FROM knn ORDER BY fp <-> a.q LIMIT 3) l$$) < 20 AS null_query_reads_few_pages;
-- without a LIMIT it returns every row once, the NULL ones included
SELECT count(*) = 2 * (SELECT count(*) FROM knn) AS every_row_once,
       count(DISTINCT (a.n, l.i)) = 2 * (SELECT count(*) FROM knn) AS no_duplicates,
       count(*) FILTER (WHERE l.i < 0) = 4 AS null_rows_returned
  FROM (VALUES (1, NULL::simhash), (2, NULL)) a(n, q), LATERAL (SELECT i FROM knn ORDER BY fp <-> a.q) l;
RESET enable_seqscan;
