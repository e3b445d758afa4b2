-- The simhash index access method: every operator through the index against a
-- forced sequential scan, on deterministic data with planted near-duplicates.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

-- Deterministic pseudo-random fingerprints (md5 of the row number).
CREATE FUNCTION pg_temp.fp_of(i int) RETURNS simhash LANGUAGE sql IMMUTABLE AS
$$ SELECT ('x' || substr(md5(i::text), 1, 16))::bit(64)::bigint::simhash $$;
-- fp with the bits listed in flips (0 = least significant) inverted.
CREATE FUNCTION pg_temp.flip(fp simhash, flips int[]) RETURNS simhash LANGUAGE sql IMMUTABLE AS
$$ SELECT (fp::bigint # coalesce((SELECT bit_or(1::bigint << f) FROM unnest(flips) f), 0))::simhash $$;

-- Answers a query with the index forced (use_index) or with a sequential scan only.
CREATE FUNCTION pg_temp.ids(q text, use_index boolean) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE r int[];
BEGIN
    PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
    PERFORM set_config('enable_indexscan', use_index::text, true);
    PERFORM set_config('enable_bitmapscan', use_index::text, true);
    PERFORM set_config('enable_indexonlyscan', use_index::text, true);
    EXECUTE q INTO r;
    RETURN r;
END $$;
-- "n rows, same answer" for a query returning int[]
CREATE FUNCTION pg_temp.same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a int[] := pg_temp.ids(q, true); b int[] := pg_temp.ids(q, false);
BEGIN
    RETURN coalesce(cardinality(a), 0) || ' rows, ' || CASE WHEN a IS NOT DISTINCT FROM b THEN 'same' ELSE 'DIFFERENT' END;
END $$;

CREATE TABLE docs (id int PRIMARY KEY, fp simhash);
INSERT INTO docs SELECT i, pg_temp.fp_of(i) FROM generate_series(1, 5000) i;
-- planted near-duplicates of rows 1..20: row 100000 + 100 * c + k is row c with k low bits
-- and k high bits spread over the blocks flipped
INSERT INTO docs
SELECT 100000 + 100 * c + k, pg_temp.flip(pg_temp.fp_of(c), (SELECT array_agg((b * 13 + c) % 64) FROM generate_series(1, k) b))
FROM generate_series(1, 20) c, generate_series(1, 10) k;
INSERT INTO docs VALUES (900001, NULL), (900002, NULL);

CREATE INDEX docs_fp ON docs USING simhash (fp);
SELECT simhash_index_check('docs_fp', true);
SELECT partition, block_bits, entries, leaf_pages FROM simhash_index_stats('docs_fp');

-- simhash_within, radii 0-8 and 64
SELECT r, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, %s)', pg_temp.fp_of(7), r))
FROM generate_series(0, 8) r UNION ALL
SELECT 64, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 64)', pg_temp.fp_of(7)))
ORDER BY 1;
-- argument order does not matter
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(%L, fp, 5)', pg_temp.fp_of(3)));
-- % follows simhash.threshold
SELECT t, set_config('simhash.threshold', t::text, false) IS NOT NULL AS set,
       pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp %% %L', pg_temp.fp_of(11)))
FROM generate_series(0, 8) t;
RESET simhash.threshold;
-- =
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp = %L', pg_temp.fp_of(42)));
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp = %L', '0123456789abcdef'));
-- two conditions
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 6) AND fp %% %L',
                           pg_temp.fp_of(5), pg_temp.flip(pg_temp.fp_of(5), '{1}')));

-- KNN: exact distance order, alone and with a radius condition
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs ORDER BY fp <-> %L LIMIT 25) s',
                           pg_temp.fp_of(9), pg_temp.fp_of(9)));
SELECT id, fp <-> pg_temp.fp_of(9) AS d FROM docs ORDER BY fp <-> pg_temp.fp_of(9), id LIMIT 12;
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs WHERE simhash_within(fp, %L, 4) ORDER BY fp <-> %L LIMIT 5) s',
                           pg_temp.fp_of(9), pg_temp.fp_of(9), pg_temp.fp_of(9)));
-- KNN within a radius of the same point (the scan stops at the radius while
-- probes cover it, else collects and sorts): the order, then the exact set
SELECT r, pg_temp.same(format('SELECT array_agg(d) || array_agg(id ORDER BY d, id) FROM (SELECT id, fp <-> %L AS d FROM docs WHERE simhash_within(fp, %L, %s) ORDER BY fp <-> %L) s',
                              pg_temp.fp_of(9), pg_temp.fp_of(9), r, pg_temp.fp_of(9)))
  FROM unnest(ARRAY[0, 2, 3, 6, 9, 12]) r;
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs WHERE fp %% %L ORDER BY fp <-> %L LIMIT 4) s',
                           pg_temp.fp_of(12), pg_temp.fp_of(12), pg_temp.fp_of(12)));
-- a radius around another point only filters
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs WHERE simhash_within(fp, %L, 3) ORDER BY fp <-> %L LIMIT 7) s',
                           pg_temp.fp_of(9), pg_temp.flip(pg_temp.fp_of(9), '{1,40}'), pg_temp.fp_of(9)));
-- KNN from a point far from every row still returns k rows in order
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs ORDER BY fp <-> %L LIMIT 3) s',
                           'ffffffffffffffff', 'ffffffffffffffff'));

-- NULLs are not indexed and never match
SELECT count(*) FROM docs WHERE fp IS NULL;
SET enable_seqscan = off;
SELECT count(*) FROM docs WHERE fp = NULL::simhash;
SELECT count(*) FROM docs WHERE simhash_within(fp, pg_temp.fp_of(1), NULL);
SELECT count(*) FROM docs WHERE simhash_within(fp, NULL, 3);
SELECT count(*) FROM (SELECT id FROM docs ORDER BY fp <-> NULL LIMIT 3) s;
-- radius out of range: same error as without the index
SELECT simhash_within(fp, pg_temp.fp_of(1), 65) FROM docs WHERE id = 1;
SELECT count(*) FROM docs WHERE simhash_within(fp, pg_temp.fp_of(1), 65);
SELECT count(*) FROM docs WHERE simhash_within(fp, pg_temp.fp_of(1), -1);
RESET enable_seqscan;

-- The planner picks the index for selective conditions on its own.
ANALYZE docs;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp % '0123456789abcdef';
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, '0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp = '0123456789abcdef';
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
-- ... and a sequential scan when the radius makes the index useless
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, '0123456789abcdef', 40);
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
-- index-only scan: the index returns the fingerprint itself
VACUUM docs;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT fp FROM docs WHERE fp % '0123456789abcdef';
SELECT fp, fp <-> pg_temp.fp_of(3) AS d FROM docs WHERE simhash_within(fp, pg_temp.fp_of(3), 2) ORDER BY d, fp;
RESET enable_bitmapscan;
-- a nested loop probing the index once per outer row ("near-duplicates of these new rows")
CREATE TABLE incoming (id int, fp simhash);
INSERT INTO incoming SELECT c, pg_temp.flip(pg_temp.fp_of(c), '{0,33}') FROM generate_series(1, 5) c;
ANALYZE incoming;
EXPLAIN (COSTS OFF) SELECT i.id, d.id FROM incoming i JOIN docs d ON d.fp % i.fp;
SELECT i.id, array_agg(d.id ORDER BY d.id) FROM incoming i JOIN docs d ON d.fp % i.fp GROUP BY i.id ORDER BY i.id;
EXPLAIN (COSTS OFF) SELECT i.id, d.id FROM incoming i JOIN docs d ON simhash_within(d.fp, i.fp, 4);
SELECT i.id, count(*) FROM incoming i JOIN docs d ON simhash_within(d.fp, i.fp, 4) GROUP BY i.id ORDER BY i.id;
-- A btree (here a unique constraint) on the column: the planner asks
-- simhash_within's support function about every index on fp, and the
-- btree's strategy 3 is =; building the index condition from it failed
-- planning with "type simhash is not composite".
CREATE TABLE keyed (id int, fp simhash UNIQUE);
INSERT INTO keyed SELECT min(id), fp FROM docs WHERE fp IS NOT NULL GROUP BY fp;
SELECT count(*) FROM keyed WHERE simhash_within(fp, pg_temp.fp_of(7), 4);
SELECT count(*) FROM keyed WHERE simhash_within(pg_temp.fp_of(7), fp, 4);
CREATE INDEX keyed_sh ON keyed USING simhash (fp);
ANALYZE keyed;
EXPLAIN (COSTS OFF) SELECT id FROM keyed WHERE simhash_within(fp, '0123456789abcdef', 3);
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM keyed WHERE simhash_within(fp, %L, 4)', pg_temp.fp_of(7)));
-- Under row-level security only a LEAKPROOF condition may go into an index
-- scan; % cannot fail, so a role the policy applies to still gets the index
-- (simhash_within raises an error on its radius argument, so it cannot be).
CREATE ROLE regress_simhash_tenant;
ALTER TABLE keyed ENABLE ROW LEVEL SECURITY;
CREATE POLICY even_ids ON keyed USING (id % 2 = 0);
GRANT SELECT ON keyed TO regress_simhash_tenant;
SET ROLE regress_simhash_tenant;
EXPLAIN (COSTS OFF) SELECT id FROM keyed WHERE fp % '0123456789abcdef';
SELECT array_agg(id ORDER BY id) FROM keyed WHERE fp % pg_temp.fp_of(7);
RESET ROLE;
SELECT array_agg(id ORDER BY id) FROM keyed WHERE fp % pg_temp.fp_of(7);  -- the owner: every row
DROP TABLE keyed;
DROP ROLE regress_simhash_tenant;

-- Deletes and VACUUM
DELETE FROM docs WHERE id % 3 = 0;
UPDATE docs SET fp = pg_temp.flip(fp, '{63}') WHERE id % 7 = 0;
VACUUM docs;
SELECT simhash_index_check('docs_fp', true);
SELECT r, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, %s)', pg_temp.fp_of(1), r))
FROM unnest('{0,3,6,10,64}'::int[]) r;
SELECT pg_temp.same(format('SELECT array_agg(d) FROM (SELECT fp <-> %L AS d FROM docs ORDER BY fp <-> %L LIMIT 25) s',
                           pg_temp.fp_of(2), pg_temp.fp_of(2)));

-- Inserts after the build split pages and keep answers exact
INSERT INTO docs SELECT i, pg_temp.fp_of(i) FROM generate_series(5001, 12000) i;
INSERT INTO docs SELECT 200000 + k, pg_temp.flip('00000000ffffffff', ARRAY[k % 64]) FROM generate_series(1, 700) k;
INSERT INTO docs SELECT 300000 + k, 'aaaaaaaaaaaaaaaa' FROM generate_series(1, 1500) k;  -- one fingerprint, many rows
SELECT simhash_index_check('docs_fp', true);
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 2)', 'aaaaaaaaaaaaaaab'));
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 1)', '00000000ffffffff'));
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, 7)', pg_temp.fp_of(6000)));
SELECT max(largest_bucket) FROM simhash_index_stats('docs_fp');

-- blocks reloption
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 0);
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 17);
CREATE INDEX docs_fp8 ON docs USING simhash (fp) WITH (blocks = 8);
SELECT partition, block_bits FROM simhash_index_stats('docs_fp8') ORDER BY partition LIMIT 3;
DROP INDEX docs_fp;
SELECT r, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, %s)', pg_temp.fp_of(4), r))
FROM unnest('{0,7,8,15,16,30}'::int[]) r;
CREATE INDEX docs_fp1 ON docs USING simhash (fp) WITH (blocks = 1);
DROP INDEX docs_fp8;
SELECT r, pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE simhash_within(fp, %L, %s)', pg_temp.fp_of(4), r))
FROM unnest('{0,2,5}'::int[]) r;
DROP INDEX docs_fp1;

-- REINDEX, REINDEX CONCURRENTLY
CREATE INDEX docs_fp ON docs USING simhash (fp);
REINDEX INDEX docs_fp;
REINDEX INDEX CONCURRENTLY docs_fp;
SELECT simhash_index_check('docs_fp', true);
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp %% %L', pg_temp.fp_of(8)));
-- ALTER INDEX ... SET (blocks) takes effect at the next REINDEX: until then
-- the index keeps (and inserts use) the partitions it was built with.
ALTER INDEX docs_fp SET (blocks = 8);
SELECT count(*) AS partitions FROM simhash_index_stats('docs_fp');
INSERT INTO docs VALUES (400001, pg_temp.flip(pg_temp.fp_of(8), ARRAY[3]));
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp %% %L', pg_temp.fp_of(8)));
SELECT simhash_index_check('docs_fp', true);
REINDEX INDEX docs_fp;
SELECT count(*) AS partitions FROM simhash_index_stats('docs_fp');
SELECT pg_temp.same(format('SELECT array_agg(id ORDER BY id) FROM docs WHERE fp %% %L', pg_temp.fp_of(8)));
ALTER INDEX docs_fp RESET (blocks);
REINDEX INDEX docs_fp;
DELETE FROM docs WHERE id = 400001;

-- Empty table, unlogged table
CREATE UNLOGGED TABLE empty_docs (fp simhash);
CREATE INDEX empty_docs_fp ON empty_docs USING simhash (fp);
SELECT simhash_index_check('empty_docs_fp', true);
SET enable_seqscan = off;
SELECT count(*) FROM empty_docs WHERE fp % '0123456789abcdef';
SELECT count(*) FROM (SELECT * FROM empty_docs ORDER BY fp <-> '0123456789abcdef' LIMIT 5) s;
INSERT INTO empty_docs VALUES ('0123456789abcdef'), ('0123456789abcdee'), (NULL);
SELECT fp FROM empty_docs WHERE fp % '0123456789abcdef' ORDER BY fp;
RESET enable_seqscan;

-- A build larger than maintenance_work_mem spills to one tuplesort per partition
CREATE TABLE spill AS SELECT i AS id, pg_temp.fp_of(i) AS fp FROM generate_series(1, 70000) i;
SET maintenance_work_mem = '1MB';
CREATE INDEX spill_fp ON spill USING simhash (fp) WITH (blocks = 3);
RESET maintenance_work_mem;
SELECT simhash_index_check('spill_fp', true);
SELECT partition, entries FROM simhash_index_stats('spill_fp');
SET enable_seqscan = off;
SELECT id FROM spill WHERE simhash_within(fp, pg_temp.flip(pg_temp.fp_of(4242), '{5,50}'), 2);
RESET enable_seqscan;
DROP TABLE spill;

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

-- simhash_index_check refuses an index that CREATE INDEX CONCURRENTLY left
-- invalid (it reported "corruption" in one, which need not hold every row),
-- and so does simhash_index_stats (it reported a bad metapage, XX002: the
-- failed build had written no metapage).
CREATE TABLE unfinished (id bigint);
INSERT INTO unfinished SELECT generate_series(1, 10);
CREATE INDEX CONCURRENTLY unfinished_fp ON unfinished USING simhash (((100 / (id - 5))::simhash));
SELECT indisvalid FROM pg_index WHERE indexrelid = 'unfinished_fp'::regclass;
SELECT simhash_index_check('unfinished_fp');
SELECT * FROM simhash_index_stats('unfinished_fp');
DROP TABLE unfinished;

-- A partitioned index has no pages; the hint names the function that was
-- called (simhash_index_stats' hint named simhash_index_check).
CREATE TABLE parted (fp simhash) PARTITION BY HASH (fp);
CREATE TABLE parted_0 PARTITION OF parted FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE INDEX parted_fp ON parted USING simhash (fp);
SELECT simhash_index_check('parted_fp');
SELECT * FROM simhash_index_stats('parted_fp');
DROP TABLE parted;
-- The hint's query runs as given: function and index schema-qualified, the
-- index's name a proper literal (it was bare, and broke on a quote), and
-- it reaches the leaves under a partition that is partitioned itself (it
-- read pg_inherits, one level down, and failed on that partition's index).
CREATE SCHEMA "odd schema";
CREATE TABLE "odd schema".parted (k int, fp simhash) PARTITION BY LIST (k);
CREATE TABLE "odd schema".parted_0 PARTITION OF "odd schema".parted FOR VALUES IN (0);
CREATE TABLE "odd schema".parted_1 PARTITION OF "odd schema".parted FOR VALUES IN (1) PARTITION BY HASH (fp);
CREATE TABLE "odd schema".parted_1a PARTITION OF "odd schema".parted_1 FOR VALUES WITH (MODULUS 1, REMAINDER 0);
CREATE INDEX "we'ird" ON "odd schema".parted USING simhash (fp);
INSERT INTO "odd schema".parted VALUES (0, '0123456789abcdef'), (1, '0123456789abcdef'), (1, 'fedcba9876543210');
SELECT * FROM simhash_index_stats('"odd schema"."we''ird"');
CREATE FUNCTION pg_temp.run_hint(stmt text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE hint text; r record;
BEGIN
    EXECUTE stmt;
EXCEPTION WHEN wrong_object_type THEN
    GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
    SET LOCAL search_path = pg_catalog;
    FOR r IN EXECUTE substr(hint, strpos(hint, 'SELECT')) LOOP
        RETURN NEXT r::text;
    END LOOP;
END $$;
SELECT pg_temp.run_hint($$SELECT * FROM simhash_index_stats('"odd schema"."we''ird"')$$);
SELECT pg_temp.run_hint($$SELECT simhash_index_check('"odd schema"."we''ird"')$$);
DROP SCHEMA "odd schema" CASCADE;

-- An index scan reads simhash.threshold when it starts: a SET between the
-- FETCHes of an open cursor does not change what its scan returns (README,
-- "Settings"; a sequential scan tests each row when it reads it).
CREATE TABLE cur (id int, fp simhash);
INSERT INTO cur SELECT i, 'abcdef0123456789' FROM generate_series(1, 4) i;
INSERT INTO cur VALUES (5, 'abcdef0123456788');
CREATE INDEX cur_fp ON cur USING simhash (fp);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM cur WHERE fp % 'abcdef0123456788';
BEGIN;
DECLARE k CURSOR FOR SELECT id FROM cur WHERE fp % 'abcdef0123456788';
FETCH 1 FROM k;
SET LOCAL simhash.threshold = 0;
FETCH ALL FROM k;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE cur;

-- Like amcheck's functions, the check (which holds off writers) and the
-- statistics (which show the table's contents) are not granted to PUBLIC;
-- any role could run them on any table.
CREATE ROLE regress_simhash_reader;
SET ROLE regress_simhash_reader;
SELECT simhash_index_check('docs_fp');
SELECT count(*) FROM simhash_index_stats('docs_fp');
RESET ROLE;
GRANT EXECUTE ON FUNCTION simhash_index_check(regclass, boolean), simhash_index_stats(regclass) TO regress_simhash_reader;
SET ROLE regress_simhash_reader;
SELECT simhash_index_check('docs_fp');
SELECT count(*) FROM simhash_index_stats('docs_fp');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION simhash_index_check(regclass, boolean), simhash_index_stats(regclass) FROM regress_simhash_reader;
DROP ROLE regress_simhash_reader;

-- Index-only scans check rows on pages not all-visible in the heap; a row
-- updated in place (HOT) is found through its chain's first tuple.  The
-- check once moved the scan's copy of the tid to the chain's live member,
-- where the executor's own heap visit then found nothing: the updated rows
-- went missing (found by the randomized differential test).
CREATE TABLE hot_rows (id int, note text, fp simhash) WITH (fillfactor = 50);
INSERT INTO hot_rows SELECT i, '', ('0123456789abcdef'::simhash::bigint # (1::bigint << i))::simhash
  FROM generate_series(0, 39) i;
INSERT INTO hot_rows SELECT i, '', ((hashint4(i)::bigint << 32) | (hashint4(-i)::bigint & 4294967295))::simhash
  FROM generate_series(40, 2000) i;
CREATE INDEX hot_rows_fp ON hot_rows USING simhash (fp);
VACUUM ANALYZE hot_rows;
UPDATE hot_rows SET note = 'updated' WHERE id < 20;
SELECT n_tup_hot_upd > 0 AS hot_updates FROM pg_stat_xact_user_tables WHERE relname = 'hot_rows';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT fp FROM hot_rows WHERE fp % '0123456789abcdef';
SELECT count(*) AS index_only FROM (SELECT fp FROM hot_rows WHERE fp % '0123456789abcdef') s;
SELECT count(*) AS knn_index_only FROM (SELECT fp FROM hot_rows ORDER BY fp <-> '0123456789abcdef' LIMIT 40) s
 WHERE fp % '0123456789abcdef';
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE hot_rows;

-- Every scan counts in pg_stat_user_indexes.idx_scan, as btree's do (it
-- stayed 0, so "unused index" queries picked simhash indexes to drop; found
-- by testing): an index scan, a KNN scan and a bitmap scan.
BEGIN;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) >= 0 AS index_scan FROM docs WHERE fp % '0123456789abcdef';
SELECT count(*) >= 0 AS knn FROM (SELECT id FROM docs ORDER BY fp <-> '0123456789abcdef' LIMIT 3) k;
SET LOCAL enable_bitmapscan = on;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;
SELECT count(*) >= 0 AS bitmap_scan FROM docs WHERE fp % '0123456789abcdef';
SELECT pg_stat_get_xact_numscans('docs_fp'::regclass) AS scans;
COMMIT;

-- Pages read again through the buffer they were found in before
-- (ReadRecentBuffer, shx_buffer_guess.cpp) count in pg_statio_*_indexes as
-- ReadBuffer's reads do: a scan repeated in one transaction fetches as
-- many blocks each time, all hits.
BEGIN;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) > 0 AS found FROM docs WHERE simhash_within(fp, pg_temp.fp_of(8), 9);
SELECT pg_stat_get_xact_blocks_fetched('docs_fp'::regclass) AS f1 \gset
SELECT count(*) > 0 AS found FROM docs WHERE simhash_within(fp, pg_temp.fp_of(8), 9);
SELECT pg_stat_get_xact_blocks_fetched('docs_fp'::regclass) AS f2, pg_stat_get_xact_blocks_hit('docs_fp'::regclass) AS h2 \gset
SELECT count(*) > 0 AS found FROM docs WHERE simhash_within(fp, pg_temp.fp_of(8), 9);
SELECT :f2 - :f1 > 0 AS counted, :f2 - :f1 = pg_stat_get_xact_blocks_fetched('docs_fp'::regclass) - :f2 AS same,
       pg_stat_get_xact_blocks_hit('docs_fp'::regclass) - :h2 = pg_stat_get_xact_blocks_fetched('docs_fp'::regclass) - :f2 AS all_hits;
COMMIT;

-- Catalog: operator class, properties
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'simhash_ops';
SELECT p, pg_index_column_has_property('docs_fp'::regclass, 1, p)
FROM unnest('{orderable,distance_orderable,returnable,search_nulls}'::text[]) p;
SELECT simhash_index_check('docs'::regclass);
SELECT simhash_index_check('docs_pkey'::regclass);
DROP TABLE docs, incoming, empty_docs;

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
