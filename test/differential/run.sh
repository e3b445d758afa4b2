#!/usr/bin/env bash
# Randomized differential test of the simhash index against sequential scans.
# Starts a private PostgreSQL instance, and for several `blocks` settings runs
# rounds of insert / update / delete / VACUUM, each followed by random queries
# (=, %, simhash_within for radii 0-64, KNN with and without a radius, two
# conditions at once; rows include distinct fingerprints crowding one
# directory slot) answered once through the index and once by a
# sequential scan, and simhash_pairs against the self-join at four radii.  Also checks the index structure (simhash_index_check) after
# every round.  Exits non-zero on any mismatch; the last line is a summary.
#   DIFF_ROWS (default 3000), DIFF_ROUNDS (4), DIFF_QUERIES (150), DIFF_BLOCKS ("1 3 4 5 8 16"),
#   then two rounds on DIFF_LARGE_ROWS (60000; 0 skips) with DIFF_LARGE_BLOCKS ("2 4 16"),
#   then DIFF_EXCLUDE_SECONDS (5) of concurrent inserts under an exclusion constraint.
#   Even rounds set simhash.knn_first_pass_rows = 0 (KNN scans redo their probe levels).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
source scripts/pg-env.sh

ROWS=${DIFF_ROWS:-3000}
ROUNDS=${DIFF_ROUNDS:-4}
QUERIES=${DIFF_QUERIES:-150}
BLOCKS=${DIFF_BLOCKS:-"1 3 4 5 8 16"}
LARGE_ROWS=${DIFF_LARGE_ROWS:-60000}
LARGE_BLOCKS=${DIFF_LARGE_BLOCKS:-"2 4 16"}

TMP=$(mktemp -d /tmp/simhash-diff.XXXXXX) || exit 1
owned_dir "$TMP"
cleanup() { as_cluster_owner pg_ctl -D "$TMP/data" -m immediate stop >/dev/null 2>&1; rm -rf "$TMP"; }
trap cleanup EXIT
as_cluster_owner initdb -D "$TMP/data" --no-locale -E UTF8 >/dev/null || { echo "differential: initdb failed"; exit 1; }
cat >>"$TMP/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$TMP'
fsync = off
autovacuum = off
CONF
as_cluster_owner pg_ctl -D "$TMP/data" -l "$TMP/log" -w start >/dev/null || { cat "$TMP/log"; exit 1; }
psql_run() { (cd "$TMP" && as_cluster_owner psql -X -q -h "$TMP" -d postgres -v ON_ERROR_STOP=1 -At "$@"); }

psql_run -c "CREATE EXTENSION simhash" || exit 1
psql_run -f "$ROOT/test/differential/diff.sql" || exit 1

total_q=0
total_bad=0
run_blocks() {  # run_blocks ROWS ROUNDS PAIRS BLOCKS...: PAIRS 1 compares simhash_pairs too
    local rows=$1 rounds=$2 pairs=$3 b round bad pbad first_pass
    shift 3
    for b in "$@"; do
        psql_run -c "DROP TABLE IF EXISTS dt; CREATE TABLE dt (id serial PRIMARY KEY, fp simhash);" \
                 -c "SELECT setseed(0.$b); SELECT diff_add_rows($rows);" \
                 -c "CREATE INDEX dt_idx ON dt USING simhash (fp) WITH (blocks = $b, fillfactor = 60)" >/dev/null || exit 1
        for round in $(seq 1 "$rounds"); do
            # the queries run in the backend that just filled a deep slot, so they start from its hints;
            # in even rounds KNN scans start from the smallest first pass, so that they redo their
            # probe levels as they go farther (shx_scan.cpp, knn_expand)
            first_pass=$((round % 2 == 0 ? 0 : 100))
            bad=$(psql_run -c "SELECT diff_add_deep($rows / 20)" -c "SET simhash.knn_first_pass_rows = $first_pass" \
                           -c "SELECT diff_queries($QUERIES)" 2>"$TMP/warn" | tail -1) ||
                { cat "$TMP/warn"; exit 1; }
            head -5 "$TMP/warn"
            psql_run -c "SELECT simhash_index_check('dt_idx', true)" >/dev/null || { echo "blocks=$b round $round: index check failed"; bad=$((bad + 1)); }
            # simhash_pairs against the self-join at four radii (diff_pairs)
            if [ "$pairs" = 1 ]; then
                pbad=$(psql_run -c "SELECT diff_pairs()" 2>"$TMP/warn" | tail -1) || { cat "$TMP/warn"; exit 1; }
                head -5 "$TMP/warn"
                echo "$rows rows, blocks=$b round $round: simhash_pairs at 4 radii, $pbad mismatching"
                total_bad=$((total_bad + pbad))
            fi
            total_q=$((total_q + QUERIES))
            total_bad=$((total_bad + bad))
            echo "$rows rows, blocks=$b round $round (knn_first_pass_rows $first_pass): $QUERIES queries, $bad mismatches"
            psql_run -c "SELECT diff_add_rows($rows / 3); SELECT diff_churn($rows / 10);" >/dev/null || exit 1
            if [ $((round % 2)) -eq 0 ]; then psql_run -c "VACUUM dt" || exit 1; fi
        done
    done
}
# shellcheck disable=SC2086
run_blocks "$ROWS" "$ROUNDS" 1 $BLOCKS
# A larger table makes KNN probe several levels before it reads a partition
# whole, which is where a row reached by several probes must count once.
# simhash_pairs is not compared there: its reference, the self-join at radii
# up to 20, costs minutes at that size, and the small tables already take
# the pair walk through every block count and radius.
# shellcheck disable=SC2086
[ "$LARGE_ROWS" -gt 0 ] && run_blocks "$LARGE_ROWS" 2 0 $LARGE_BLOCKS
# Concurrent writers under EXCLUDE USING simhash (fp WITH %): four clients
# insert near copies of 3000 fingerprints with ON CONFLICT DO NOTHING; no two
# rows may end up within the threshold.
cat >"$TMP/exclude.sql" <<'SQL'
\set base random(1, 3000)
\set f1 random(0, 63)
\set f2 random(0, 63)
INSERT INTO ex (fp) VALUES ((hashint8(:base)::bigint # (1::bigint << :f1) # (1::bigint << :f2))::simhash) ON CONFLICT DO NOTHING;
SQL
chmod a+r "$TMP/exclude.sql"
psql_run -c "CREATE TABLE ex (id bigserial, fp simhash, EXCLUDE USING simhash (fp WITH %))" >/dev/null || exit 1
(cd "$TMP" && as_cluster_owner pgbench -n -h "$TMP" -c 4 -j 2 -T "${DIFF_EXCLUDE_SECONDS:-5}" -f "$TMP/exclude.sql" postgres >"$TMP/pgbench.out" 2>&1) ||
    { cat "$TMP/pgbench.out"; exit 1; }
kept=$(psql_run -c "SELECT count(*) FROM ex")
violations=$(psql_run -c "SET simhash.threshold = 3; SELECT count(*) FROM ex a JOIN ex b ON a.fp % b.fp AND a.id < b.id")
psql_run -c "SELECT simhash_index_check('ex_fp_excl', true)" >/dev/null || violations=$((violations + 1))
echo "exclusion constraint, 4 concurrent writers: $kept rows kept, $violations pairs within the threshold"
total_bad=$((total_bad + violations))

echo "differential: $total_q queries, $total_bad mismatches (blocks: $BLOCKS; $LARGE_ROWS rows: $LARGE_BLOCKS)"
[ "$total_bad" -eq 0 ]
