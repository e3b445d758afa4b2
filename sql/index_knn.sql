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
-- 16 blocks of 4 bits: with 60,000 rows the first pass keeps rows within
-- 31 bits (level 1), the probes go on to level 2 (47 bits)
CREATE INDEX knn_fp ON knn USING simhash (fp) WITH (blocks = 16);
ANALYZE knn;
CREATE TEMP TABLE queries (k int, q simhash);
INSERT INTO queries SELECT k, ((hashint8(-k)::bigint << 32) | (hashint8(k + 9000000)::bigint & 4294967295))::simhash
  FROM generate_series(1, 3) k;

-- what each scan returns, in order: through the index, then by a sort
CREATE TEMP TABLE cases (r int, lim int);
INSERT INTO cases VALUES (40, 100000), (64, 10), (64, 500);
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
EXPLAIN (COSTS OFF)
SELECT k, r, lim, s.* FROM queries, cases,
  LATERAL (SELECT row_number() OVER () AS rn, t.i, t.d
             FROM (SELECT knn.i, fp <-> q AS d FROM knn WHERE simhash_within(fp, q, r) ORDER BY fp <-> q LIMIT lim) t) s;
CREATE TEMP TABLE by_index AS
SELECT k, r, lim, s.* FROM queries, cases,
  LATERAL (SELECT row_number() OVER () AS rn, t.i, t.d
             FROM (SELECT knn.i, fp <-> q AS d FROM knn WHERE simhash_within(fp, q, r) ORDER BY fp <-> q LIMIT lim) t) s;
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort;
SET enable_indexscan = off; SET enable_bitmapscan = off;
CREATE TEMP TABLE by_sort AS
SELECT k, r, lim, s.* FROM queries, cases,
  LATERAL (SELECT row_number() OVER () AS rn, t.i, t.d
             FROM (SELECT knn.i, fp <-> q AS d FROM knn WHERE simhash_within(fp, q, r) ORDER BY fp <-> q LIMIT lim) t) s;
RESET enable_indexscan; RESET enable_bitmapscan;

-- Radius 40 around the query: every row within 40 bits in distance order
-- (nearly the whole table), so the scan passes the first pass's 31 bits,
-- redoes its levels for the rows between 31 and 47 bits it skipped, and
-- reads a partition whole for those above.  Then the 10 and the 500
-- nearest, which the first pass alone serves.  Index and sort must return
-- the same rows, each once, at the same distances in the same order
-- (rows at the last distance of a LIMIT may differ: ties).
WITH last AS (SELECT k, r, lim, max(d) AS d FROM by_sort GROUP BY k, r, lim),
     ix AS (SELECT k, r, lim, count(*) AS rows, count(DISTINCT i) AS distinct_rows, array_agg(d ORDER BY rn) AS ds,
                   array_agg(i ORDER BY i) FILTER (WHERE d < (SELECT l.d FROM last l WHERE (l.k, l.r, l.lim) = (x.k, x.r, x.lim))) AS near
              FROM by_index x GROUP BY k, r, lim),
     so AS (SELECT k, r, lim, array_agg(d ORDER BY rn) AS ds,
                   array_agg(i ORDER BY i) FILTER (WHERE d < (SELECT l.d FROM last l WHERE (l.k, l.r, l.lim) = (x.k, x.r, x.lim))) AS near
              FROM by_sort x GROUP BY k, r, lim)
SELECT k, r, lim, ix.rows, ix.distinct_rows, ix.ds = so.ds AS same_distances,
       ix.near IS NOT DISTINCT FROM so.near AS same_rows
  FROM ix FULL JOIN so USING (k, r, lim) ORDER BY k, r, lim;
SELECT simhash_index_check('knn_fp', true);
