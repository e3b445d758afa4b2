#!/usr/bin/env bash
# Fingerprint quality on real English and Chinese text: installs what it
# needs, builds and installs the extension, starts a scratch server, runs
# test/eval/evaluate.py, writes its tables to test/eval/RESULTS.md and the
# data of its plots to test/eval/results.json, and draws docs/img/recall.svg
# and docs/img/distances.svg from them (test/plot.py).
#   bash test/eval/evaluate.sh
# EVAL_EDIT_DRAWS=N edits each document N times at every rate (default 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
source scripts/scratch-cluster.sh

bash scripts/install-deps.sh manpages-zh manpages-ja fortunes-zh python3 python3-jieba python3-numpy python3-matplotlib
make -s -j2 && make -s install >/dev/null

SCRATCH_SETTINGS="-c shared_buffers=512MB -c work_mem=256MB"
start_scratch_cluster "$ROOT/.scratch/eval"
trap stop_scratch_cluster EXIT
"${PSQL[@]}" -c 'CREATE EXTENSION simhash'
perl test/bench/corpus.pl | write_scratch_file "$SCRATCH_DIR/corpus.tsv"

# The classic baseline segments Chinese with jieba from Debian's python3-jieba.
started=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$SECONDS
version=$(sed -n 's/^constexpr int kAlgorithmVersion = \([0-9]*\);.*/\1/p' src/core/fingerprint.hpp)
# the command as run, for the results file: the settings given, then the script
command=""
for v in EVAL_ONLY EVAL_EDITED_DOCS EVAL_EDIT_DRAWS; do
    if [ -n "${!v:-}" ]; then command+="$v='${!v}' "; fi
done
command+="bash test/eval/evaluate.sh"
export EVAL_EDIT_DRAWS=${EVAL_EDIT_DRAWS:-1}
data=$(mktemp)
EVAL_DATA=$data EVAL_RUN="run of $started, algorithm version $version" /usr/bin/python3 test/eval/evaluate.py "$SCRATCH_DIR/corpus.tsv" "${PSQL_COMMAND[@]}" |
    as_cluster_owner tee "$SCRATCH_DIR/tables.md"
# The sections after the marker line come from other scripts (length_weighting.py,
# heldout_prose.sh): kept as they are.
kept=$(sed -n '/^<!-- Everything below was measured by other scripts/,$p' test/eval/RESULTS.md 2>/dev/null || true)
{
    echo "# Fingerprint quality: results"
    echo
    echo "Command: \`$command\` (EVAL_ONLY keeps the methods whose names match; without it, every method)."
    echo "Run: $started, $(( (SECONDS - t0) / 60 )) minutes, algorithm version $version, commit $(git rev-parse --short HEAD)."
    echo "Machine: $(describe_machine)."
    echo "Plots drawn from this run: docs/img/recall.svg, docs/img/distances.svg (data: test/eval/results.json)."
    echo
    as_cluster_owner cat "$SCRATCH_DIR/tables.md"
    if [ -n "$kept" ]; then printf '\n%s\n' "$kept"; fi
} > test/eval/RESULTS.md
mv "$data" test/eval/results.json
chmod 644 test/eval/results.json
/usr/bin/python3 test/plot.py eval test/eval/results.json docs/img
