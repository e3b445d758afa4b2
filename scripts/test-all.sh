#!/usr/bin/env bash
# Every test suite on every supported PostgreSQL major (`bash
# scripts/test-all.sh`, or `make test`; .ci/run runs it): installs what is
# missing, then runs scripts/test-suites.sh (build with warnings as errors,
# install, core unit tests, the scripts' safeguards, pg_regress, isolation,
# TAP, the differential test)
#   - on the machine's PostgreSQL (15 on Debian 12), and
#   - for 17 and 18, inside a Debian chroot that ships that major (trixie,
#     sid; scripts/chroot.sh), bootstrapped on first use and kept in
#     $SIMHASH_CHROOTS (default /var/cache/simhash-chroots);
# and the cross-version dump test (test/dump_restore/run.sh): a database
# made on the machine's major, dumped, restored into each chroot's major,
# must answer as the original did.
# SIMHASH_MAJORS picks the majors (default "15 17 18"; SIMHASH_MAJORS=15 runs
# the machine's only).  The chroots need root, as the machine's installs do.
# SIMHASH_HOST_LOCK names a lock file to hold (flock) while the run installs
# into and tests the machine's PostgreSQL, where several checkouts share it;
# the chroots' suites run outside it.
# It prints a matrix (major, source, passed, failed, seconds) and ends with
# one summary line over all of it, "tests: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
source scripts/pg-env.sh
source scripts/chroot.sh
lock_checkout "$ROOT/.scratch" || { echo "tests: 0 passed, 1 failed (could not lock $ROOT/.scratch/lock)"; exit 1; }

MAJORS=${SIMHASH_MAJORS:-15 17 18}
if ! bash scripts/install-deps.sh; then
    echo "tests: 0 passed, 1 failed (what the tests need could not be installed)"
    exit 1
fi
HOST_MAJOR=$(pg_config --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')

DUMP=$(mktemp -d /tmp/simhash-dump.XXXXXX) || exit 1
cleanup() {
    chroot_close
    rm -rf "$DUMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rows=()
passed=0
failed=0
# row MAJOR SOURCE SECONDS LOG: the counts of the last "tests: N passed, M
# failed" line of LOG; none at all counts as one failure
row() {
    local ok bad line
    line=$(grep -E '^tests: [0-9]+ passed, [0-9]+ failed' "$4" | tail -1)
    ok=$(sed -n 's/^tests: \([0-9]*\) passed.*/\1/p' <<<"$line")
    bad=$(sed -n 's/^tests: [0-9]* passed, \([0-9]*\) failed.*/\1/p' <<<"$line")
    if [ -z "$line" ]; then ok=0 bad=1; fi
    passed=$((passed + ok))
    failed=$((failed + bad))
    rows+=("$(printf '%-6s %-34s %7s %7s %8s' "$1" "$2" "$ok" "$bad" "$3")")
}
# run_logged MAJOR SOURCE CMD...: runs CMD, its output shown and kept for row
run_logged() {
    local major=$1 source=$2 start log
    shift 2
    log=$(mktemp) || exit 1
    start=$(date +%s)
    "$@" 2>&1 | tee "$log"
    row "$major" "$source" $(($(date +%s) - start)) "$log"
    rm -f "$log"
}
banner() { printf '\n######## %s\n' "$*"; }
# a row that could not run at all, with why
failed_row() {  # failed_row MAJOR SOURCE WHY
    local log
    log=$(mktemp) || exit 1
    echo "tests: 0 passed, 1 failed ($3)" | tee "$log"
    row "$1" "$2" 0 "$log"
    rm -f "$log"
}

dump_made=
for major in $MAJORS; do
    if [ "$major" = "$HOST_MAJOR" ]; then
        if [ -n "${SIMHASH_HOST_LOCK:-}" ] && ! { exec {host_lock}>>"$SIMHASH_HOST_LOCK" && flock "$host_lock"; }; then
            failed_row "$major" "this machine" "could not lock $SIMHASH_HOST_LOCK"
            continue
        fi
        banner "PostgreSQL $major: this machine"
        run_logged "$major" "this machine" bash scripts/test-suites.sh
        banner "PostgreSQL $major: the database the other majors restore"
        if bash test/dump_restore/run.sh dump "$DUMP"; then dump_made=1; else failed_row "$major" "dump for the other majors" "making the dump failed"; fi
        if [ -n "${host_lock:-}" ]; then exec {host_lock}>&-; fi
        continue
    fi
    suite=$(chroot_suite "$major") || { failed_row "$major" "none" "no Debian suite ships PostgreSQL $major"; continue; }
    banner "PostgreSQL $major: Debian $suite chroot"
    start=$(date +%s)
    if ! chroot_open "$major"; then
        chroot_close
        failed_row "$major" "chroot $suite" "the chroot could not be made or entered"
        continue
    fi
    # a bootstrap's minutes are named in the row, apart from the suites'
    opened=$(($(date +%s) - start))
    row_source="chroot $suite"
    [ "$opened" -gt 30 ] && row_source="chroot $suite (made in $opened s)"
    run_logged "$major" "$row_source" chroot_run bash scripts/test-suites.sh
    if [ -n "$dump_made" ]; then
        banner "PostgreSQL $major: the dump of $HOST_MAJOR restored"
        mkdir -p "$CHROOT_DIR$CHROOT_WORK/.dump" && cp -a "$DUMP/." "$CHROOT_DIR$CHROOT_WORK/.dump/"
        run_logged "$major" "dump of $HOST_MAJOR restored" chroot_run bash test/dump_restore/run.sh restore .dump
    fi
    chroot_close
done

banner "summary"
printf '%-6s %-34s %7s %7s %8s\n' major source passed failed seconds
printf '%s\n' "${rows[@]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
