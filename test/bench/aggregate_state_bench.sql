-- The SQL of aggregate_state_bench.sh; runs in any database where simhash
-- 1.1 can be created (psql -v rounds=7 -f test/bench/aggregate_state_bench.sql).
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS agg_bench CASCADE;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
CREATE SCHEMA agg_bench;
-- simhash_agg(text, float8) as 1.0 declares it: the internal state
CREATE AGGREGATE agg_bench.internal_agg(text, float8) (
    SFUNC = simhash_agg_weighted_transfn, STYPE = internal, SSPACE = 2064, FINALFUNC = simhash_agg_finalfn,
    COMBINEFUNC = simhash_agg_combinefn, SERIALFUNC = simhash_agg_serializefn,
    DESERIALFUNC = simhash_agg_deserializefn, PARALLEL = SAFE);
CREATE TABLE agg_bench.terms AS
  SELECT i % 1000 AS g, 'term' || (i % 50000) AS f, (i % 7 + 1)::float8 AS w FROM generate_series(1, 1000000) i;
VACUUM ANALYZE agg_bench.terms;
SELECT (SELECT simhash_agg(f, w) FROM agg_bench.terms) = (SELECT agg_bench.internal_agg(f, w) FROM agg_bench.terms)
       AS same_fingerprint;

SET bench.rounds = :rounds;
CREATE TEMP TABLE timings (query text, state text, round int, ms float8);
\ir time_query.sql
DO $$
DECLARE q text; s text; r int;
BEGIN
  FOR r IN 0 .. current_setting('bench.rounds')::int LOOP   -- round 0 warms the cache
    FOREACH q IN ARRAY ARRAY['SELECT %s(f, w) FROM agg_bench.terms',
                             'SELECT g, %s(f, w) FROM agg_bench.terms GROUP BY g'] LOOP
      FOREACH s IN ARRAY ARRAY['internal', 'bytea'] LOOP
        INSERT INTO timings VALUES (q, s, r, pg_temp.time_query(
          format(q, CASE s WHEN 'bytea' THEN 'simhash_agg' ELSE 'agg_bench.internal_agg' END)));
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
\echo
\echo 'simhash_agg over 1M rows: bytea state (1.1) against internal state (1.0), same run, median of the rounds'
WITH m AS (
  SELECT query, state, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
    FROM timings WHERE round > 0 GROUP BY query, state
)
SELECT format(i.query, 'simhash_agg') AS query, round(i.ms::numeric, 1) AS "internal ms",
       round(b.ms::numeric, 1) AS "bytea ms", round((b.ms / i.ms)::numeric, 3) AS "bytea/internal"
  FROM m i JOIN m b ON b.query = i.query AND b.state = 'bytea'
 WHERE i.state = 'internal' ORDER BY 1 DESC;
DROP SCHEMA agg_bench CASCADE;
