-- pg_temp.time_query(q): runs the statement q and returns its wall time in
-- milliseconds.  Included by the benchmarks that time statements in rounds
-- from one session (fingerprint_bench.sh, aggregate_state_bench.sql).
CREATE FUNCTION pg_temp.time_query(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; BEGIN
  t0 := clock_timestamp(); EXECUTE q; RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
