#!/usr/bin/env bash
# How radius-3 search cost grows with the rows per block value (not a timed
# test).  A table of billions of rows does not fit these machines, but its
# buckets can be had at smaller sizes: with blocks >= 4 a radius-3 search
# reads exactly one bucket (block value) in each of partitions 0 to 3, and a
# bucket of a b-bit block holds N / 2^b rows.  So N rows indexed with
# blocks = 8 (8-bit blocks) have the buckets of 256 N rows at the default 4
# blocks (16-bit blocks), and blocks = 16 those of 4,096 N.  For each
# setting this prints the search time per query inside the server (a
# PL/pgSQL loop, no client round trip), the buffers one query reads, and the
# ratio to the default's time in the same run; blocks = 2 (32-bit blocks,
# 33 probes per partition) is printed for comparison.  Everything is in
# shared buffers: a real index of billions of rows would read those pages
# from disk.
#
# Usage: test/bench/bucket_density.sh [N]      (default 10000000; about 4
# minutes at 10M, and 1.5 GB of disk)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/scratch-cluster.sh

N=${1:-10000000}
SCRATCH_SETTINGS="-c shared_buffers=2GB -c maintenance_work_mem=1GB -c max_parallel_maintenance_workers=0 \
-c max_wal_size=4GB -c autovacuum=off -c jit=off"
start_scratch_cluster "$PWD/.scratch/density"
trap stop_scratch_cluster EXIT
psql_q() { "${PSQL[@]}" -At "$@"; }

psql_q <<SQL
CREATE EXTENSION simhash;
CREATE EXTENSION pg_prewarm;
CREATE UNLOGGED TABLE t (id bigint, fp simhash);
INSERT INTO t SELECT i, ((hashint8(i)::bigint << 32) | (hashint8(i + 9000000000)::bigint & 4294967295))::simhash
    FROM generate_series(1, $N) i;
-- 2,000 stored rows as queries (each finds itself, and uniform rows nothing else)
CREATE TABLE q AS SELECT row_number() OVER () AS k, fp FROM t WHERE id % ($N / 2000) = 0 LIMIT 2000;
VACUUM ANALYZE t;
CREATE FUNCTION per_query_ms(r int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; c bigint; rec record; m int := 0;
BEGIN
    FOR rec IN SELECT fp FROM q LOOP SELECT count(*) INTO c FROM t WHERE simhash_within(fp, rec.fp, r); END LOOP;  -- warm
    t0 := clock_timestamp();
    FOR rec IN SELECT fp FROM q LOOP SELECT count(*) INTO c FROM t WHERE simhash_within(fp, rec.fp, r); m := m + 1; END LOOP;
    RETURN extract(epoch FROM clock_timestamp() - t0) * 1000 / m;
END \$\$;
SQL

probe=$(psql_q -c "SELECT fp FROM q WHERE k = 7")
printf '%s rows, radius 3, per query inside the server:\n' "$N"
printf '%-7s %-5s %-20s %-18s %-9s %-8s %s\n' blocks bits "bucket rows avg/max" "4 blocks' buckets at" ms/query buffers "vs 4 blocks"
base=""
for b in 4 8 16 2; do
    psql_q -c "SET client_min_messages = warning" -c "DROP INDEX IF EXISTS t_fp" -c "CREATE INDEX t_fp ON t USING simhash (fp) WITH (blocks = $b)" -c "SELECT pg_prewarm('t_fp')" >/dev/null
    stats=$(psql_q -F ' ' -c "SELECT round(avg(avg_bucket)), max(largest_bucket), min(block_bits) FROM simhash_index_stats('t_fp') WHERE partition < 4")
    read -r avg mx bits <<<"$stats"
    ms=$(psql_q -c "SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT round(per_query_ms(3)::numeric, 4)" | tail -1)
    bufs=$(psql_q -c "SET enable_seqscan = off; SET enable_bitmapscan = off;
        EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT count(*) FROM t WHERE simhash_within(fp, '$probe', 3)" |
        grep -o "shared hit=[0-9]*" | head -1 | cut -d= -f2 || true)
    like="-"
    [ "$b" -ge 4 ] && like=$(awk -v n="$N" -v bits="$bits" 'BEGIN { v = n * 2 ^ (16 - bits)
        if (v >= 1e9) printf "%.3g billion", v / 1e9; else printf "%.3g million", v / 1e6 }')
    [ -z "$base" ] && base=$ms
    printf '%-7s %-5s %-20s %-20s %-9s %-8s %s\n' "$b" "$bits" "$avg / $mx" "$like" "$ms" "$bufs" \
        "$(awk -v a="$ms" -v b="$base" 'BEGIN { printf "%.1fx", a / b }')"
done
