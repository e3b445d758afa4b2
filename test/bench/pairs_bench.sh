#!/usr/bin/env bash
# Benchmark of the batch functions (not a timed test).  In one run, on a
# private PostgreSQL instance, for each N (the index benchmark's data:
# uniform random fingerprints plus 10% planted near-duplicates,
# uniform_base.sql) it prints, for all pairs within radius 3:
#   the README's self-join (a.fp % b.fp AND a.id < b.id), serial and with
#   2 parallel workers;
#   simhash_pairs, simhash_clusters 'connected' and 'keep_first';
# each with its wall time, its row count, and its peak private memory (the
# largest sum of RssAnon over the backend and its parallel workers, sampled
# every 20 ms: shared buffers are not counted), and the ratio of the
# self-join's serial time to it.  Table and index are read into shared
# buffers first; each function is run twice and the faster run counts (the
# self-joins once).  The results go to test/bench/results/pairs.md with the
# command, the machine and the date.
#
# Usage: test/bench/pairs_bench.sh [N ...]      (default: 1000000 10000000)
#   BENCH_RADIUS (default 3), BENCH_WORK_MEM (default 4MB, the server's default)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
source scripts/scratch-cluster.sh

SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(1000000 10000000)
RADIUS=${BENCH_RADIUS:-3}
WORK_MEM=${BENCH_WORK_MEM:-4MB}
COMMAND="test/bench/pairs_bench.sh ${SIZES[*]}"

TMP=$(mktemp -d /tmp/simhash-pairs-bench.XXXXXX) || exit 1
chmod 711 "$TMP"
cleanup() {
    stop_scratch_cluster
    rm -rf "$TMP"
}
trap cleanup EXIT
SCRATCH_SETTINGS="-c shared_buffers=4GB -c maintenance_work_mem=1GB -c max_parallel_maintenance_workers=0 \
-c max_wal_size=8GB -c autovacuum=off -c jit=off -c work_mem=$WORK_MEM"
start_scratch_cluster "$ROOT/.scratch/pairs_bench" || exit 1
psql_q() { (cd "$TMP" && "${PSQL[@]}" -At "$@"); }
psql_q -c "CREATE EXTENSION simhash; CREATE EXTENSION pg_prewarm;" || exit 1

RESULTS="$TMP/results"
row() { printf '%s\n' "$1" | tee -a "$RESULTS"; }

# The sum of RssAnon (kB) of backend $1 and its parallel workers.
private_kb() {
    local pids p sum=0 kb
    pids="$1 $(ps -eo pid=,args= | awk -v leader="$1" '$0 ~ "parallel worker for PID " leader "( |$)" {print $1}')"
    for p in $pids; do
        kb=$(awk '/^RssAnon:/ {print $2}' "/proc/$p/status" 2>/dev/null)
        sum=$((sum + ${kb:-0}))
    done
    echo "$sum"
}

# measure SETTINGS QUERY: prints "seconds rows peak_MiB" of one run of
# QUERY (which returns one number) after SETTINGS, in a new session
measure() {
    local out="$TMP/measure.out" pid peak=0 kb
    rm -f "$out"
    (cd "$TMP" && "${PSQL[@]}" -At -c "SET application_name = 'pairs_bench'" -c "$1" -c "SELECT pg_sleep(0.3)" \
        -c '\timing on' -c "$2" >"$out" 2>&1) &
    local client=$!
    pid=
    while [ -z "$pid" ] && kill -0 "$client" 2>/dev/null; do
        pid=$(psql_q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'pairs_bench' AND backend_type = 'client backend' ORDER BY backend_start DESC LIMIT 1")
    done
    while kill -0 "$client" 2>/dev/null; do
        kb=$(private_kb "$pid")
        [ "$kb" -gt "$peak" ] && peak=$kb
        sleep 0.02
    done
    wait "$client" || { cat "$out" >&2; return 1; }
    local ms rows
    ms=$(grep -o 'Time: [0-9.]* ms' "$out" | tail -1 | awk '{print $2}')
    rows=$(grep -v '^Time:' "$out" | tail -1)
    echo "$ms $rows $peak" | awk '{printf "%.2f %s %.1f\n", $1 / 1000, $2, $3 / 1024}'
}

# best of two runs of measure (by time); peak is the larger of the two
best_of_two() {
    local a b
    a=$(measure "$1" "$2") || return 1
    b=$(measure "$1" "$2") || return 1
    echo "$a $b" | awk '{t = $1 < $4 ? $1 : $4; p = $3 > $6 ? $3 : $6; printf "%.2f %s %.1f\n", t, $2, p}'
}

{
    echo "# simhash batch functions: all pairs and clusters within radius $RADIUS"
    echo
    echo "Command: \`$COMMAND\` (BENCH_WORK_MEM=$WORK_MEM)"
    echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: absolute times scale with it, ratios within the run much less)"
    echo "Machine: $(nproc) vCPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/ {print $2}') GiB RAM; $(psql_q -c 'SELECT version()' | cut -d' ' -f1-2)"
    echo
    echo "Data: test/bench/uniform_base.sql (90% uniform random fingerprints, 10% in planted clusters of 20"
    echo "near-duplicates). Table and index prewarmed; functions best of 2 runs, self-joins 1 run."
    echo "Peak memory: the largest sum of RssAnon over the backend and its parallel workers (shared buffers not counted)."
} >"$RESULTS"
cat "$RESULTS"

for n in "${SIZES[@]}"; do
    t0=$(date +%s.%N)
    psql_q -v n="$n" <"$ROOT/test/bench/uniform_base.sql" >/dev/null || exit 1
    psql_q -c "DROP INDEX base_id_idx" -c "CREATE INDEX base_fp ON base USING simhash (fp)" -c "VACUUM ANALYZE base" >/dev/null || exit 1
    psql_q -c "SELECT pg_prewarm('base'), pg_prewarm('base_fp')" >/dev/null || exit 1
    loaded=$(echo "$t0 $(date +%s.%N)" | awk '{printf "%.0f", $2 - $1}')
    row ""
    row "## N = $n (loaded and indexed in $loaded s; index $(psql_q -c "SELECT pg_size_pretty(pg_relation_size('base_fp'))"))"
    row ""
    row "| all pairs within $RADIUS | seconds | rows | peak MiB | self-join serial / this |"
    row "|---|---|---|---|---|"
    serial=$(measure "SET max_parallel_workers_per_gather = 0; SET simhash.threshold = $RADIUS" \
        "SELECT count(*) FROM base a JOIN base b ON a.fp % b.fp AND a.id < b.id") || exit 1
    ser_t=${serial%% *}
    line() { echo "$2" | awk -v label="$1" -v s="$ser_t" '{printf "| %s | %.2f | %s | %.1f | %.1fx |\n", label, $1, $2, $3, s / $1}'; }
    row "$(line "self-join, serial" "$serial")"
    par=$(measure "SET max_parallel_workers_per_gather = 2; SET simhash.threshold = $RADIUS" \
        "SELECT count(*) FROM base a JOIN base b ON a.fp % b.fp AND a.id < b.id") || exit 1
    row "$(line "self-join, 2 parallel workers" "$par")"
    r=$(best_of_two "SET simhash.threshold = $RADIUS" "SELECT count(*) FROM simhash_pairs('base_fp', $RADIUS)") || exit 1
    row "$(line "simhash_pairs" "$r")"
    r=$(best_of_two "SET simhash.threshold = $RADIUS" "SELECT count(*) FROM simhash_clusters('base_fp', $RADIUS, 'connected')") || exit 1
    row "$(line "simhash_clusters 'connected' (rows with a neighbour)" "$r")"
    r=$(best_of_two "SET simhash.threshold = $RADIUS" "SELECT count(*) FROM simhash_clusters('base_fp', $RADIUS, 'keep_first')") || exit 1
    row "$(line "simhash_clusters 'keep_first' (rows with a neighbour)" "$r")"
    removed=$(psql_q -c "SELECT count(*) FROM simhash_clusters('base_fp', $RADIUS, 'keep_first') WHERE member <> representative")
    row ""
    row "keep_first would delete $removed rows."
done

row ""
row "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$ROOT/test/bench/results"
cp "$RESULTS" "$ROOT/test/bench/results/pairs.md"
echo "written: test/bench/results/pairs.md"
