#!/usr/bin/env bash
# Benchmark: simhash(text) of this checkout against simhash(text) of another
# commit, BASE, over the same rows in the same run, both also as ratios to
# md5(text): the before and after of a change to the fingerprint's speed.
# The rows are fingerprint_bench.sh's, stored uncompressed (the functions
# alone), in its five languages.  Not a test: it prints numbers and asserts
# nothing.  It installs the extension, so it runs under the machine-wide
# lock:
#   flock /tmp/simhash-pg15.lock bash test/bench/fingerprint_ab.sh BASE [rounds, default 7]
# The table also goes to test/bench/results/fingerprint_ab.md (the latest
# run only).
#
# BASE is built from `git archive` in a temporary directory and its library
# installed as simhash_base.so (removed at the end), with a function
# simhash_base(text) calling its simhash_text.  The two libraries cannot
# share a backend (each defines the extension's settings when it loads),
# so each measurement is a new backend that runs its query once to warm up
# and once timed; the three functions alternate within each round, and the
# table shows each one's median over the rounds.  On this 2-CPU VM a
# whole run can be a seventh slower than the next: compare builds within a
# run, as this script does, not across runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
BASE=${1:?usage: fingerprint_ab.sh BASE-COMMIT [rounds]}
ROUNDS=${2:-7}
BASE_COMMIT=$(git rev-parse --short "$BASE^{commit}")
source scripts/scratch-cluster.sh

bash scripts/install-deps.sh manpages-zh fortunes-zh manpages-ja manpages-ru manpages-de
make -s -j2 && make -s install >/dev/null

BASE_TREE=$(mktemp -d /tmp/simhash-base.XXXXXX)
BASE_LIB="$(pg_config --pkglibdir)/simhash_base.so"
cleanup() {
    stop_scratch_cluster
    rm -f "$BASE_LIB"
    rm -rf "$BASE_TREE"
}
trap cleanup EXIT
git archive "$BASE_COMMIT" | tar -x -C "$BASE_TREE"
make -s -C "$BASE_TREE" -j2 >/dev/null
install -m 755 "$BASE_TREE/simhash.so" "$BASE_LIB"

SCRATCH_SETTINGS="-c shared_buffers=1GB -c max_parallel_workers_per_gather=0 -c jit=off"
start_scratch_cluster "$ROOT/.scratch/bench"

perl test/bench/corpus.pl | write_scratch_file "$SCRATCH_DIR/corpus.tsv"
"${PSQL[@]}" -v corpus="$SCRATCH_DIR/corpus.tsv" <<'SQL'
CREATE EXTENSION simhash;
\i test/bench/corpus_tables.sql
CREATE TABLE timings (language text, function text, round int, ms float8);
SQL
# in a backend of its own: creating it loads the base library
"${PSQL[@]}" -c "CREATE FUNCTION simhash_base(text) RETURNS simhash
    AS '\$libdir/simhash_base', 'simhash_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;"

LANGUAGES=(en zh ja ru de)
for round in $(seq 0 "$ROUNDS"); do  # round 0 warms the caches
    for language in "${LANGUAGES[@]}"; do
        for function in md5 simhash simhash_base; do
            query="SELECT count($function(body)) FROM docs WHERE language = '$language'"
            "${PSQL[@]}" -c "$query" -c "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
                PERFORM count($function(body)) FROM docs WHERE language = '$language';
                INSERT INTO timings VALUES ('$language', '$function', $round,
                                            extract(epoch FROM clock_timestamp() - t0) * 1000);
                END \$\$;" >/dev/null
        done
    done
done

TABLE=$(mktemp)
"${PSQL[@]}" -v base="$BASE_COMMIT" <<'SQL' | tee "$TABLE"
\echo 'simhash(text) of this checkout and of' :base', and md5(text), same rows (uncompressed), median of the rounds'
WITH m AS (
  SELECT language, function, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
    FROM timings WHERE round > 0 GROUP BY language, function
), sizes AS (
  SELECT language, count(*) AS docs, sum(octet_length(body)) / 1048576.0 AS mb FROM docs GROUP BY language
)
SELECT s.language, s.docs, round(s.mb, 1) AS "MB", round(md5.ms::numeric, 1) AS "md5 ms",
       round(base.ms::numeric, 1) AS "base ms", round(new.ms::numeric, 1) AS "simhash ms",
       round((base.ms / md5.ms)::numeric, 2) AS "base/md5", round((new.ms / md5.ms)::numeric, 2) AS "simhash/md5",
       round((new.ms / base.ms)::numeric, 2) AS "simhash/base"
  FROM sizes s
  JOIN m md5 ON md5.language = s.language AND md5.function = 'md5'
  JOIN m base ON base.language = s.language AND base.function = 'simhash_base'
  JOIN m new ON new.language = s.language AND new.function = 'simhash'
 ORDER BY array_position(ARRAY['en', 'zh', 'ja', 'ru', 'de'], s.language);
SQL

RESULTS="$ROOT/test/bench/results/fingerprint_ab.md"
COMMIT=$(measured_commit "$ROOT")
{
    echo "# simhash(text) before and after"
    echo
    echo "Written by test/bench/fingerprint_ab.sh; the latest run only."
    echo
    echo "- Command: \`flock /tmp/simhash-pg15.lock bash test/bench/fingerprint_ab.sh $BASE_COMMIT $ROUNDS\`"
    echo "- Machine: $(describe_machine), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); simhash: commit $COMMIT; base: commit $BASE_COMMIT"
    echo "- Settings: a new backend per measurement (a warm-up query, then the timed one), JIT off,"
    echo "  no parallel workers; median of $ROUNDS rounds after a warm-up round"
    echo
    echo '```'
    sed '/^$/d' "$TABLE"
    echo '```'
} > "$RESULTS"
rm -f "$TABLE"
echo "wrote $RESULTS"
