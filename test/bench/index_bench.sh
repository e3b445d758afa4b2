#!/usr/bin/env bash
# Benchmark of the simhash index (not a timed test).  In one run, on a private
# PostgreSQL instance, for N fingerprints (uniform random plus planted clusters
# of near-duplicates), and for a skewed set made from real text, it prints:
#   p50/p95 client latency of radius-3 search (pgbench, prepared statements)
#   p50/p95 of exact KNN top-10
#   the floor under them: the same round trip and query-fingerprint lookup
#   without a search (a ratio of latencies cannot exceed btrees / floor)
#   the floor, radius 3 and isolated KNN again with the client and its
#   backend on one CPU ("one CPU" rows), where a round trip costs a context
#   switch instead of waking the other CPU from idle
# Latencies are steady-state: every relation is read into shared_buffers
# first, and each pgbench connection runs BENCH_WARMUP transactions whose
# latencies are not counted (a backend's first touch of a shared-buffer page
# costs a page fault, ~50 us on these VMs, which would otherwise dominate).
# Queries are drawn from 10000 query fingerprints, so the measured ones
# touch pages all over the index rather than a few cached ones.
#   build time, index size, single-row insert throughput, and rows per second
#   of one INSERT ... SELECT of 100,000 rows (the index's own cost per row)
# for: a sequential scan; four btree expression indexes on the 16-bit blocks
# (OR-ed, then a distance filter: the hand-built pigeonhole); the simhash index.
#
# Every run writes its figures to test/bench/index_bench.csv, its section of
# test/bench/RESULTS.md (the command, the machine, the date, a table per set
# and size, the printed summary), and draws docs/img/latency.svg and
# docs/img/build.svg from the CSV (test/plot.py; Debian's python3-matplotlib).
#
# Usage: test/bench/index_bench.sh [N ...]
#   (default: 10000 100000 1000000 10000000, the sizes of the plots; the
#   targets are set for 10M rows)
#   BENCH_QUERIES (default 5000) measured queries per latency figure,
#   BENCH_WARMUP (default 10000) unmeasured queries before them,
#   BENCH_SEQ_QUERIES (default 20), BENCH_INSERT_SECONDS (default 10, run
#   twice per table),
#   BENCH_SKEW_ROWS (default 200000; 0 skips the English real-text set),
#   BENCH_SKEW_ZH_ROWS (default 0: skipped; rows of the Chinese real-text set,
#   windows of the Chinese man pages and fortunes, whose single-character
#   fingerprints lean further than English ones),
#   BENCH_MWM maintenance_work_mem for every build (default 1GB),
#   BENCH_SYNC_COMMIT synchronous_commit (default on; off measures the
#   inserts' CPU cost rather than the commit flushes),
#   BENCH_BLOCKS the simhash index's blocks option (default 4),
#   BENCH_BUSY=1 keeps every core busy with a lowest-priority (nice 19) spin
#   loop for the whole run.  On these VMs a round trip to an idle server
#   costs about 0.07 ms, mostly the CPUs waking from idle (the floor row);
#   with the cores kept busy it costs about 0.01 ms, as on a server under
#   load, and the latencies of short queries show the search itself.  Only
#   those rows mean anything then: the spinners still slow CPU-bound work
#   (sequential scans, builds; the two vCPUs share a core's resources) and
#   make commit flushes wait (single-row inserts fall to ~260/s for both
#   tables).  The targets are measured with the default (0); the "one
#   CPU" rows show the search itself without slowing anything else.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
source scripts/scratch-cluster.sh

SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(10000 100000 1000000 10000000)
# the command as run, for the results file: the BENCH_ settings, then the sizes
COMMAND="$(env | grep '^BENCH_' | sort | tr '\n' ' ')bash test/bench/index_bench.sh${*:+ $*}"
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
NQ=${BENCH_QUERIES:-5000}
NWARM=${BENCH_WARMUP:-10000}
NSEQ=${BENCH_SEQ_QUERIES:-20}
INS_SECS=${BENCH_INSERT_SECONDS:-10}
SKEW=${BENCH_SKEW_ROWS:-200000}
SKEW_ZH=${BENCH_SKEW_ZH_ROWS:-0}
MWM=${BENCH_MWM:-1GB}
SYNC_COMMIT=${BENCH_SYNC_COMMIT:-on}
BLOCKS=${BENCH_BLOCKS:-4}

BUSY=${BENCH_BUSY:-0}

# The runner's files (scripts, results, data for COPY) are in TMP, which
# the cluster owner can pass through but not change; the cluster, its
# socket and pgbench's logs are in PGD, the scratch cluster's directory
# (scripts/scratch-cluster.sh), the owner's.  Run as root, the script
# writes nothing into PGD and reads from it only as the owner: the owner
# could put a symlink there for root to follow (as was found in the
# other scripts).
TMP=$(mktemp -d /tmp/simhash-bench.XXXXXX) || exit 1
chmod 711 "$TMP"
SPINNERS=()
cleanup() {
    [ ${#SPINNERS[@]} -gt 0 ] && kill "${SPINNERS[@]}" 2>/dev/null
    stop_scratch_cluster
    rm -rf "$TMP"
}
trap cleanup EXIT
SCRATCH_SETTINGS="-c shared_buffers=4GB -c maintenance_work_mem=$MWM -c max_parallel_maintenance_workers=0 \
-c max_wal_size=8GB -c autovacuum=off -c jit=off -c synchronous_commit=$SYNC_COMMIT"
start_scratch_cluster "$ROOT/.scratch/index_bench" || exit 1
PGD=$SCRATCH_DIR
if [ "$BUSY" = 1 ]; then
    for _ in $(seq "$(nproc)"); do
        nice -n 19 bash -c 'while :; do :; done' &
        SPINNERS+=($!)
    done
    echo "BENCH_BUSY=1: ${#SPINNERS[@]} nice-19 spinners keep the cores out of idle"
fi
psql_q() { (cd "$TMP" && "${PSQL[@]}" -At "$@"); }
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{printf "%.1f", $2 - $1}'; }
mib() { psql_q -c "SELECT round(pg_relation_size('$1'::regclass) / 1048576.0, 1)"; }
mib_sum() { psql_q -c "SELECT round(sum(pg_relation_size(c::regclass)) / 1048576.0, 1) FROM unnest(string_to_array('$1', ' ')) c"; }

# pgbench latency percentiles (ms) of a script file: prints "p50 p95" of the
# last TRANSACTIONS of WARMUP + TRANSACTIONS run on one connection
latency() {  # latency SCRIPT TRANSACTIONS [WARMUP]
    local dir err warm=${3:-0}
    dir=$(as_cluster_owner mktemp -d "$PGD/pgb.XXXXXX")
    err=$(mktemp "$TMP/err.XXXXXX")
    (cd "$dir" && as_cluster_owner $PIN_CLIENT pgbench -n -h "$PGD" -p "$SCRATCH_PORT" -M prepared -f "$1" -t "$(($2 + warm))" -l postgres >/dev/null 2>"$err") ||
        { cat "$err" >&2; rm -f "$err"; echo "- -"; return; }
    rm -f "$err"
    (cd "$dir" && as_cluster_owner sh -c 'cat pgbench_log.*') | tail -n "$2" | awk '{print $3}' | sort -n |
        awk '{a[NR] = $1} END {i50 = int(NR * 0.5); i95 = int(NR * 0.95); if (i50 < 1) i50 = 1; if (i95 < 1) i95 = 1;
                              printf "%.3f %.3f", a[i50] / 1000, a[i95] / 1000}'
    as_cluster_owner rm -rf "$dir"
}
# The same latency with the client and its backend on one CPU.  Between two
# CPUs every round trip wakes the other one from idle, which on these VMs
# costs more than a radius-3 search; on one CPU the hand-over is a context
# switch, so the figure shows the query's own work.  The postmaster's
# affinity is narrowed for the pgbench run (the backend it forks for
# pgbench inherits it; nothing else starts meanwhile, autovacuum being off)
# and restored after it: the build, the inserts and the background
# processes keep every CPU.  The CPU is the last one this script may use.
# taskset -p runs as the cluster owner, whose postmaster.pid names the
# process: root would act on whatever pid the file holds.
PIN_CLIENT=  # what latency() runs pgbench under; one_cpu_latency sets it for its call
one_cpu_latency() {  # one_cpu_latency SCRIPT TRANSACTIONS [WARMUP]
    local pm mask cpu out
    command -v taskset >/dev/null || { echo "- -"; return; }
    cpu=$(taskset -pc $$ | sed 's/.*: //; s/.*[,-]//')
    pm=$(as_cluster_owner head -n 1 "$PGD/data/postmaster.pid")
    mask=$(as_cluster_owner taskset -p "$pm" | sed 's/.*: //')
    as_cluster_owner taskset -p -c "$cpu" "$pm" >/dev/null || { echo "- -"; return; }
    out=$(PIN_CLIENT="taskset -c $cpu" latency "$@")
    as_cluster_owner taskset -p "$mask" "$pm" >/dev/null
    echo "$out"
}
wal_bytes() { psql_q -c "SELECT wal_bytes FROM pg_stat_wal"; }
# Single-row inserts per second into TABLE for INS_SECS seconds, after a
# checkpoint (so full-page images count as they do in production); also the
# WAL bytes per insert.  Prints "tps wal_bytes_per_insert".
insert_run() {  # insert_run TABLE
    local f="$TMP/ins_$1.sql" out wal0 wal1 tps
    cat >"$f" <<SQL
\set a random(0, 4294967295)
\set b random(0, 4294967295)
INSERT INTO $1 (fp) VALUES ((((:a)::bigint << 32) | (:b)::bigint)::simhash);
SQL
    chmod a+r "$f"
    psql_q -c "CHECKPOINT" >/dev/null
    wal0=$(wal_bytes)
    out=$(cd "$TMP" && as_cluster_owner pgbench -n -h "$PGD" -p "$SCRATCH_PORT" -M prepared -f "$f" -T "$INS_SECS" postgres 2>/dev/null)
    wal1=$(wal_bytes)
    tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' |
        awk -v t="$tps" -v w0="$wal0" -v w1="$wal1" '{printf "%.0f %.0f", t, ($1 > 0 ? (w1 - w0) / $1 : 0)}'
}
# RUN (insert_run or bulk_run, each printing "rate wal_bytes") on both
# tables twice, in the order A B B A, so that drift in the machine's load
# and in checkpoint timing falls on both equally; prints the means as
# "rate_A wal_A rate_B wal_B".
abba() {  # abba RUN TABLE_A TABLE_B
    local a1 b1 b2 a2
    a1=$("$1" "$2"); b1=$("$1" "$3"); b2=$("$1" "$3"); a2=$("$1" "$2")
    echo "$a1 $a2 $b1 $b2" | awk '{printf "%.0f %.0f %.0f %.0f", ($1 + $3) / 2, ($2 + $4) / 2, ($5 + $7) / 2, ($6 + $8) / 2}'
}

# Rows per second of one INSERT ... SELECT of BULK_ROWS random fingerprints
# into TABLE, after a checkpoint: the index's own per-row cost, without the
# client round trip and commit that dominate single-row inserts.
# Each run inserts new fingerprints: the run number is kept in a file,
# because abba calls bulk_run in a command substitution (a subshell), where
# a shell variable's increment would be lost and every run would insert the
# same rows again.
BULK_ROWS=100000
bulk_run() {  # bulk_run TABLE: prints "rows/s wal_bytes_per_row"
    local t0 t1 wal0 wal1 bulk_seed
    bulk_seed=$(($(cat "$TMP/bulk_runs" 2>/dev/null || echo 0) + 1))
    echo "$bulk_seed" >"$TMP/bulk_runs"
    psql_q -c "CHECKPOINT" >/dev/null
    wal0=$(wal_bytes)
    t0=$(now)
    psql_q -c "INSERT INTO $1 (fp) SELECT ((hashint8(i)::bigint << 32) | (hashint8(i + 7000000000)::bigint & 4294967295))::simhash
               FROM generate_series($bulk_seed * 1000000000::bigint, $bulk_seed * 1000000000::bigint + $BULK_ROWS - 1) i" >/dev/null
    t1=$(now)
    wal1=$(wal_bytes)
    echo "$t0 $t1" | awk -v n="$BULK_ROWS" -v w0="$wal0" -v w1="$wal1" '{printf "%.0f %.0f", n / ($2 - $1), (w1 - w0) / n}'
}

bash scripts/install-deps.sh python3-matplotlib || exit 1
psql_q -c "CREATE EXTENSION simhash" -c "CREATE EXTENSION pg_prewarm" || exit 1
RESULTS="$TMP/results"
: >"$RESULTS"
row() { printf '%-46s %s\n' "$1" "$2" | tee -a "$RESULTS"; }
# The figures as CSV (set, rows, measure, approach, value), for the table and
# the plots; the first row describes the run.  SET and NROWS name the set
# being measured.
DATA="$TMP/data.csv"
echo "set,rows,measure,approach,value" >"$DATA"
echo "run,0,run,\"run of $STARTED at $(git rev-parse --short HEAD)\",0" >>"$DATA"
record() {  # record MEASURE APPROACH VALUE (kept when VALUE is a number)
    [[ $3 =~ ^[0-9]+(\.[0-9]+)?$ ]] && echo "$SET,$NROWS,$1,\"$2\",$3" >>"$DATA"
}
record_latency() {  # record_latency MEASURE APPROACH "P50 P95"
    record "$1_p50_ms" "$2" "${3%% *}"
    record "$1_p95_ms" "$2" "${3##* }"
}

# Runs a latency measurement, prints its row, records it and keeps "p50 p95"
# in the caller's variable VAR.
timed() {  # timed VAR LABEL MEASURE APPROACH COMMAND ARGS... (latency or one_cpu_latency)
    local -n timed_result=$1
    timed_result=$("${@:5}")
    row "$2" "$timed_result"
    record_latency "$3" "$4" "$timed_result"
}

bench_set() {  # bench_set SET LABEL  (table base(id, fp) and queries(k, q) exist)
    local label=$2 t0 t1 nrows
    nrows=$(psql_q -c "SELECT count(*) FROM base")
    SET=$1 NROWS=$nrows
    echo
    echo "== $label: $nrows rows; simhash index with blocks = $BLOCKS" | tee -a "$RESULTS"
    psql_q -c "DROP TABLE IF EXISTS t_bt, t_sh; CREATE TABLE t_bt AS SELECT * FROM base; CREATE TABLE t_sh AS SELECT * FROM base;
               ALTER TABLE t_bt ALTER COLUMN id SET DEFAULT 0; ALTER TABLE t_sh ALTER COLUMN id SET DEFAULT 0;" \
          -c "VACUUM ANALYZE base" -c "VACUUM ANALYZE t_bt" -c "VACUUM ANALYZE t_sh" -c "CHECKPOINT" || exit 1

    t0=$(now)
    psql_q -c "CREATE INDEX bt0 ON t_bt (((fp::bigint >> 48) & 65535));
               CREATE INDEX bt1 ON t_bt (((fp::bigint >> 32) & 65535));
               CREATE INDEX bt2 ON t_bt (((fp::bigint >> 16) & 65535));
               CREATE INDEX bt3 ON t_bt ((fp::bigint & 65535));" || exit 1
    t1=$(now)
    local bt_build bt_size sh_build sh_size
    bt_build=$(secs "$t0" "$t1")
    bt_size=$(mib_sum "bt0 bt1 bt2 bt3")
    t0=$(now)
    psql_q -c "CREATE INDEX sh ON t_sh USING simhash (fp) WITH (blocks = $BLOCKS)" || exit 1
    t1=$(now)
    sh_build=$(secs "$t0" "$t1")
    sh_size=$(mib sh)
    psql_q -c "VACUUM ANALYZE t_bt" -c "VACUUM ANALYZE t_sh"

    # query scripts
    cat >"$TMP/r3_seq.sql" <<'SQL'
\set k random(1, 10000)
SELECT count(*) FROM base WHERE fp <-> (SELECT q FROM queries WHERE k = :k) <= 3;
SQL
    cat >"$TMP/r3_bt.sql" <<'SQL'
\set k random(1, 10000)
SELECT id FROM t_bt, (SELECT q, q::bigint AS b FROM queries WHERE k = :k) x
 WHERE (((fp::bigint >> 48) & 65535) = ((b >> 48) & 65535) OR ((fp::bigint >> 32) & 65535) = ((b >> 32) & 65535)
     OR ((fp::bigint >> 16) & 65535) = ((b >> 16) & 65535) OR (fp::bigint & 65535) = (b & 65535))
   AND fp <-> q <= 3;
SQL
    cat >"$TMP/r3_sh.sql" <<'SQL'
\set k random(1, 10000)
SELECT id FROM t_sh WHERE simhash_within(fp, (SELECT q FROM queries WHERE k = :k), 3);
SQL
    # what every query above pays without searching: the round trip and the
    # lookup of the query fingerprint (the floor under the latencies)
    cat >"$TMP/floor.sql" <<'SQL'
\set k random(1, 10000)
SELECT q FROM queries WHERE k = :k;
SQL
    cat >"$TMP/knn_seq.sql" <<'SQL'
\set k random(1, 10000)
SELECT id FROM base ORDER BY fp <-> (SELECT q FROM queries WHERE k = :k) LIMIT 10;
SQL
    cat >"$TMP/knn_sh.sql" <<'SQL'
\set k random(1, 5000)
SELECT id FROM t_sh ORDER BY fp <-> (SELECT q FROM queries WHERE k = :k) LIMIT 10;
SQL
    cat >"$TMP/knn_sh_all.sql" <<'SQL'
\set k random(1, 10000)
SELECT id FROM t_sh ORDER BY fp <-> (SELECT q FROM queries WHERE k = :k) LIMIT 10;
SQL
    cat >"$TMP/knn_sh_u.sql" <<'SQL'
\set k random(5001, 10000)
SELECT id FROM t_sh ORDER BY fp <-> (SELECT q FROM queries WHERE k = :k) LIMIT 10;
SQL
    # KNN limited to a radius: what to use when only close rows matter
    cat >"$TMP/knn6_sh_u.sql" <<'SQL'
\set k random(5001, 10000)
SELECT id FROM t_sh WHERE simhash_within(fp, (SELECT q FROM queries WHERE k = :k), 6)
 ORDER BY fp <-> (SELECT q FROM queries WHERE k = :k) LIMIT 10;
SQL
    chmod a+r "$TMP"/*.sql
    # correctness spot check: the three approaches agree
    local agree
    agree=$(psql_q -c "SELECT count(*) FROM queries WHERE (k <= 10 OR k > 9990) AND
        (SELECT count(*) FROM t_sh WHERE simhash_within(fp, q, 3)) <>
        (SELECT count(*) FROM t_bt WHERE (((fp::bigint >> 48) & 65535) = ((q::bigint >> 48) & 65535) OR ((fp::bigint >> 32) & 65535) = ((q::bigint >> 32) & 65535)
             OR ((fp::bigint >> 16) & 65535) = ((q::bigint >> 16) & 65535) OR (fp::bigint & 65535) = (q::bigint & 65535)) AND fp <-> q <= 3)")
    psql_q -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM t_sh WHERE simhash_within(fp, (SELECT q FROM queries WHERE k = 1), 3)" \
        | grep -E "Buffers|Index" | head -4 | sed 's/^/    /' >"$TMP/explain"

    psql_q -c "SELECT sum(pg_prewarm(c)) FROM unnest(array['base', 'queries', 'queries_pkey', 't_bt', 'bt0', 'bt1', 'bt2', 'bt3', 't_sh', 'sh']) c" >/dev/null
    # each latency printed (row) and recorded for the table and plots
    local floor r3_seq r3_bt r3_sh knn_seq knn_all knn_c knn_u knn6 floor1 r3_bt1 r3_sh1 knn_u1
    timed floor "floor p50/p95 ms: query lookup, no search" floor "no search" latency "$TMP/floor.sql" "$NQ" "$NWARM"
    timed r3_seq "radius-3 p50/p95 ms, seq scan" radius3 "seq scan" latency "$TMP/r3_seq.sql" "$NSEQ" 2
    timed r3_bt "radius-3 p50/p95 ms, four btrees" radius3 "four btrees" latency "$TMP/r3_bt.sql" "$NQ" "$NWARM"
    timed r3_sh "radius-3 p50/p95 ms, simhash" radius3 simhash latency "$TMP/r3_sh.sql" "$NQ" "$NWARM"
    timed knn_seq "KNN-10 p50/p95 ms, seq scan" knn10 "seq scan" latency "$TMP/knn_seq.sql" "$NSEQ" 2
    timed knn_all "KNN-10 p50/p95 ms, simhash (all queries)" knn10 "simhash, all queries" \
        latency "$TMP/knn_sh_all.sql" "$((NQ / 5))" "$((NWARM / 5))"
    timed knn_c "KNN-10 p50/p95 ms, simhash (q in a cluster)" knn10 "simhash, q in a cluster" \
        latency "$TMP/knn_sh.sql" "$NQ" "$NWARM"
    timed knn_u "KNN-10 p50/p95 ms, simhash (q uniform)" knn10 "simhash, q uniform" \
        latency "$TMP/knn_sh_u.sql" "$((NQ / 5))" "$((NWARM / 5))"
    timed knn6 "KNN-10 within radius 6 p50/p95 ms, q uniform" knn10_within6 "simhash, q uniform" \
        latency "$TMP/knn6_sh_u.sql" "$NQ" "$NWARM"
    timed floor1 "one CPU: floor p50/p95 ms" one_cpu_floor "no search" one_cpu_latency "$TMP/floor.sql" "$NQ" "$NWARM"
    timed r3_bt1 "one CPU: radius-3 p50/p95 ms, four btrees" one_cpu_radius3 "four btrees" \
        one_cpu_latency "$TMP/r3_bt.sql" "$NQ" "$NWARM"
    timed r3_sh1 "one CPU: radius-3 p50/p95 ms, simhash" one_cpu_radius3 simhash \
        one_cpu_latency "$TMP/r3_sh.sql" "$NQ" "$NWARM"
    timed knn_u1 "one CPU: KNN-10 p50/p95 ms, q uniform" one_cpu_knn10 "simhash, q uniform" \
        one_cpu_latency "$TMP/knn_sh_u.sql" "$((NQ / 5))" "$((NWARM / 5))"
    row "build s, four btrees" "$bt_build"
    record build_s "four btrees" "$bt_build"
    row "build s, simhash" "$sh_build"
    record build_s simhash "$sh_build"
    row "size MiB, four btrees" "$bt_size"
    record size_mib "four btrees" "$bt_size"
    row "size MiB, simhash" "$sh_size"
    record size_mib simhash "$sh_size"
    row "queries where btrees != simhash" "$agree (of 20)"
    record disagreements_of_20 "four btrees, simhash" "$agree"
    local ins
    ins=($(abba insert_run t_bt t_sh))
    row "inserts/s (WAL bytes/insert), four btrees" "${ins[0]} (${ins[1]})"
    row "inserts/s (WAL bytes/insert), simhash" "${ins[2]} (${ins[3]})"
    record inserts_per_s "four btrees" "${ins[0]}"
    record inserts_per_s simhash "${ins[2]}"
    record insert_wal_bytes "four btrees" "${ins[1]}"
    record insert_wal_bytes simhash "${ins[3]}"
    local bulk
    bulk=($(abba bulk_run t_bt t_sh))
    row "rows/s (WAL bytes/row) in one INSERT ... SELECT, four btrees" "${bulk[0]} (${bulk[1]})"
    row "rows/s (WAL bytes/row) in one INSERT ... SELECT, simhash" "${bulk[2]} (${bulk[3]})"
    record bulk_rows_per_s "four btrees" "${bulk[0]}"
    record bulk_rows_per_s simhash "${bulk[2]}"
    # the issue's targets (set for 10M rows) as ratios of this run's figures
    awk -v fl="${floor%% *}" -v r3bt="${r3_bt%% *}" -v r3sh="${r3_sh%% *}" -v knn="${knn_u%% *}" -v bb="$bt_build" -v sb="$sh_build" \
        -v r3bt1="${r3_bt1%% *}" -v r3sh1="${r3_sh1%% *}" -v knn1="${knn_u1%% *}" \
        -v bs="$bt_size" -v ss="$sh_size" -v bi="${ins[0]}" -v si="${ins[2]}" 'function ratio(a, b) { return b > 0 ? a / b : 0 }
        function line(what, value, unit, goal, ok) { printf "  %-44s %7.2f%s  (target %s: %s)\n", what, value, unit, goal, ok ? "met" : "NOT met" }
        BEGIN {
            print "ratios against the four btrees of this run (targets set for 10M rows):"
            line("radius-3 p50, btrees / simhash", ratio(r3bt, r3sh), "x", ">= 10x", ratio(r3bt, r3sh) >= 10)
            # not targets: what bounds the ratio above on this machine, and
            # the search work alone (each p50 minus the floor p50)
            printf "  %-44s %7.2fx  (the ratio an index taking no time would get)\n", "radius-3 ceiling, btrees / floor", ratio(r3bt, fl)
            if (r3sh > fl)
                printf "  %-44s %7.1fx  (p50s minus the floor p50)\n", "radius-3 above the floor, btrees / simhash", ratio(r3bt - fl, r3sh - fl)
            else  # the floor is measured apart, and its noise can put it above the search (it printed 0.0x)
                printf "  %-44s %8s  (simhash p50 %.3f ms at or below the floor p50 %.3f ms)\n", "radius-3 above the floor, btrees / simhash", "n/a", r3sh, fl
            # the same targets with client and backend on one CPU (no wake-up between them)
            if (r3sh1 > 0)
                line("radius-3 p50 on one CPU, btrees / simhash", ratio(r3bt1, r3sh1), "x", ">= 10x", ratio(r3bt1, r3sh1) >= 10)
            line("isolated KNN-10 p50 (q uniform)", knn, " ms", "< 1 ms", knn > 0 && knn < 1)
            if (knn1 > 0)
                line("isolated KNN-10 p50 on one CPU", knn1, " ms", "< 1 ms", knn1 < 1)
            line("build time, simhash / btrees", ratio(sb, bb), "x", "<= 1.5x", ratio(sb, bb) <= 1.5)
            line("index size, simhash / btrees", ratio(ss, bs), "x", "<= 2x", ratio(ss, bs) <= 2)
            line("single-row inserts/s, simhash / btrees", ratio(si, bi), "x", ">= 1x", ratio(si, bi) >= 1)
        }' | tee -a "$RESULTS"
    echo "  EXPLAIN (ANALYZE, BUFFERS) of one radius-3 query:" | tee -a "$RESULTS"
    tee -a "$RESULTS" <"$TMP/explain"
}

# Replaces this benchmark's section of test/bench/RESULTS.md (between its
# two marker lines; at the top of the file when they are missing) with this
# run's, keeps its figures in test/bench/index_bench.csv and draws the plots.
write_results() {
    local section="$TMP/section.md" file=test/bench/RESULTS.md largest
    largest=$(printf '%s\n' "${SIZES[@]}" | sort -n | tail -n 1)
    {
        echo "$SECTION_BEGIN"
        echo "## The simhash index against a sequential scan and four btrees"
        echo
        echo "Command: \`$COMMAND\`"
        echo "(sizes ${SIZES[*]}; real-text sets: English $SKEW rows, Chinese $SKEW_ZH rows; 0 skips one)."
        [ "$largest" -lt 10000000 ] &&
            echo "The targets are set for 10M rows: \`bash test/bench/index_bench.sh 10000 100000 1000000 10000000\`."
        echo "Run: $STARTED to $(date -u '+%H:%M UTC'), commit $(git rev-parse --short HEAD)."
        echo "Machine: $(describe_machine)."
        echo "The machine is shared with other jobs: latencies move with its load, the ratios of one run much less."
        echo "Figures: test/bench/index_bench.csv; plots: docs/img/latency.svg, docs/img/build.svg."
        echo
        /usr/bin/python3 test/bench/index_table.py "$DATA"
        echo
        echo "The benchmark's summary (ratios against the four btrees of the same set, with the targets):"
        echo
        echo '```'
        cat "$RESULTS"
        echo '```'
        echo "$SECTION_END"
    } >"$section" || return 1
    if grep -qxF "$SECTION_BEGIN" "$file" 2>/dev/null && grep -qxF "$SECTION_END" "$file"; then
        awk -v begin="$SECTION_BEGIN" -v end="$SECTION_END" -v section="$section" '
            $0 == begin { while ((getline l < section) > 0) print l; skip = 1; next }
            $0 == end { skip = 0; next }
            !skip' "$file" >"$TMP/RESULTS.md"
    else
        { cat "$section"; echo; cat "$file" 2>/dev/null; } >"$TMP/RESULTS.md"
    fi
    cp "$TMP/RESULTS.md" "$file"
    cp "$DATA" test/bench/index_bench.csv
    chmod 644 "$file" test/bench/index_bench.csv
    /usr/bin/python3 test/plot.py index test/bench/index_bench.csv docs/img
}
SECTION_BEGIN="<!-- test/bench/index_bench.sh writes this section; its next run replaces it -->"
SECTION_END="<!-- end of test/bench/index_bench.sh's section -->"

for n in "${SIZES[@]}"; do
    # 90% uniform random; 10% in planted clusters of 20 near-duplicates (uniform_base.sql)
    psql_q -v n="$n" <"$ROOT/test/bench/uniform_base.sql" || exit 1
    psql_q -c "DROP TABLE IF EXISTS queries;
        -- queries 1-5000: a member of a planted cluster; 5001-10000: a uniform row; 0-2 bits flipped
        CREATE TABLE queries (k int PRIMARY KEY, q simhash);
        INSERT INTO queries SELECT k, (b.fp::bigint # CASE WHEN k % 3 = 0 THEN 0 ELSE 1::bigint << (k % 64) END)::simhash
            FROM generate_series(1, 10000) k
            JOIN base b ON b.id = CASE WHEN k <= 5000 THEN ($n * 0.9)::bigint + 1 + abs(hashint8(k + 77)) % ($n / 10)
                                       ELSE ($n / 200) + 1 + abs(hashint8(k + 77)) % ($n * 0.9 - $n / 200)::bigint END;
        DROP INDEX base_id_idx;" || exit 1
    bench_set uniform "uniform + planted near-duplicates, N=$n"
done

if [ "$SKEW" -gt 0 ]; then
    # real text: windows of 40 words from Debian's license texts (heavy skew and near-duplicates)
    cat /usr/share/common-licenses/* 2>/dev/null | tr -s '[:space:]' '\n' | grep -v '^$' | head -200000 >"$TMP/words"
    chmod a+r "$TMP/words"
    psql_q -c "DROP TABLE IF EXISTS base, queries, words;
        CREATE TABLE words (n serial, w text);
        COPY words (w) FROM '$TMP/words';
        CREATE INDEX ON words (n);
        CREATE TABLE base (id bigint, fp simhash);
        INSERT INTO base SELECT i, simhash((SELECT string_agg(w, ' ' ORDER BY n) FROM words
                                            WHERE n BETWEEN s AND s + 40 + (i % 3)))
        FROM (SELECT i, 1 + abs(hashint8(i)) % (SELECT max(n) - 45 FROM words) AS s FROM generate_series(1, $SKEW) i) x;
        CREATE TABLE queries (k int PRIMARY KEY, q simhash);
        INSERT INTO queries SELECT k, fp FROM generate_series(1, 10000) k JOIN base ON id = 1 + abs(hashint8(k + 5)) % $SKEW;" || exit 1
    bench_set real_text_en "skewed: simhash of real text windows, N=$SKEW"
fi

if [ "$SKEW_ZH" -gt 0 ]; then
    # real Chinese text: windows of 100 to 102 characters of one stream of every Chinese man page
    # and fortune, cut into overlapping chunks of 2,100 characters (stored uncompressed, so that
    # substr reads a slice)
    bash scripts/install-deps.sh manpages-zh fortunes-zh >/dev/null || exit 1
    perl test/bench/corpus.pl | perl -CSD -F'\t' -lane '
        next unless $F[0] eq "zh";
        (my $b = $F[3]) =~ s/\\(n|\\)/$1 eq "n" ? " " : "\\"/ge;
        $s .= $b . " ";
        END { $s =~ s/\s+/ /g;
              for (my $i = 0; $i + 200 < length($s); $i += 2000) {
                  (my $c = substr($s, $i, 2100)) =~ s/\\/\\\\/g; print $c } }' >"$TMP/zh_chunks"
    chmod a+r "$TMP/zh_chunks"
    psql_q -c "DROP TABLE IF EXISTS base, queries, zh_chunks;
        CREATE TABLE zh_chunks (n serial PRIMARY KEY, c text);
        ALTER TABLE zh_chunks ALTER COLUMN c SET STORAGE EXTERNAL;
        COPY zh_chunks (c) FROM '$TMP/zh_chunks';
        CREATE TABLE base (id bigint, fp simhash);
        INSERT INTO base SELECT i, simhash(substr(c, 1 + abs(hashint8(i)) % (length(c) - 102), 100 + (i % 3)))
          FROM generate_series(1, $SKEW_ZH) i JOIN zh_chunks ON n = 1 + abs(hashint8(i + 7)) % (SELECT max(n) FROM zh_chunks);
        CREATE TABLE queries (k int PRIMARY KEY, q simhash);
        INSERT INTO queries SELECT row_number() OVER (), fp
          FROM (SELECT fp FROM base WHERE fp IS NOT NULL ORDER BY hashint8(id + 5) LIMIT 10000) s;" || exit 1
    bench_set real_text_zh "skewed: simhash of Chinese text windows, N=$SKEW_ZH"
fi
echo
echo "==== summary"
cat "$RESULTS"
write_results

