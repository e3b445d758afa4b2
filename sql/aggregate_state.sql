-- simhash_agg's bytea state (1.1): the state Citus can compute on its
-- workers, send as text and combine on the coordinator.  These checks run
-- that path by hand on one server: partial states from separate groups,
-- through bytea's text form, combined, give the fingerprint of all rows.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

SELECT aggfnoid::regprocedure, aggtranstype::regtype, aggtransspace, aggcombinefn, aggserialfn, aggfinalfn
  FROM pg_aggregate
 WHERE aggfnoid IN ('simhash_agg(text)'::regprocedure, 'simhash_agg(text, float8)'::regprocedure) ORDER BY 1;

-- The state alone (the aggregate without its final function), and the
-- combine and final functions as an aggregate over states: what Citus's
-- workers and coordinator run.
CREATE AGGREGATE pg_temp.votes(text, float8) (SFUNC = simhash_agg_state_weighted_transfn, STYPE = bytea);
CREATE AGGREGATE pg_temp.votes(text) (SFUNC = simhash_agg_state_transfn, STYPE = bytea);
CREATE AGGREGATE pg_temp.combined(bytea) (SFUNC = simhash_agg_state_combinefn, STYPE = bytea,
                                           FINALFUNC = simhash_agg_state_finalfn);
CREATE TABLE state_terms AS
  SELECT i % 8 AS shard, 'term' || (i % 700) AS f, (i % 5 + 1)::float8 AS w FROM generate_series(1, 20000) i;
INSERT INTO state_terms VALUES (3, NULL, 1), (4, 'x', NULL), (5, '', 2);
SELECT octet_length(pg_temp.votes(f, w)) AS state_bytes FROM state_terms;
SELECT (SELECT pg_temp.combined(s::text::bytea)
          FROM (SELECT pg_temp.votes(f, w) AS s FROM state_terms GROUP BY shard) p)
       = (SELECT simhash_agg(f, w) FROM state_terms) AS weighted_combined_matches,
       (SELECT pg_temp.combined(s::text::bytea)
          FROM (SELECT pg_temp.votes(f) AS s FROM state_terms GROUP BY shard) p)
       = (SELECT simhash_agg(f) FROM state_terms) AS unweighted_combined_matches,
       (SELECT simhash_agg(f, w) FROM state_terms)
       = (SELECT simhash(array_agg(f), array_agg(w)) FROM state_terms WHERE f <> '' AND w IS NOT NULL)
         AS matches_the_array_form;
-- Shards without rows send NULL states; a group of NULL states gives NULL.
SELECT pg_temp.combined(s) IS NULL AS all_null FROM (VALUES (NULL::bytea), (NULL)) v(s);
SELECT pg_temp.combined(s) = simhash(ARRAY['a']) AS null_skipped
  FROM (VALUES (NULL::bytea), ((SELECT pg_temp.votes('a')))) v(s);

-- A state of the wrong size (from another build, a user's INITCOND, a
-- truncated message) is refused, not read past its end.
SELECT pg_temp.combined(s) FROM (VALUES ((SELECT pg_temp.votes('a'))), ('\x0102'::bytea)) v(s);
CREATE AGGREGATE pg_temp.bad_init(text) (SFUNC = simhash_agg_state_transfn, STYPE = bytea, INITCOND = '\x00',
                                         FINALFUNC = simhash_agg_state_finalfn);
SELECT pg_temp.bad_init(f) FROM state_terms;
-- States stored in a table (after an int4 column: 4-byte aligned, where
-- the sums need 8) are read through an aligned copy.
CREATE TEMP TABLE stored_states (k int4, s bytea);
INSERT INTO stored_states VALUES (1, (SELECT pg_temp.votes('a'))), (2, (SELECT pg_temp.votes('b')));
SELECT pg_temp.combined(s) = simhash(ARRAY['a', 'b']) AS stored_states_combined,
       bool_and(simhash_agg_state_finalfn(s) = simhash(ARRAY[CASE k WHEN 1 THEN 'a' ELSE 'b' END]))
         AS stored_states_final
  FROM stored_states;
-- The transition and combine functions, which update their first argument
-- in place, run only in an aggregate.
SELECT simhash_agg_state_transfn(NULL, 'a');
SELECT simhash_agg_state_combinefn(s, s) FROM stored_states;

-- The transition function updates the state in place: a window aggregate,
-- which reads the state after every row and goes on adding to it, sees
-- each running fingerprint.
SELECT count(*) AS rows, count(*) FILTER (WHERE running IS DISTINCT FROM expected) AS differ
  FROM (SELECT i, simhash_agg('w' || i) OVER (ORDER BY i) AS running,
               simhash(array_agg('w' || i) OVER (ORDER BY i)) AS expected
          FROM generate_series(1, 200) i) w;
-- A moving frame starts the state again whenever the frame's head moves.
SELECT count(*) AS rows, count(*) FILTER (WHERE running IS DISTINCT FROM expected) AS differ
  FROM (SELECT i, simhash_agg('w' || i) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS running,
               simhash(ARRAY['w' || (i - 2), 'w' || (i - 1), 'w' || i]) AS expected
          FROM generate_series(1, 200) i) w
 WHERE i > 2;
-- Ordered and grouped, every group's state starts empty.
SELECT g, simhash_agg(f ORDER BY f) = simhash(array_agg(f)) AS ordered_matches
  FROM (VALUES (1, 'a'), (1, 'b'), (2, 'c')) v(g, f) GROUP BY g ORDER BY g;
-- Parallel aggregation passes the bytea state between processes as is.
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT simhash_agg(f, w) FROM state_terms;
SELECT simhash_agg(f, w) = (SELECT simhash(array_agg(f), array_agg(w)) FROM state_terms WHERE f <> '' AND w IS NOT NULL)
       AS parallel_matches FROM state_terms;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE state_terms;

-- Updating from 1.0: an aggregate a view calls keeps its internal state,
-- with a WARNING, and the update goes through; the others move to bytea.
-- docs/citus.md's steps then move the kept one by hand.
SELECT current_database() AS regress_db \gset
CREATE DATABASE regress_simhash_agg_update;
\c regress_simhash_agg_update
CREATE EXTENSION simhash VERSION '1.0';
CREATE VIEW weighted AS SELECT simhash_agg(f, w) AS fp FROM (VALUES ('a', 2.0::float8), ('b', 1)) v(f, w);
ALTER EXTENSION simhash UPDATE TO '1.1';
SELECT aggfnoid::regprocedure, aggtranstype::regtype FROM pg_aggregate
 WHERE aggfnoid IN ('simhash_agg(text)'::regprocedure, 'simhash_agg(text, float8)'::regprocedure) ORDER BY 1;
SELECT fp = simhash(ARRAY['a', 'b'], ARRAY[2.0, 1]) AS view_answers FROM weighted;
BEGIN;
DROP VIEW weighted;
ALTER EXTENSION simhash DROP AGGREGATE simhash_agg(text, float8);
DROP AGGREGATE simhash_agg(text, float8);
CREATE AGGREGATE simhash_agg(feature text, weight float8) (
    SFUNC = simhash_agg_state_weighted_transfn, STYPE = bytea, SSPACE = 2064,
    FINALFUNC = simhash_agg_state_finalfn, COMBINEFUNC = simhash_agg_state_combinefn, PARALLEL = SAFE);
ALTER EXTENSION simhash ADD AGGREGATE simhash_agg(text, float8);
CREATE VIEW weighted AS SELECT simhash_agg(f, w) AS fp FROM (VALUES ('a', 2.0::float8), ('b', 1)) v(f, w);
COMMIT;
SELECT aggfnoid::regprocedure, aggtranstype::regtype,
       EXISTS (SELECT FROM pg_depend WHERE objid = aggfnoid AND deptype = 'e') AS extension_member
  FROM pg_aggregate
 WHERE aggfnoid IN ('simhash_agg(text)'::regprocedure, 'simhash_agg(text, float8)'::regprocedure) ORDER BY 1;
SELECT fp = simhash(ARRAY['a', 'b'], ARRAY[2.0, 1]) AS view_answers FROM weighted;
\c :regress_db
DROP DATABASE regress_simhash_agg_update;
