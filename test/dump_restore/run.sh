#!/usr/bin/env bash
# The cross-version dump test: a database made on one PostgreSQL major,
# dumped with its pg_dump, restored with another major's pg_restore, answers
# every query of queries.sql as it did before the dump.
#   bash test/dump_restore/run.sh dump DIR      makes the database of schema.sql
#       in a scratch cluster of the PostgreSQL that pg_config names, writes
#       DIR/simhash.dump (pg_dump's custom format), its answers to
#       queries.sql (DIR/answers.out) and that major (DIR/major)
#   bash test/dump_restore/run.sh restore DIR   restores DIR/simhash.dump into
#       a scratch cluster of this PostgreSQL and compares its answers, query by
#       query: "ok N - ..." or "not ok N - ..." lines, then
#       "tests: P passed, F failed"
# scripts/test-all.sh dumps on the machine's major and restores into each
# chroot's.  The extension must be installed (scripts/test-suites.sh does it).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
source scripts/scratch-cluster.sh
mode=${1:-}
DIR=${2:-}
case $mode in dump|restore) ;; *) echo "usage: $0 dump|restore DIR" >&2; exit 2 ;; esac
[ -n "$DIR" ] && mkdir -p "$DIR" && DIR=$(cd "$DIR" && pwd) || { echo "usage: $0 dump|restore DIR" >&2; exit 2; }
fail() { echo "$*"; echo "tests: 0 passed, 1 failed ($*)"; exit 1; }

start_scratch_cluster "$ROOT/.scratch/dump_restore" 5620 || fail "the scratch cluster did not start"
trap stop_scratch_cluster EXIT
major=$(pg_config --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
CONNECT=(-h "$SCRATCH_DIR" -p "$SCRATCH_PORT" -U postgres)
# psql reads the scripts from standard input: the cluster owner may not be
# able to read the checkout
answers() {  # answers FILE: queries.sql's output in database simhash_dump
    "${PSQL[@]}" -d simhash_dump <"$ROOT/test/dump_restore/queries.sql" >"$1" 2>&1
}

if [ "$mode" = dump ]; then
    "${PSQL[@]}" -d postgres -c "CREATE DATABASE simhash_dump" || fail "CREATE DATABASE failed"
    "${PSQL[@]}" -d simhash_dump <"$ROOT/test/dump_restore/schema.sql" >/dev/null || fail "schema.sql failed"
    answers "$DIR/answers.out" || { cat "$DIR/answers.out"; fail "queries.sql failed on the original"; }
    as_cluster_owner pg_dump "${CONNECT[@]}" -Fc simhash_dump >"$DIR/simhash.dump" || fail "pg_dump failed"
    echo "$major" >"$DIR/major"
    echo "PostgreSQL $major: dumped $(stat -c %s "$DIR/simhash.dump") bytes; $(grep -c '^-- [0-9]*:' "$DIR/answers.out") queries answered"
    exit 0
fi

from=$(cat "$DIR/major" 2>/dev/null) || fail "no dump in $DIR"
"${PSQL[@]}" -d postgres -c "CREATE DATABASE simhash_dump" || fail "CREATE DATABASE failed"
n=0
bad=0
check() {  # check DESCRIPTION COMMAND...
    n=$((n + 1))
    if "${@:2}"; then echo "ok $n - $1"; return 0; fi
    echo "not ok $n - $1"
    bad=$((bad + 1))
    return 1
}
restore_log=$(mktemp) || exit 1
as_cluster_owner pg_restore "${CONNECT[@]}" -d simhash_dump --exit-on-error <"$DIR/simhash.dump" >"$restore_log" 2>&1
status=$?
check "PostgreSQL $from's dump restores into $major without an error" [ "$status" -eq 0 ] || tail -20 "$restore_log"
rm -f "$restore_log"
answers "$DIR/answers.$major.out"
# one check per query: the lines from its "-- N:" header to the next
section() {  # section FILE N
    awk -v n="$2" '/^-- [0-9]+:/ { on = ($2 == n ":") } on' "$1"
}
same_answer() {  # same_answer N: query N answered as on the original; shows the difference
    diff <(section "$DIR/answers.out" "$1") <(section "$DIR/answers.$major.out" "$1") >"$DIR/diff" && return 0
    head -20 "$DIR/diff"
    return 1
}
for q in $(sed -n 's/^-- \([0-9]*\):.*/\1/p' "$DIR/answers.out"); do
    check "$(sed -n "s/^-- $q: //p" "$DIR/answers.out"): as on $from" same_answer "$q"
done
echo "tests: $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
