#!/usr/bin/env bash
# Benchmark: simhash(text) throughput in SQL on real text, as a ratio to
# md5(text) over the same rows in the same run (target: at most 1.0x the
# cost of md5 on English and Chinese; Japanese, Russian and German show
# the tokenizer's paths for kana, Cyrillic and accented Latin), and the
# IDF-weighted simhash(body, idf) as a ratio to simhash(body) (the
# weighted votes and the table lookups it adds).  Not a
# test: it prints numbers and asserts nothing.  It installs the extension, so
# it runs under the machine-wide lock:
#   flock /tmp/simhash-pg15.lock bash test/bench/fingerprint_bench.sh [rounds, default 9]
# The table, with the command, machine, date and commit, also goes to
# test/bench/results/fingerprint.md (the latest run only).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
ROUNDS=${1:-9}
source scripts/scratch-cluster.sh

bash scripts/install-deps.sh manpages-zh fortunes-zh manpages-ja manpages-ru manpages-de
make -s -j2 && make -s install >/dev/null

SCRATCH_SETTINGS="-c shared_buffers=1GB -c max_parallel_workers_per_gather=0 -c jit=off"
start_scratch_cluster "$ROOT/.scratch/bench"
trap stop_scratch_cluster EXIT

perl test/bench/corpus.pl | write_scratch_file "$SCRATCH_DIR/corpus.tsv"
"${PSQL[@]}" -v corpus="$SCRATCH_DIR/corpus.tsv" <<'SQL'
CREATE EXTENSION simhash;
\i test/bench/corpus_tables.sql
-- docs_default stores the texts as PostgreSQL does by default (compressed
-- with default_toast_compression), where reading each text costs its
-- decompression too: what a query of a user's table costs.
CREATE TABLE docs_default (language text, body text);
INSERT INTO docs_default SELECT language, body || '' FROM corpus;
VACUUM ANALYZE docs_default;
-- each language's document frequencies, for simhash(body, idf)
CREATE TABLE idf_of AS SELECT language, simhash_idf_agg(body) AS idf FROM docs GROUP BY language;
SQL

# Median of $ROUNDS alternating runs of each expression over one language's rows.
TABLE="$SCRATCH_DIR/table.txt"
"${PSQL[@]}" -v rounds="$ROUNDS" <<'SQL' | tee "$TABLE"
SET bench.rounds = :rounds;
CREATE TEMP TABLE timings (storage text, language text, expr text, round int, ms float8);
\i test/bench/time_query.sql
DO $$
DECLARE lang text; e text; r int; tab text;
BEGIN
  -- every language in every round, so that a slower phase of the machine
  -- (they can last minutes on a shared VM) falls on all of them alike
  FOR r IN 0 .. current_setting('bench.rounds')::int LOOP   -- round 0 warms the cache
    FOREACH lang IN ARRAY ARRAY['en', 'zh', 'ja', 'ru', 'de'] LOOP
      FOREACH tab IN ARRAY ARRAY['docs', 'docs_default'] LOOP
        FOREACH e IN ARRAY ARRAY['md5(body)', 'simhash(body)', 'simhash(body, idf)'] LOOP
          CONTINUE WHEN tab = 'docs_default' AND e LIKE '%idf%';
          INSERT INTO timings VALUES (CASE tab WHEN 'docs' THEN 'uncompressed' ELSE 'default' END, lang, e, r,
            pg_temp.time_query(format('SELECT count(%s) FROM %I %s WHERE language = %L', e, tab,
                                      CASE WHEN e LIKE '%idf%' THEN 'JOIN idf_of USING (language)' ELSE '' END, lang)));
        END LOOP;
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
\echo
\echo 'simhash(text) against md5(text), and simhash(body, idf) against simhash(text), same rows, median of the rounds;'
\echo 'storage: uncompressed (the functions alone) or default (compressed: each text decompressed first, for both)'
WITH m AS (
  SELECT storage, language, expr, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
    FROM timings WHERE round > 0 GROUP BY storage, language, expr
), sizes AS (
  SELECT language, count(*) AS docs, sum(octet_length(body)) / 1048576.0 AS mb FROM docs GROUP BY language
)
SELECT md5.storage, s.language, s.docs, round(s.mb, 1) AS "MB",
       round(md5.ms::numeric, 1) AS "md5 ms", round(sh.ms::numeric, 1) AS "simhash ms",
       round((sh.ms / md5.ms)::numeric, 2) AS "simhash/md5",
       round((s.mb / (sh.ms / 1000))::numeric, 0) AS "simhash MB/s",
       round(idf.ms::numeric, 1) AS "idf ms", round((idf.ms / sh.ms)::numeric, 2) AS "idf/simhash"
  FROM sizes s
  JOIN m md5 ON md5.language = s.language AND md5.expr = 'md5(body)'
  JOIN m sh ON sh.language = s.language AND sh.expr = 'simhash(body)' AND sh.storage = md5.storage
  LEFT JOIN m idf ON idf.language = s.language AND idf.expr = 'simhash(body, idf)' AND idf.storage = md5.storage
 ORDER BY md5.storage DESC, array_position(ARRAY['en', 'zh', 'ja', 'ru', 'de'], s.language);
SQL

RESULTS="$ROOT/test/bench/results/fingerprint.md"
mkdir -p "$(dirname "$RESULTS")"
COMMIT=$(measured_commit "$ROOT")
{
    echo "# simhash(text) against md5(text)"
    echo
    echo "Written by test/bench/fingerprint_bench.sh; the latest run only."
    echo
    echo "- Command: \`flock /tmp/simhash-pg15.lock bash test/bench/fingerprint_bench.sh $ROUNDS\`"
    echo "- Machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
         "$(free -g | awk '/^Mem:/ {print $2}') GiB, $(. /etc/os-release && echo "$PRETTY_NAME"), $(pg_config --version)," \
         "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT"
    echo "- Settings: one backend, no parallel workers, JIT off; the same bodies stored uncompressed"
    echo "  (EXTERNAL) and as by default (compressed, $("${PSQL[@]}" -Atc 'SHOW default_toast_compression')); median of $ROUNDS alternating rounds after a warm-up round"
    echo "- Target: simhash(text) at most 1.0x the cost of md5(text) on the same rows, English and Chinese"
    echo
    echo '```'
    sed '/^$/d' "$TABLE"
    echo '```'
} > "$RESULTS"
echo "wrote $RESULTS"
