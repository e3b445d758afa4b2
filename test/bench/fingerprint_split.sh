#!/usr/bin/env bash
# Where simhash(text)'s time goes (test/bench/fingerprint_split.cpp): the
# pure C++ core, built as the extension is (-O2) without PostgreSQL, timed
# in stages over the fingerprint benchmark's corpus.  Not a test: it prints
# a table and asserts nothing; the table also goes to
# test/bench/results/fingerprint_split.md (the latest run only).
#   bash test/bench/fingerprint_split.sh [rounds, default 7]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-7}
bash scripts/install-deps.sh manpages-zh fortunes-zh manpages-ja manpages-ru manpages-de
TMP=$(mktemp -d /tmp/simhash-split.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
g++ -std=c++17 -O2 -DXXH_INLINE_ALL -Isrc/core -o "$TMP/split" test/bench/fingerprint_split.cpp src/core/*.cpp
perl test/bench/corpus.pl > "$TMP/corpus.tsv"
RESULTS=test/bench/results/fingerprint_split.md
mkdir -p "$(dirname "$RESULTS")"
{
    echo "# Where simhash(text)'s time goes"
    echo
    echo "Written by test/bench/fingerprint_split.sh; the latest run only. Each stage adds one part of"
    echo "the work to the one before (test/bench/fingerprint_split.cpp); median of $ROUNDS rounds."
    echo
    echo "- Command: \`bash test/bench/fingerprint_split.sh $ROUNDS\`"
    echo "- Machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
         "$(g++ --version | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)"
    echo
    "$TMP/split" "$ROUNDS" < "$TMP/corpus.tsv" 2>/dev/null
} | tee "$RESULTS"
