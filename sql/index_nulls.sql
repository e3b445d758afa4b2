-- Rows whose fingerprint is NULL: the index stores none, yet scans with no
-- search condition return them, as a sequential scan does.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

-- Scans with no search condition return the rows whose fingerprint is NULL
-- too, as a sequential scan does (the index stores none; they used to be
-- left out): a whole-table KNN through a cursor, a generic plan whose LIMIT
-- exceeds the non-NULL rows, a bitmap or index-only scan for count(*).  In
-- KNN order they come last (their distance is NULL); a row HOT-updated
-- since is found under its chain's root.
CREATE TABLE with_nulls (id int, fp simhash);
INSERT INTO with_nulls SELECT g, CASE WHEN g % 10 = 0 THEN NULL
    ELSE ((hashint8(g)::bigint << 32) # hashint8(-g)::bigint)::simhash END FROM generate_series(1, 2000) g;
CREATE INDEX with_nulls_fp ON with_nulls USING simhash (fp);
ANALYZE with_nulls;
UPDATE with_nulls SET id = -id WHERE id IN (10, 20);
SET enable_seqscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id FROM with_nulls ORDER BY fp <-> '0123456789abcdef';
DO $$
DECLARE
    whole CURSOR FOR SELECT id FROM with_nulls ORDER BY fp <-> '0123456789abcdef';
    n int := 0;
BEGIN
    FOR r IN whole LOOP
        n := n + 1;
    END LOOP;
    RAISE NOTICE 'rows through a cursor: %', n;
END $$;
PREPARE nearest(simhash, bigint) AS
    SELECT count(*) AS all_rows, count(fp) AS with_fingerprint, count(*) FILTER (WHERE id < 0) AS hot_updated,
           bool_and(fp IS NULL) FILTER (WHERE n > 1800) AS nulls_last
      FROM (SELECT row_number() OVER () AS n, id, fp
              FROM (SELECT id, fp FROM with_nulls ORDER BY fp <-> $1 LIMIT $2) s) r;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE nearest('0123456789abcdef', 5000);
EXECUTE nearest('0123456789abcdef', 5000);
RESET plan_cache_mode;
DEALLOCATE nearest;
EXPLAIN (COSTS OFF) SELECT count(*) FROM with_nulls;
SELECT count(*) FROM with_nulls;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM with_nulls;
SELECT count(*) FROM with_nulls;
RESET enable_bitmapscan;
-- with a condition nothing changes: no condition matches NULL
SELECT count(*) FROM with_nulls WHERE simhash_within(fp, '0123456789abcdef', 28);
-- Rescans that reach the NULL rows do not grow the query's memory: each
-- built the heap read's IndexInfo in the executor's context, about 270
-- bytes per outer row of a nested loop (270 MB over a million rows).
CREATE TABLE few_nulls (id int, fp simhash);
INSERT INTO few_nulls SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE simhash_from_bigint(g * 7919) END
    FROM generate_series(1, 20) g;
CREATE INDEX few_nulls_fp ON few_nulls USING simhash (fp);
CREATE TABLE probes AS SELECT g FROM generate_series(1, 6000) g;  -- a scan of it keeps no rows in memory
CREATE FUNCTION pg_temp.executor_bytes_after(outer_rows int) RETURNS bigint LANGUAGE sql AS $$
    WITH r AS MATERIALIZED (
        SELECT count(*) FROM probes p,
               LATERAL (SELECT id FROM few_nulls ORDER BY fp <-> simhash_from_bigint(p.g) LIMIT 18) x
         WHERE p.g <= outer_rows)
    SELECT (SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'ExecutorState')::bigint FROM r $$;
EXPLAIN (COSTS OFF) SELECT count(*) FROM probes p,
    LATERAL (SELECT id FROM few_nulls ORDER BY fp <-> simhash_from_bigint(p.g) LIMIT 18) x WHERE p.g <= 10;
SELECT pg_temp.executor_bytes_after(6000) - pg_temp.executor_bytes_after(100) < 256 * 1024 AS flat;
DROP TABLE probes;
DROP TABLE few_nulls;
RESET enable_sort;
RESET enable_seqscan;
DROP TABLE with_nulls;
