#!/usr/bin/env bash
# Benchmark: simhash_agg with its bytea state (1.1, which Citus can compute
# on its workers) against the same aggregate with the internal state of 1.0,
# over the same 1M rows in the same run, one group and 1,000 groups, serial.
# Prints the median of the rounds and the ratio bytea/internal (the bytea
# state was adopted on the condition that it stay within 10%).  Not a test:
# it prints numbers and asserts nothing.
#   bash test/bench/aggregate_state_bench.sh [rounds, default 7]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
ROUNDS=${1:-7}
source scripts/scratch-cluster.sh

make -s -j2 && make -s install >/dev/null

SCRATCH_SETTINGS="-c shared_buffers=256MB -c max_parallel_workers_per_gather=0 -c jit=off"
start_scratch_cluster "$ROOT/.scratch/bench"
trap stop_scratch_cluster EXIT

"${PSQL[@]}" -v rounds="$ROUNDS" -f test/bench/aggregate_state_bench.sql
