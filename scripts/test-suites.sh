#!/usr/bin/env bash
# Every test suite against the PostgreSQL that pg_config names: builds with
# warnings as errors, installs, and runs
#   core unit tests (plain, then under ASan + UBSan), the scripts'
#   safeguards, pg_regress, isolation, TAP (crash recovery, standby replay)
#   and the randomized differential test of the index, each in its own
#   temporary PostgreSQL instance.
# scripts/test-all.sh (README's test command) runs it on the machine's
# PostgreSQL and inside a chroot for each other major; run alone, it expects
# what scripts/install-deps.sh installs.  One run at a time in a checkout: a
# second one waits (lock_checkout in pg-env.sh).
# It ends with one summary line, "tests: N passed, M failed", after a line
# per suite, "suite NAME: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
source scripts/pg-env.sh
lock_checkout "$ROOT/.scratch" || { echo "tests: 0 passed, 1 failed (could not lock $ROOT/.scratch/lock)"; exit 1; }

step() { printf '\n==== %s\n' "$*"; }
passed=0
failed=0
failed_suites=()
record() {  # record SUITE PASSED FAILED
    passed=$((passed + $2))
    failed=$((failed + $3))
    if [ "$3" -ne 0 ]; then failed_suites+=("$1"); fi
    echo "suite $1: $2 passed, $3 failed"
}

step "build (warnings are errors) and install, for $(pg_config --version)"
make -s clean >/dev/null
if ! make -s SIMHASH_WERROR=1 -j2; then
    echo "tests: 0 passed, 1 failed (the build failed)"
    exit 1
fi
if ! make -s install >/dev/null; then
    echo "tests: 0 passed, 1 failed (make install failed: $(install_needs))"
    exit 1
fi

step "core unit tests (plain, then AddressSanitizer + UndefinedBehaviorSanitizer)"
make -s -C test/unit clean >/dev/null
make -s -j2 -C test/unit all >/dev/null 2>&1 || make -C test/unit all
for binary in core_tests core_tests_sanitized; do
    log=$(mktemp) || exit 1
    if [ -x test/unit/build/$binary ]; then
        test/unit/build/$binary 2>&1 | tee "$log" | grep -E '^\[  (PASSED|FAILED)|^\[==========\]'
        status=${PIPESTATUS[0]}
    else
        status=1
    fi
    ok=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log")
    bad=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log")
    ok=${ok:-0}; bad=${bad:-0}
    if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; fi
    record "$binary" "$ok" "$bad"
    rm -f "$log"
done

step "the scripts' safeguards (test/scripts/run.sh)"
log=$(mktemp) || exit 1
bash test/scripts/run.sh 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
ok=$(grep -c '^ok ' "$log")
bad=$(grep -c '^not ok ' "$log")
if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; fi
record scripts "$ok" "$bad"
rm -f "$log"

# The server-side suites run as the cluster owner, on a copy it can write to
# (initdb refuses root, and the checkout stays owned by whoever cloned it).
WORK=$(mktemp -d /tmp/simhash-test.XXXXXX) || { echo "tests: 0 passed, 1 failed (mktemp failed)"; exit 1; }
cp -a "$ROOT/." "$WORK/"
rm -rf "$WORK/.git" "$WORK/results" "$WORK/tmp_check" "$WORK/test/isolation/output"
if [ "$(id -u)" -eq 0 ]; then chown -R postgres: "$WORK"; fi
run_pgxs() {  # run_pgxs LOGFILE VAR=VALUE...
    local log=$1
    shift
    (cd "$WORK" && as_cluster_owner make -s installcheck "$@" \
        EXTRA_REGRESS_OPTS="--temp-instance=$WORK/tmp_instance_$RANDOM") >"$log" 2>&1
}

# A pg_regress-style suite: "test NAME ... ok|FAILED" lines, diffs on failure.
run_regress_suite() {  # run_regress_suite NAME DIFFS_FILE VAR=VALUE...
    local name=$1 diffs=$2
    shift 2
    step "$name"
    run_pgxs "$log" "$@"
    local status=$? total bad
    grep -E '^(test |ok |not ok )|tests (passed|failed)' "$log"
    total=$(grep -cE '^(test |ok |not ok )' "$log")
    bad=$(grep -E '^(test |ok |not ok )' "$log" | grep -c 'FAILED\|not ok')
    if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; cat "$log"; fi
    if [ "$bad" -ne 0 ] && [ -f "$diffs" ]; then as_cluster_owner head -200 "$diffs"; fi
    record "$name" $((total - bad)) "$bad"
}

log=$(mktemp) || exit 1
run_regress_suite pg_regress "$WORK/regression.diffs" ISOLATION= TAP_TESTS=
if ls test/isolation/specs/*.spec >/dev/null 2>&1; then
    run_regress_suite isolation "$WORK/test/isolation/output/regression.diffs" REGRESS= TAP_TESTS=
fi

if ls test/t/*.pl >/dev/null 2>&1; then
    step "TAP"
    run_pgxs "$log" REGRESS= ISOLATION= PROVE_FLAGS=--verbose
    status=$?
    grep -E '^(t/|ok |not ok |Files=|Result:)' "$log"
    ok=$(grep -cE '^ok ' "$log")
    bad=$(grep -cE '^not ok ' "$log")
    if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; tail -80 "$log"; fi
    # the tests' own logs are regress_log_NNN, the servers' NNN_node.log
    if [ "$bad" -ne 0 ]; then
        find "$WORK/tmp_check" \( -name '*.log' -o -name 'regress_log_*' \) -newer "$log" 2>/dev/null | head -8 |
            as_cluster_owner xargs -r tail -n 40
    fi
    record TAP "$ok" "$bad"
fi

if [ -x test/differential/run.sh ]; then
    step "randomized differential test of the index"
    # as the cluster owner, whose copy it is: root running a script from a
    # tree that user can write would run that user's code
    if (cd "$WORK" && as_cluster_owner bash test/differential/run.sh) >"$log" 2>&1; then
        tail -5 "$log"
        record differential 1 0
    else
        tail -40 "$log"
        record differential 0 1
    fi
fi
rm -f "$log"
# the suites' logs stay when one failed (the output above names files in it)
if [ "$failed" -eq 0 ]; then rm -rf "$WORK"; else echo "logs of this run: $WORK"; fi

step "summary"
if [ "$failed" -ne 0 ]; then echo "failing suites: ${failed_suites[*]}"; fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
