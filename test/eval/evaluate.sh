#!/usr/bin/env bash
# Fingerprint quality on real English and Chinese text: installs what it
# needs, builds and installs the extension, starts a scratch server, runs
# test/eval/evaluate.py and writes its tables to test/eval/RESULTS.md.
#   bash test/eval/evaluate.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
source scripts/scratch-cluster.sh

bash scripts/install-deps.sh manpages-zh manpages-ja fortunes-zh python3 python3-jieba python3-numpy
make -s -j2 && make -s install >/dev/null

SCRATCH_SETTINGS="-c shared_buffers=512MB -c work_mem=256MB"
start_scratch_cluster "$ROOT/.scratch/eval"
trap stop_scratch_cluster EXIT
"${PSQL[@]}" -c 'CREATE EXTENSION simhash'
perl test/bench/corpus.pl | write_scratch_file "$SCRATCH_DIR/corpus.tsv"

# The classic baseline segments Chinese with jieba from Debian's python3-jieba.
started=$(date -u '+%Y-%m-%d %H:%M UTC')
version=$(sed -n 's/^constexpr int kAlgorithmVersion = \([0-9]*\);.*/\1/p' src/core/fingerprint.hpp)
/usr/bin/python3 test/eval/evaluate.py "$SCRATCH_DIR/corpus.tsv" "${PSQL_COMMAND[@]}" | as_cluster_owner tee "$SCRATCH_DIR/tables.md"
# The sections after the marker line come from other scripts (zh_weighting.py,
# heldout_prose.sh, subset runs): kept as they are.
kept=$(sed -n '/^<!-- Everything below was measured by other scripts/,$p' test/eval/RESULTS.md 2>/dev/null || true)
{
    echo "# Fingerprint quality: results"
    echo
    echo "Produced by \`bash test/eval/evaluate.sh\` on $started (algorithm version $version)."
    echo "See README.md, \"Choosing a threshold\", for what they mean in practice."
    echo
    as_cluster_owner cat "$SCRATCH_DIR/tables.md"
    if [ -n "$kept" ]; then printf '\n%s\n' "$kept"; fi
} > test/eval/RESULTS.md
