#!/usr/bin/env bash
# Recall on prose the harness never saw (exploration, not a test): installs
# Debian's manuals in English and Chinese, builds and installs the extension,
# starts a scratch server, loads test/eval/heldout_prose.py's documents and
# edited copies, and prints test/eval/heldout_prose.sql's tables (about 4
# minutes).   bash test/eval/heldout_prose.sh   (SEED=8 draws other edits)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
source scripts/scratch-cluster.sh

bash scripts/install-deps.sh python3 debian-reference-en debian-reference-zh-cn debian-reference-zh-tw \
    debian-faq debian-faq-zh-cn maint-guide maint-guide-zh-cn maint-guide-zh-tw debian-edu-doc-en \
    debian-edu-doc-zh-cn harden-doc debian-handbook installation-guide-amd64
make -s -j2 && make -s install >/dev/null

SCRATCH_SETTINGS="-c shared_buffers=512MB -c work_mem=256MB"
start_scratch_cluster "$ROOT/.scratch/heldout"
trap stop_scratch_cluster EXIT
"${PSQL[@]}" -c 'CREATE EXTENSION simhash'
/usr/bin/python3 test/eval/heldout_prose.py "${PSQL_COMMAND[@]}"
"${PSQL[@]}" -P footer=off -f test/eval/heldout_prose.sql
