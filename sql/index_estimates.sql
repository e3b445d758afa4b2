-- The planner's row estimates for the index's operators: restrictions,
-- joins, semi- and anti-joins and the inner scans of nested loops, against
-- the rows they return, on data whose fingerprints lean or repeat.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\set index_docs :abs_srcdir '/sql/include/index_docs.psql'
\i :index_docs
ANALYZE docs;

-- % estimates its rows from simhash.threshold as simhash_within does from
-- its radius (% used to say 0.1% of the table whatever the threshold: about 5
-- rows here at threshold 40, where nearly every row matches).
CREATE FUNCTION pg_temp.estimated_rows(stmt text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || stmt INTO plan;
    RETURN (plan->0->'Plan'->>'Plan Rows')::float8;
END $$;
SET simhash.threshold = 40;
SELECT pg_temp.estimated_rows($$SELECT id FROM docs WHERE fp % '0123456789abcdef'$$) > (SELECT count(*) / 2 FROM docs) AS most_rows,
       pg_temp.estimated_rows($$SELECT id FROM docs WHERE fp % '0123456789abcdef'$$) =
       pg_temp.estimated_rows($$SELECT id FROM docs WHERE simhash_within(fp, '0123456789abcdef', 40)$$) AS as_within;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp % '0123456789abcdef';
RESET simhash.threshold;
SELECT pg_temp.estimated_rows($$SELECT id FROM docs WHERE fp % '0123456789abcdef'$$) AS rows_at_threshold_3,
       pg_temp.estimated_rows($$SELECT 1 FROM docs a JOIN docs b ON a.fp % b.fp$$) AS self_join_rows,
       (SELECT count(*) FROM docs a JOIN docs b ON a.fp % b.fp) AS self_join_actual;
-- A fingerprint held by a tenth of the rows is among ANALYZE's most common
-- values: a query near it is estimated at its frequency (it was the share of
-- random fingerprints alone: 1 row, where 2,000 match)..
-- Far from it, and for NULL rows, the estimate stays small.
CREATE TABLE posted (id int, fp simhash);
INSERT INTO posted SELECT g, CASE WHEN g % 10 = 0 THEN 'aaaaaaaaaaaaaaaa'::simhash
    WHEN g % 10 = 1 THEN NULL ELSE pg_temp.fp_of(g) END FROM generate_series(1, 20000) g;
ANALYZE posted;
SELECT pg_temp.estimated_rows($$SELECT id FROM posted WHERE fp % 'aaaaaaaaaaaaaaab'$$) BETWEEN 1500 AND 2500 AS near_common_value,
       pg_temp.estimated_rows($$SELECT id FROM posted WHERE simhash_within(fp, 'aaaaaaaaaaaaaaab', 1)$$) BETWEEN 1500 AND 2500 AS within_near_common_value,
       pg_temp.estimated_rows($$SELECT id FROM posted WHERE simhash_within('aaaaaaaaaaaaaaab', fp, 1)$$) BETWEEN 1500 AND 2500 AS query_first,
       pg_temp.estimated_rows($$SELECT id FROM posted WHERE simhash_within(fp, 'aaaaaaaaaaaaaaab', 0)$$) < 10 AS radius_0_misses_it,
       pg_temp.estimated_rows($$SELECT id FROM posted WHERE fp % '0123456789abcdef'$$) < 10 AS far_from_it;
SELECT count(*) FROM posted WHERE fp % 'aaaaaaaaaaaaaaab';
-- A radius includes equality, so % is estimated at no fewer rows than =.
-- Here 400 fingerprints are stored 50 times each, too evenly for a list of
-- most common values: fp = q said 50 rows and fp % q said 1.
CREATE TABLE stored50 (id int, fp simhash);
INSERT INTO stored50 SELECT g, pg_temp.fp_of(g % 400) FROM generate_series(1, 20000) g;
ANALYZE stored50;
SELECT pg_temp.estimated_rows($$SELECT id FROM stored50 WHERE fp = $$ || quote_literal(pg_temp.fp_of(7))) AS equal_rows,
       pg_temp.estimated_rows($$SELECT id FROM stored50 WHERE fp % $$ || quote_literal(pg_temp.fp_of(7))) AS similar_rows,
       pg_temp.estimated_rows($$SELECT id FROM stored50 WHERE simhash_within(fp, $$ || quote_literal(pg_temp.fp_of(7)) || $$, 0)$$) AS within_0_rows,
       (SELECT count(*) FROM stored50 WHERE fp % pg_temp.fp_of(7)) AS similar_actual;
PREPARE near50(simhash) AS SELECT id FROM stored50 WHERE fp % $1;
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.estimated_rows('EXECUTE near50(' || quote_literal(pg_temp.fp_of(7)) || ')') AS generic_similar_rows;
RESET plan_cache_mode;
DEALLOCATE near50;
-- The same for a join: with the same 400 fingerprints stored 5 times each
-- on the other side, fp = fp said 100,000 pairs and a.fp % b.fp 25,000.
CREATE TABLE stored5 (id int, fp simhash);
INSERT INTO stored5 SELECT g, pg_temp.fp_of(g % 400) FROM generate_series(1, 2000) g;
ANALYZE stored5;
SELECT pg_temp.estimated_rows($$SELECT 1 FROM stored50 a JOIN stored5 b ON a.fp = b.fp$$) AS equal_pairs,
       pg_temp.estimated_rows($$SELECT 1 FROM stored50 a JOIN stored5 b ON a.fp % b.fp$$) AS similar_pairs,
       pg_temp.estimated_rows($$SELECT 1 FROM stored50 a JOIN stored5 b ON simhash_within(a.fp, b.fp, 3)$$) AS within_pairs,
       (SELECT count(*) FROM stored50 a JOIN stored5 b ON a.fp % b.fp) AS similar_actual;
DROP TABLE stored50, stored5;
-- ... including when only one side has most common values: 45 fingerprints
-- hold 90% of one table, which the other holds once each among rows of its
-- own.  % was floored by the rest of the rows only, 10 times below =.
CREATE TABLE reposted90 (id int, fp simhash);
INSERT INTO reposted90 SELECT g, CASE WHEN g % 10 < 9 THEN pg_temp.fp_of(g % 45) ELSE pg_temp.fp_of(1000 + g) END
  FROM generate_series(1, 20000) g;
CREATE TABLE once_each (id int, fp simhash);
INSERT INTO once_each SELECT id, fp FROM reposted90 WHERE id % 10 = 9 AND id < 10000
  UNION ALL SELECT g, pg_temp.fp_of(g) FROM generate_series(0, 44) g;
ANALYZE reposted90; ANALYZE once_each;
SELECT (SELECT count(*) FROM pg_stats WHERE tablename = 'reposted90' AND attname = 'fp' AND most_common_vals IS NOT NULL) AS common_values_big,
       (SELECT count(*) FROM pg_stats WHERE tablename = 'once_each' AND attname = 'fp' AND most_common_vals IS NOT NULL) AS common_values_small;
SELECT pg_temp.estimated_rows($$SELECT 1 FROM once_each a JOIN reposted90 b ON a.fp % b.fp$$) >=
       pg_temp.estimated_rows($$SELECT 1 FROM once_each a JOIN reposted90 b ON a.fp = b.fp$$) AS similar_at_least_equal,
       pg_temp.estimated_rows($$SELECT 1 FROM once_each a JOIN reposted90 b ON a.fp = b.fp$$) BETWEEN 8000 AND 32000 AS equal_near_actual,
       (SELECT count(*) FROM once_each a JOIN reposted90 b ON a.fp % b.fp) AS similar_actual;
-- A parameter's floor stops at the most common value's frequency, as =
-- does: with n_distinct forced to 5, 1 / 5 of the rows would be 4,000.
ALTER TABLE reposted90 ALTER fp SET (n_distinct = 5);
ANALYZE reposted90;
PREPARE near90(simhash) AS SELECT id FROM reposted90 WHERE fp % $1;
PREPARE equal90(simhash) AS SELECT id FROM reposted90 WHERE fp = $1;
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.estimated_rows('EXECUTE near90(' || quote_literal(pg_temp.fp_of(7)) || ')') =
       pg_temp.estimated_rows('EXECUTE equal90(' || quote_literal(pg_temp.fp_of(7)) || ')') AS generic_like_equal,
       pg_temp.estimated_rows('EXECUTE near90(' || quote_literal(pg_temp.fp_of(7)) || ')') < 1000 AS capped;
RESET plan_cache_mode;
DEALLOCATE near90; DEALLOCATE equal90;
DROP TABLE reposted90, once_each;
-- fp %<= ROW(q, r), the index condition simhash_within becomes, written by
-- hand is estimated as simhash_within (contsel said 0.1% of the table at
-- every radius, so the index was chosen for radius 40 and a scan 4 times
-- slower).
SELECT pg_temp.estimated_rows($$SELECT id FROM posted WHERE fp %<= ROW('aaaaaaaaaaaaaaab'::simhash, 1)::simhash_radius$$) =
       pg_temp.estimated_rows($$SELECT id FROM posted WHERE simhash_within(fp, 'aaaaaaaaaaaaaaab', 1)$$) AS operator_as_within,
       pg_temp.estimated_rows($$SELECT id FROM posted WHERE fp %<= ROW('0123456789abcdef'::simhash, 40)::simhash_radius$$) =
       pg_temp.estimated_rows($$SELECT id FROM posted WHERE simhash_within(fp, '0123456789abcdef', 40)$$) AS operator_as_within_40,
       pg_temp.estimated_rows($$SELECT id FROM posted WHERE fp %<= ROW('0123456789abcdef'::simhash, 40)::simhash_radius$$) > 10000 AS most_rows_at_40;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp %<= ROW('0123456789abcdef'::simhash, 40)::simhash_radius;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp %<= ROW('0123456789abcdef'::simhash, 3)::simhash_radius;
DROP TABLE posted;
-- Fingerprints of text lean (common words push some bits the same way in
-- every document).  The rows other than the most common values are modelled
-- by each bit's share of ones in ANALYZE's histogram bounds, not as fair
-- random bits, which estimated 1 row for radius-10 queries that matched
-- hundreds and a join at 364 rows that returned 42,879.
-- Here each of the top 32 bits is one in an eighth of the rows.
CREATE TABLE leaning (id int, fp simhash);
INSERT INTO leaning SELECT g, ((((hashint8(g) & hashint8(g + 100000) & hashint8(g + 200000))::bigint << 32)
    | (hashint8(g + 300000)::bigint & 4294967295)))::simhash FROM generate_series(1, 20000) g;
ANALYZE leaning;
CREATE TEMP TABLE leaning_estimates AS
SELECT pg_temp.estimated_rows($$SELECT id FROM leaning WHERE simhash_within(fp, '0000000012345678', 12)$$) AS est,
       (SELECT count(*) FROM leaning WHERE simhash_within(fp, '0000000012345678', 12)) AS actual, 'restriction' AS what
UNION ALL
SELECT pg_temp.estimated_rows($$SELECT 1 FROM leaning a JOIN leaning b ON simhash_within(a.fp, b.fp, 12) WHERE b.id <= 50$$),
       (SELECT count(*) FROM leaning a JOIN leaning b ON simhash_within(a.fp, b.fp, 12) WHERE b.id <= 50), 'join';
SET simhash.threshold = 12;
INSERT INTO leaning_estimates
SELECT pg_temp.estimated_rows($$SELECT id FROM leaning WHERE fp % '0000000012345678'$$), actual, 'restriction, %'
  FROM leaning_estimates WHERE what = 'restriction'
UNION ALL
SELECT pg_temp.estimated_rows($$SELECT 1 FROM leaning a JOIN leaning b ON a.fp % b.fp WHERE b.id <= 50$$), actual, 'join, %'
  FROM leaning_estimates WHERE what = 'join'
UNION ALL
SELECT pg_temp.estimated_rows($$SELECT id FROM leaning WHERE fp %<= ROW('0000000012345678'::simhash, 12)::simhash_radius$$),
       actual, 'restriction, %<='
  FROM leaning_estimates WHERE what = 'restriction'
UNION ALL
SELECT pg_temp.estimated_rows($$SELECT 1 FROM leaning a JOIN leaning b ON a.fp %<= ROW(b.fp, 12)::simhash_radius WHERE b.id <= 50$$),
       actual, 'join, %<='
  FROM leaning_estimates WHERE what = 'join';
RESET simhash.threshold;
-- A join counts the most common values against each other: a tenth of the
-- rows holding one fingerprint gives a hundredth of all pairs
CREATE TABLE reposted (id int, fp simhash);
INSERT INTO reposted SELECT g, CASE WHEN g % 10 = 0 THEN 'aaaaaaaaaaaaaaaa'::simhash ELSE pg_temp.fp_of(g) END
  FROM generate_series(1, 2000) g;
ANALYZE reposted;
INSERT INTO leaning_estimates
SELECT pg_temp.estimated_rows($$SELECT 1 FROM reposted a JOIN reposted b ON a.fp % b.fp$$),
       (SELECT count(*) FROM reposted a JOIN reposted b ON a.fp % b.fp), 'self-join, common value';
-- The inner index scan of a nested loop sees each outer row's fingerprint:
-- it is estimated as the join is, the rows a random outer row matches (it
-- was modelled on the bits alone, 1 row a loop where outer rows holding the
-- common value match 200).
CREATE INDEX reposted_fp ON reposted USING simhash (fp);
CREATE TEMP TABLE reposts AS SELECT * FROM reposted WHERE id % 20 < 2;
ANALYZE reposts;
CREATE FUNCTION pg_temp.inner_scan_rows(stmt text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || stmt INTO plan;
    RETURN jsonb_path_query_first(plan, '$.** ? (@."Index Name" == "reposted_fp")."Plan Rows"')::float8;
END $$;
SET enable_seqscan = off;
INSERT INTO leaning_estimates
SELECT pg_temp.inner_scan_rows($$SELECT 1 FROM reposts o JOIN reposted r ON r.fp % o.fp$$),
       (SELECT count(*) FROM reposts o JOIN reposted r ON r.fp % o.fp) / (SELECT count(*) FROM reposts),
       'inner scan of a nested loop, common value'
UNION ALL
SELECT pg_temp.inner_scan_rows($$SELECT 1 FROM reposts o JOIN reposted r ON simhash_within(r.fp, o.fp, 3)$$),
       (SELECT count(*) FROM reposts o JOIN reposted r ON simhash_within(r.fp, o.fp, 3)) / (SELECT count(*) FROM reposts),
       'inner scan of a nested loop, common value, simhash_within';
RESET enable_seqscan;
-- A semi-join (EXISTS: which arrivals have a stored near copy) or anti-join
-- (NOT EXISTS) is estimated by the share of outer rows that have a match,
-- as PostgreSQL means it; the share of pairs estimated 6 of 60 arrivals
-- holding the common value, as 3% of them (found while testing joins).
CREATE TEMP TABLE arrivals AS SELECT g AS id, CASE WHEN g % 10 < 3 THEN 'aaaaaaaaaaaaaaab'::simhash
    ELSE pg_temp.fp_of(g + 100000) END AS fp FROM generate_series(1, 200) g;
ANALYZE arrivals;
-- a row of leaning_estimates: the planner's rows for stmt, and its rows
CREATE FUNCTION pg_temp.estimate_and_count(stmt text, what text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE actual bigint;
BEGIN
    EXECUTE 'SELECT count(*) FROM (' || stmt || ') s' INTO actual;
    INSERT INTO leaning_estimates VALUES (pg_temp.estimated_rows(stmt), actual, what);
END $$;
SELECT pg_temp.estimate_and_count($$SELECT 1 FROM arrivals a WHERE EXISTS (SELECT FROM reposted r WHERE r.fp % a.fp)$$,
                                  'semi-join, common value'),
       pg_temp.estimate_and_count($$SELECT 1 FROM arrivals a WHERE EXISTS (SELECT FROM reposted r WHERE simhash_within(r.fp, a.fp, 2))$$,
                                  'semi-join, common value, simhash_within'),
       pg_temp.estimate_and_count($$SELECT 1 FROM arrivals a WHERE NOT EXISTS (SELECT FROM reposted r WHERE r.fp % a.fp)$$,
                                  'anti-join, common value');
-- Near copies of rows stored once show in no statistic: new rows of which
-- 30% are such copies were estimated at 1 matching row, and a further join
-- to an unindexed table ran as a nested loop over it for each of the
-- 30,000 (over 100x the hash join).  Half the
-- outer rows are taken to match at least, as PostgreSQL's semi-join
-- estimate does when statistics cannot tell.
CREATE TEMP TABLE copies AS SELECT g AS id, CASE WHEN g % 10 < 3 THEN pg_temp.flip(pg_temp.fp_of(g + 1), '{5}')
    ELSE pg_temp.fp_of(g + 100000) END AS fp FROM generate_series(1, 200) g;
ANALYZE copies;
SELECT pg_temp.estimate_and_count($$SELECT 1 FROM copies c WHERE EXISTS (SELECT FROM reposted r WHERE r.fp % c.fp)$$,
                                  'semi-join, copies of rows stored once'),
       pg_temp.estimate_and_count($$SELECT 1 FROM copies c WHERE NOT EXISTS (SELECT FROM reposted r WHERE r.fp % c.fp)$$,
                                  'anti-join, copies of rows stored once');
SELECT what, actual > 10 AS many_match, est BETWEEN actual / 3.0 AND actual * 3.0 AS estimate_within_3x
  FROM leaning_estimates ORDER BY what;
DROP TABLE reposted;
DROP TABLE leaning, leaning_estimates;
DROP TABLE docs;
